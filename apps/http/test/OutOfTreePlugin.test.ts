/**
 * A courier plugin written outside this repository, as its author would: scaffolded with `npm run new:adapter` into
 * a temporary folder, installed there against the packed SDK (never this workspace's module resolution), its
 * conformance test run with its own vitest, built, and loaded by the bundled app through `COURIER_ADAPTERS`, with
 * `TAWSIL_COURIER_ORIGINS` pointing its courier at the plugin's own loopback fake.
 *
 * The SDK comes from `TAWSIL_SDK_TARBALLS` (a folder of `tawsil-<name>-<version>.tgz`, as a release produces) when
 * set; otherwise from `npm pack` of the workspaces here (their `prepack` builds them and drops the source condition).
 */
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { type AppProcess, getJson, startApp } from "./AppProcess.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const NODE = process.execPath
/** The SDK packages a plugin installs: what it imports, and what those depend on. */
const SDK = ["@tawsil/courier", "@tawsil/domain", "@tawsil/egress"]
const PLATFORM = "acme_post"
const ORIGIN = "https://api.acme-post.example"
const TOKEN = "canary-out-of-tree-5c1d9e"

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
const sdkTarballs = (dir: string) =>
  Effect.gen(function* () {
    const given = process.env.TAWSIL_SDK_TARBALLS
    if (given !== undefined && given !== "") return given
    const out = Path.join(dir, "sdk")
    Fs.mkdirSync(out)
    yield* exec("npm", ["pack", ...SDK.flatMap((name) => ["-w", name]), "--pack-destination", out], ROOT)
    return out
  })

/** The counts of vitest's JSON report. */
interface Conformance {
  readonly numPassedTests: number
  readonly numFailedTests: number
  readonly numPendingTests: number
}

interface FakeCourier {
  readonly origin: string
  readonly requests: ReadonlyArray<{ readonly method: string; readonly path: string }>
  readonly close: () => Promise<void>
}

class Plugin extends Context.Service<
  Plugin,
  {
    readonly folder: string
    readonly conformance: Conformance
    readonly fake: FakeCourier
    /** The app loading the plugin's folder. */
    readonly app: AppProcess
    /** The app loading the plugin installed from its tarball into another project. */
    readonly fromTarball: AppProcess
  }
>()("test/OutOfTreePlugin") {}

const setup = Effect.gen(function* () {
  const dir = yield* tempDir
  const sdk = yield* sdkTarballs(dir)
  const folder = Path.join(dir, "acme-post")
  yield* exec("npm", ["run", "new:adapter", "--", PLATFORM, "--out", folder, "--sdk", sdk], ROOT)
  yield* exec("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], folder)
  // The author's own toolchain, on this Node 22: type-check, the conformance kit, the build a host loads.
  yield* exec(NODE, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.test.json"], folder)
  const report = Path.join(dir, "conformance.json")
  yield* exec(NODE, ["node_modules/vitest/vitest.mjs", "run", "--reporter=json", `--outputFile=${report}`], folder)
  const conformance = JSON.parse(Fs.readFileSync(report, "utf8")) as Conformance
  yield* exec(NODE, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], folder)

  // The same plugin packed (its prepack builds it) and installed from the tarball into another project.
  yield* exec("npm", ["pack", "--pack-destination", dir], folder)
  const project = Path.join(dir, "project")
  const manifest = JSON.parse(Fs.readFileSync(Path.join(folder, "package.json"), "utf8"))
  Fs.mkdirSync(project)
  // Until the SDK is on the registry, the project takes its @tawsil packages from the tarballs too.
  Fs.writeFileSync(Path.join(project, "package.json"), JSON.stringify({ private: true, overrides: manifest.overrides }))
  yield* exec(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", Path.join(dir, "tawsil-adapter-acme-post-0.1.0.tgz")],
    project
  )
  const installed = Path.join(project, "node_modules/tawsil-adapter-acme-post")

  const module = (yield* Effect.promise(
    () => import(pathToFileURL(Path.join(folder, "test/fake/AcmePostFake.ts")).href)
  )) as { start: (options: { tokens: ReadonlyArray<string> }) => Promise<FakeCourier> }
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => module.start({ tokens: [TOKEN] })),
    (fake) => Effect.promise(() => fake.close())
  )
  const start = (plugin: string) =>
    Effect.flatMap(TestDatabase.migratedDataDir, (dataDir) =>
      startApp({ DATA_DIR: dataDir, COURIER_ADAPTERS: plugin, TAWSIL_COURIER_ORIGINS: `${ORIGIN}=${fake.origin}` })
    )
  const [app, fromTarball] = yield* Effect.all([start(folder), start(installed)], { concurrency: 2 })
  return Plugin.of({ folder, conformance, fake, app, fromTarball })
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

describe("a courier plugin written outside the repository", () => {
  layer(Layer.effect(Plugin, setup), { timeout: "100 seconds", excludeTestServices: true })((it) => {
    it.effect("passes its conformance test as generated, against the packed SDK", () =>
      Effect.gen(function* () {
        const { conformance, folder } = yield* Plugin
        assert.deepInclude(conformance, { numPassedTests: 12, numFailedTests: 0, numPendingTests: 0 })
        // Installed from the tarballs, not linked to this workspace.
        assert.isFalse(Fs.lstatSync(Path.join(folder, "node_modules/@tawsil/courier")).isSymbolicLink())
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
