/**
 * The package.json a workspace is packed with. In the repository every export names its TypeScript source under the
 * `@tawsil/source` condition, so the workspaces, vitest and the app resolve one another's sources; a published
 * package ships only `dist/`, and a host that runs with that condition (the bundled app, loading a plugin installed
 * from a tarball) must not be sent to sources that are not there. `prepack` (after `tsc -b` of the package) sets the
 * committed manifest aside and writes one without the condition and without the pack scripts; `postpack` puts the
 * committed one back. npm skips `postpack` when the pack fails (a missing `--pack-destination`, say), and the
 * manifest left behind has no pack scripts to heal itself with: `restore` puts every workspace's committed manifest
 * back, and the next `prepack` of a workspace restores its own backup before anything else.
 *
 *
 * Tests and the plugin check never pack in the working tree (a manifest rewritten there, even for a moment, is read
 * half-written by whatever else runs): `packCopies` builds the workspaces, copies each to a temporary folder with the
 * manifest it is published with, and packs the copies.
 *
 *   node ../../scripts/publishManifest.ts prepack | postpack     (run by npm in the workspace's folder)
 *   node scripts/publishManifest.ts restore                      (from the root, after a failed pack)
 */
import { execFile } from "node:child_process"
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { promisify } from "node:util"
import { workspaces } from "./release.ts"

const SOURCE_CONDITION = "@tawsil/source"
const MANIFEST = "package.json"
const BACKUP = "package.json.prepack"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const withoutSourceCondition = (value: Json): Json => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(withoutSourceCondition)
  const out: Record<string, Json> = {}
  for (const [key, inner] of Object.entries(value as { readonly [key: string]: Json })) {
    if (key !== SOURCE_CONDITION) out[key] = withoutSourceCondition(inner)
  }
  return out
}

/** The manifest a tarball carries: the committed one, minus the source condition and the pack scripts. */
export const publishManifest = (manifest: Record<string, Json>): Record<string, Json> => {
  const out: Record<string, Json> = { ...manifest }
  if (out.exports !== undefined) out.exports = withoutSourceCondition(out.exports)
  const scripts = out.scripts
  if (scripts !== null && typeof scripts === "object" && !Array.isArray(scripts)) {
    const kept = Object.fromEntries(
      Object.entries(scripts as Record<string, Json>).filter(([name]) => name !== "prepack" && name !== "postpack")
    )
    if (Object.keys(kept).length === 0) delete out.scripts
    else out.scripts = kept
  }
  return out
}

const restore = (folder = "."): boolean => {
  const backup = Path.join(folder, BACKUP)
  if (!existsSync(backup)) return false
  renameSync(backup, Path.join(folder, MANIFEST))
  return true
}

/** Puts back the committed manifest of every workspace a failed pack left rewritten; returns their folders. */
export const restoreAll = (root: string): ReadonlyArray<string> =>
  workspaces(root)
    .map((workspace) => workspace.folder)
    .filter((folder) => restore(Path.join(root, folder)))

/** What `npm pack --json` reports of one tarball. */
export interface Packed {
  readonly name: string
  readonly version: string
  readonly filename: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<{ readonly path: string; readonly size: number }>
}

const run = promisify(execFile)

/**
 * The workspaces in `folders` (relative to `root`) packed as they are published, without touching the working tree:
 * built (`tsc -b`, as their prepack does), each copied to a temporary folder with its published manifest
 * (`publishManifest`, which has no pack scripts), and the copies packed in one `npm pack --json --ignore-scripts`
 * into `destination` — or, with `dryRun`, only reported (`--dry-run`: the same files and sizes, no tarball written).
 * `env` is the child npm's environment.
 */
export const packCopies = async (
  root: string,
  folders: ReadonlyArray<string>,
  options: { readonly destination?: string; readonly dryRun?: boolean; readonly env?: NodeJS.ProcessEnv } = {}
): Promise<ReadonlyArray<Packed>> => {
  const env = options.env ?? process.env
  const tsc = Path.join(root, "node_modules", "typescript", "bin", "tsc")
  await run(process.execPath, [tsc, "-b", ...folders.map((folder) => Path.join(root, folder))], { cwd: root, env })
  const copies = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-pack-copies-"))
  try {
    const copied = folders.map((folder) => {
      const into = Path.join(copies, folder.replaceAll("/", "__"))
      cpSync(Path.join(root, folder), into, {
        recursive: true,
        filter: (source) => Path.basename(source) !== "node_modules"
      })
      const manifest = JSON.parse(readFileSync(Path.join(into, MANIFEST), "utf8")) as Record<string, Json>
      writeFileSync(Path.join(into, MANIFEST), `${JSON.stringify(publishManifest(manifest), null, 2)}\n`)
      return into
    })
    const args = ["pack", ...copied, "--json", "--ignore-scripts"]
    if (options.dryRun === true) args.push("--dry-run")
    else args.push("--pack-destination", options.destination ?? root)
    const { stdout } = await run("npm", args, { cwd: copies, env, maxBuffer: 64 * 1024 * 1024 })
    return JSON.parse(stdout) as ReadonlyArray<Packed>
  } finally {
    rmSync(copies, { recursive: true, force: true })
  }
}

const main = (command: string | undefined): void => {
  switch (command) {
    case "prepack": {
      restore()
      const manifest = JSON.parse(readFileSync(MANIFEST, "utf8")) as Record<string, Json>
      copyFileSync(MANIFEST, BACKUP)
      writeFileSync(MANIFEST, `${JSON.stringify(publishManifest(manifest), null, 2)}\n`)
      return
    }
    case "postpack":
      restore()
      return
    case "restore":
      for (const folder of restoreAll(process.cwd())) console.log(`restored ${folder}/${MANIFEST}`)
      return
    default:
      throw new Error(`usage: publishManifest.ts prepack|postpack|restore (got ${String(command)})`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv[2])
