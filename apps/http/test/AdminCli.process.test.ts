/**
 * The admin CLI as operators run it (`npm run admin -- …`, read from the root package.json): next to a running app
 * on the embedded database (through its admin listener) and on a real server (directly), and with no app running (it
 * opens the data directory itself).
 *
 * A real process (`adminProcess`) wherever the process is what is tested: a usage mistake's exit code, the command on
 * a directory whose lock a killed app left behind, the first command on a real server, and every command whose change
 * a running app must hear of through the server's NOTIFY. The other commands run the same entry in this process
 * (`admin`, through `runAdminInProcess`): same arguments, environment, stdout and exit code, without a Node start and
 * module load (about 1.5 s of CPU) each. Two app boots on the embedded database: one stopped with SIGTERM after the
 * CLI worked through its listener, one killed while it starts. With no app at all: `AdminCli.db.test.ts`.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import { Database } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer, Redacted, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { ADDRESS_FILE, PATH, SECRET_FILE } from "../src/admin/AdminListener.ts"
import { type AdminOutput, runAdminInProcess } from "./AdminInProcess.ts"
import { type AppProcess, getJson, runAdmin, spawnApp, startApp, waitForExit } from "./AppProcess.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

/** Each test spawns several processes, each starting a database: generous on a loaded machine. */
const TIMEOUT = 180_000

/** Runs the CLI as a process (`runAdmin`); its stdout must be exactly one JSON object on one line. */
const adminProcess = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.orDie(runAdmin(env, ...args))

/** Runs the CLI's entry in this process; its stdout must be exactly one JSON object on one line too. */
const admin = (env: Record<string, string>, ...args: ReadonlyArray<string>): Effect.Effect<AdminOutput> =>
  Effect.orDie(runAdminInProcess(env, ...args))

type Admin = typeof admin
const inProcess = admin

/** The app the server-database tests share, and its database. */
class ServerApp extends Context.Service<
  ServerApp,
  { readonly url: Redacted.Redacted<string>; readonly env: Record<string, string>; readonly app: AppProcess }
>()("test/AdminCli/ServerApp") {}

const ok = (run: AdminOutput) => {
  assert.strictEqual(run.code, 0, `${run.stdout}\n${run.stderr}`)
  assert.isUndefined(run.json.error)
  return run.json
}

const refused = (run: AdminOutput, code = 1) => {
  assert.strictEqual(run.code, code, run.stdout)
  assert.deepStrictEqual(Object.keys(run.json), ["error"])
  return run.json.error.message as string
}

/** A request to a running app or its admin listener, read as JSON. */
const send = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON field by field
    return { status: response.status, body: (await response.json()) as any }
  })

/** A data directory holding an initialised database (copied from a template: no initdb per test). */
const dataDir = Effect.map(TestDatabase.freshDataDir, (dir) => ({ DATA_DIR: dir }))

/** The operator's usual session: a store, keys up to the limit, an app token, quotas, a plan change. */
const session = (env: Record<string, string>, first: Admin = admin) =>
  Effect.gen(function* () {
    const created = ok(yield* first(env, "store", "create", "--name", "Dar El Beïda", "--language", "fr"))
    assert.deepInclude(created.store, { name: "Dar El Beïda", slug: "dar-el-beida", plan: "enterprise", pilot: true })
    assert.strictEqual(created.store.language, "fr")
    assert.match(created.platform_key.bearer_token, /^twpk_live_[a-z0-9]{14}\.[0-9a-f]{48}$/)
    const store = String(created.store.id)
    const unenrolled = ok(yield* admin(env, "store", "create", "--name", "Dar El Beïda", "--no-pilot", "--plan", "pro"))
    assert.deepInclude(unenrolled.store, { slug: "dar-el-beida-2", pilot: false, plan: "pro" })

    const publicKey = ok(yield* admin(env, "key", "create", "--store", store, "--type", "public"))
    assert.deepInclude(publicKey, { type: "public", status: "active", bearer_token: null })
    assert.match(publicKey.signing_secret, /^[0-9a-f]{64}$/)
    ok(yield* admin(env, "key", "create", "--store", store, "--type", "platform", "--name", "ERP"))
    const fourth = refused(yield* admin(env, "key", "create", "--store", store, "--type", "platform"))
    assert.strictEqual(fourth, "A store can hold at most 3 active keys")

    const token = ok(yield* admin(env, "app-token", "create", "--store", store, "--scopes", "orders:write, usage:read"))
    assert.match(token.token, /^twapp_live_[0-9a-f]{48}$/)
    assert.deepStrictEqual(token.scopes, ["orders:write", "usage:read"])

    const quota = ok(yield* admin(env, "quota", "set", "--store", store, "--requests-per-minute", "120"))
    assert.strictEqual(quota.effective.requests_per_minute, 120)
    assert.strictEqual(quota.overrides.requests_per_minute, 120)
    const unlimited = ok(yield* admin(env, "quota", "set", "--store", store, "--requests-per-month", "-1"))
    assert.deepInclude(unlimited.effective, { requests_per_minute: 120, requests_per_month: -1 })

    assert.strictEqual(ok(yield* admin(env, "store", "set-plan", "--store", store, "--plan", "free")).plan, "free")
    assert.strictEqual(
      refused(yield* admin(env, "store", "set-plan", "--store", "4242", "--plan", "pro")),
      "Store 4242 not found"
    )
    return { ...created, app_token: token.token as string }
  })

describe("the admin CLI", () => {
  it.live(
    "answers usage mistakes with one JSON error and exit 2, before touching any database",
    () =>
      Effect.gen(function* () {
        const env = { DATA_DIR: Path.join(ROOT, "nonexistent", "never-created") }
        assert.strictEqual(refused(yield* adminProcess(env, "store", "create"), 2), "Missing required flag: --name")
        assert.match(refused(yield* admin(env, "store", "create", "--name", "X", "--plan", "gold"), 2), /--plan/)
        assert.match(
          refused(yield* admin(env, "quota", "set", "--store", "1", "--requests-per-minute", "lots"), 2),
          /tier/
        )
        assert.match(refused(yield* admin(env, "quota", "set", "--store", "1"), 2), /--requests-per-minute/)
        assert.match(
          refused(yield* admin(env, "store", "addon", "--store", "1", "--promo-codes", "maybe"), 2),
          /--promo-codes/
        )
        assert.match(refused(yield* admin(env, "bogus"), 2), /bogus/)
        assert.match(refused(yield* admin(env, "store"), 2), /command/)
        assert.isFalse(Fs.existsSync(env.DATA_DIR))
      }),
    TIMEOUT
  )

  it.live(
    "goes through a running app's admin listener on the embedded database: the app keeps serving and sees each change on its very next request; stopped, it takes its files away",
    () =>
      Effect.gen(function* () {
        const env = yield* dataDir
        const app = yield* startApp(env)
        const secretFile = Path.join(env.DATA_DIR, SECRET_FILE)
        assert.strictEqual(Fs.statSync(secretFile).mode & 0o777, 0o600)
        const address = JSON.parse(Fs.readFileSync(Path.join(env.DATA_DIR, ADDRESS_FILE), "utf8"))
        assert.match(address.url, /^http:\/\/127\.0\.0\.1:\d+$/)
        assert.strictEqual(address.pid, app.child.pid)

        const created = yield* session(env)
        assert.strictEqual((yield* getJson(`${app.storeUrl}/health`)).status, 200)
        // The app sees what the CLI did at once: the key authenticates, the store is now on Free (403), and the
        // app token works on any plan.
        const whoami = (token: string) =>
          send(`${app.storeUrl}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } })
        const asKey = yield* whoami(created.platform_key.bearer_token)
        assert.deepStrictEqual(
          [asKey.status, asKey.body.error?.message],
          [403, "API access requires an active Enterprise plan"]
        )
        const asApp = yield* whoami(created.app_token)
        assert.strictEqual(asApp.status, 200, JSON.stringify(asApp.body))
        assert.strictEqual(asApp.body.data.store.id, created.store.id)

        // Only the holder of the secret is served.
        const forged = yield* send(`${address.url}${PATH}`, {
          method: "POST",
          headers: { authorization: `Bearer ${"0".repeat(64)}`, "content-type": "application/json" },
          body: JSON.stringify({ op: "store.create", input: { name: "Intruder" } })
        })
        assert.deepStrictEqual(forged, { status: 401, body: { error: { message: "admin secret missing or wrong" } } })

        yield* changesSeen(env, admin, app, atOnce)

        // Stopped, the app takes its files away; the CLI then opens the directory and sees the app's data.
        app.child.kill("SIGTERM")
        assert.strictEqual((yield* waitForExit(app)).code, 0)
        assert.isFalse(Fs.existsSync(secretFile))
        assert.isFalse(Fs.existsSync(Path.join(env.DATA_DIR, ADDRESS_FILE)))
        const third = ok(yield* admin(env, "store", "create", "--name", "Dar El Beïda"))
        assert.strictEqual(third.store.slug, "dar-el-beida-3")
      }).pipe(Effect.scoped),
    TIMEOUT
  )

  it.live(
    "waits for an app that holds the data directory while it starts, then goes through its listener; once the app is killed, ignores its files and opens the directory itself",
    () =>
      Effect.gen(function* () {
        const env = yield* dataDir
        const app = yield* spawnApp(env)
        const pidFile = Path.join(env.DATA_DIR, "tawsil.pid")
        // The app holds the directory's lock from the moment its pid is in the pid file; its listener comes later.
        yield* Effect.sync(
          () => Fs.existsSync(pidFile) && Fs.readFileSync(pidFile, "utf8").trim() === String(app.child.pid)
        ).pipe(Effect.repeat({ until: (held) => held, schedule: Schedule.spaced("20 millis") }))
        const created = ok(yield* admin(env, "store", "create", "--name", "Early bird"))
        assert.strictEqual(created.store.slug, "early-bird")
        assert.isTrue(Fs.existsSync(Path.join(env.DATA_DIR, ADDRESS_FILE)), "served by the app's listener")
        assert.isNull(app.child.exitCode)

        app.child.kill("SIGKILL")
        yield* waitForExit(app)
        assert.isTrue(Fs.existsSync(Path.join(env.DATA_DIR, ADDRESS_FILE)), "a killed app leaves its address behind")
        const after = ok(yield* adminProcess(env, "store", "create", "--name", "After the crash"))
        assert.strictEqual(after.store.slug, "after-the-crash")
        assert.strictEqual(
          ok(yield* admin(env, "key", "create", "--store", String(after.store.id), "--type", "public")).status,
          "active"
        )
      }).pipe(Effect.scoped),
    TIMEOUT
  )

  /**
   * How the app's answers after a CLI change are read. Through the app's own admin listener (the embedded database)
   * the app drops its caches before the command returns: its very next answer shows the change (`atOnce`). Directly
   * on a server database the app hears of the change through the server's `NOTIFY`, delivered to it a few
   * milliseconds after the command commits, asynchronously: an answer given before it has heard is the cached one,
   * so answers are asked again until one shows the change, for at most 2 s (`onceHeard`).
   */
  type Heard = <A>(answer: Effect.Effect<A>, shows: (a: A) => boolean) => Effect.Effect<A>
  const atOnce: Heard = (answer) => answer
  const onceHeard: Heard = (answer, shows) =>
    Effect.repeat(answer, {
      until: shows,
      schedule: Schedule.spaced("20 millis").pipe(Schedule.upTo({ duration: "2 seconds" }))
    })

  /**
   * The CLI changes a plan, a pilot enrolment and a key's status while the app has the key's answers cached (its
   * access cache and the read cache): the app sees each change (`heard`).
   */
  function changesSeen(env: Record<string, string>, admin: Admin, app: AppProcess, heard: Heard) {
    return Effect.gen(function* () {
      // A new store is in no cache yet: made in this process whichever way the changes below are made.
      const created = ok(yield* inProcess(env, "store", "create", "--name", "Cached shop"))
      const store = String(created.store.id)
      const token = created.platform_key.bearer_token as string
      const keyId = created.platform_key.key_id as string
      const getStore = () => send(`${app.storeUrl}/v1/store`, { headers: { authorization: `Bearer ${token}` } })
      const status = (expected: number) =>
        Effect.map(
          heard(getStore(), (answer) => answer.status === expected),
          (answer) => answer.status
        )
      assert.strictEqual((yield* getStore()).status, 200)
      assert.strictEqual((yield* getStore()).status, 200, "cached now")

      ok(yield* admin(env, "store", "set-plan", "--store", store, "--plan", "pro"))
      assert.strictEqual(yield* status(403), 403, "plan")
      ok(yield* admin(env, "store", "set-plan", "--store", store, "--plan", "enterprise"))
      assert.strictEqual(yield* status(200), 200)

      assert.deepInclude(ok(yield* admin(env, "key", "pilot", "--key", keyId, "--enrolled", "off")), { pilot: false })
      assert.strictEqual(yield* status(403), 403, "pilot")
      ok(yield* admin(env, "key", "pilot", "--key", keyId, "--enrolled", "on"))
      assert.strictEqual(yield* status(200), 200)

      assert.deepInclude(ok(yield* admin(env, "key", "suspend", "--key", keyId)), { status: "suspended" })
      assert.strictEqual(yield* status(401), 401, "suspension")
      ok(yield* admin(env, "key", "activate", "--key", keyId))
      assert.strictEqual(yield* status(200), 200)

      // The Promo codes add-on: new stores have it; off, promo writes answer 409 at once; on again, they work.
      const createCode = (code: string) =>
        send(`${app.storeUrl}/v1/promo-codes`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "idempotency-key": `addon-${code}`
          },
          body: JSON.stringify({ code, discount_type: "fixed", discount_value: 100 })
        })
      assert.strictEqual((yield* createCode("FIRST")).status, 201)
      ok(yield* admin(env, "store", "addon", "--store", store, "--promo-codes", "off"))
      const inactive = yield* createCode("SECOND")
      assert.deepStrictEqual([inactive.status, inactive.body.error.code], [409, "addon_inactive"])
      ok(yield* admin(env, "store", "addon", "--store", store, "--promo-codes", "on"))
      assert.strictEqual((yield* createCode("THIRD")).status, 201)

      ok(yield* admin(env, "quota", "set", "--store", store, "--requests-per-minute", "1"))
      // The window is the database clock's minute: the first call may open a new one, the second is over the limit.
      // (Whoami, not the store: a read-cache hit is counted nowhere.)
      const whoami = () => send(`${app.storeUrl}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } })
      yield* whoami()
      assert.strictEqual((yield* heard(whoami(), (answer) => answer.status === 429)).status, 429, "quota")

      ok(yield* admin(env, "key", "revoke", "--key", keyId))
      assert.strictEqual(yield* status(401), 401, "revocation")
      // A refusal changes nothing for the app to hear of: in this process too.
      assert.strictEqual(
        refused(yield* inProcess(env, "key", "activate", "--key", keyId)),
        `Key ${keyId} not found or revoked`
      )
    })
  }

  if (TestDatabase.serverUrl !== undefined) {
    const adminUrl = TestDatabase.serverUrl
    // One app on one fresh server database for both tests: each works on stores of its own.
    const serverApp = Layer.effect(
      ServerApp,
      Effect.gen(function* () {
        const url = yield* TestDatabase.freshServerDatabase(adminUrl)
        const env = { DATABASE_URL: Redacted.value(url) }
        return { url, env, app: yield* startApp(env) }
      })
    )
    layer(serverApp, { timeout: TIMEOUT, excludeTestServices: true })(
      "on a server database, with an app on it",
      (it) => {
        it.effect(
          "changes made directly on the server database are seen by a running app once it hears the server's NOTIFY",
          () =>
            Effect.gen(function* () {
              const { env, app } = yield* ServerApp
              yield* changesSeen(env, adminProcess, app, onceHeard)
            }),
          TIMEOUT
        )
        it.effect(
          "connects to the database directly with DATABASE_URL, while an app runs on it",
          () =>
            Effect.gen(function* () {
              const { url, env, app } = yield* ServerApp
              const created = yield* session(env, adminProcess)
              assert.strictEqual((yield* getJson(`${app.storeUrl}/health`)).status, 200)
              const whoami = yield* send(`${app.storeUrl}/v1/whoami`, {
                headers: { authorization: `Bearer ${created.app_token}` }
              })
              assert.strictEqual(whoami.status, 200)
              assert.strictEqual(whoami.body.data.store.id, created.store.id)
              const rows = yield* Effect.gen(function* () {
                const sql = yield* SqlClient.SqlClient
                return yield* sql<{ readonly status: string; readonly secret_sha256: string | null }>`
            SELECT status, secret_sha256 FROM api_keys WHERE key_id = ${created.platform_key.key_id}`
              }).pipe(Effect.provide(Database.layerServer({ url, maxConnections: 1 })), Effect.orDie)
              assert.strictEqual(rows[0]!.status, "active")
              assert.notInclude(created.platform_key.bearer_token, rows[0]!.secret_sha256!)
            }),
          TIMEOUT
        )
      }
    )
  }
})
