/**
 * The repository's workspaces as the packaging tests see them, found from the root `package.json`'s globs at run
 * time (so a workspace added later is covered without a list to update).
 */
import { execFile } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as Path from "node:path"
import { promisify } from "node:util"

export const ROOT = Path.resolve(import.meta.dirname, "../../../..")

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly files?: ReadonlyArray<string>
  readonly scripts?: Readonly<Record<string, string>>
  readonly exports?: unknown
  readonly dependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly optionalDependencies?: Readonly<Record<string, string>>
}

export interface Workspace {
  /** The folder, relative to the root: `packages/orders`. */
  readonly folder: string
  readonly manifest: Manifest
}

export const dependencyFields = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const

export const readManifest = (file: string): Manifest => JSON.parse(readFileSync(file, "utf8")) as Manifest

/** Every workspace the root names (`packages/*`, `adapters/*`, `apps/*`), in folder order. */
export const workspaces = (): ReadonlyArray<Workspace> => {
  const globs = (readManifest(Path.join(ROOT, "package.json")) as Manifest & { workspaces: ReadonlyArray<string> })
    .workspaces
  return globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) throw new Error(`unsupported workspace glob ${glob}`)
    const parent = glob.slice(0, -2)
    return readdirSync(Path.join(ROOT, parent))
      .sort()
      .map((name) => `${parent}/${name}`)
      .filter((folder) => existsSync(Path.join(ROOT, folder, "package.json")))
      .map((folder) => ({ folder, manifest: readManifest(Path.join(ROOT, folder, "package.json")) }))
  })
}

/** The workspaces that are published: everything under `packages/` and `adapters/`; apps stay private. */
export const publishable = (): ReadonlyArray<Workspace> =>
  workspaces().filter((workspace) => !workspace.folder.startsWith("apps/"))

/** The `@tawsil/*` dependencies of a manifest, field by field. */
export const internalDependencies = (
  manifest: Manifest
): ReadonlyArray<{ field: string; name: string; range: string }> =>
  dependencyFields.flatMap((field) =>
    Object.entries(manifest[field] ?? {})
      .filter(([name]) => name.startsWith("@tawsil/"))
      .map(([name, range]) => ({ field, name, range }))
  )

/**
 * The environment of a child npm: the lifecycle variables of an enclosing `npm test` would tell it which package
 * it runs for, and the `node` that runs the tests comes first on the path (npm scripts run `node` from the path).
 */
export const childEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle|command|config_workspace)/i.test(key) || key === "INIT_CWD") continue
    env[key] = value
  }
  env.PATH = [Path.dirname(process.execPath), env.PATH ?? ""].join(Path.delimiter)
  return env
}

export const run = promisify(execFile)
