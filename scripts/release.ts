/**
 * Release chores for the workspaces, which all carry one version and pin one another to it exactly:
 *
 *   node scripts/release.ts version <x.y.z>   sets every workspace's version and its @tawsil/* dependencies to it
 *                                             (then run `npm install` to update the lockfile); refuses while a
 *                                             publishable workspace's CHANGELOG.md has no section for it
 *   node scripts/release.ts order             prints the publishable workspaces (packages/ and adapters/), each
 *                                             after the workspaces it depends on: the order to publish them in
 *   node scripts/release.ts peers             rewrites every publishable manifest so that `effect` and `@effect/*`
 *                                             are peer dependencies with a caret range on the version the root
 *                                             pins (run it after adding such a dependency; it is idempotent)
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

/** The packages a published workspace shares with its host rather than bringing its own copy: effect's. */
export const isPeer = (name: string): boolean => name === "effect" || name.startsWith("@effect/")

/**
 * A publishable manifest with `effect` and `@effect/*` as peer dependencies: taken out of `dependencies`, each peer
 * ranged `^<the version the root pins>` (the lowest version supported is the one the repository builds and tests
 * with), its optional flag kept. `pinned` is the root's devDependencies.
 */
export const withPeers = (
  manifest: Record<string, unknown>,
  pinned: Readonly<Record<string, string>>
): Record<string, unknown> => {
  const dependencies = { ...((manifest.dependencies as Record<string, string> | undefined) ?? {}) }
  const peers = { ...((manifest.peerDependencies as Record<string, string> | undefined) ?? {}) }
  for (const name of [...Object.keys(dependencies), ...Object.keys(peers)].filter(isPeer)) {
    const version = pinned[name]
    if (version === undefined || !/^\d+\.\d+\.\d+$/.test(version)) {
      throw new Error(`${String(manifest.name)} uses ${name}: pin it (x.y.z) in the root devDependencies`)
    }
    delete dependencies[name]
    peers[name] = `^${version}`
  }
  const sorted = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const out: Record<string, unknown> = {}
  let placed = false
  // Peers go right after the dependencies (else before the dev dependencies, else last), the same on every run.
  const placePeers = () => {
    if (placed) return
    placed = true
    if (Object.keys(peers).length === 0) return
    out.peerDependencies = sorted(peers)
    if (manifest.peerDependenciesMeta !== undefined) out.peerDependenciesMeta = manifest.peerDependenciesMeta
  }
  for (const [key, value] of Object.entries(manifest)) {
    if (key === "peerDependencies" || key === "peerDependenciesMeta") continue
    if (key === "dependencies") {
      if (Object.keys(dependencies).length > 0) out.dependencies = sorted(dependencies)
      placePeers()
    } else {
      if (key === "devDependencies") placePeers()
      out[key] = value
    }
  }
  placePeers()
  return out
}

/** Rewrites every publishable workspace's manifest with {@link withPeers}; returns the folders it changed. */
export const setPeers = (root: string = ROOT): ReadonlyArray<string> => {
  const pinned = (read(Path.join(root, "package.json")).devDependencies ?? {}) as Record<string, string>
  const changed: Array<string> = []
  for (const { folder, manifest } of workspaces(root)) {
    if (manifest.private === true) continue
    const file = Path.join(root, folder, "package.json")
    const text = `${JSON.stringify(withPeers(manifest, pinned), null, 2)}\n`
    if (text !== readFileSync(file, "utf8")) {
      writeFileSync(file, text)
      changed.push(folder)
    }
  }
  return changed
}

/** The heading a CHANGELOG.md gives a version: `## 0.2.0`, optionally followed by a date or a note. */
export const hasChangelogSection = (changelog: string, version: string): boolean =>
  new RegExp(`^## ${version.replaceAll(".", "\\.")}(\\s|$)`, "m").test(changelog)

/** The publishable workspaces whose CHANGELOG.md is missing or says nothing of `version`. */
export const missingChangelogs = (version: string, root: string = ROOT): ReadonlyArray<string> =>
  workspaces(root)
    .filter((workspace) => workspace.manifest.private !== true)
    .map((workspace) => workspace.folder)
    .filter((folder) => {
      const file = Path.join(root, folder, "CHANGELOG.md")
      return !existsSync(file) || !hasChangelogSection(readFileSync(file, "utf8"), version)
    })

/** Sets every workspace's version, and each @tawsil/* dependency, to `version`. */
export const setVersion = (version: string, root: string = ROOT): void => {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`not a version: ${version}`)
  const undocumented = missingChangelogs(version, root)
  if (undocumented.length > 0) {
    throw new Error(`no "## ${version}" section in the CHANGELOG.md of ${undocumented.join(", ")}`)
  }
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
  else if (command === "peers") for (const folder of setPeers()) console.log(`rewrote ${folder}/package.json`)
  else {
    console.error("usage: node scripts/release.ts order | version <x.y.z> | peers")
    process.exitCode = 1
  }
}
