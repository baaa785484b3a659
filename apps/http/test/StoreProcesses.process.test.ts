/**
 * The store API as operators run it — app processes started by `npm start` — for what only processes can show:
 * two instances on one database share each store's per-minute budget (the window follows the database clock), and
 * a `kill -9` in the middle of 300 order creates loses no acknowledged order, leaves no claim behind, and lets every
 * retry make or replay exactly one order per Idempotency-Key.
 */
import { assert, describe, it } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Database } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Announcements from "../src/Announcements.ts"
import { runAdminInProcess as runAdmin } from "./AdminInProcess.ts"
import { type AdminRun, startApp, waitForExit } from "./AppProcess.ts"

/** Request lines cost CPU that the measurements below do not need. */
const QUIET = { LOG_LEVEL: "warn" }

interface Answer {
  /** The HTTP status, or "lost" when no answer came (the process was killed). */
  readonly status: number | "lost"
  readonly headers: Headers | undefined
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
  readonly body: any
  readonly millis: number
}

/** One call, timed; a connection that fails answers "lost" instead of failing the test. */
const send = (
  base: string,
  method: string,
  path: string,
  options: { readonly token: string; readonly key?: string; readonly body?: unknown }
) =>
  Effect.promise(async (): Promise<Answer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` }
    if (options.key !== undefined) headers["idempotency-key"] = options.key
    if (options.body !== undefined) headers["content-type"] = "application/json"
    const started = performance.now()
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000)
      })
      const body = JSON.parse(await response.text())
      return { status: response.status, headers: response.headers, body, millis: performance.now() - started }
    } catch {
      return { status: "lost", headers: undefined, body: undefined, millis: performance.now() - started }
    }
  })

const statusCounts = (answers: ReadonlyArray<Answer>) => {
  const counts: Record<string, number> = {}
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1
  return counts
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}

/** The store's operator tools on a real server's database, straight from the test process. */
const serverAdmin = (url: Redacted.Redacted<string>) =>
  Admin.layerSql.pipe(
    Layer.provide(Announcements.accessEvents),
    Layer.provideMerge(Database.layerServer({ url, maxConnections: 1 })),
    Layer.orDie
  )

const ok = (run: AdminRun) => {
  assert.strictEqual(run.code, 0, JSON.stringify(run.json) + run.stderr)
  return run.json
}

/** Seconds left in the database's minute below which the rate-limit test waits for the next one. */
const ROOM_SECONDS = 10
const ORDERS = 300
const PRICE = 1000

/** Order `i`'s body: its own customer, quantity and shipping cost, so each order shows which request made it. */
const orderBody = (productId: number, i: number) => ({
  customer: {
    name: `Client ${i}`,
    phone: `0555${String(i).padStart(6, "0")}`,
    wilaya_id: 1 + (i % 58),
    commune: "Bab Ezzouar",
    address: `Rue ${i}`
  },
  items: [{ product_id: productId, quantity: 1 + (i % 5) }],
  shipping_cost: 300 + i
})

// biome-ignore lint/suspicious/noExplicitAny: an order detail as the API answers it
const assertOrderOf = (order: any, i: number) => {
  assert.strictEqual(order.customer.name, `Client ${i}`)
  assert.strictEqual(order.amounts.total, PRICE * (1 + (i % 5)) + 300 + i)
}

/** Every order id of the store, page by page. */
const listOrderIds = (base: string, token: string) =>
  Effect.gen(function* () {
    const ids: Array<number> = []
    let cursor: string | undefined
    for (;;) {
      const page = yield* send(base, "GET", `/v1/orders?limit=200${cursor ? `&cursor=${cursor}` : ""}`, { token })
      assert.strictEqual(page.status, 200)
      for (const item of page.body.data.items) ids.push(item.id)
      if (!page.body.data.has_more) return ids
      cursor = page.body.data.next_cursor
    }
  })

interface CrashBackend {
  readonly name: Database.Kind
  /** The environment of an app on a new, empty database of this kind. */
  readonly fresh: Effect.Effect<Record<string, string>, never, Scope.Scope>
  /** An Enterprise store with no per-minute limit, and its platform key's bearer token; the app runs. */
  readonly createStore: (env: Record<string, string>) => Effect.Effect<{ readonly id: number; readonly token: string }>
  /** The database opened directly, once no app runs on it. */
  readonly open: (env: Record<string, string>) => Layer.Layer<Database.Services, Database.DatabaseStartError>
}

function crashBackends(): ReadonlyArray<CrashBackend> {
  const embedded: CrashBackend = {
    name: "embedded",
    fresh: Effect.map(TestDatabase.migratedDataDir, (dir) => ({ DATA_DIR: dir })),
    // The app owns the data directory: the admin CLI goes through its admin listener (its entry run in this process:
    // the CLI's own process is AdminCli.process.test.ts's).
    createStore: (env) =>
      Effect.gen(function* () {
        const created = ok(yield* runAdmin(env, "store", "create", "--name", "Après le crash"))
        const id = String(created.store.id)
        ok(yield* runAdmin(env, "quota", "set", "--store", id, "--requests-per-minute", "-1"))
        return { id: created.store.id as number, token: created.platform_key.bearer_token as string }
      }).pipe(Effect.orDie),
    open: (env) => Database.layerEmbedded({ dataDir: env.DATA_DIR! })
  }
  const serverUrl = TestDatabase.serverUrl
  if (serverUrl === undefined) return [embedded]
  const server: CrashBackend = {
    name: "server",
    fresh: Effect.map(TestDatabase.migratedServerDatabase(serverUrl), (url) => ({ DATABASE_URL: Redacted.value(url) })),
    createStore: (env) =>
      Effect.gen(function* () {
        const admin = yield* Admin.Admin
        const created = yield* admin.createStore({ name: "Après le crash" })
        yield* admin.setQuota(created.store.id, { requestsPerMinute: -1 })
        return { id: created.store.id, token: Redacted.value(created.platform_key.bearer_token) }
      }).pipe(Effect.provide(serverAdmin(Redacted.make(env.DATABASE_URL!))), Effect.orDie),
    open: (env) => Database.layerServer({ url: Redacted.make(env.DATABASE_URL!), maxConnections: 1 })
  }
  return [embedded, server]
}

describe("the store API across processes", () => {
  if (TestDatabase.serverUrl !== undefined) {
    const adminUrl = TestDatabase.serverUrl

    it.live(
      "two instances on one database: 1 000 calls in one minute for one store, 600 ± 1 % served",
      () =>
        Effect.gen(function* () {
          const url = yield* TestDatabase.freshServerDatabase(adminUrl)
          const env = { DATABASE_URL: Redacted.value(url), ...QUIET }
          const apps = yield* Effect.all([startApp(env), startApp(env)], { concurrency: "unbounded" })

          yield* Effect.gen(function* () {
            const admin = yield* Admin.Admin
            const sql = yield* SqlClient.SqlClient
            // Every call must fall in one minute of the database clock. The burst starts at once unless the minute is
            // nearly over (it takes some 3 s on a quiet machine); one that crossed into the next minute all the same
            // (its store's window split in two: a busy machine) is run again, for a new store.
            const burstOnce = Effect.gen(function* () {
              const created = yield* admin.createStore({ name: "Deux instances" })
              const token = Redacted.value(created.platform_key.bearer_token)
              const [clock] = yield* sql<{ readonly second: number }>`
                SELECT extract(second FROM now())::float8 AS second`
              const second = clock!.second
              if (second > 60 - ROOM_SECONDS) yield* Effect.sleep(`${Math.ceil((60 - second) * 1000) + 200} millis`)

              const burstStart = performance.now()
              const answers = yield* Effect.forEach(
                Array.from({ length: 1000 }, (_, i) => i),
                (i) => send(apps[i % 2]!.storeUrl, "GET", "/v1/orders", { token }),
                { concurrency: 16 }
              )
              const burst = performance.now() - burstStart
              const windows = yield* sql<{ readonly count: number }>`
                SELECT count::int AS count FROM rate_windows WHERE store_id = ${created.store.id}`
              return { second, answers, burst, windows }
            })
            let attempts = 1
            let run = yield* burstOnce
            while (attempts < 3 && run.windows.length > 1) {
              attempts++
              run = yield* burstOnce
            }
            const { second, answers, burst, windows } = run

            assert.deepStrictEqual(
              windows,
              [{ count: 1000 }],
              `all 1 000 calls counted in one minute's window (started at second ${second}, took ${burst} ms, attempt ${attempts})`
            )

            const served = answers.filter((answer) => answer.status === 200)
            const refused = answers.filter((answer) => answer.status === 429)
            assert.strictEqual(served.length + refused.length, 1000, JSON.stringify(statusCounts(answers)))
            assert.isAtLeast(served.length, 594)
            assert.isAtMost(served.length, 606)
            for (const answer of refused) {
              assert.strictEqual(answer.body.error.code, "rate_limited")
              const retryAfter = answer.headers!.get("retry-after")
              assert.strictEqual(retryAfter, String(answer.body.error.retry_after))
              assert.isAtLeast(Number(retryAfter), 1)
              assert.isAtMost(Number(retryAfter), 60)
            }
            for (const [index, app] of apps.entries()) {
              const mine = answers.filter((_, i) => i % 2 === index)
              assert.isTrue(
                mine.some((answer) => answer.status === 200),
                `instance ${app.child.pid} served some calls`
              )
            }
            for (const answer of served) assert.strictEqual(answer.headers!.get("ratelimit-limit"), "600")
            console.log(
              `two instances: ${served.length} of 1000 served, ${refused.length} refused, in ${burst.toFixed(0)} ms ` +
                `(attempt ${attempts}, started at second ${second.toFixed(1)})`
            )
          }).pipe(Effect.provide(serverAdmin(url)))
        }).pipe(Effect.scoped),
      { timeout: 120_000 }
    )
  }

  for (const backend of crashBackends()) {
    it.live(
      `on the ${backend.name} database: kill -9 during 300 order creates loses no acknowledged order; retries make one order per key`,
      () =>
        Effect.gen(function* () {
          const env = { ...(yield* backend.fresh), ...QUIET }
          const first = yield* startApp(env)
          const store = yield* backend.createStore(env)
          const product = yield* send(first.storeUrl, "POST", "/v1/products", {
            token: store.token,
            key: "product-1",
            body: { name: "Burnous", price: PRICE, stock: 100_000 }
          })
          assert.strictEqual(product.status, 200, JSON.stringify(product.body))
          const productId: number = product.body.data.id
          const requests = Array.from({ length: ORDERS }, (_, i) => ({
            i,
            key: `crash-${i}`,
            body: orderBody(productId, i)
          }))

          // 300 creates at once; the process dies once half of them are acknowledged.
          let acknowledged = 0
          const started = performance.now()
          let killedAfter = 0
          const firstAnswers = yield* Effect.forEach(
            requests,
            (request) =>
              send(first.storeUrl, "POST", "/v1/orders", {
                token: store.token,
                key: request.key,
                body: request.body
              }).pipe(
                Effect.tap((answer) =>
                  Effect.sync(() => {
                    if (answer.status === 200 && ++acknowledged === ORDERS / 2) {
                      killedAfter = performance.now() - started
                      first.child.kill("SIGKILL")
                    }
                  })
                )
              ),
            { concurrency: "unbounded" }
          )
          assert.strictEqual((yield* waitForExit(first)).signal, "SIGKILL")
          const acked = requests.flatMap((request, index) =>
            firstAnswers[index]!.status === 200 ? [{ ...request, order: firstAnswers[index]!.body.data }] : []
          )
          const before = statusCounts(firstAnswers)
          assert.isAtLeast(acked.length, ORDERS / 2)
          assert.isBelow(acked.length, ORDERS, `the kill came mid-way: ${JSON.stringify(before)}`)
          assert.deepStrictEqual(
            Object.keys(before).filter((status) => status !== "200" && status !== "lost"),
            [],
            "every answer before the kill was a 200"
          )
          for (const { i, order } of acked) assertOrderOf(order, i)

          const second = yield* startApp(env)

          // Every acknowledged order is there, unchanged.
          const readBack = yield* Effect.forEach(
            acked,
            ({ order }) => send(second.storeUrl, "GET", `/v1/orders/${order.id}`, { token: store.token }),
            { concurrency: 8 }
          )
          for (const [index, answer] of readBack.entries()) {
            assert.strictEqual(answer.status, 200)
            // The detail adds the order's confirmation after the create answer's fields (docs/confirmation.md).
            const { confirmation, ...order } = answer.body.data
            assert.deepStrictEqual(order, acked[index]!.order)
            assert.strictEqual(confirmation.attempts, 0)
          }

          // Retrying all 300 with their keys: answered at once, a replay or the order made now, never 409.
          const retryStart = performance.now()
          const retried = yield* Effect.forEach(
            requests,
            (request) =>
              send(second.storeUrl, "POST", "/v1/orders", {
                token: store.token,
                key: request.key,
                body: request.body
              }),
            { concurrency: 2 }
          )
          const retryTook = performance.now() - retryStart
          assert.deepStrictEqual(statusCounts(retried), { 200: ORDERS })
          const latencies = retried.map((answer) => answer.millis)
          const slowest = Math.max(...latencies)
          // A retry that waited on a claim left by the killed process would wait out its lease (60 s) or the database
          // noticing the dead connection; 5 s tells that from a retry slowed by a busy machine (1.2 s seen in a suite).
          assert.isBelow(slowest, 5_000, "no retry waited on a claim left by the killed process")
          const ackedOrder = new Map(acked.map(({ i, order }) => [i, order]))
          let replayedUnacknowledged = 0
          for (const [i, answer] of retried.entries()) {
            assertOrderOf(answer.body.data, i)
            const order = ackedOrder.get(i)
            if (order !== undefined) {
              assert.strictEqual(answer.headers!.get("idempotency-replay"), "1")
              assert.deepStrictEqual(answer.body.data, order)
            } else if (answer.headers!.get("idempotency-replay") === "1") {
              replayedUnacknowledged++
            }
          }
          const orderIds = retried.map((answer) => answer.body.data.id as number)
          assert.strictEqual(new Set(orderIds).size, ORDERS, "one order per key")

          // The store holds exactly those 300 orders, through the API and in the database.
          const listed = yield* listOrderIds(second.storeUrl, store.token)
          assert.deepStrictEqual(
            [...listed].sort((a, b) => a - b),
            [...orderIds].sort((a, b) => a - b)
          )
          second.child.kill("SIGTERM")
          assert.strictEqual((yield* waitForExit(second)).code, 0)
          const [count] = yield* Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            return yield* sql<{ readonly orders: number; readonly numbers: number }>`
              SELECT count(*)::int AS orders, count(DISTINCT order_number)::int AS numbers
              FROM orders WHERE store_id = ${store.id}`
          }).pipe(Effect.provide(backend.open(env)), Effect.orDie)
          assert.deepStrictEqual(count, { orders: ORDERS, numbers: ORDERS })

          console.log(
            `${backend.name}: killed ${killedAfter.toFixed(0)} ms into the creates, ${JSON.stringify(before)}; ` +
              `retries in ${retryTook.toFixed(0)} ms: ${acked.length} replays of acknowledged orders, ` +
              `${replayedUnacknowledged} of unacknowledged ones, ${ORDERS - acked.length - replayedUnacknowledged} made; ` +
              `latency p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, ` +
              `max ${slowest.toFixed(0)} ms`
          )
        }).pipe(Effect.scoped),
      { timeout: 120_000 }
    )
  }
})
