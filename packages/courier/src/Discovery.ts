/**
 * Finds the courier adapters installed next to the host: every package in the host's `node_modules` search path
 * whose package.json says `"tawsil": { "courierAdapter": true }` (workspace adapters are symlinked there too), plus
 * any package named in configuration. Each is imported and must export an `adapter` made by `CourierAdapter.define`;
 * anything else refuses the start with one clear message (fail closed). Adding an installed adapter needs no code
 * change in the host.
 */

import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { type Any, define, InvalidAdapter } from "./CourierAdapter.ts"

const isAdapterPackage = (manifestPath: string): string | undefined => {
  try {
    const manifest = JSON.parse(Fs.readFileSync(manifestPath, "utf8")) as {
      name?: string
      tawsil?: { courierAdapter?: boolean }
    }
    return manifest.tawsil?.courierAdapter === true ? manifest.name : undefined
  } catch {
    return undefined
  }
}

/** Names of adapter packages visible from `from` (a file URL or path of the host), nearest first. */
export const installedPackages = (from: string): ReadonlyArray<string> => {
  const require = createRequire(from)
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

const isAdapter = (value: unknown): value is Any =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Any).platform === "string" &&
  Array.isArray((value as Any).couriers) &&
  typeof (value as Any).operations === "object"

/** Imports one adapter package by name (or path) as the host would resolve it. */
export const load = (from: string, specifier: string): Effect.Effect<Any, InvalidAdapter> =>
  Effect.tryPromise({
    try: async () => {
      // Resolved from the host, with the host's export conditions, so that the host's copy is the one loaded.
      const file = Path.isAbsolute(specifier) ? specifier : createRequire(from).resolve(specifier)
      const module = (await import(pathToFileURL(file).href)) as { adapter?: unknown }
      return module.adapter
    },
    catch: (cause) =>
      new InvalidAdapter({
        platform: specifier,
        problem: `cannot be loaded: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  }).pipe(
    Effect.flatMap((adapter) =>
      isAdapter(adapter)
        ? // Checked again as `define` checks it: a hand-built object must not skip the manifest rules.
          Effect.try({
            try: () => define(adapter as Parameters<typeof define>[0]) as Any,
            catch: (error) =>
              error instanceof InvalidAdapter
                ? error
                : new InvalidAdapter({ platform: specifier, problem: String(error) })
          })
        : Effect.fail(
            new InvalidAdapter({
              platform: specifier,
              problem: "does not export an `adapter` made by CourierAdapter.define"
            })
          )
    )
  )

/** Every installed adapter package plus the extra ones named in configuration, loaded and checked. */
export const discover = (from: string, extra: ReadonlyArray<string> = []) =>
  Effect.forEach([...new Set([...installedPackages(from), ...extra])], (specifier) => load(from, specifier))
