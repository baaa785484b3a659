/**
 * Orders meet parcels with the app as operators run it (`npm start` processes on real sockets; the embedded database
 * always, PostgreSQL when `DATABASE_URL` is set), for what only processes show:
 *
 * - A `kill -9` while a poll cycle is half done (one DHD account's batch reads held at Ecotrack's fake, the
 *   others applied) and a burst of Yalidine pushes is in flight: every event the pusher saw acknowledged was
 *   recorded; after the restart (the killed instance's claims, its poller's and its push applier's, taken over once
 *   their lease ran out) every one of them is applied by the new instance's applier, re-sending every event records
 *   none twice and applies each once, each order moves once, and the webhook outbox holds each event once.
 * - A canary Yalidine token, DHD token and webhook secret: in no answer, no log line of any of the processes (at
 *   `trace`), no change row, no webhook payload delivered, and nowhere in the database in clear text (every row of
 *   every table as text; `pg_dump` of the server's database).
 * - Two instances on one PostgreSQL database: each due parcel read once per cycle, counted at DHD's fake.
 *
 * One app run per phase, the database read between runs; readiness and progress are polled, never slept on.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Database } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Fiber, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as EcotrackFake from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import * as YalidineFake from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as YalidinePusher from "../../../../adapters/yalidine/test/fake/YalidinePusher.ts"
import * as Receiver from "../../../../packages/webhooks/test/Receiver.ts"
import * as Announcements from "../../src/Announcements.ts"
import { runAdminInProcess } from "../AdminInProcess.ts"
import { type AppProcess, startApp, waitForExit } from "../AppProcess.ts"

const TIMEOUT = 300_000

/** Secrets no code path may print, store in clear or return. */
const CANARY_YALIDINE = "canary-yal-4e1d9b7c2a8f6035-token"
const CANARY_DHD = "canary-dhd-8a3f0c6e1b9d4725-token"
const CANARY_HOOK = "canary-hook-5c7b2e9f0a1d8364-secret"
const CANARIES = [CANARY_YALIDINE, CANARY_DHD, CANARY_HOOK]
/** The other two DHD accounts' tokens. */
const DHD_TOKENS = [CANARY_DHD, "dhd-second-account-token-01", "dhd-third-account-token-002"]

/** The statuses each Yalidine parcel is pushed through, in order. */
const JOURNEY = ["Ramassé", "Transfert", "Centre", "Vers Wilaya", "Reçu à Wilaya", "Sorti en livraison", "Livré"]
const YALIDINE_ORDERS = 6
/** Parcels two instances poll. */
const PARCELS = 30
/**
 * The DHD accounts they are shipped through: three parcels each, so that shipping them (a create and a validation a
 * parcel) stays within each account's burst; DHD's 50 calls a minute are paced at one every 1.5 s past it.
 */
const POLLED_TOKENS = Array.from({ length: PARCELS / 3 }, (_, index) => `dhd-polled-account-token-${index}`)
const DHD_ORDERS_PER_ACCOUNT = 3

interface Answer {
  /** The HTTP status, or "lost" when no answer came (the process was killed). */
  readonly status: number | "lost"
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
  readonly body: any
  readonly text: string
}

/** Every answer's text, for the canary's search. */
const answers: Array<string> = []

const send = (base: string, method: string, path: string, token: string, body?: unknown) =>
  Effect.promise(async (): Promise<Answer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (method !== "GET") headers["idempotency-key"] = `k-${randomBytes(8).toString("hex")}`
    if (body !== undefined) headers["content-type"] = "application/json"
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000)
      })
      const text = await response.text()
      answers.push(text)
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = undefined
      }
      return { status: response.status, body: parsed, text }
    } catch {
      return { status: "lost", body: undefined, text: "" }
    }
  })

/** A call that must succeed: its `data`. */
const ok = (base: string, method: string, path: string, token: string, body?: unknown) =>
  Effect.map(send(base, method, path, token, body), (answer) => {
    assert.strictEqual(answer.status, 200, `${method} ${path}: ${answer.text}`)
    return answer.body.data
  })

/** Waits, polling every 100 ms, until `read` answers what `done` accepts (at most `within` ms); answers it. */
const until = <A, R>(read: Effect.Effect<A, never, R>, done: (value: A) => boolean, what: string, within = 60_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + within
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${what}: not within ${within} ms`))
      yield* Effect.sleep("100 millis")
    }
  })

interface Backend {
  readonly name: Database.Kind
  /** The environment of an app on a new, migrated database of this kind. */
  readonly fresh: Effect.Effect<Record<string, string>, never, Scope.Scope>
  /** A store with no per-minute limit and its platform key's token; the app runs. */
  readonly createStore: (env: Record<string, string>) => Effect.Effect<{ readonly id: number; readonly token: string }>
  /** The database opened directly, once no app runs on it. */
  readonly open: (env: Record<string, string>) => Layer.Layer<Database.Services, Database.DatabaseStartError>
  /** The database's whole content as `pg_dump` writes it, where there is one. */
  readonly dump: (env: Record<string, string>) => string | undefined
}

const serverAdmin = (url: Redacted.Redacted<string>) =>
  Admin.layerSql.pipe(
    Layer.provide(Announcements.accessEvents),
    Layer.provideMerge(Database.layerServer({ url, maxConnections: 1 })),
    Layer.orDie
  )

const backends = (): ReadonlyArray<Backend> => {
  const embedded: Backend = {
    name: "embedded",
    // The key file is made in the data directory at the first start.
    fresh: Effect.map(TestDatabase.migratedDataDir, (dir) => ({ DATA_DIR: dir })),
    createStore: (env) =>
      Effect.gen(function* () {
        const created = yield* runAdminInProcess(env, "store", "create", "--name", "Colis et commandes")
        assert.strictEqual(created.code, 0, created.stderr)
        const id = String(created.json.store.id)
        const quota = yield* runAdminInProcess(env, "quota", "set", "--store", id, "--requests-per-minute", "-1")
        assert.strictEqual(quota.code, 0, quota.stderr)
        return { id: created.json.store.id as number, token: created.json.platform_key.bearer_token as string }
      }).pipe(Effect.orDie),
    open: (env) => Database.layerEmbedded({ dataDir: env.DATA_DIR! }),
    dump: () => undefined
  }
  const serverUrl = TestDatabase.serverUrl
  if (serverUrl === undefined) return [embedded]
  const server: Backend = {
    name: "server",
    fresh: Effect.map(TestDatabase.migratedServerDatabase(serverUrl), (url) => ({
      DATABASE_URL: Redacted.value(url),
      TAWSIL_SECRET_KEY: randomBytes(32).toString("hex")
    })),
    createStore: (env) =>
      Effect.gen(function* () {
        const admin = yield* Admin.Admin
        const created = yield* admin.createStore({ name: "Colis et commandes" })
        yield* admin.setQuota(created.store.id, { requestsPerMinute: -1 })
        return { id: created.store.id, token: Redacted.value(created.platform_key.bearer_token) }
      }).pipe(Effect.provide(serverAdmin(Redacted.make(env.DATABASE_URL!))), Effect.orDie),
    open: (env) => Database.layerServer({ url: Redacted.make(env.DATABASE_URL!), maxConnections: 1 }),
    dump: (env) =>
      execFileSync("pg_dump", ["--data-only", env.DATABASE_URL!], {
        encoding: "utf8",
        maxBuffer: 1 << 28,
        stdio: ["ignore", "pipe", "pipe"]
      })
  }
  return [embedded, server]
}

/** Runs `effect` on the database of `env` while no app runs on it. */
const onDatabase = <A>(
  backend: Backend,
  env: Record<string, string>,
  effect: Effect.Effect<A, unknown, SqlClient.SqlClient>
) => effect.pipe(Effect.provide(backend.open(env)), Effect.orDie)

/** Every row of every table, as JSON text. */
const everyRow = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
  const rows: Array<string> = []
  for (const { table_name } of tables) {
    const found = yield* sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql(table_name)} t`
    rows.push(...found.map((row) => row.row))
  }
  return rows.join("\n")
})

/** The Algiers wall-clock date and time `seconds` from now, as Ecotrack's fake stamps activity. */
const algiers = (seconds: number) =>
  YalidinePusher.algiersTime(Date.now() + seconds * 1000).split(" ") as unknown as readonly [string, string]

/** The tracking numbers a batch read asked for. */
const asked = (request: { readonly query: Readonly<Record<string, string>> }) =>
  Object.entries(request.query)
    .filter(([name]) => /^trackings\[\d*\]$/.test(name))
    .map(([, value]) => value)

const BATCH_PATH = "/api/v1/get/trackings/info"

describe("shipments in app processes", () => {
  if (TestDatabase.serverUrl !== undefined) {
    const adminUrl = TestDatabase.serverUrl
    it.live(
      "two instances on one database: each due parcel is read once per cycle, counted at DHD's fake",
      () =>
        Effect.gen(function* () {
          const ecotrack = yield* EcotrackFake.make({ tokens: POLLED_TOKENS })
          const url = yield* TestDatabase.freshServerDatabase(adminUrl)
          const env = {
            DATABASE_URL: Redacted.value(url),
            TAWSIL_SECRET_KEY: randomBytes(32).toString("hex"),
            TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${ecotrack.origin}`,
            SHIPMENT_POLL_INTERVAL_MS: "100",
            LOG_LEVEL: "warn"
          }
          const apps = yield* Effect.all([startApp(env, { within: 60_000 }), startApp(env, { within: 60_000 })], {
            concurrency: "unbounded"
          })
          yield* Effect.gen(function* () {
            const admin = yield* Admin.Admin
            const sql = yield* SqlClient.SqlClient
            const created = yield* admin.createStore({ name: "Deux instances" })
            yield* admin.setQuota(created.store.id, { requestsPerMinute: -1 })
            const token = Redacted.value(created.platform_key.bearer_token)
            const product = yield* ok(apps[0]!.storeUrl, "POST", "/v1/products", token, {
              name: "Gandoura",
              price: 1800,
              stock: 1000
            })
            const accounts = yield* Effect.forEach(
              POLLED_TOKENS,
              (dhdToken, index) =>
                ok(apps[index % 2]!.storeUrl, "POST", "/v1/shipping/accounts", token, {
                  courier: "dhd",
                  label: `DHD ${index}`,
                  credentials: { token: dhdToken }
                }),
              { concurrency: 4 }
            )
            const trackings = yield* Effect.forEach(
              Array.from({ length: PARCELS }, (_, index) => index),
              (index) =>
                Effect.gen(function* () {
                  const base = apps[index % 2]!.storeUrl
                  const order = yield* ok(base, "POST", "/v1/orders", token, {
                    customer: {
                      name: `Client ${index}`,
                      phone: "0550 00 11 22",
                      wilaya_id: 16,
                      commune: "Hydra",
                      address: "Rue 2"
                    },
                    items: [{ product_id: product.id, quantity: 1 }]
                  })
                  yield* ok(base, "PATCH", `/v1/orders/${order.id}`, token, { status: "confirmed" })
                  const shipped = yield* ok(base, "POST", `/v1/orders/${order.id}/shipment`, token, {
                    account_id: accounts[index % accounts.length]!.id
                  })
                  return shipped.shipment.tracking_number as string
                }),
              { concurrency: 4 }
            )
            const reads = () => {
              const counts = new Map<string, number>()
              for (const request of ecotrack.requests) {
                if (request.path !== BATCH_PATH) continue
                for (const tracking of asked(request)) counts.set(tracking, (counts.get(tracking) ?? 0) + 1)
              }
              return counts
            }
            const checked = sql<{ checks: number; count: number }>`
              SELECT checks, count(*)::int AS count FROM shipment_checks GROUP BY checks`.pipe(Effect.orDie)
            for (const round of [1, 2, 3]) {
              // Every parcel due at once: both instances' next cycles claim them.
              yield* sql`UPDATE shipment_checks SET due_at = now()`.pipe(Effect.orDie)
              yield* until(checked, (rows) => rows.length === 1 && rows[0]!.checks === round, `round ${round} checked`)
              const counts = reads()
              for (const tracking of trackings) {
                assert.strictEqual(counts.get(tracking), round, `${tracking}: read once in round ${round}`)
              }
            }
            const batches = ecotrack.requests.filter((request) => request.path === BATCH_PATH).length
            assert.isAtMost(batches, 3 * accounts.length * 2, "a batch read per account and cycle, at most")
            console.log(
              `two instances: ${PARCELS} parcels over ${accounts.length} accounts, 3 rounds, ${batches} batch reads`
            )
          }).pipe(Effect.provide(serverAdmin(url)))
          for (const app of apps) {
            app.child.kill("SIGTERM")
            assert.strictEqual((yield* waitForExit(app)).code, 0)
          }
        }).pipe(Effect.scoped),
      { timeout: TIMEOUT }
    )
  }

  for (const backend of backends()) {
    it.live(
      `on the ${backend.name} database: kill -9 mid poll cycle and mid push burst loses no acknowledged event and applies none twice; the canary is nowhere`,
      () =>
        Effect.gen(function* () {
          const ecotrack = yield* EcotrackFake.make({ tokens: DHD_TOKENS })
          const yalidine = yield* YalidineFake.make({
            accounts: [{ apiId: YalidineFake.API_ID, apiToken: CANARY_YALIDINE, quotas: { second: 100, minute: 1000 } }]
          })
          const receiver = yield* Receiver.start
          const env = {
            ...(yield* backend.fresh),
            TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${ecotrack.origin},https://api.yalidine.app=${yalidine.origin}`,
            SHIPMENT_POLL_INTERVAL_MS: "200",
            WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
            WEBHOOK_RETRY_DELAYS: "100ms",
            LOG_LEVEL: "trace"
          }
          const runs: Array<AppProcess> = []
          const start = Effect.tap(startApp(env, { within: 60_000 }), (app) => Effect.sync(() => runs.push(app)))
          const stop = (app: AppProcess) =>
            Effect.gen(function* () {
              app.child.kill("SIGTERM")
              assert.strictEqual((yield* waitForExit(app)).code, 0, app.stderr())
            })

          // --- First run: the store, its accounts, its orders shipped. ----------------------------------------------
          const first = yield* start
          const base = first.storeUrl
          const store = yield* backend.createStore(env)
          const { token } = store
          yield* ok(base, "POST", "/v1/webhooks", token, {
            url: `${receiver.url}/orders`,
            events: ["order.shipped", "order.delivered", "order.returned", "shipment.updated"]
          })
          const product = yield* ok(base, "POST", "/v1/products", token, { name: "Haïk", price: 2500, stock: 1000 })
          const yalidineAccount = yield* ok(base, "POST", "/v1/shipping/accounts", token, {
            courier: "yalidine",
            label: "Yalidine",
            credentials: { apiId: YalidineFake.API_ID, apiToken: CANARY_YALIDINE },
            webhook_secret: CANARY_HOOK
          })
          const dhdAccounts: Array<number> = []
          for (const [index, dhdToken] of DHD_TOKENS.entries()) {
            const account = yield* ok(base, "POST", "/v1/shipping/accounts", token, {
              courier: "dhd",
              label: `DHD ${index + 1}`,
              credentials: { token: dhdToken }
            })
            dhdAccounts.push(account.id)
          }
          const shipThrough = (accountId: number, extra: Record<string, unknown> = {}) =>
            Effect.gen(function* () {
              const order = yield* ok(base, "POST", "/v1/orders", token, {
                customer: {
                  name: "Nadia Ouali",
                  phone: "0770 11 22 33",
                  wilaya_id: 16,
                  commune: "Alger Centre",
                  address: "Rue Didouche"
                },
                items: [{ product_id: product.id, quantity: 1 }]
              })
              yield* ok(base, "PATCH", `/v1/orders/${order.id}`, token, { status: "confirmed" })
              const shipped = yield* ok(base, "POST", `/v1/orders/${order.id}/shipment`, token, {
                account_id: accountId,
                ...extra
              })
              return { id: order.id as number, tracking: shipped.shipment.tracking_number as string, accountId }
            })
          // Each courier's calls are paced per account: the two couriers' orders at once, a few at a time.
          const [pushedOrders, polledOrders] = yield* Effect.all(
            [
              Effect.forEach(
                Array.from({ length: YALIDINE_ORDERS }),
                () => shipThrough(yalidineAccount.id, { from_wilaya: 16 }),
                { concurrency: 3 }
              ),
              Effect.forEach(
                dhdAccounts.flatMap((account) => Array.from({ length: DHD_ORDERS_PER_ACCOUNT }, () => account)),
                (account) => shipThrough(account),
                { concurrency: 3 }
              )
            ],
            { concurrency: 2 }
          )
          const pusher = YalidinePusher.make({ secret: CANARY_HOOK, retryDelays: [] })
          yield* pusher.subscribe(`${base}${yalidineAccount.push.url}`).pipe(Effect.orDie)
          yield* stop(first)

          // DHD's parcels move at the courier: the first two accounts' are delivered, the third's come back. They are
          // due now, and the first batch read of the next cycle will hang.
          ecotrack.setClock(...algiers(60))
          for (const order of polledOrders) {
            ecotrack.addActivity(order.tracking, order.accountId === dhdAccounts[2] ? "Return_received" : "livred")
          }
          yield* onDatabase(
            backend,
            env,
            Effect.flatMap(
              SqlClient.SqlClient,
              (sql) => sql`UPDATE shipment_checks SET due_at = now() WHERE account_id IN ${sql.in(dhdAccounts)}`
            )
          )
          // Every batch read of the first account hangs at the courier, however often the poller asks again (the
          // transport cuts a silent courier after 30 s and a later cycle reads again): its parcels cannot be applied
          // before the kill, whenever the kill comes.
          const heldReads = (request: EcotrackFake.RecordedRequest) =>
            request.path === BATCH_PATH && request.headers.authorization === `Bearer ${DHD_TOKENS[0]}`
          ecotrack.hold(heldReads)

          // --- Second run: killed mid poll cycle, mid push burst. --------------------------------------------------
          const second = yield* start
          const batchReads = () => ecotrack.requests.filter((request) => request.path === BATCH_PATH)
          const movedTo = (status: string) =>
            send(second.storeUrl, "GET", `/v1/orders?shipment_status=${status}&limit=100`, token).pipe(
              Effect.map((answer) =>
                answer.status === 200
                  ? answer.body.data.items.filter((item: { id: number }) =>
                      polledOrders.some((order) => order.id === item.id)
                    ).length
                  : 0
              )
            )
          const movedByPoll = Effect.map(
            Effect.all([movedTo("delivered"), movedTo("returned")]),
            ([delivered, returned]) => delivered + returned
          )
          // One account's read hangs; the two others' are applied (all three are read at once, but under load the
          // third's may leave later: the kill must not come before it, or its parcels would be read in no cycle
          // before the kill).
          yield* until(
            Effect.zip(
              Effect.sync(() => ecotrack.holding()),
              movedByPoll
            ),
            ([holding, moved]) => holding >= 1 && moved >= polledOrders.length - DHD_ORDERS_PER_ACCOUNT,
            "a poll cycle half done"
          )
          const halfDoneAt = Date.now()
          let killedAt = 0
          const pushes = pushedOrders.flatMap((order, parcel) =>
            JOURNEY.map((status, step) =>
              YalidinePusher.statusUpdated(order.tracking, status, {
                at: Date.now() + 120_000 + step * 60_000 + parcel * 1000,
                eventId: `evt-${parcel}-${step}-${randomBytes(4).toString("hex")}`
              })
            )
          )
          // Each run listens on a port of its own: the engine's webhook is pointed at this one (its challenge again).
          yield* pusher.subscribe(`${second.storeUrl}${yalidineAccount.push.url}`).pipe(Effect.orDie)
          let acknowledged = 0
          const burst = yield* Effect.forEach(
            pushes,
            (event) =>
              pusher.push("parcel_status_updated", [event]).pipe(
                Effect.map((delivery) => delivery.delivered),
                // Once a delivery failed (the process died), Yalidine disables the webhook: the rest are not sent.
                Effect.catchTag("NotSubscribed", () => Effect.succeed(false)),
                Effect.tap((delivered) =>
                  Effect.sync(() => {
                    if (delivered) acknowledged++
                    // Killed with a held read in flight: between a cut and the next cycle's read (some 200 ms every
                    // 30 s), the held parcels are not claimed; the next acknowledgement kills then.
                    if (killedAt === 0 && acknowledged >= Math.floor(pushes.length / 3) && ecotrack.holding() > 0) {
                      killedAt = Date.now()
                      second.child.kill("SIGKILL")
                    }
                  })
                )
              ),
            { concurrency: 8 }
          ).pipe(Effect.forkChild)
          const deliveries = yield* Fiber.join(burst)
          assert.isAbove(killedAt, 0, "killed mid-burst")
          assert.isAtLeast(acknowledged, Math.floor(pushes.length / 3), "the burst was acknowledged up to the kill")
          assert.strictEqual((yield* waitForExit(second)).signal, "SIGKILL")
          const acked = pushes.filter((_, index) => deliveries[index]!)
          assert.isAtLeast(acked.length, Math.floor(pushes.length / 3))
          assert.isBelow(acked.length, pushes.length, "the kill came mid-burst")
          const held = batchReads().filter(heldReads)
          const hungTrackings = new Set(held.flatMap(asked))
          assert.isAtLeast(held.length, 1, "the first account's batch read was in flight")
          assert.sameMembers(
            [...hungTrackings],
            polledOrders.filter((order) => order.accountId === dhdAccounts[0]).map((order) => order.tracking),
            "the held reads asked for the first account's parcels"
          )

          // The killed instance's claims run out (their lease is minutes long: moved to the past, as time would; the
          // push applier's, seconds long, too). Every acknowledged event was recorded before its answer.
          const { claimed, arrived, recorded, unapplied } = yield* onDatabase(
            backend,
            env,
            Effect.gen(function* () {
              const sql = yield* SqlClient.SqlClient
              return {
                claimed: yield* sql<{ tracking_number: string }>`
                  UPDATE shipment_checks SET lease_until = now() - interval '1 second'
                  WHERE lease_until > now() RETURNING tracking_number`,
                arrived: yield* sql<{ tracking_number: string }>`
                  SELECT tracking_number FROM order_shipments
                  WHERE account_id IN ${sql.in(dhdAccounts)} AND status IN ('delivered', 'returned')`,
                recorded: yield* sql<{ event_key: string }>`SELECT event_key FROM courier_push_events`,
                unapplied: yield* sql<{ event_key: string }>`
                  UPDATE courier_push_events SET next_try_at = LEAST(next_try_at, now() - interval '1 second')
                  WHERE applied_at IS NULL RETURNING event_key`
              }
            })
          )
          const appliedBeforeKill = new Set(arrived.map((row) => row.tracking_number))
          assert.isAbove(appliedBeforeKill.size, 0, "the cycle was half done: some reads applied")
          for (const tracking of hungTrackings) {
            assert.isFalse(appliedBeforeKill.has(tracking), `${tracking} of the hanging read applied before the kill`)
          }
          assert.includeMembers(
            claimed.map((row) => row.tracking_number),
            [...hungTrackings],
            "the hanging read's parcels were still claimed"
          )

          const recordedKeys = new Set(recorded.map((row) => row.event_key))
          for (const event of acked)
            assert.isTrue(recordedKeys.has(`id:${event.event_id}`), `${event.event_id} recorded`)

          // --- Third run: nothing acknowledged lost; everything re-sent applies once. -----------------------------
          // Every read the killed instance sent has arrived by now (the database was opened and closed since).
          const readsBeforeRestart = batchReads().length
          ecotrack.hold(undefined)
          const third = yield* start
          const detail = (orderId: number) => ok(third.storeUrl, "GET", `/v1/orders/${orderId}`, token)
          const timelineHas = (
            timeline: ReadonlyArray<{ raw_status: string; at: string }>,
            event: YalidinePusher.Event
          ) =>
            timeline.some(
              (entry) =>
                // Both Algiers time, `YYYY-MM-DD HH:MM:SS` (the order's own format; Yalidine's too).
                entry.raw_status === event.data.status && entry.at === event.occurred_at
            )
          // What the killed instance acknowledged and had not applied yet, the new one's applier applies at start.
          const missing = Effect.gen(function* () {
            // Each order read once a poll, every acknowledged event of it looked for in its timeline.
            const timelines = new Map<string, ReadonlyArray<{ raw_status: string; at: string }>>()
            for (const order of pushedOrders) timelines.set(order.tracking, (yield* detail(order.id)).shipment.timeline)
            return acked
              .filter((event) => !timelineHas(timelines.get(event.data.tracking as string)!, event))
              .map((event) => event.event_id)
          })
          const lost = yield* until(missing, (events) => events.length === 0, "every acknowledged event applied")
          assert.deepStrictEqual(lost, [], "acknowledged events kept")
          // The merchant enables the webhook again (its challenge answered by the new process); the courier delivers
          // again what it may not know was received: every event, once more.
          assert.isTrue(pusher.disabled(), "the failed deliveries disabled the webhook")
          yield* pusher.subscribe(`${third.storeUrl}${yalidineAccount.push.url}`).pipe(Effect.orDie)
          const again = yield* Effect.forEach(
            pushes,
            (event) => pusher.push("parcel_status_updated", [event]).pipe(Effect.orDie),
            { concurrency: 8 }
          )
          const recordedAgain = again.map((delivery) => JSON.parse(delivery.attempts.at(-1)!.answer ?? "{}").recorded)
          for (const [index, event] of pushes.entries()) {
            assert.strictEqual(again[index]!.delivered, true)
            // An acknowledged event was recorded: not again. One the kill left unanswered may have been recorded
            // before the answer was lost; recorded once either way (counted in the database below).
            if (acked.includes(event)) assert.strictEqual(recordedAgain[index], 0, `${event.event_id} recorded once`)
            else assert.include([0, 1], recordedAgain[index], event.event_id)
          }
          const journeys = Effect.forEach(pushedOrders, (order) =>
            Effect.map(detail(order.id), (shown) => ({
              status: shown.status as string,
              pushed: shown.shipment.timeline.filter((entry: { source: string }) => entry.source === "push").length
            }))
          )
          yield* until(
            journeys,
            (shown) => shown.every((order) => order.status === "delivered" && order.pushed === JOURNEY.length),
            "every re-sent event applied"
          )
          for (const order of pushedOrders) {
            const shown = yield* detail(order.id)
            assert.strictEqual(shown.status, "delivered")
            assert.strictEqual(
              shown.shipment.timeline.filter((entry: { source: string }) => entry.source === "push").length,
              JOURNEY.length
            )
          }
          // The poll takes the killed instance's claims over and finishes.
          yield* until(
            Effect.forEach(polledOrders, (order) => Effect.map(detail(order.id), (shown) => shown.status)),
            (statuses) => statuses.every((status) => status === "delivered" || status === "returned"),
            "every polled order moved"
          )
          for (const order of polledOrders) {
            assert.strictEqual(
              (yield* detail(order.id)).status,
              order.accountId === dhdAccounts[2] ? "returned" : "delivered"
            )
          }
          const readsPerParcel = (requests: ReadonlyArray<EcotrackFake.RecordedRequest>) => {
            const counts = new Map<string, number>()
            for (const request of requests) {
              for (const tracking of asked(request)) counts.set(tracking, (counts.get(tracking) ?? 0) + 1)
            }
            return counts
          }
          const beforeRestart = readsPerParcel(batchReads().slice(0, readsBeforeRestart))
          const afterRestart = readsPerParcel(batchReads().slice(readsBeforeRestart))
          for (const order of polledOrders) {
            // Once in the cycle the kill cut; a held parcel once in each held read (asked again after each cut).
            assert.strictEqual(
              beforeRestart.get(order.tracking),
              hungTrackings.has(order.tracking)
                ? batchReads().slice(0, readsBeforeRestart).filter(heldReads).length
                : 1,
              `${order.tracking}: read once a cycle before the kill`
            )
            assert.strictEqual(
              afterRestart.get(order.tracking) ?? 0,
              appliedBeforeKill.has(order.tracking) ? 0 : 1,
              `${order.tracking}: read again after the restart only if the cycle the kill cut did not apply it`
            )
          }
          yield* until(
            Effect.sync(() => receiver.received.length),
            (count) => count > 0,
            "webhooks delivered"
          )
          yield* stop(third)

          // --- The database once every run is over. -----------------------------------------------------------------
          const { everything, outbox, pushed, timeline, sealed } = yield* onDatabase(
            backend,
            env,
            Effect.gen(function* () {
              const sql = yield* SqlClient.SqlClient
              return {
                everything: yield* everyRow,
                outbox: yield* sql<{ event: string; payload: string }>`
                  SELECT event, payload FROM webhook_events WHERE store_id = ${store.id} ORDER BY created_at, id`,
                pushed: yield* sql<{ count: number; applied: number }>`
                  SELECT count(*)::int AS count, count(applied_at)::int AS applied FROM courier_push_events`,
                timeline: yield* sql<{ order_id: number; source: string; count: number }>`
                  SELECT order_id, source, count(*)::int AS count FROM order_shipment_events
                  GROUP BY order_id, source`,
                sealed: yield* sql<{ credentials: string; webhook_secret: string | null }>`
                  SELECT credentials, webhook_secret FROM courier_accounts`
              }
            })
          )
          assert.deepStrictEqual(pushed, [{ count: pushes.length, applied: pushes.length }])
          for (const order of pushedOrders) {
            const pushes = timeline.find((row) => row.order_id === order.id && row.source === "push")
            assert.strictEqual(pushes?.count, JOURNEY.length, `order ${order.id}: each pushed event once`)
          }
          // The outbox: per order, one order.shipped, one arrival, and a chain of shipment.updated with no repeat.
          const byOrder = new Map<number, Array<{ event: string; data: Record<string, unknown> }>>()
          for (const row of outbox) {
            const payload = JSON.parse(row.payload)
            const orderId = (payload.data.id ?? payload.data.order_id) as number
            byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), { event: row.event, data: payload.data }])
          }
          for (const order of [...pushedOrders, ...polledOrders]) {
            const events = byOrder.get(order.id) ?? []
            const arrival = order.accountId === dhdAccounts[2] ? "order.returned" : "order.delivered"
            assert.strictEqual(events.filter((event) => event.event === "order.shipped").length, 1, `${order.id}`)
            assert.strictEqual(events.filter((event) => event.event === arrival).length, 1, `${order.id}: ${arrival}`)
            // Each change told once: from the first (no status before), each next one starts where the last ended.
            const updates = events.filter((event) => event.event === "shipment.updated").map((event) => event.data)
            const left = [...updates]
            let status: unknown = null
            while (left.length > 0) {
              const next = left.findIndex((update) => update.previous_status === status)
              assert.notStrictEqual(next, -1, `order ${order.id}: no change from ${status}: ${JSON.stringify(updates)}`)
              status = left.splice(next, 1)[0]!.status
            }
            assert.strictEqual(status, arrival === "order.returned" ? "returned" : "delivered")
          }

          // --- The canary. --------------------------------------------------------------------------------------
          for (const row of sealed) {
            assert.match(row.credentials, /^tws1\./, "credentials sealed at rest")
            if (row.webhook_secret !== null) assert.match(row.webhook_secret, /^tws1\./)
          }
          assert.include(everything, '"courier":"yalidine"', "the dump holds the accounts")
          const logs = runs.map((run) => run.stdout() + run.stderr()).join("\n")
          assert.include(logs, "/v1/hooks/couriers/", "the access log saw the pushes")
          const delivered = receiver.received.map((request) => request.body.toString()).join("\n")
          const dump = backend.dump(env)
          for (const canary of CANARIES) {
            for (const [where, text] of [
              ["answers", answers.join("\n")],
              ["the processes' logs", logs],
              ["webhook deliveries", delivered],
              ["the database's rows", everything],
              ["pg_dump", dump ?? ""]
            ] as const) {
              assert.notInclude(text, canary, `the canary leaked into ${where}`)
            }
          }
          assert.isAbove(
            yalidine.requests.filter((request) => JSON.stringify(request.headers).includes(CANARY_YALIDINE)).length,
            0,
            "the Yalidine canary did reach its courier"
          )
          assert.isAbove(
            ecotrack.requests.filter((request) => JSON.stringify(request).includes(CANARY_DHD)).length,
            0,
            "the DHD canary did reach its courier"
          )
          console.log(
            `${backend.name}: killed ${killedAt - halfDoneAt} ms after the poll cycle was seen half done, after ` +
              `${acked.length} of ${pushes.length} pushes acknowledged ` +
              `(${pushes.filter((event, index) => !acked.includes(event) && recordedAgain[index] === 0).length} more ` +
              `recorded with their answer lost; ${unapplied.length} recorded and not applied yet at the kill), with ` +
              `${appliedBeforeKill.size} of ${polledOrders.length} polled parcels applied and ${hungTrackings.size} ` +
              `in a read left hanging (${held.length} held reads); ${receiver.received.length} webhook deliveries`
          )
        }).pipe(Effect.scoped),
      { timeout: TIMEOUT }
    )
  }
})
