/**
 * Finds the courier adapters installed next to the host: every package in the host's `node_modules` search path
 * whose package.json says `"tawsil": { "courierAdapter": true }` (workspace adapters are symlinked there too), plus
 * any plugin named in configuration — a package name, a package folder (one installed from a tarball, or a plugin's
 * own working folder) or an entry file. Each is imported and must export an `adapter` made by
 * `CourierAdapter.define`; anything else refuses the start with one clear message (fail closed), and so does a
 * platform or courier name claimed by two packages. Adding an adapter needs no code change in the host.
 *
 * A plugin living outside the host is loaded with the host's copies of `effect` and `@tawsil/*` (one runtime, one
 * set of error classes), and its other dependencies resolve without the host's development-only export conditions:
 * the host may run its own sources through `--conditions=@tawsil/source`, the plugin's packages never see it.
 */

import * as Fs from "node:fs"
import * as Module from "node:module"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type Any, define, InvalidAdapter } from "@tawsil/courier/CourierAdapter"
import { Effect } from "effect"

/** Export conditions that only mean something inside this repository's workspace. */
const HOST_ONLY_CONDITIONS: ReadonlySet<string> = new Set(["@tawsil/source"])

interface PackageJson {
  readonly name?: string
  readonly main?: string
  readonly exports?: unknown
  readonly tawsil?: { readonly courierAdapter?: boolean }
}

const readPackageJson = (path: string): PackageJson | undefined => {
  try {
    return JSON.parse(Fs.readFileSync(path, "utf8")) as PackageJson
  } catch {
    return undefined
  }
}

const isAdapterPackage = (manifestPath: string): string | undefined => {
  const manifest = readPackageJson(manifestPath)
  return manifest?.tawsil?.courierAdapter === true ? manifest.name : undefined
}

/** Names of adapter packages visible from `from` (a file URL or path of the host), nearest first. */
export const installedPackages = (from: string): ReadonlyArray<string> => {
  const require = Module.createRequire(from)
  const names = new Set<string>()
  for (const dir of require.resolve.paths("tawsil-adapter-probe") ?? []) {
    if (!Fs.existsSync(dir)) continue
    for (const entry of Fs.readdirSync(dir)) {
      const candidates = entry.startsWith("@")
        ? Fs.readdirSync(Path.join(dir, entry)).map((name) => Path.join(dir, entry, name))
        : [Path.join(dir, entry)]
      for (const candidate of candidates) {
        const name = isAdapterPackage(Path.join(candidate, "package.json"))
        if (name !== undefined) names.add(name)
      }
    }
  }
  return [...names]
}

// --- Where a plugin's entry is ----------------------------------------------------------------------------------

/** The plugin's package folder and name, and the file to import. */
export interface Located {
  readonly root: string
  readonly packageName: string
  readonly entry: string
}

/** The nearest folder at or above `start` holding a package.json. */
const packageRootOf = (start: string): string | undefined => {
  for (let dir = start; ; dir = Path.dirname(dir)) {
    if (Fs.existsSync(Path.join(dir, "package.json"))) return dir
    if (Path.dirname(dir) === dir) return undefined
  }
}

/** The conditions a plain Node import of a plugin matches, in no particular order: the object's order decides. */
const PLAIN_CONDITIONS: ReadonlySet<string> = new Set(["import", "node", "module-sync", "default"])

const pickTarget = (target: unknown): string | undefined => {
  if (typeof target === "string") return target
  if (Array.isArray(target)) {
    for (const item of target) {
      const picked = pickTarget(item)
      if (picked !== undefined) return picked
    }
    return undefined
  }
  if (typeof target === "object" && target !== null) {
    for (const [condition, value] of Object.entries(target)) {
      if (PLAIN_CONDITIONS.has(condition)) {
        const picked = pickTarget(value)
        if (picked !== undefined) return picked
      }
    }
  }
  return undefined
}

/** The file a plain `import` of the package folder's main export names (its `exports["."]`, else `main`). */
const entryOfFolder = (root: string, manifest: PackageJson): string => {
  const exports = manifest.exports
  const main =
    typeof exports === "object" && exports !== null && !Array.isArray(exports) && "." in exports
      ? (exports as Record<string, unknown>)["."]
      : exports
  const target = (main === undefined ? undefined : pickTarget(main)) ?? manifest.main ?? "index.js"
  return Path.resolve(root, target)
}

const isPath = (specifier: string) =>
  Path.isAbsolute(specifier) || specifier.startsWith("./") || specifier.startsWith("../") || specifier === "."

/**
 * Where the plugin named by `specifier` is: a path (absolute, or relative to the working directory) to a package
 * folder or to an entry file, or a package name resolved from the host.
 */
export const locate = (from: string, specifier: string): Located => {
  if (isPath(specifier)) {
    const path = Fs.realpathSync(Path.resolve(specifier))
    if (Fs.statSync(path).isDirectory()) {
      const manifest = readPackageJson(Path.join(path, "package.json"))
      if (manifest === undefined) throw new Error(`${path} is a folder without a package.json`)
      return { root: path, packageName: manifest.name ?? path, entry: entryOfFolder(path, manifest) }
    }
    const root = packageRootOf(Path.dirname(path)) ?? Path.dirname(path)
    return { root, packageName: readPackageJson(Path.join(root, "package.json"))?.name ?? path, entry: path }
  }
  // Resolved from the host, with the host's export conditions, so that the host's copy is the one loaded.
  const entry = Fs.realpathSync(Module.createRequire(from).resolve(specifier))
  return { root: packageRootOf(Path.dirname(entry)) ?? Path.dirname(entry), packageName: specifier, entry }
}

// --- Loading a plugin apart from the host's build setup ------------------------------------------------------------

/** Package folders of plugins loaded from outside the host; resolutions from inside them are rewritten. */
const pluginRoots = new Set<string>()
let hooksRegistered = false
let hostUrl: string | undefined

const insidePlugin = (parentURL: string | undefined): boolean => {
  if (parentURL === undefined || !parentURL.startsWith("file:")) return false
  const parent = fileURLToPath(parentURL)
  for (const root of pluginRoots) if (parent.startsWith(root + Path.sep)) return true
  return false
}

/**
 * The folder whose resolutions are the plugin's: its package folder, or for a package installed into some
 * `node_modules` (from a tarball, say), the project that installed it — its dependencies are hoisted beside it.
 */
const scopeOf = (root: string) => {
  const index = root.indexOf(`${Path.sep}node_modules${Path.sep}`)
  return index === -1 ? root : root.slice(0, index)
}

/** What a plugin shares with its host: the Effect runtime and the Tawsil SDK, one copy each. */
const isShared = (specifier: string) =>
  specifier === "effect" || specifier.startsWith("effect/") || specifier.startsWith("@tawsil/")

const registerHooks = () => {
  if (hooksRegistered) return
  hooksRegistered = true
  Module.registerHooks({
    resolve: (specifier, context, nextResolve) => {
      if (!insidePlugin(context.parentURL)) return nextResolve(specifier, context)
      if (isShared(specifier) && hostUrl !== undefined) {
        try {
          return nextResolve(specifier, { ...context, parentURL: hostUrl })
        } catch {
          // The host does not have it: the plugin's own copy, resolved below.
        }
      }
      return nextResolve(specifier, {
        ...context,
        conditions: context.conditions.filter((condition) => !HOST_ONLY_CONDITIONS.has(condition))
      })
    }
  })
}

/**
 * A plugin outside the host's module tree: neither under one of the host's `node_modules` folders nor a workspace
 * package linked there. Those already resolve the host's way.
 */
const isOutsideHost = (from: string, located: Located) => {
  const searched = (Module.createRequire(from).resolve.paths("tawsil-adapter-probe") ?? []).flatMap((dir) => {
    try {
      return [Fs.realpathSync(dir)]
    } catch {
      return []
    }
  })
  return !searched.some((dir) => located.root.startsWith(dir + Path.sep)) && !isWorkspacePackage(from, located)
}

/** A workspace package symlinked into one of the host's `node_modules` folders. */
const isWorkspacePackage = (from: string, located: Located): boolean => {
  const require = Module.createRequire(from)
  for (const dir of require.resolve.paths("tawsil-adapter-probe") ?? []) {
    const candidate = Path.join(dir, located.packageName)
    try {
      if (Fs.realpathSync(candidate) === located.root) return true
    } catch {
      // not installed there
    }
  }
  return false
}

/** A loaded, checked adapter and the package it came from. */
export interface Plugin {
  readonly adapter: Any
  readonly packageName: string
  readonly entry: string
}

const isAdapter = (value: unknown): value is Any =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Any).platform === "string" &&
  Array.isArray((value as Any).couriers) &&
  typeof (value as Any).operations === "object"

/** Imports one plugin (a package name, a package folder or an entry file) and checks its manifest. */
export const loadPlugin = (from: string, specifier: string): Effect.Effect<Plugin, InvalidAdapter> =>
  Effect.tryPromise({
    try: async () => {
      const located = locate(from, specifier)
      if (isOutsideHost(from, located)) {
        hostUrl ??= from.startsWith("file:") ? from : pathToFileURL(from).href
        const hostFile = from.startsWith("file:") ? fileURLToPath(from) : from
        // Never a scope holding the host itself: its own resolutions must stay as they are.
        const scope = [scopeOf(located.root), located.root].find((dir) => !hostFile.startsWith(dir + Path.sep))
        if (scope !== undefined) pluginRoots.add(scope)
        registerHooks()
      }
      const module = (await import(pathToFileURL(located.entry).href)) as { adapter?: unknown }
      return { located, adapter: module.adapter }
    },
    catch: (cause) =>
      new InvalidAdapter({
        platform: specifier,
        problem: `cannot be loaded: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  }).pipe(
    Effect.flatMap(({ adapter, located }) =>
      isAdapter(adapter)
        ? // Checked again as `define` checks it: a hand-built object must not skip the manifest rules.
          Effect.try({
            try: (): Plugin => ({
              adapter: define(adapter as Parameters<typeof define>[0]) as Any,
              packageName: located.packageName,
              entry: located.entry
            }),
            catch: (error) =>
              error instanceof InvalidAdapter
                ? error
                : new InvalidAdapter({ platform: specifier, problem: String(error) })
          })
        : Effect.fail(
            new InvalidAdapter({
              platform: specifier,
              problem: `(${located.packageName}) does not export an \`adapter\` made by CourierAdapter.define`
            })
          )
    )
  )

/** Imports one adapter package by name (or path) as the host would resolve it. */
export const load = (from: string, specifier: string): Effect.Effect<Any, InvalidAdapter> =>
  Effect.map(loadPlugin(from, specifier), (plugin) => plugin.adapter)

/**
 * The first platform or courier name (key or alias) two different packages claim, as an error naming both;
 * `undefined` when there is none. The same package reached twice (by name and by folder) is loaded once.
 */
export const clash = (plugins: ReadonlyArray<Plugin>): InvalidAdapter | undefined => {
  const platforms = new Map<string, Plugin>()
  const names = new Map<string, Plugin>()
  for (const plugin of plugins) {
    const other = platforms.get(plugin.adapter.platform)
    if (other !== undefined) {
      return new InvalidAdapter({
        platform: plugin.adapter.platform,
        problem: `is claimed by two packages: ${other.packageName} (${other.entry}) and ${plugin.packageName} (${plugin.entry})`
      })
    }
    platforms.set(plugin.adapter.platform, plugin)
    for (const courier of plugin.adapter.couriers) {
      for (const name of [courier.key, ...courier.aliases]) {
        const other = names.get(name)
        if (other !== undefined && other !== plugin) {
          return new InvalidAdapter({
            platform: plugin.adapter.platform,
            problem: `courier name ${JSON.stringify(name)} is claimed by two packages: ${other.packageName} (platform ${other.adapter.platform}) and ${plugin.packageName} (platform ${plugin.adapter.platform})`
          })
        }
        names.set(name, plugin)
      }
    }
  }
  return undefined
}

/** Every installed adapter package plus the plugins named in configuration, loaded, checked and told apart. */
export const discoverPlugins = (from: string, extra: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const loaded = yield* Effect.forEach([...new Set([...installedPackages(from), ...extra])], (specifier) =>
      loadPlugin(from, specifier)
    )
    const byEntry = new Map<string, Plugin>()
    for (const plugin of loaded) if (!byEntry.has(plugin.entry)) byEntry.set(plugin.entry, plugin)
    const plugins = [...byEntry.values()]
    const found = clash(plugins)
    if (found !== undefined) return yield* found
    return plugins
  })

/** Every installed adapter plus the ones named in configuration, loaded and checked. */
export const discover = (from: string, extra: ReadonlyArray<string> = []) =>
  Effect.map(discoverPlugins(from, extra), (plugins) => plugins.map((plugin) => plugin.adapter))
