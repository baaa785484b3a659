/**
 * Publishable packages as their manifests and the release script declare them, read from the files (no npm, no
 * build): one version pinned everywhere, apps private, README, LICENSE, files and pack scripts, effect as a peer,
 * changelogs, what `npm start` builds; the release script's order, version moves and peers. The packing itself (npm,
 * tsc, an install outside the repository) is `Packaging.process.test.ts`'s.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { publishManifest } from "../../../scripts/publishManifest.ts"
import { isPeer, missingChangelogs, publishOrder, setVersion, withPeers } from "../../../scripts/release.ts"
import { internalDependencies, publishable, ROOT, readManifest, workspaces } from "./packaging/Workspaces.ts"

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

describe("scripts/publishManifest.ts", () => {
  it("a published manifest drops the source condition at any depth and the pack scripts, and keeps the rest", () => {
    assert.deepStrictEqual(
      publishManifest({
        name: "@tawsil/a",
        exports: {
          ".": { "@tawsil/source": "./src/index.ts", types: "./dist/index.d.ts", default: "./dist/index.js" },
          "./x": [{ "@tawsil/source": "./src/x.ts" }, "./dist/x.js"]
        },
        scripts: { prepack: "tsc -b", postpack: "restore", test: "vitest" }
      }),
      {
        name: "@tawsil/a",
        exports: {
          ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
          "./x": [{}, "./dist/x.js"]
        },
        scripts: { test: "vitest" }
      }
    )
    assert.deepStrictEqual(publishManifest({ name: "b", scripts: { prepack: "p", postpack: "q" } }), { name: "b" })
  })
})
