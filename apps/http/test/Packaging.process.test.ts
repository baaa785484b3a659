/**
 * Publishable packages as `npm pack` makes them, without touching the working tree (`packCopies`: built, copied with
 * the manifest they are published with, packed from the copies). Every workspace under `packages/` and `adapters/`
 * is read from `npm pack --dry-run --json` against the rules — built ESM JS, `.d.ts`, README and LICENSE; no sources,
 * tests, maps or `.tsbuildinfo`; a manifest without the `@tawsil/source` condition whose internal dependencies pin the
 * one workspace version, every export target in the tarball — and imported by plain `node` from its built JS. Then
 * the packages a host embeds (those `packaging/host/` imports, and what they depend on) are packed for real and
 * installed by one project outside the repository (plus `effect` and `typescript` from npm's cache) with one copy of
 * `effect`, which type-checks the host programs with `tsc` and runs them with plain `node`. What the manifests and
 * the release script declare is `Packaging.test.ts`'s.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type Packed, packCopies, publishManifest } from "../../../scripts/publishManifest.ts"
import {
  childEnv,
  dependencyFields,
  internalDependencies,
  type Manifest,
  publishable,
  ROOT,
  readManifest,
  run
} from "./packaging/Workspaces.ts"

const SOURCE_CONDITION = "@tawsil/source"

/** Every version of `name` in an `npm ls --json` tree. */
const versionsOf = (name: string, tree: { dependencies?: Record<string, unknown> }): ReadonlyArray<string> => {
  const found = new Set<string>()
  const walk = (node: { dependencies?: Record<string, unknown> }) => {
    for (const [dependency, child] of Object.entries(node.dependencies ?? {})) {
      const inner = child as { version?: string; dependencies?: Record<string, unknown> }
      if (dependency === name && inner.version !== undefined) found.add(inner.version)
      walk(inner)
    }
  }
  walk(tree)
  return [...found]
}

const version = (): string => readManifest(Path.join(ROOT, "packages/domain/package.json")).version

/** The publishable workspace named `name`. */
const workspaceNamed = (name: string) => {
  const found = publishable().find((workspace) => workspace.manifest.name === name)
  if (found === undefined) throw new Error(`${name} is not a publishable workspace`)
  return found
}

/** The manifest a workspace is packed with (what `packCopies` writes into its copy). */
const publishedManifest = (folder: string) =>
  publishManifest(JSON.parse(readFileSync(Path.join(ROOT, folder, "package.json"), "utf8"))) as unknown as Manifest &
    Record<string, unknown>

/** The packages the host programs of `packaging/host/` import, and every workspace those depend on. */
const embedded = (): ReadonlyArray<string> => {
  const hostFolder = Path.join(import.meta.dirname, "packaging", "host")
  const imported = readdirSync(hostFolder).flatMap((file) =>
    [...readFileSync(Path.join(hostFolder, file), "utf8").matchAll(/from "(@tawsil\/[^/"]+)/g)].map(
      (match) => match[1]!
    )
  )
  const names = new Set<string>()
  const visit = (name: string) => {
    if (names.has(name)) return
    names.add(name)
    for (const { field, name: dependency } of internalDependencies(workspaceNamed(name).manifest)) {
      if (field !== "devDependencies") visit(dependency)
    }
  }
  for (const name of imported) visit(name)
  return [...names].sort()
}

describe("packed workspaces", () => {
  let reported: ReadonlyArray<Packed> = []
  const committed = new Map<string, string>()

  beforeAll(async () => {
    for (const { folder } of publishable()) {
      committed.set(folder, readFileSync(Path.join(ROOT, folder, "package.json"), "utf8"))
    }
    reported = await packCopies(
      ROOT,
      publishable().map((workspace) => workspace.folder),
      { dryRun: true, env: childEnv() }
    )
  }, 240_000)

  it("packs every publishable workspace and leaves the working tree as it was", () => {
    assert.deepStrictEqual(
      reported.map((tarball) => tarball.name).sort(),
      publishable()
        .map((workspace) => workspace.manifest.name)
        .sort()
    )
    for (const [folder, text] of committed) {
      assert.strictEqual(readFileSync(Path.join(ROOT, folder, "package.json"), "utf8"), text, `${folder} untouched`)
      assert.isFalse(existsSync(Path.join(ROOT, folder, "package.json.prepack")), `${folder} has no pack backup`)
    }
  })

  it("each tarball holds built ESM JS, .d.ts, README and LICENSE, and nothing else", () => {
    for (const tarball of reported) {
      const paths = tarball.files.map((file) => file.path)
      for (const required of ["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]) {
        assert.include(paths, required, `${tarball.name} holds ${required}`)
      }
      for (const path of paths) {
        const allowed = ["package.json", "README.md", "LICENSE"].includes(path) || path.startsWith("dist/")
        assert.isTrue(allowed, `${tarball.name} ships ${path}`)
        assert.notMatch(path, /\.tsbuildinfo|\.map$|(^|\/)test\/|\.test\.|(?<!\.d)\.ts$/, `${tarball.name}: ${path}`)
      }
    }
  })

  it("each packed manifest needs no source condition and pins its internal dependencies", () => {
    const expected = version()
    for (const tarball of reported) {
      const manifest = publishedManifest(workspaceNamed(tarball.name).folder)
      assert.notInclude(JSON.stringify(manifest), SOURCE_CONDITION, `${tarball.name}'s manifest`)
      assert.isUndefined(manifest.scripts?.prepack, `${tarball.name} ships no prepack`)
      assert.strictEqual(manifest.version, expected)
      for (const { name, range } of internalDependencies(manifest)) assert.strictEqual(range, expected, name)
      // Every export target that names a file is in the tarball.
      const targets = JSON.stringify(manifest.exports ?? {}).match(/"\.\/dist\/[^"*]+"/g) ?? []
      const paths = tarball.files.map((file) => file.path)
      for (const target of targets) assert.include(paths, target.slice(3, -1), `${tarball.name} exports ${target}`)
    }
  })

  it("the fetch client installs nothing else: no dependency of any kind, and a small tarball", () => {
    const tarball = reported.find((entry) => entry.name === "@tawsil/fetch-client")
    assert.isDefined(tarball)
    const manifest = publishedManifest(workspaceNamed("@tawsil/fetch-client").folder)
    for (const field of [...dependencyFields, "bundleDependencies"]) {
      assert.isUndefined(manifest[field], `@tawsil/fetch-client has ${field}`)
    }
    // README says "about 20 kB packed".
    assert.isBelow(tarball!.size, 30_000)
  })

  it("the built JS imports no TypeScript sources", () => {
    for (const tarball of reported) {
      const folder = Path.join(ROOT, workspaceNamed(tarball.name).folder)
      for (const file of tarball.files.filter((entry) => entry.path.endsWith(".js"))) {
        const text = readFileSync(Path.join(folder, file.path), "utf8")
        assert.notMatch(text, /from\s+["']\.{1,2}\/[^"']*\.ts["']|import\(\s*["']\.{1,2}\/[^"']*\.ts["']/, file.path)
      }
    }
  })

  it("every package imports under plain node from its built JS", async () => {
    const names = reported.map((tarball) => tarball.name)
    const script = `for (const name of ${JSON.stringify(names)}) {
      const module = await import(name)
      if (Object.keys(module).length === 0) throw new Error(name + " exports nothing")
    }
    console.log("ok")`
    const imported = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, env: childEnv() })
    assert.strictEqual(imported.stdout.trim(), "ok")
  }, 120_000)
})

describe("the embedded packages installed from tarballs", () => {
  let scratch = ""
  let packed: ReadonlyArray<Packed> = []

  beforeAll(async () => {
    scratch = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-pack-"))
    packed = await packCopies(
      ROOT,
      embedded().map((name) => workspaceNamed(name).folder),
      { destination: scratch, env: childEnv() }
    )
  }, 240_000)

  afterAll(() => {
    if (scratch !== "") rmSync(scratch, { recursive: true, force: true })
  })

  it("packs what the host imports and what that depends on", () => {
    assert.deepStrictEqual(packed.map((tarball) => tarball.name).sort(), embedded())
    assert.includeMembers([...embedded()], ["@tawsil/domain", "@tawsil/fetch-client", "@tawsil/orders"])
  })

  /**
   * One project outside the repository installs those tarballs (npm's cache serves `effect`, the peers and the
   * toolchain, at the lockfile's versions), type-checks the host programs of `packaging/host/` with `tsc` (the
   * embedding: `main.ts`; the clients with plain JSON: `clients.ts`), runs the embedding with plain `node`, and
   * imports each of them.
   */
  it("installs from tarballs outside the repository: one effect, type-checked by tsc, run and imported by plain node", async () => {
    const lock = JSON.parse(readFileSync(Path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>
    }
    const registryVersion = (name: string) => lock.packages[`node_modules/${name}`]!.version
    const host = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-host-"))
    try {
      writeFileSync(
        Path.join(host, "package.json"),
        JSON.stringify({
          name: "tawsil-host",
          private: true,
          type: "module",
          dependencies: {
            ...Object.fromEntries(
              packed.map((tarball) => [tarball.name, `file:${Path.join(scratch, tarball.filename)}`])
            ),
            ...Object.fromEntries(
              ["effect", "@effect/sql-pg", "typescript", "@types/node"].map((name) => [name, registryVersion(name)])
            )
          }
        })
      )
      writeFileSync(
        Path.join(host, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            exactOptionalPropertyTypes: true,
            target: "ES2023",
            // effect's crypto typings name WebCrypto's CryptoKey, declared by the DOM library.
            lib: ["ES2023", "DOM"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            types: ["node"],
            rootDir: "src",
            outDir: "dist",
            skipLibCheck: false
          },
          include: ["src"]
        })
      )
      mkdirSync(Path.join(host, "src"))
      for (const file of readdirSync(Path.join(import.meta.dirname, "packaging", "host"))) {
        copyFileSync(Path.join(import.meta.dirname, "packaging", "host", file), Path.join(host, "src", file))
      }

      const env = childEnv()
      await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: host, env })
      // Nothing of the repository is reachable from the host: its @tawsil packages are real folders from tarballs.
      for (const { name } of packed) {
        assert.isFalse(existsSync(Path.join(host, "node_modules", name, "src")), `${name} came from its tarball`)
      }
      // One copy of effect for the host and every package.
      const tree = await run("npm", ["ls", "effect", "--all", "--json"], { cwd: host, env })
      assert.deepStrictEqual(versionsOf("effect", JSON.parse(tree.stdout)), [registryVersion("effect")], tree.stdout)

      await run(Path.join(host, "node_modules", ".bin", "tsc"), ["-p", "."], { cwd: host, env }).catch((error) => {
        throw new Error(`tsc failed:\n${String(error.stdout)}${String(error.stderr)}`)
      })
      const { stdout } = await run(process.execPath, [Path.join(host, "dist", "main.js")], { cwd: host, env })
      // A host that runs with the repository's source condition (the bundled app does) still gets the built JS.
      const conditioned = await run(
        process.execPath,
        [`--conditions=${SOURCE_CONDITION}`, Path.join(host, "dist", "main.js")],
        { cwd: host, env }
      )
      assert.strictEqual(conditioned.stdout, stdout)
      const result = JSON.parse(stdout.trim()) as Record<string, unknown>
      assert.deepStrictEqual(result, {
        subtotal: "2701.00",
        total: "3100.50",
        walk: ["pending", "confirmed", "processing", "shipped", "delivered"],
        backwards: "IllegalTransition",
        orderTotal: 1980,
        replayed: [false, true],
        sameAnswer: true,
        ordersStored: 1,
        confirmed: "confirmed",
        courierTerminal: ["cancelled", "delivered", "returned"]
      })

      const names = packed.map((tarball) => tarball.name)
      const script = `for (const name of ${JSON.stringify(names)}) {
        const module = await import(name)
        if (Object.keys(module).length === 0) throw new Error(name + " exports nothing")
      }
      console.log("ok")`
      const imported = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: host, env })
      assert.strictEqual(imported.stdout.trim(), "ok")
    } finally {
      rmSync(host, { recursive: true, force: true })
    }
  }, 180_000)
})
