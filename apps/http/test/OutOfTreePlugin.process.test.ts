/**
 * Courier plugins written outside this repository, as their authors would: one scaffolded with
 * `tawsil-new-adapter` (`effect` a peer in the SDK's range) and one whose manifest is written by hand (`effect` a
 * plain dependency), each in a temporary folder, installed against the packed SDK (never this workspace's module
 * resolution) with one copy of `effect`, its conformance test run with its own vitest, built, and both loaded by the
 * bundled app through `COURIER_ADAPTERS`, with `TAWSIL_COURIER_ORIGINS` pointing each courier at the plugin's own
 * loopback fake. The scaffolded plugin is also packed and loaded from its tarball installed into another project.
 *
 * Offline: the plugins take the `effect` of the repository's lockfile, from npm's cache. The same check against the
 * registry's newest `effect` 4.x is a release step (`node scripts/pluginCheck.ts`, docs/publishing.md).
 *
 * The SDK comes from `TAWSIL_SDK_TARBALLS` (a folder of `tawsil-<name>-<version>.tgz`, as a release produces) when
 * set; otherwise from `npm pack` of copies of the workspaces here (`packCopies`: built, with their manifests
 * without the source condition).
 */
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { type Prepared, packSdk, preparePlugin } from "../../../scripts/pluginCheck.ts"
import { type AppProcess, getJson, startApp } from "./AppProcess.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const PLATFORM = "acme_post"
const ORIGIN = "https://api.acme-post.example"
/** The hand-written plugin's courier. */
const BY_HAND = "zed_post"
const BY_HAND_ORIGIN = "https://api.zed-post.example"
const TOKEN = "canary-out-of-tree-5c1d9e"

/** The version of `effect` the repository is built and tested with: in npm's cache, so the installs need no network. */
const EFFECT = (
  JSON.parse(Fs.readFileSync(Path.join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version: string }>
  }
).packages["node_modules/effect"]!.version

/** Runs a command; fails with everything it printed unless it exits 0. */
const exec = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.callback<string, Error>((resume) => {
    const child = spawn(command, args, { cwd, env: process.env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once("exit", (code) =>
      resume(
        code === 0
          ? Effect.succeed(output)
          : Effect.fail(new Error(`${command} ${args.join(" ")} exited ${code} in ${cwd}:\n${output}`))
      )
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-plugin-")))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A folder of SDK tarballs. */
const sdkTarballs = (dir: string) => {
  const given = process.env.TAWSIL_SDK_TARBALLS
  return given !== undefined && given !== ""
    ? Effect.succeed(given)
    : Effect.promise(() => packSdk(Path.join(dir, "sdk")))
}

interface FakeCourier {
  readonly origin: string
  readonly requests: ReadonlyArray<{ readonly method: string; readonly path: string }>
  readonly close: () => Promise<void>
}

class Plugin extends Context.Service<
  Plugin,
  {
    readonly scaffolded: Prepared
    readonly byHand: Prepared
    readonly fake: FakeCourier
    readonly byHandFake: FakeCourier
    /** The app loading both plugins' folders. */
    readonly app: AppProcess
    /** The app loading the scaffolded plugin installed from its tarball into another project. */
    readonly fromTarball: AppProcess
  }
>()("test/OutOfTreePlugin") {}

/** The plugin's own loopback fake (its `test/fake/<Name>Fake.ts`), answering `TOKEN`. */
const startFake = (folder: string, name: string) =>
  Effect.gen(function* () {
    const module = (yield* Effect.promise(
      () => import(pathToFileURL(Path.join(folder, `test/fake/${name}Fake.ts`)).href)
    )) as { start: (options: { tokens: ReadonlyArray<string> }) => Promise<FakeCourier> }
    return yield* Effect.acquireRelease(
      Effect.promise(() => module.start({ tokens: [TOKEN] })),
      (fake) => Effect.promise(() => fake.close())
    )
  })

const setup = Effect.gen(function* () {
  const dir = yield* tempDir
  const sdk = yield* sdkTarballs(dir)
  const prepare = (platform: string, style: Prepared["style"]) =>
    Effect.promise(() => preparePlugin({ folder: Path.join(dir, platform), platform, style, sdk, effect: EFFECT }))
  const [scaffolded, byHand] = yield* Effect.all([prepare(PLATFORM, "scaffold"), prepare(BY_HAND, "hand-written")], {
    concurrency: 2
  })

  // The scaffolded plugin packed (its prepack builds it) and installed from the tarball into another project.
  yield* exec("npm", ["pack", "--pack-destination", dir], scaffolded.folder)
  const project = Path.join(dir, "project")
  const manifest = JSON.parse(Fs.readFileSync(Path.join(scaffolded.folder, "package.json"), "utf8"))
  Fs.mkdirSync(project)
  // Until the SDK is on the registry, the project takes its @tawsil packages from the tarballs too.
  Fs.writeFileSync(
    Path.join(project, "package.json"),
    JSON.stringify({ private: true, overrides: manifest.overrides, dependencies: { effect: EFFECT } })
  )
  yield* exec(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", Path.join(dir, "tawsil-adapter-acme-post-0.1.0.tgz")],
    project
  )
  const installed = Path.join(project, "node_modules/tawsil-adapter-acme-post")

  const fake = yield* startFake(scaffolded.folder, "AcmePost")
  const byHandFake = yield* startFake(byHand.folder, "ZedPost")
  const start = (plugins: ReadonlyArray<string>) =>
    Effect.flatMap(TestDatabase.migratedDataDir, (dataDir) =>
      startApp({
        DATA_DIR: dataDir,
        COURIER_ADAPTERS: plugins.join(","),
        TAWSIL_COURIER_ORIGINS: `${ORIGIN}=${fake.origin},${BY_HAND_ORIGIN}=${byHandFake.origin}`
      })
    )
  const [app, fromTarball] = yield* Effect.all([start([scaffolded.folder, byHand.folder]), start([installed])], {
    concurrency: 2
  })
  return Plugin.of({ scaffolded, byHand, fake, byHandFake, app, fromTarball })
})

const post = (app: AppProcess, path: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${app.shippingUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
    return { status: response.status, type: response.headers.get("content-type"), body: (await response.text()) as any }
  })

const call = { courier: PLATFORM, credentials: { apiToken: TOKEN } }

describe("courier plugins written outside the repository", () => {
  layer(Layer.effect(Plugin, setup), { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect("each passes its conformance test as written, against the packed SDK, with one copy of effect", () =>
      Effect.gen(function* () {
        const { byHand, scaffolded } = yield* Plugin
        for (const plugin of [scaffolded, byHand]) {
          assert.deepInclude(plugin.conformance, { numPassedTests: 12, numFailedTests: 0, numPendingTests: 0 })
          assert.deepStrictEqual(plugin.effect, [EFFECT], `${plugin.style}: npm ls effect`)
          // Installed from the tarballs, not linked to this workspace.
          assert.isFalse(Fs.lstatSync(Path.join(plugin.folder, "node_modules/@tawsil/courier")).isSymbolicLink())
          // The SDK has no effect of its own: it shares the plugin's.
          assert.isFalse(Fs.existsSync(Path.join(plugin.folder, "node_modules/@tawsil/courier/node_modules/effect")))
        }
        const written = JSON.parse(Fs.readFileSync(Path.join(byHand.folder, "package.json"), "utf8"))
        assert.strictEqual(written.dependencies.effect, EFFECT)
        const scaffoldedManifest = JSON.parse(Fs.readFileSync(Path.join(scaffolded.folder, "package.json"), "utf8"))
        assert.match(scaffoldedManifest.peerDependencies.effect, /^\^4\./)
      })
    )

    it.effect(
      "appears in GET /v1/couriers of the bundled app, loaded from its folder or installed from its tarball",
      () =>
        Effect.forEach(["app", "fromTarball"] as const, (which) =>
          Effect.gen(function* () {
            const app = (yield* Plugin)[which]
            const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=${PLATFORM}`)
            assert.strictEqual(listed.status, 200)
            assert.deepStrictEqual(
              listed.body.map((courier: { key: string; capabilities: unknown; endpoint: string }) => [
                courier.key,
                courier.capabilities,
                courier.endpoint
              ]),
              [
                [
                  PLATFORM,
                  {
                    create: true,
                    track: true,
                    rates: true,
                    label: true,
                    // The plugin implements the four core operations only: the optional five are listed as false.
                    cancel: false,
                    dispatch: false,
                    trackBatch: false,
                    createBatch: false,
                    stopDesks: false,
                    communes: false,
                    checkCredentials: false,
                    push: false
                  },
                  ORIGIN
                ]
              ]
            )
          })
        )
    )

    it.effect("creates, tracks, prices and labels through HTTP, each reaching its fake", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Plugin
        const order = {
          recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
          deliveryType: "home",
          productList: "1x robe",
          codAmount: 4500
        }
        const created = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(created.status, 200, created.body)
        const { trackingNumber, status } = JSON.parse(created.body)
        assert.match(trackingNumber, /^ACM-\d{6}$/)
        assert.strictEqual(status, "created")

        const tracked = yield* post(app, "/v1/track", { ...call, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.body)
        assert.strictEqual(JSON.parse(tracked.body).events[0].rawStatus, "registered")

        const rates = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } })
        assert.strictEqual(rates.status, 200, rates.body)
        assert.strictEqual(JSON.parse(rates.body).deliveryFee, 650)

        const label = yield* post(app, "/v1/labels", { ...call, trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.strictEqual(label.type, "application/pdf")

        assert.deepStrictEqual(
          fake.requests.map(({ method, path }) => `${method} ${path}`),
          [
            "POST /v1/parcels",
            `GET /v1/parcels/${trackingNumber}/events`,
            "GET /v1/rates",
            `GET /v1/parcels/${trackingNumber}/label`
          ]
        )
        assert.notInclude(app.stdout() + app.stderr(), TOKEN)
      })
    )

    it.effect("the hand-written plugin is listed and prices through HTTP, reaching its own fake", () =>
      Effect.gen(function* () {
        const { app, byHandFake } = yield* Plugin
        const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=${BY_HAND}`)
        assert.deepStrictEqual(
          listed.body.map((courier: { key: string; endpoint: string }) => [courier.key, courier.endpoint]),
          [[BY_HAND, BY_HAND_ORIGIN]]
        )
        const rates = yield* post(app, "/v1/rates", {
          courier: BY_HAND,
          credentials: { apiToken: TOKEN },
          query: { toWilaya: 31, deliveryType: "home" }
        })
        assert.strictEqual(rates.status, 200, rates.body)
        assert.strictEqual(JSON.parse(rates.body).deliveryFee, 650)
        assert.deepStrictEqual(
          byHandFake.requests.map(({ method, path }) => `${method} ${path}`),
          ["GET /v1/rates"]
        )
      })
    )

    it.effect("reaches its fake the same way when installed from its tarball", () =>
      Effect.gen(function* () {
        const { fake, fromTarball } = yield* Plugin
        const before = fake.requests.length
        const rates = yield* post(fromTarball, "/v1/rates", {
          ...call,
          query: { toWilaya: 16, deliveryType: "stopdesk" }
        })
        assert.strictEqual(rates.status, 200, rates.body)
        assert.strictEqual(JSON.parse(rates.body).deliveryFee, 400)
        assert.deepStrictEqual(
          fake.requests.slice(before).map(({ method, path }) => `${method} ${path}`),
          ["GET /v1/rates"]
        )
      })
    )
  })
})
