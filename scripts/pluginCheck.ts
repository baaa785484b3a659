/**
 * A courier plugin outside this repository, against packed SDK tarballs, the way its author builds it: written by
 * the scaffold (`tawsil-new-adapter`, `effect` a peer in the SDK's range) or by hand (the same sources under a
 * manifest that lists `effect` as a plain dependency, `^4.1.0`), installed by npm, type-checked, its conformance test
 * run with its own vitest, built — and with one copy of `effect` in its tree (`npm ls effect`).
 *
 *   node scripts/pluginCheck.ts [--effect <version>]... [--sdk <folder of tarballs>]
 *
 * Without `--effect`, both ends of the supported range: the version the repository pins (the lowest) and the
 * registry's newest 4.x (`latest`, which needs the registry: a release step, docs/publishing.md). Without `--sdk`,
 * the SDK workspaces are packed first. `OutOfTreePlugin.process.test.ts` runs `preparePlugin` offline, on the pinned version.
 */
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs, promisify } from "node:util"
import { packCopies } from "./publishManifest.ts"

const ROOT = Path.resolve(import.meta.dirname, "..")
const run = promisify(execFile)

/** The SDK packages a plugin installs: what it imports, and what those depend on. */
export const SDK = ["@tawsil/courier", "@tawsil/domain", "@tawsil/egress"] as const

export type Style = "scaffold" | "hand-written"

export interface Prepared {
  readonly folder: string
  readonly style: Style
  /** vitest's counts for the plugin's conformance test. */
  readonly conformance: {
    readonly numPassedTests: number
    readonly numFailedTests: number
    readonly numPendingTests: number
  }
  /** Every version of `effect` in the plugin's installed tree: one when the SDK shares the plugin's copy. */
  readonly effect: ReadonlyArray<string>
}

/**
 * The environment of a child npm: no lifecycle variables of an enclosing `npm test` (they would tell it which
 * package it runs for), and this process's `node` first on the path.
 */
const childEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle|command|config_workspace)/i.test(key) || key === "INIT_CWD") continue
    env[key] = value
  }
  env.PATH = [Path.dirname(process.execPath), env.PATH ?? ""].join(Path.delimiter)
  return env
}

const exec = async (command: string, args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  try {
    const { stdout } = await run(command, args, { cwd, env: childEnv(), maxBuffer: 64 * 1024 * 1024 })
    return stdout
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number }
    throw new Error(`${command} ${args.join(" ")} exited ${failed.code} in ${cwd}:\n${failed.stdout}${failed.stderr}`)
  }
}

/** The SDK workspaces packed into `out` as they are published (from copies: the working tree is not rewritten). */
export const packSdk = async (out: string): Promise<string> => {
  Fs.mkdirSync(out, { recursive: true })
  const folders = SDK.map((name) => `packages/${name.slice("@tawsil/".length)}`)
  await packCopies(ROOT, folders, { destination: out, env: childEnv() })
  return out
}

/** Every version of `name` in an `npm ls --json` tree. */
export const versionsOf = (name: string, tree: { readonly dependencies?: Record<string, unknown> }) => {
  const found = new Set<string>()
  const walk = (node: { readonly dependencies?: Record<string, unknown> }) => {
    for (const [dependency, child] of Object.entries(node.dependencies ?? {})) {
      const inner = child as { readonly version?: string; readonly dependencies?: Record<string, unknown> }
      if (dependency === name && inner.version !== undefined) found.add(inner.version)
      walk(inner)
    }
  }
  walk(tree)
  return [...found].sort()
}

/**
 * Writes a plugin for `platform` into `folder` and builds it. `effect`: the version the plugin's own install takes
 * (the scaffold's as a dev dependency beside its peer range, the hand-written one as its dependency); omitted, npm
 * picks the newest in the range.
 */
export const preparePlugin = async (options: {
  readonly folder: string
  readonly platform: string
  readonly style: Style
  readonly sdk: string
  readonly effect?: string | undefined
}): Promise<Prepared> => {
  const { folder, platform, sdk, style } = options
  await exec(
    process.execPath,
    [Path.join(ROOT, "packages/courier/src/scaffold/newAdapter.ts"), platform, "--out", folder, "--sdk", sdk],
    ROOT
  )
  const file = Path.join(folder, "package.json")
  const manifest = JSON.parse(Fs.readFileSync(file, "utf8"))
  const range: string = manifest.peerDependencies.effect
  if (style === "hand-written") {
    // What an author who never ran the scaffold writes: effect as a dependency of the plugin, in a caret range.
    delete manifest.peerDependencies
    manifest.dependencies = { ...manifest.dependencies, effect: options.effect ?? range }
  } else if (options.effect !== undefined) {
    manifest.devDependencies = { ...manifest.devDependencies, effect: options.effect }
  }
  Fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)

  await exec("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], folder)
  const tsc = Path.join(folder, "node_modules/typescript/bin/tsc")
  await exec(process.execPath, [tsc, "-p", "tsconfig.test.json"], folder)
  const report = Path.join(folder, "conformance.json")
  await exec(
    process.execPath,
    [Path.join(folder, "node_modules/vitest/vitest.mjs"), "run", "--reporter=json", `--outputFile=${report}`],
    folder
  )
  const conformance = JSON.parse(Fs.readFileSync(report, "utf8")) as Prepared["conformance"]
  await exec(process.execPath, [tsc, "-p", "tsconfig.json"], folder)
  const tree = JSON.parse(await exec("npm", ["ls", "effect", "--all", "--json"], folder))
  return { folder, style, conformance, effect: versionsOf("effect", tree) }
}

const main = async () => {
  const { values } = parseArgs({
    options: { effect: { type: "string", multiple: true }, sdk: { type: "string" } }
  })
  const pinned = JSON.parse(Fs.readFileSync(Path.join(ROOT, "package.json"), "utf8")).devDependencies.effect as string
  const effects = values.effect ?? [pinned, "latest"]
  const dir = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-plugin-check-")))
  let failed = false
  try {
    const sdk = values.sdk === undefined ? await packSdk(Path.join(dir, "sdk")) : Path.resolve(values.sdk)
    for (const effect of effects) {
      for (const style of ["scaffold", "hand-written"] as const) {
        const folder = Path.join(dir, `${style}-${effect}`)
        // `latest` is what npm picks in the range on its own: the newest 4.x.
        const prepared = await preparePlugin({
          folder,
          platform: "acme_post",
          style,
          sdk,
          effect: effect === "latest" ? undefined : effect
        })
        const { numPassedTests, numFailedTests } = prepared.conformance
        const ok = numFailedTests === 0 && numPassedTests > 0 && prepared.effect.length === 1
        failed ||= !ok
        console.log(
          `${ok ? "ok  " : "FAIL"} effect ${effect} (${style}): installed effect ${prepared.effect.join(", ")}; ` +
            `type-checked and built; conformance ${numPassedTests} passed, ${numFailedTests} failed`
        )
      }
    }
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  if (failed) process.exitCode = 1
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
