/**
 * The app's secret key (docs/operations.md "Secret key"): where the configuration takes it from, read through the
 * app's own configuration path; the key file of the embedded database as a started app makes it; the admin CLI's
 * `secrets rotate` and `secrets reseal`; and that no key ever reaches a log line of a running app.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { KeyFile, KeyRing } from "@tawsil/secrets"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { ConfigProvider, Effect, Redacted, Result } from "effect"
import * as AppConfig from "../src/AppConfig.ts"
import { runAdminInProcess } from "./AdminInProcess.ts"
import { environment, getJson, spawnApp, startApp, waitForExit } from "./AppProcess.ts"

const loadWith = (env: Record<string, string>) =>
  AppConfig.load.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: environment(env) }))))

const hexKey = () => KeyRing.format(KeyRing.generate())

/** Every line the app wrote, on both streams. */
const output = (app: { readonly stdout: () => string; readonly stderr: () => string }) => app.stdout() + app.stderr()

describe("the secret key's configuration", () => {
  it.effect("takes TAWSIL_SECRET_KEY (either case) with its previous keys, for either database", () =>
    Effect.gen(function* () {
      const current = hexKey()
      const old = hexKey()
      const config = yield* loadWith({
        TAWSIL_SECRET_KEY: current.toUpperCase(),
        TAWSIL_SECRET_KEY_PREVIOUS: ` ${old} ,`,
        DATABASE_URL: "postgres://u:p@127.0.0.1:5432/x"
      })
      assert.strictEqual(config.secretKeys.kind, "variable")
      if (config.secretKeys.kind !== "variable") return
      assert.strictEqual(config.secretKeys.ring.current.id, KeyRing.idOf(Buffer.from(current, "hex")))
      assert.deepStrictEqual(
        config.secretKeys.ring.previous.map((key) => key.id),
        [KeyRing.idOf(Buffer.from(old, "hex"))]
      )
      assert.notInclude(JSON.stringify(config), current)
      assert.notInclude(String(config.secretKeys.ring.current.bytes), current)
    })
  )

  it.effect("without the variable: the data directory's key file on the embedded database, none on a server", () =>
    Effect.gen(function* () {
      const embedded = yield* loadWith({ DATA_DIR: "/srv/tawsil/data" })
      assert.deepStrictEqual(embedded.secretKeys, { kind: "file", path: "/srv/tawsil/data/secret.key" })
      const server = yield* loadWith({ DATABASE_URL: "postgres://u:p@127.0.0.1:5432/x" })
      assert.deepStrictEqual(server.secretKeys, { kind: "none" })
    })
  )

  const refusals: ReadonlyArray<readonly [Record<string, string>, string, string]> = [
    [{ TAWSIL_SECRET_KEY: "hunter2" }, "TAWSIL_SECRET_KEY", "64 hexadecimal characters (32 bytes)"],
    [{ TAWSIL_SECRET_KEY: `${hexKey()}00` }, "TAWSIL_SECRET_KEY", "64 hexadecimal characters (32 bytes)"],
    [{ TAWSIL_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") }, "TAWSIL_SECRET_KEY", "64 hexadecimal"],
    [{ TAWSIL_SECRET_KEY: "ab".repeat(32) }, "TAWSIL_SECRET_KEY", "a random key (its 32 bytes are all equal)"],
    [{ TAWSIL_SECRET_KEY_PREVIOUS: hexKey() }, "TAWSIL_SECRET_KEY_PREVIOUS", "to be set only with TAWSIL_SECRET_KEY"],
    [
      { TAWSIL_SECRET_KEY: hexKey(), TAWSIL_SECRET_KEY_PREVIOUS: `${hexKey()},hunter2` },
      "TAWSIL_SECRET_KEY_PREVIOUS",
      "keys of 64 hexadecimal characters (32 bytes), comma-separated"
    ]
  ]
  for (const [env, variable, expected] of refusals) {
    it.effect(`refuses ${Object.keys(env).join(" + ")} (${expected}), naming ${variable} and never the value`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(loadWith(env))
        assert.strictEqual(error._tag, "InvalidConfig")
        assert.match(error.message, new RegExp(`^${variable}: expected `))
        assert.include(error.message, expected)
        for (const value of Object.values(env).flatMap((text) => text.split(","))) {
          assert.notInclude(error.message, value)
        }
      })
    )
  }

  it.live("stops the app's start with one line naming the variable and exit 78", () =>
    Effect.gen(function* () {
      const app = yield* spawnApp({ TAWSIL_SECRET_KEY: "hunter2-not-a-key" })
      const exit = yield* waitForExit(app)
      assert.strictEqual(exit.code, 78)
      const lines = app.stderr().trim().split("\n")
      assert.lengthOf(lines, 1, app.stderr())
      assert.match(lines[0]!, /^tawsil: invalid configuration: TAWSIL_SECRET_KEY: expected 64 hexadecimal characters/)
      assert.notInclude(output(app), "hunter2")
    }).pipe(Effect.scoped)
  )
})

describe("the embedded database's key file", () => {
  it.live(
    "is made at the first start, private; rotated through the running app; refused once others may read it",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* TestDatabase.migratedDataDir
        const path = KeyFile.pathIn(dataDir)
        assert.isFalse(Fs.existsSync(path))
        const env = { DATA_DIR: dataDir, LOG_LEVEL: "debug" }
        const app = yield* startApp(env)
        assert.strictEqual((yield* getJson(`${app.storeUrl}/health`)).status, 200)
        assert.strictEqual(Fs.statSync(path).mode & 0o777, 0o600)
        const first = yield* KeyFile.read(path)
        const firstHex = KeyRing.format(first.current.bytes)

        // Through the running app's admin listener: the app switches keys and rewrites the file.
        const rotated = yield* runAdminInProcess(env, "secrets", "rotate")
        assert.strictEqual(rotated.code, 0, rotated.stdout)
        assert.include(rotated.json, { resumed: false, finished: true, settled: true, resealed: 0 })
        assert.deepStrictEqual(rotated.json.retired_key_ids, [first.current.id])
        const second = yield* KeyFile.read(path)
        assert.strictEqual(second.current.id, rotated.json.key_id)
        assert.notStrictEqual(second.current.id, first.current.id)
        assert.deepStrictEqual(second.previous, [])
        assert.strictEqual(Fs.statSync(path).mode & 0o777, 0o600)
        assert.deepStrictEqual(
          Fs.readdirSync(dataDir).filter((name) => name.startsWith(KeyFile.FILE_NAME)),
          [KeyFile.FILE_NAME],
          "no temporary file left"
        )
        const resealed = yield* runAdminInProcess(env, "secrets", "reseal")
        assert.strictEqual(resealed.code, 0, resealed.stdout)
        assert.include(resealed.json, { settled: true, resealed: 0 })

        app.child.kill("SIGTERM")
        assert.strictEqual((yield* waitForExit(app)).code, 0)
        const logs = output(app)
        assert.include(logs, `"keyId":"${first.current.id}"`, "the key is named by its id")
        assert.include(logs, `"keyId":"${second.current.id}"`, "the switch is logged by id")
        for (const key of [firstHex, KeyRing.format(second.current.bytes)]) {
          assert.notInclude(logs, key)
          assert.notInclude(logs, Buffer.from(key, "hex").toString("base64"))
        }

        Fs.chmodSync(path, 0o644)
        const refused = yield* spawnApp(env)
        assert.strictEqual((yield* waitForExit(refused)).code, 78)
        const lines = refused.stderr().trim().split("\n")
        assert.lengthOf(lines, 1, refused.stderr())
        assert.include(lines[0], `tawsil: cannot start: the secret key file ${path} may be read by other users`)
        assert.include(lines[0], `chmod 600 ${path}`)
      }).pipe(Effect.scoped),
    180_000
  )

  it.live("is rotated by the admin CLI with no app running, and finished by a second run", () =>
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.migratedDataDir
      const path = KeyFile.pathIn(dataDir)
      const env = { DATA_DIR: dataDir }
      const first = yield* runAdminInProcess(env, "secrets", "rotate")
      assert.strictEqual(first.code, 0, first.stdout)
      const made = yield* KeyFile.read(path)
      assert.strictEqual(made.current.id, first.json.key_id)
      // A rotation that stopped after writing its new key: the next run finishes it without making another.
      const older = KeyRing.rotate(made, Result.getOrThrow(KeyRing.key(KeyRing.generate())))
      yield* KeyFile.replace(path, older)
      const second = yield* runAdminInProcess(env, "secrets", "rotate")
      assert.include(second.json, { resumed: true, finished: true, key_id: older.current.id })
      assert.deepStrictEqual(second.json.retired_key_ids, [made.current.id])
      assert.deepStrictEqual((yield* KeyFile.read(path)).previous, [])
    }).pipe(Effect.scoped)
  )

  it.live("is not rotated where the key comes from TAWSIL_SECRET_KEY: the CLI says how to rotate that one", () =>
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.migratedDataDir
      const key = hexKey()
      const run = yield* runAdminInProcess({ DATA_DIR: dataDir, TAWSIL_SECRET_KEY: key }, "secrets", "rotate")
      assert.strictEqual(run.code, 1)
      assert.include(run.json.error.message, "TAWSIL_SECRET_KEY_PREVIOUS")
      assert.include(run.json.error.message, "secrets reseal")
      assert.notInclude(run.stdout + run.stderr, key)
      assert.isFalse(Fs.existsSync(KeyFile.pathIn(dataDir)), "no key file beside a configured key")
      const resealed = yield* runAdminInProcess({ DATA_DIR: dataDir, TAWSIL_SECRET_KEY: key }, "secrets", "reseal")
      assert.strictEqual(resealed.code, 0, resealed.stdout)
    }).pipe(Effect.scoped)
  )
})

describe("a configured key in a running app", () => {
  it.live("appears in no log line, at the most verbose level, through requests and a stop", () =>
    Effect.gen(function* () {
      const canary = hexKey()
      const dataDir = yield* TestDatabase.migratedDataDir
      const app = yield* startApp({ DATA_DIR: dataDir, TAWSIL_SECRET_KEY: canary, LOG_LEVEL: "trace" })
      for (const url of [`${app.storeUrl}/health`, `${app.shippingUrl}/health`, `${app.storeUrl}/v1/orders`]) {
        yield* getJson(url)
      }
      app.child.kill("SIGTERM")
      assert.strictEqual((yield* waitForExit(app)).code, 0)
      const logs = output(app)
      assert.include(logs, `"keyId":"${KeyRing.idOf(Buffer.from(canary, "hex"))}"`)
      for (const form of [canary, canary.toUpperCase(), Buffer.from(canary, "hex").toString("base64")]) {
        assert.notInclude(logs, form)
      }
      assert.isFalse(Fs.existsSync(Path.join(dataDir, KeyFile.FILE_NAME)), "no key file beside a configured key")
    }).pipe(Effect.scoped)
  )
})

if (TestDatabase.serverUrl) {
  const adminUrl = TestDatabase.serverUrl
  describe("a server database with no key", () => {
    it.live("re-seals nothing: the CLI names TAWSIL_SECRET_KEY", () =>
      Effect.gen(function* () {
        const url = Redacted.value(yield* TestDatabase.freshServerDatabase(adminUrl))
        const run = yield* runAdminInProcess({ DATABASE_URL: url }, "secrets", "reseal")
        assert.strictEqual(run.code, 1)
        assert.include(run.json.error.message, "set TAWSIL_SECRET_KEY")
      }).pipe(Effect.scoped)
    )
  })
}
