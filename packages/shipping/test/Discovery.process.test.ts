import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { InvalidAdapter } from "@tawsil/courier/CourierAdapter"
import { Effect } from "effect"
import * as Discovery from "../src/Discovery.ts"

const HOST = Path.resolve(import.meta.dirname, "../src/index.ts")
const DISCOVERY = Path.resolve(import.meta.dirname, "../src/Discovery.ts")

/** A plain-JS plugin (no SDK import): an adapter object `define` accepts. */
const pluginSource = (platform: string, key = platform) => `export const adapter = {
  platform: ${JSON.stringify(platform)},
  couriers: [{ key: ${JSON.stringify(key)}, name: "Test", aliases: [], endpoint: { origin: "https://api.test.dz" } }],
  statuses: { done: "delivered" },
  operations: {}
}
`

/** Each test's folders, in one temporary folder removed when the file's tests are done. */
const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-discovery-"))
afterAll(() => Fs.rmSync(scratch, { recursive: true, force: true }))
const tempDir = () => Fs.mkdtempSync(Path.join(scratch, "dir-"))

const write = (root: string, files: Record<string, string>) => {
  for (const [file, text] of Object.entries(files)) {
    Fs.mkdirSync(Path.dirname(Path.join(root, file)), { recursive: true })
    Fs.writeFileSync(Path.join(root, file), text)
  }
  return Fs.realpathSync(root)
}

/** A plugin package folder exporting dist/index.js (and a source condition only this repository knows). */
const pluginFolder = (name: string, platform: string, key = platform) =>
  write(Path.join(tempDir(), "plugin"), {
    "package.json": JSON.stringify({
      name,
      type: "module",
      tawsil: { courierAdapter: true },
      exports: {
        ".": { "@tawsil/source": "./src/index.ts", types: "./dist/index.d.ts", default: "./dist/index.js" }
      }
    }),
    "dist/index.js": pluginSource(platform, key)
  })

describe("Discovery", () => {
  describe("locate", () => {
    it("reads a package folder's main export for plain Node, skipping types and the source condition", () => {
      const root = pluginFolder("tawsil-adapter-alpha", "alpha")
      assert.deepStrictEqual(Discovery.locate(HOST, root), {
        root,
        packageName: "tawsil-adapter-alpha",
        entry: Path.join(root, "dist/index.js")
      })
    })

    it("takes an entry file, with the package that holds it", () => {
      const root = pluginFolder("tawsil-adapter-alpha", "alpha")
      const located = Discovery.locate(HOST, Path.join(root, "dist/index.js"))
      assert.strictEqual(located.root, root)
      assert.strictEqual(located.packageName, "tawsil-adapter-alpha")
    })

    it("falls back to `exports` as a string, then to `main`", () => {
      const asString = write(tempDir(), { "package.json": JSON.stringify({ name: "a", exports: "./lib/a.js" }) })
      assert.strictEqual(Discovery.locate(HOST, asString).entry, Path.join(asString, "lib/a.js"))
      const main = write(tempDir(), { "package.json": JSON.stringify({ name: "b", main: "b.js" }) })
      assert.strictEqual(Discovery.locate(HOST, main).entry, Path.join(main, "b.js"))
    })

    it("resolves a package name from the host", () => {
      const located = Discovery.locate(HOST, "effect")
      assert.include(located.entry, `${Path.sep}effect${Path.sep}`)
    })
  })

  describe("loadPlugin", () => {
    it.effect("loads a package folder, checking the manifest as define does", () =>
      Effect.gen(function* () {
        const root = pluginFolder("tawsil-adapter-beta", "beta")
        const plugin = yield* Discovery.loadPlugin(HOST, root)
        assert.strictEqual(plugin.packageName, "tawsil-adapter-beta")
        assert.strictEqual(plugin.adapter.platform, "beta")
        assert.deepStrictEqual(plugin.adapter.capabilities, {
          create: false,
          track: false,
          rates: false,
          label: false,
          cancel: false,
          dispatch: false,
          trackBatch: false,
          createBatch: false,
          stopDesks: false,
          communes: false,
          checkCredentials: false,
          push: false
        })
      })
    )

    it.effect("refuses a folder without a package.json, and a module without an adapter", () =>
      Effect.gen(function* () {
        const empty = yield* Effect.flip(Discovery.loadPlugin(HOST, tempDir()))
        assert.instanceOf(empty, InvalidAdapter)
        assert.include(empty.problem, "without a package.json")
        const root = write(tempDir(), {
          "package.json": JSON.stringify({ name: "not-an-adapter", type: "module", main: "index.js" }),
          "index.js": "export const something = 1\n"
        })
        const none = yield* Effect.flip(Discovery.loadPlugin(HOST, root))
        assert.include(none.problem, "not-an-adapter")
        assert.include(none.problem, "does not export an `adapter`")
      })
    )
  })

  describe("discoverPlugins", () => {
    it.effect("loads one plugin once, however it is named", () =>
      Effect.gen(function* () {
        const root = pluginFolder("tawsil-adapter-gamma", "gamma")
        const plugins = yield* Discovery.discoverPlugins(HOST, [root, Path.join(root, "dist/index.js")])
        assert.strictEqual(plugins.filter((plugin) => plugin.adapter.platform === "gamma").length, 1)
      })
    )

    it.effect("names both packages when two claim one platform", () =>
      Effect.gen(function* () {
        const first = pluginFolder("tawsil-adapter-delta", "delta")
        const second = pluginFolder("delta-fork", "delta", "delta_fork")
        const error = yield* Effect.flip(Discovery.discoverPlugins(HOST, [first, second]))
        assert.strictEqual(error.platform, "delta")
        assert.include(error.problem, "tawsil-adapter-delta")
        assert.include(error.problem, "delta-fork")
      })
    )

    it.effect("names both packages when two claim one courier key", () =>
      Effect.gen(function* () {
        const first = pluginFolder("tawsil-adapter-epsilon", "epsilon", "shared_key")
        const second = pluginFolder("tawsil-adapter-zeta", "zeta", "shared_key")
        const error = yield* Effect.flip(Discovery.discoverPlugins(HOST, [first, second]))
        assert.include(error.problem, `"shared_key"`)
        assert.include(error.problem, "tawsil-adapter-epsilon")
        assert.include(error.problem, "tawsil-adapter-zeta")
      })
    )
  })

  // Under vitest, imports go through vite's resolver; the host's real resolver is checked in a Node process started
  // as `npm start` starts the app, with the source condition on.
  it("keeps the host's source condition out of a plugin's dependencies, and shares effect and the SDK", () => {
    const root = write(Path.join(tempDir(), "plugin"), {
      "package.json": JSON.stringify({ name: "tawsil-adapter-eta", type: "module", exports: "./index.js" }),
      // No effect and no @tawsil/courier installed here: both must come from the host.
      "index.js": `import { CourierAdapter } from "@tawsil/courier"
import { Effect } from "effect"
import { flavour } from "dep"
export const effect = Effect
export const adapter = CourierAdapter.define({
  platform: "eta",
  couriers: [{ key: "eta", name: flavour, aliases: [], endpoint: { origin: "https://api.eta.dz" } }],
  statuses: {},
  operations: { track: () => Effect.succeed([]) }
})
`,
      // Under node_modules Node refuses to strip types: reaching src/index.ts would fail the load.
      "node_modules/dep/package.json": JSON.stringify({
        name: "dep",
        type: "module",
        exports: { ".": { "@tawsil/source": "./src/index.ts", default: "./index.js" } }
      }),
      "node_modules/dep/src/index.ts": `export const flavour: string = "source"\n`,
      "node_modules/dep/index.js": `export const flavour = "built"\n`
    })
    const script = `
import { Effect } from "effect"
import * as Discovery from ${JSON.stringify(pathToFileURL(DISCOVERY).href)}
const plugin = await Effect.runPromise(Discovery.loadPlugin(${JSON.stringify(HOST)}, ${JSON.stringify(root)}))
const module = await import(${JSON.stringify(pathToFileURL(Path.join(root, "index.js")).href)})
console.log(JSON.stringify({ name: plugin.adapter.couriers[0].name, sameEffect: module.effect === Effect }))
`
    const run = spawnSync(process.execPath, ["--conditions=@tawsil/source", "--input-type=module", "-e", script], {
      cwd: Path.dirname(HOST),
      encoding: "utf8"
    })
    assert.strictEqual(run.status, 0, run.stderr)
    assert.deepStrictEqual(JSON.parse(run.stdout.trim()), { name: "built", sameEffect: true })
  })
})
