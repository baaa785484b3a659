import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { BUNDLE, text } from "../src/scaffold/Templates.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const BIN = Path.join(ROOT, "packages/courier/src/scaffold/newAdapter.ts")
const json = (file: string) => JSON.parse(Fs.readFileSync(file, "utf8"))

/** Each test's folders, in one temporary folder removed when the file's tests are done. */
const scratch = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-scaffold-")))
afterAll(() => Fs.rmSync(scratch, { recursive: true, force: true }))
const tempDir = () => Fs.mkdtempSync(Path.join(scratch, "dir-"))

const scaffold = (...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } })

describe("the adapter scaffold (tawsil-new-adapter)", () => {
  it("is the root new:adapter script and the SDK's bin", () => {
    assert.strictEqual(json(Path.join(ROOT, "package.json")).scripts["new:adapter"], `node ${Path.relative(ROOT, BIN)}`)
    assert.deepStrictEqual(json(Path.join(ROOT, "packages/courier/package.json")).bin, {
      "tawsil-new-adapter": "./dist/scaffold/newAdapter.js"
    })
  })

  it("ships its templates bundled, in step with the template folder (npm run scaffold:templates)", () => {
    assert.strictEqual(Fs.readFileSync(BUNDLE, "utf8"), text())
  })

  it("writes a plugin package on the SDK's minor, effect as a peer in the SDK's range, the repository's toolchain", () => {
    const out = Path.join(tempDir(), "plugin")
    const run = scaffold("acme_post", "--out", out)
    assert.strictEqual(run.status, 0, run.stderr)
    const manifest = json(Path.join(out, "package.json"))
    const sdk = json(Path.join(ROOT, "packages/courier/package.json"))
    const root = json(Path.join(ROOT, "package.json"))
    assert.strictEqual(manifest.name, "tawsil-adapter-acme-post")
    assert.deepStrictEqual(manifest.tawsil, { courierAdapter: true })
    assert.deepStrictEqual(manifest.dependencies, {
      "@tawsil/courier": `^${sdk.version}`,
      "@tawsil/domain": `^${json(Path.join(ROOT, "packages/domain/package.json")).version}`
    })
    assert.deepStrictEqual(manifest.peerDependencies, { effect: sdk.peerDependencies.effect })
    assert.strictEqual(sdk.peerDependencies.effect, `^${root.devDependencies.effect}`)
    for (const tool of ["typescript", "vitest", "@effect/vitest", "@types/node"]) {
      assert.strictEqual(manifest.devDependencies[tool], root.devDependencies[tool], tool)
    }
    assert.strictEqual(manifest.overrides, undefined)
    for (const file of [
      "tsconfig.json",
      "tsconfig.test.json",
      "README.md",
      "src/index.ts",
      "src/AcmePost.ts",
      "src/AcmePostMapping.ts",
      "src/AcmePostStatus.ts",
      "src/AcmePostWire.ts",
      "test/fake/AcmePostFake.ts",
      "test/Conformance.test.ts"
    ]) {
      assert.isTrue(Fs.existsSync(Path.join(out, file)), file)
    }
    assert.notMatch(Fs.readFileSync(Path.join(out, "src/AcmePost.ts"), "utf8"), /__\w+__/)
    // Formatted and linted as this repository's code is.
    const biome = spawnSync(
      process.execPath,
      [
        Path.join(ROOT, "node_modules/@biomejs/biome/bin/biome"),
        "check",
        `--config-path=${ROOT}/biome.json`,
        "src",
        "test"
      ],
      { cwd: out, encoding: "utf8" }
    )
    assert.strictEqual(biome.status, 0, biome.stdout + biome.stderr)
  })

  it("depends on SDK tarballs with --sdk, and takes the SDK's own @tawsil dependencies from them too", () => {
    const dir = tempDir()
    Fs.mkdirSync(Path.join(dir, "sdk"))
    for (const name of ["courier", "domain", "egress"])
      Fs.writeFileSync(Path.join(dir, `sdk/tawsil-${name}-0.1.0.tgz`), "")
    const run = scaffold("acme", "--out", Path.join(dir, "plugin"), "--sdk", Path.join(dir, "sdk"))
    assert.strictEqual(run.status, 0, run.stderr)
    const manifest = json(Path.join(dir, "plugin/package.json"))
    const tarball = (name: string) => `file:${Path.join(dir, `sdk/tawsil-${name}-0.1.0.tgz`)}`
    assert.strictEqual(manifest.dependencies["@tawsil/courier"], tarball("courier"))
    assert.strictEqual(manifest.dependencies["@tawsil/domain"], tarball("domain"))
    assert.deepStrictEqual(manifest.overrides, {
      "@tawsil/courier": tarball("courier"),
      "@tawsil/domain": tarball("domain"),
      "@tawsil/egress": tarball("egress")
    })
  })

  it("refuses a platform key the manifest would refuse, and a folder that is not empty", () => {
    const dir = tempDir()
    const bad = scaffold("Acme-Post", "--out", Path.join(dir, "a"))
    assert.strictEqual(bad.status, 2)
    assert.include(bad.stderr, "is not a platform key")
    Fs.writeFileSync(Path.join(dir, "keep.txt"), "")
    const taken = scaffold("acme", "--out", dir)
    assert.strictEqual(taken.status, 2)
    assert.include(taken.stderr, "is not empty")
    assert.deepStrictEqual(Fs.readdirSync(dir), ["keep.txt"])
  })
})
