/**
 * Webhooks, signups and events with the app as operators run it (`npm start` processes on real sockets), for what
 * only processes show: a `kill -9` between an order's commit and its delivery loses nothing (delivered after the
 * restart); two instances on one database deliver each event once; SIGTERM writes every signed event it accepted
 * before the process exits. Public keys are activated with the admin CLI, as support would (its entry run in this
 * process: the CLI's own process is `AdminCli.process.test.ts`'s).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Nonce, RequestSignature, WebhookSignature } from "@tawsil/signing"
import { Database } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, type Layer, Redacted, Result, Schedule, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { runAdminInProcess as runAdmin } from "./AdminInProcess.ts"
import { type AppProcess, startApp, waitForExit } from "./AppProcess.ts"

const TIMEOUT = 180_000

interface Received {
  readonly eventId: string
  readonly event: string
  readonly orderId: number
  readonly at: number
  readonly verified: boolean
}

/**
 * A receiver that answers each delivery after `delay.ms` (a test may change it), recording it (checked against the
 * secret once known).
 */
const receiver = (delayMs: number) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{
          url: string
          received: Array<Received>
          secret: { value: string }
          delay: { ms: number }
          server: Http.Server
        }>((resolve) => {
          const received: Array<Received> = []
          const secret = { value: "" }
          const delay = { ms: delayMs }
          const server = Http.createServer((request, response) => {
            const chunks: Array<Buffer> = []
            request.on("data", (chunk: Buffer) => chunks.push(chunk))
            request.on("end", () => {
              const body = Buffer.concat(chunks)
              const parsed = JSON.parse(body.toString())
              const verified = Result.isSuccess(
                WebhookSignature.verify({
                  header: request.headers["x-tw-signature"] as string,
                  body,
                  secrets: [Redacted.make(secret.value)],
                  nowSeconds: Math.floor(Date.now() / 1000)
                })
              )
              received.push({
                eventId: parsed.id,
                event: parsed.event,
                orderId: parsed.data.id,
                at: Date.now(),
                verified
              })
              setTimeout(() => response.writeHead(200).end("ok"), delay.ms)
            })
          })
          server.listen(0, "127.0.0.1", () =>
            resolve({
              url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
              received,
              secret,
              delay,
              server
            })
          )
        })
    ),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  )

const send = (
  base: string,
  method: string,
  path: string,
  options: {
    readonly token?: string
    readonly key?: string
    readonly body?: unknown
    readonly headers?: Record<string, string>
    readonly raw?: string
  }
) =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    if (options.key !== undefined) headers["idempotency-key"] = options.key
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    if (body !== undefined) headers["content-type"] = "application/json"
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body ?? null,
        signal: AbortSignal.timeout(30_000)
      })
      const text = await response.text()
      // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
      return { status: response.status as number | "lost", body: JSON.parse(text) as any }
    } catch {
      return { status: "lost" as const, body: undefined }
    }
  })

const ok = (run: { readonly code: number | null; readonly stderr: string; readonly json: unknown }) => {
  assert.strictEqual(run.code, 0, JSON.stringify(run.json) + run.stderr)
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON, field by field
  return run.json as any
}

interface Backend {
  readonly name: Database.Kind
  readonly fresh: Effect.Effect<Record<string, string>, never, Scope.Scope>
  readonly open: (env: Record<string, string>) => Layer.Layer<Database.Services, Database.DatabaseStartError>
}

const processBackends = (): ReadonlyArray<Backend> => {
  const embedded: Backend = {
    name: "embedded",
    fresh: Effect.map(TestDatabase.migratedDataDir, (dir) => ({ DATA_DIR: dir })),
    open: (env) => Database.layerEmbedded({ dataDir: env.DATA_DIR! })
  }
  const url = TestDatabase.serverUrl
  if (url === undefined) return [embedded]
  return [
    embedded,
    {
      name: "server",
      fresh: Effect.map(TestDatabase.migratedServerDatabase(url), (db) => ({ DATABASE_URL: Redacted.value(db) })),
      open: (env) => Database.layerServer({ url: Redacted.make(env.DATABASE_URL!), maxConnections: 1 })
    }
  ]
}

/** A store with no per-minute limit, its platform token, a product, and a webhook to `url`; returns its secret. */
const shop = (env: Record<string, string>, app: AppProcess, url: string) =>
  Effect.gen(function* () {
    const created = ok(yield* runAdmin(env, "store", "create", "--name", "Boutique des tests"))
    const token: string = created.platform_key.bearer_token
    ok(yield* runAdmin(env, "quota", "set", "--store", String(created.store.id), "--requests-per-minute", "-1"))
    const hook = yield* send(app.storeUrl, "POST", "/v1/webhooks", {
      token,
      key: "hook-1",
      body: { url, events: ["order.created"] }
    })
    assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
    const product = yield* send(app.storeUrl, "POST", "/v1/products", {
      token,
      key: "product-1",
      body: { name: "Chéchia", price: 1500, stock: 100_000 }
    })
    return { token, secret: hook.body.data.secret as string, productId: product.body.data.id as number }
  }).pipe(Effect.orDie)

const orderBody = (productId: number, i: number) => ({
  customer: { name: `Client ${i}`, phone: `0661${String(i).padStart(6, "0")}`, wilaya_id: 16, commune: "Alger" },
  items: [{ product_id: productId, quantity: 1 }]
})

const waitUntil = (done: () => boolean, within: number, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + within
    while (!done()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${what}: not within ${within} ms`))
      yield* Effect.sleep("100 millis")
    }
  })

const QUIET = { LOG_LEVEL: "warn", WEBHOOK_ALLOW_HOSTS: "127.0.0.1", WEBHOOK_TIMEOUT_MS: "1000" }

/**
 * SIGTERM of a running app while 3 000 signed events arrive (sent once 1 500 are accepted): it exits 0 and every
 * event it accepted is written.
 */
const eventsWrittenOnStop = (env: Record<string, string>, app: AppProcess, backend: Backend) =>
  Effect.gen(function* () {
    const created = ok(yield* runAdmin(env, "store", "create", "--name", "Plateforme"))
    const token: string = created.platform_key.bearer_token
    // Signed calls share the store's per-minute budget (decision 0018): 3 000 events need a store without one.
    ok(yield* runAdmin(env, "quota", "set", "--store", String(created.store.id), "--requests-per-minute", "-1"))
    // A public key minted through the API waits for the operator.
    const minted = yield* send(app.storeUrl, "POST", "/v1/keys", { token, key: "pk-1", body: { type: "public" } })
    const keyId: string = minted.body.data.key_id
    const secret = Redacted.make(minted.body.data.signing_secret as string)
    const event = (i: number) => {
      const raw = JSON.stringify({ event: "page_view", user_id: `u_${i % 50}`, properties: { i } })
      const headers = RequestSignature.headers({
        keyId,
        secret,
        body: raw,
        timestamp: Math.floor(Date.now() / 1000),
        nonce: Nonce.make()
      })
      return send(app.storeUrl, "POST", "/v1/events", { headers, raw })
    }
    assert.strictEqual((yield* event(-1)).status, 401, "not activated yet")
    ok(yield* runAdmin(env, "key", "activate", "--key", keyId))
    let ready = yield* event(-2)
    for (let i = 0; i < 40 && ready.status === 401; i++) {
      yield* Effect.sleep("50 millis")
      ready = yield* event(-2)
    }
    assert.strictEqual(ready.status, 202, "activated by the admin CLI")

    // 3 000 events at once; SIGTERM once 1 500 are accepted, while the rest are in flight.
    let accepted = 1
    let signalled = false
    const answers = yield* Effect.forEach(
      Array.from({ length: 3000 }, (_, i) => i),
      (i) =>
        event(i).pipe(
          Effect.tap((answer) =>
            Effect.sync(() => {
              if (answer.status === 202 && ++accepted === 1500 && !signalled) {
                signalled = true
                app.child.kill("SIGTERM")
              }
            })
          )
        ),
      { concurrency: 64 }
    )
    assert.strictEqual((yield* waitForExit(app)).code, 0)
    const statuses = new Set(answers.map((answer) => answer.status))
    assert.isTrue(
      [...statuses].every((status) => status === 202 || status === "lost"),
      [...statuses].join()
    )
    const drained = app
      .stdout()
      .split("\n")
      .filter((line) => line.includes("tracker queue"))
    const [row] = yield* Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly events: number }>`
          SELECT count(*)::int AS events FROM tracked_events WHERE store_id = ${created.store.id}`
    }).pipe(Effect.provide(backend.open(env)), Effect.orDie)
    assert.strictEqual(row!.events, accepted, "every accepted event written, none lost to the stop")
    console.log(
      `${backend.name}: ${accepted} events accepted before the stop, ${row!.events} written; ` +
        `${answers.filter((answer) => answer.status === "lost").length} refused by the stopping server; ` +
        `drain: ${drained.map((line) => JSON.parse(line).annotations?.rows ?? 0).join(",") || "nothing left"}`
    )
  })

describe("webhooks, signups and events across processes", () => {
  for (const backend of processBackends()) {
    it.live(
      `on the ${backend.name} database: kill -9 between commit and delivery loses no event, delivered after restart; SIGTERM of the restarted app writes every signed event it accepted before exiting`,
      () =>
        Effect.gen(function* () {
          // A slow receiver: deliveries queue behind it, so the kill finds committed orders not yet delivered.
          const hooks = yield* receiver(400)
          const env = { ...(yield* backend.fresh), ...QUIET }
          const first = yield* startApp(env)
          const { token, secret, productId } = yield* shop(env, first, hooks.url)
          hooks.secret.value = secret

          let acknowledged = 0
          yield* Effect.forEach(
            Array.from({ length: 60 }, (_, i) => i),
            (i) =>
              send(first.storeUrl, "POST", "/v1/orders", {
                token,
                key: `order-${i}`,
                body: orderBody(productId, i)
              }).pipe(
                Effect.tap((answer) =>
                  Effect.sync(() => {
                    if (answer.status === 200 && ++acknowledged === 30) first.child.kill("SIGKILL")
                  })
                )
              ),
            { concurrency: 8 }
          )
          assert.strictEqual((yield* waitForExit(first)).signal, "SIGKILL")
          const killedAt = Date.now()
          const beforeRestart = new Set(hooks.received.map((delivery) => delivery.orderId))
          // The queue the kill was to find is found: after the restart, nothing is gained by waiting 400 ms a delivery.
          hooks.delay.ms = 0

          // At info level: its log says what the stop drained of the tracker's queue.
          const second = yield* startApp({ ...env, LOG_LEVEL: "info" })
          const restartedAt = Date.now()
          // Every order the database holds — each committed with its event — is delivered.
          const listed = yield* send(second.storeUrl, "GET", "/v1/orders?limit=200", { token })
          const committed: Array<number> = listed.body.data.items.map((item: { id: number }) => item.id)
          assert.isAtLeast(committed.length, 30)
          yield* waitUntil(
            () => committed.every((id) => hooks.received.some((delivery) => delivery.orderId === id)),
            60_000,
            "every committed order delivered"
          )
          const afterRestartOnly = committed.filter((id) => !beforeRestart.has(id))
          assert.isAtLeast(afterRestartOnly.length, 1, "some committed orders were delivered only after the restart")
          for (const id of afterRestartOnly) {
            const first = hooks.received.find((delivery) => delivery.orderId === id)!
            assert.isAtLeast(first.at, killedAt)
          }
          assert.isTrue(
            hooks.received.every((delivery) => delivery.verified),
            "every delivery signed"
          )
          assert.isTrue(
            hooks.received.every((delivery) => committed.includes(delivery.orderId)),
            "nothing delivered that was not committed"
          )
          const perEvent = new Map<string, number>()
          for (const delivery of hooks.received)
            perEvent.set(delivery.eventId, (perEvent.get(delivery.eventId) ?? 0) + 1)
          console.log(
            `${backend.name}: ${committed.length} orders committed, ${beforeRestart.size} delivered before the kill, ` +
              `${afterRestartOnly.length} only after the restart (within ${Date.now() - restartedAt} ms of it); ` +
              `${[...perEvent.values()].filter((n) => n > 1).length} delivered twice (cut short by the kill)`
          )
          // The restarted app serves the next case: SIGTERM while signed events arrive.
          yield* eventsWrittenOnStop(env, second, backend)
        }).pipe(Effect.scoped),
      { timeout: TIMEOUT }
    )
  }

  if (TestDatabase.serverUrl !== undefined) {
    const adminUrl = TestDatabase.serverUrl
    it.live(
      "two instances on one database deliver each of 100 events exactly once",
      () =>
        Effect.gen(function* () {
          const hooks = yield* receiver(0)
          const url = yield* TestDatabase.freshServerDatabase(adminUrl)
          const env = { DATABASE_URL: Redacted.value(url), ...QUIET }
          const apps = yield* Effect.all([startApp(env), startApp(env)], { concurrency: "unbounded" })
          const { token, secret, productId } = yield* shop(env, apps[0], hooks.url)
          hooks.secret.value = secret
          const answers = yield* Effect.forEach(
            Array.from({ length: 100 }, (_, i) => i),
            (i) =>
              send(apps[i % 2]!.storeUrl, "POST", "/v1/orders", {
                token,
                key: `order-${i}`,
                body: orderBody(productId, i)
              }),
            { concurrency: 10 }
          )
          assert.isTrue(answers.every((answer) => answer.status === 200))
          yield* waitUntil(() => new Set(hooks.received.map((d) => d.eventId)).size === 100, 30_000, "100 events")
          // Settled when every delivery is recorded succeeded and every attempt recorded was received: a second send
          // of an event is received before its attempt is recorded, so it shows as one more delivery received.
          const settled = Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ readonly succeeded: number; readonly attempts: number }>`
              SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'succeeded') AS succeeded,
                     (SELECT count(*)::int FROM webhook_attempts) AS attempts`
            return row!.succeeded === 100 && row!.attempts === hooks.received.length
          }).pipe(Effect.provide(Database.layerServer({ url, maxConnections: 1 })), Effect.orDie)
          yield* settled.pipe(
            Effect.repeat({ until: (done) => done, schedule: Schedule.spaced("100 millis") }),
            Effect.timeoutOrElse({
              duration: "30 seconds",
              orElse: () => Effect.die(new Error("the deliveries did not settle within 30 s"))
            })
          )
          assert.strictEqual(hooks.received.length, 100, "no event delivered twice")
          assert.strictEqual(new Set(hooks.received.map((delivery) => delivery.orderId)).size, 100)
          assert.isTrue(hooks.received.every((delivery) => delivery.verified))
          for (const app of apps) app.child.kill("SIGTERM")
          for (const app of apps) assert.strictEqual((yield* waitForExit(app)).code, 0)
        }).pipe(Effect.scoped),
      { timeout: TIMEOUT }
    )
  }
})
