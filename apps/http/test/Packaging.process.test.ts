/**
 * Publishable packages, checked as a user of the registry would meet them: every workspace under `packages/` and
 * `adapters/` is packed with `npm pack` (its prepack builds it) and each tarball is read against the rules —
 * built ESM JS, `.d.ts`, README and LICENSE; no sources, tests, maps or `.tsbuildinfo`; a manifest without the
 * `@tawsil/source` condition whose internal dependencies pin the one workspace version and which takes `effect` as a
 * peer. Then one project outside the repository installs every tarball (plus `effect` and `typescript` from npm's
 * cache) with one copy of `effect`, type-checks the host programs of `packaging/host/` with `tsc` and runs them
 * with plain `node`.
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
import { restoreAll } from "../../../scripts/publishManifest.ts"
import { isPeer, missingChangelogs, publishOrder, setVersion, withPeers } from "../../../scripts/release.ts"
import {
  childEnv,
  dependencyFields,
  internalDependencies,
  type Manifest,
  type Packed,
  pack,
  publishable,
  ROOT,
  readManifest,
  run,
  workspaces
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

describe("workspace versions", () => {
  it("every workspace has the same version and pins its internal dependencies to it", () => {
    const expected = version()
    for (const { folder, manifest } of workspaces()) {
      assert.strictEqual(manifest.version, expected, `${folder}'s version`)
      for (const { field, name, range } of internalDependencies(manifest)) {
        assert.strictEqual(range, expected, `${folder}'s ${field} on ${name} names the workspace version`)
      }
    }
  })

  it("apps are private; packages and adapters are publishable with README, LICENSE, files and pack scripts", () => {
    assert.isTrue(existsSync(Path.join(ROOT, "LICENSE")), "the root has a LICENSE")
    for (const { folder, manifest } of workspaces()) {
      if (folder.startsWith("apps/")) {
        assert.isTrue(manifest.private, `${folder} is private`)
        continue
      }
      assert.notStrictEqual(manifest.private, true, `${folder} is publishable`)
      for (const file of ["README.md", "LICENSE"]) {
        assert.isTrue(existsSync(Path.join(ROOT, folder, file)), `${folder} has ${file}`)
      }
      assert.deepStrictEqual(manifest.files, ["dist", "!dist/**/*.map", "README.md", "LICENSE"], `${folder}'s files`)
      assert.strictEqual(manifest.scripts?.prepack, "tsc -b && node ../../scripts/publishManifest.ts prepack")
      assert.strictEqual(manifest.scripts?.postpack, "node ../../scripts/publishManifest.ts postpack")
      const tsconfig = readFileSync(Path.join(ROOT, folder, "tsconfig.json"), "utf8")
      assert.notMatch(tsconfig, /"tsBuildInfoFile":\s*"dist\//, `${folder} keeps its .tsbuildinfo out of dist`)
    }
  })

  it("published workspaces take effect and @effect/* as peers ranged on the version the root pins", () => {
    const pinned = readManifest(Path.join(ROOT, "package.json")).devDependencies ?? {}
    for (const { folder, manifest } of publishable()) {
      const runtime = Object.keys(manifest.dependencies ?? {}).filter(isPeer)
      assert.deepStrictEqual(
        runtime,
        [],
        `${folder} depends on ${runtime.join(", ")}: run node scripts/release.ts peers`
      )
      for (const [name, range] of Object.entries(manifest.peerDependencies ?? {}).filter(([name]) => isPeer(name))) {
        assert.strictEqual(range, `^${pinned[name]}`, `${folder}'s peer ${name}`)
      }
      assert.deepStrictEqual(withPeers(manifest as never, pinned), manifest as never, `${folder} is as peers writes it`)
    }
    for (const name of ["effect", "@effect/sql-pg", "@effect/vitest", "@effect/platform-node"]) {
      assert.match(pinned[name] ?? "", /^\d+\.\d+\.\d+$/, `the root pins ${name}`)
    }
  })

  it("every publishable workspace has a CHANGELOG.md with a section for its version", () => {
    assert.deepStrictEqual(missingChangelogs(version()), [])
  })

  it("npm start builds the app and every bundled courier adapter, then runs the built app", () => {
    const root = readManifest(Path.join(ROOT, "package.json"))
    assert.strictEqual(root.scripts?.prestart, "tsc -b tsconfig.app.json")
    assert.strictEqual(root.scripts?.start, "node apps/http/dist/main.js")
    const built = (
      JSON.parse(readFileSync(Path.join(ROOT, "tsconfig.app.json"), "utf8")) as {
        references: ReadonlyArray<{ path: string }>
      }
    ).references.map((reference) => reference.path)
    const adapters = workspaces()
      .map(({ folder }) => folder)
      .filter((folder) => folder.startsWith("adapters/"))
    assert.sameMembers(built, ["apps/http", ...adapters], "the adapters the app discovers at start are built with it")
  })
})

describe("scripts/release.ts", () => {
  it("orders the publishable workspaces so each comes after the workspaces it depends on", () => {
    const order = publishOrder()
    assert.deepStrictEqual(
      [...order].sort(),
      publishable()
        .map((workspace) => workspace.manifest.name)
        .sort()
    )
    for (const { manifest } of publishable()) {
      for (const { field, name } of internalDependencies(manifest)) {
        if (field === "devDependencies") continue
        assert.isBelow(order.indexOf(name), order.indexOf(manifest.name), `${name} before ${manifest.name}`)
      }
    }
  })

  it("moves every workspace's version and internal dependency together", () => {
    const root = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-version-"))
    try {
      const write = (folder: string, manifest: object) => {
        mkdirSync(Path.join(root, folder), { recursive: true })
        writeFileSync(Path.join(root, folder, "package.json"), JSON.stringify(manifest))
      }
      write(".", { name: "root", private: true, workspaces: ["packages/*", "apps/*"] })
      write("packages/a", { name: "@tawsil/a", version: "0.1.0", peerDependencies: { effect: "^4.1.0" } })
      write("packages/b", { name: "@tawsil/b", version: "0.1.0", dependencies: { "@tawsil/a": "0.1.0" } })
      write("apps/c", { name: "@tawsil/c", version: "0.1.0", private: true, devDependencies: { "@tawsil/b": "0.1.0" } })
      writeFileSync(Path.join(root, "packages/a/CHANGELOG.md"), "# @tawsil/a\n\n## 0.2.0\n\n- A change.\n")
      // A publishable workspace whose changelog says nothing of the version stops the release.
      assert.throws(() => setVersion("0.2.0", root), /CHANGELOG\.md of packages\/b/)
      assert.strictEqual(readManifest(Path.join(root, "packages/a/package.json")).version, "0.1.0")
      writeFileSync(Path.join(root, "packages/b/CHANGELOG.md"), "# @tawsil/b\n\n## 0.2.0 (2026-07-01)\n\n- Same.\n")
      setVersion("0.2.0", root)
      assert.deepStrictEqual(readManifest(Path.join(root, "packages/a/package.json")).peerDependencies, {
        effect: "^4.1.0"
      })
      assert.deepStrictEqual(readManifest(Path.join(root, "packages/b/package.json")).dependencies, {
        "@tawsil/a": "0.2.0"
      })
      assert.deepStrictEqual(readManifest(Path.join(root, "apps/c/package.json")).devDependencies, {
        "@tawsil/b": "0.2.0"
      })
      for (const folder of ["packages/a", "packages/b", "apps/c"]) {
        assert.strictEqual(readManifest(Path.join(root, folder, "package.json")).version, "0.2.0")
      }
      assert.deepStrictEqual(publishOrder(root), ["@tawsil/a", "@tawsil/b"])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it("peers: effect and @effect/* leave the dependencies for caret peers on the root's pins; the rest stays", () => {
    const pinned = { effect: "4.1.0", "@effect/sql-pg": "4.0.5", "@effect/vitest": "4.0.5" }
    assert.deepStrictEqual(
      withPeers(
        {
          name: "@tawsil/a",
          dependencies: { "@effect/sql-pg": "4.0.5", "@tawsil/b": "0.2.0", effect: "4.1.0", pg: "1.0.0" },
          peerDependencies: { "@effect/vitest": "4.0.5", vitest: ">=5 <6" },
          peerDependenciesMeta: { vitest: { optional: true } },
          devDependencies: { "@tawsil/c": "0.2.0" }
        },
        pinned
      ),
      {
        name: "@tawsil/a",
        dependencies: { "@tawsil/b": "0.2.0", pg: "1.0.0" },
        peerDependencies: {
          "@effect/sql-pg": "^4.0.5",
          "@effect/vitest": "^4.0.5",
          effect: "^4.1.0",
          vitest: ">=5 <6"
        },
        peerDependenciesMeta: { vitest: { optional: true } },
        devDependencies: { "@tawsil/c": "0.2.0" }
      }
    )
    assert.throws(() => withPeers({ name: "x", dependencies: { "@effect/ai": "4.1.0" } }, pinned), /pin it/)
  })
})

describe("packed workspaces", () => {
  let scratch = ""
  let packed: ReadonlyArray<Packed> = []
  const committed = new Map<string, string>()

  beforeAll(async () => {
    scratch = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-pack-"))
    restoreAll(ROOT)
    for (const { folder } of publishable()) {
      committed.set(folder, readFileSync(Path.join(ROOT, folder, "package.json"), "utf8"))
    }
    packed = await pack(
      publishable().map((workspace) => workspace.manifest.name),
      scratch
    )
  }, 240_000)

  afterAll(() => {
    // npm skips postpack when a pack fails; never leave a rewritten manifest in the working tree.
    restoreAll(ROOT)
    if (scratch !== "") rmSync(scratch, { recursive: true, force: true })
  })

  /** The manifest inside a tarball. */
  const packedManifest = async (tarball: Packed): Promise<Manifest> => {
    const into = Path.join(scratch, "unpacked", tarball.name)
    mkdirSync(into, { recursive: true })
    await run("tar", ["-xzf", Path.join(scratch, tarball.filename), "-C", into])
    return readManifest(Path.join(into, "package", "package.json"))
  }

  it("packs every publishable workspace and leaves the committed manifests in place", () => {
    assert.deepStrictEqual(
      packed.map((tarball) => tarball.name).sort(),
      publishable()
        .map((workspace) => workspace.manifest.name)
        .sort()
    )
    for (const [folder, text] of committed) {
      assert.strictEqual(readFileSync(Path.join(ROOT, folder, "package.json"), "utf8"), text, `${folder} restored`)
      assert.isFalse(existsSync(Path.join(ROOT, folder, "package.json.prepack")), `${folder} has no pack backup left`)
    }
  })

  it("each tarball holds built ESM JS, .d.ts, README and LICENSE, and nothing else", () => {
    for (const tarball of packed) {
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

  it("each packed manifest needs no source condition and pins its internal dependencies", async () => {
    const expected = version()
    for (const tarball of packed) {
      const manifest = await packedManifest(tarball)
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

  it("the fetch client installs nothing else: no dependency of any kind, and a small tarball", async () => {
    const tarball = packed.find((entry) => entry.name === "@tawsil/fetch-client")
    assert.isDefined(tarball)
    const manifest = (await packedManifest(tarball!)) as Manifest & Record<string, unknown>
    for (const field of [...dependencyFields, "bundleDependencies"]) {
      assert.isUndefined(manifest[field], `@tawsil/fetch-client has ${field}`)
    }
    // README says "about 20 kB packed".
    assert.isBelow(tarball!.size, 30_000)
  })

  it("the built JS imports no TypeScript sources", async () => {
    for (const tarball of packed) {
      const into = Path.join(scratch, "unpacked", tarball.name, "package")
      if (!existsSync(into)) await packedManifest(tarball)
      for (const file of tarball.files.filter((entry) => entry.path.endsWith(".js"))) {
        const text = readFileSync(Path.join(into, file.path), "utf8")
        assert.notMatch(text, /from\s+["']\.{1,2}\/[^"']*\.ts["']|import\(\s*["']\.{1,2}\/[^"']*\.ts["']/, file.path)
      }
    }
  })

  /**
   * One project outside the repository installs every tarball (npm's cache serves `effect`, the peers and the
   * toolchain, at the lockfile's versions), type-checks the host programs of `packaging/host/` with `tsc` (the
   * embedding: `main.ts`; the clients with plain JSON: `clients.ts`), runs the embedding with plain `node`, and
   * imports every package.
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
