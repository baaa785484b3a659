/**
 * Release chores for the workspaces, which all carry one version and pin one another to it exactly:
 *
 *   node scripts/release.ts version <x.y.z>   sets every workspace's version and its @tawsil/* dependencies to it
 *                                             (then run `npm install` to update the lockfile)
 *   node scripts/release.ts order             prints the publishable workspaces (packages/ and adapters/), each
 *                                             after the workspaces it depends on: the order to publish them in
 *
 * Workspaces are found from the root package.json's globs, so a new package needs no entry here.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "..")
const FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const

interface Workspace {
  readonly folder: string
  readonly manifest: Record<string, unknown> & {
    readonly name: string
    readonly version: string
    readonly private?: boolean
  }
}

const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Workspace["manifest"]

export const workspaces = (root: string = ROOT): ReadonlyArray<Workspace> =>
  (read(Path.join(root, "package.json")).workspaces as ReadonlyArray<string>).flatMap((glob) => {
    const parent = glob.replace(/\/\*$/, "")
    return readdirSync(Path.join(root, parent))
      .sort()
      .map((name) => `${parent}/${name}`)
      .filter((folder) => existsSync(Path.join(root, folder, "package.json")))
      .map((folder) => ({ folder, manifest: read(Path.join(root, folder, "package.json")) }))
  })

const internalNames = (manifest: Workspace["manifest"], fields: ReadonlyArray<string>): ReadonlyArray<string> =>
  fields.flatMap((field) =>
    Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}).filter((name) =>
      name.startsWith("@tawsil/")
    )
  )

/** The publishable workspaces, each after its internal runtime and peer dependencies. */
export const publishOrder = (root: string = ROOT): ReadonlyArray<string> => {
  const publishable = new Map(
    workspaces(root)
      .filter((workspace) => workspace.manifest.private !== true)
      .map((workspace) => [workspace.manifest.name, workspace.manifest])
  )
  const order: Array<string> = []
  const visiting = new Set<string>()
  const visit = (name: string): void => {
    if (order.includes(name)) return
    if (visiting.has(name)) throw new Error(`dependency cycle through ${name}`)
    visiting.add(name)
    const manifest = publishable.get(name)
    if (manifest === undefined) throw new Error(`${name} is not a publishable workspace`)
    for (const dependency of internalNames(manifest, ["dependencies", "peerDependencies", "optionalDependencies"])) {
      visit(dependency)
    }
    visiting.delete(name)
    order.push(name)
  }
  for (const name of [...publishable.keys()].sort()) visit(name)
  return order
}

/** Sets every workspace's version, and each @tawsil/* dependency, to `version`. */
export const setVersion = (version: string, root: string = ROOT): void => {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`not a version: ${version}`)
  for (const { folder } of workspaces(root)) {
    const file = Path.join(root, folder, "package.json")
    const manifest = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>
    manifest.version = version
    for (const field of FIELDS) {
      const dependencies = manifest[field] as Record<string, string> | undefined
      for (const name of Object.keys(dependencies ?? {})) if (name.startsWith("@tawsil/")) dependencies![name] = version
    }
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, argument] = process.argv.slice(2)
  if (command === "order") console.log(publishOrder().join("\n"))
  else if (command === "version" && argument !== undefined) setVersion(argument)
  else {
    console.error("usage: node scripts/release.ts order | version <x.y.z>")
    process.exitCode = 1
  }
}
