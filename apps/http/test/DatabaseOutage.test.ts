/**
 * A database that goes away and comes back, as users meet it: the app started on a real PostgreSQL behind a loopback
 * TCP proxy that the test cuts (connections dropped, new ones refused) and restores. While it is cut, every store
 * and shipping request that needs the database answers 503 `unavailable` with `Retry-After`, in its API's envelope,
 * never a 500; once it is restored the same requests succeed, with no restart. Real PostgreSQL only: the embedded
 * database lives in the process and cannot be cut from it (a closed one fails the same way: Database.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Redacted } from "effect"
import { runAdminInProcess } from "./AdminInProcess.ts"
import { getJson, startApp } from "./AppProcess.ts"
import { validOrder } from "./ShippingBodies.ts"
import { tcpProxy } from "./TcpProxy.ts"

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON field by field
  readonly json: any
}

const send = (url: string, init: RequestInit) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, init)
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

let keys = 0
const freshKey = () => `outage-${process.pid}-${++keys}`

if (TestDatabase.serverUrl) {
  const adminUrl = TestDatabase.serverUrl

  describe("a database that cannot be reached", () => {
    it.live(
      "answers 503 unavailable with Retry-After on both APIs while it is cut, and the same requests succeed once it is back",
      () =>
        Effect.gen(function* () {
          const direct = Redacted.value(yield* TestDatabase.freshServerDatabase(adminUrl))
          const url = new URL(direct)
          const proxy = yield* tcpProxy(url.hostname, Number(url.port || 5432))
          url.hostname = "127.0.0.1"
          url.port = String(proxy.port)
          const app = yield* startApp({ DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: "3" })
          // A store and its key, made by the admin CLI on the database directly (not through the proxy).
          const created = yield* runAdminInProcess({ DATABASE_URL: direct }, "store", "create", "--name", "Outage")
          const token: string = created.json.platform_key.bearer_token
          const bearer = { authorization: `Bearer ${token}` }
          const json = { "content-type": "application/json" }

          /** The requests, each needing the database, each sent anew (writes with a new Idempotency-Key). */
          const requests = {
            "store GET /v1/orders": () => send(`${app.storeUrl}/v1/orders`, { headers: bearer }),
            "store GET /v1/products/999999": () => send(`${app.storeUrl}/v1/products/999999`, { headers: bearer }),
            "store POST /v1/products": () =>
              send(`${app.storeUrl}/v1/products`, {
                method: "POST",
                headers: { ...bearer, ...json, "idempotency-key": freshKey() },
                body: JSON.stringify({ name: "Robe kabyle", price: 4500, stock: 10 })
              }),
            "shipping POST /v1/orders with an Idempotency-Key": () =>
              send(`${app.shippingUrl}/v1/orders`, {
                method: "POST",
                headers: { ...json, "idempotency-key": freshKey() },
                body: JSON.stringify(validOrder)
              })
          }
          const healthy = { ...requests }
          const expectedUp: Record<keyof typeof requests, number> = {
            "store GET /v1/orders": 200,
            "store GET /v1/products/999999": 404,
            "store POST /v1/products": 200,
            "shipping POST /v1/orders with an Idempotency-Key": 200
          }
          for (const [name, request] of Object.entries(healthy)) {
            const answer = yield* request()
            assert.strictEqual(answer.status, expectedUp[name as keyof typeof requests], `${name}: ${answer.text}`)
          }
          const instance = (yield* getJson(`${app.storeUrl}/health`)).body.instance

          yield* proxy.cut
          for (let round = 0; round < 3; round++) {
            for (const [name, request] of Object.entries(requests)) {
              const answer = yield* request()
              assert.strictEqual(answer.status, 503, `${name} during the cut: ${answer.text}`)
              assert.strictEqual(answer.headers.get("retry-after"), "5", name)
              assert.strictEqual(answer.json.error.code, "unavailable", name)
              assert.notMatch(answer.text, /ECONNREFUSED|PgConnection|\bat [\w.]+ \(|5432|postgres:/, name)
              if (name.startsWith("store")) {
                assert.strictEqual(answer.json.error.retry_after, 5)
                assert.strictEqual(answer.json.meta.request_id, answer.headers.get("x-request-id"))
              } else {
                assert.deepStrictEqual(Object.keys(answer.json), ["error"])
              }
            }
          }
          // What needs no database keeps working: the sandbox's rates, the reference data.
          const rates = yield* send(`${app.shippingUrl}/v1/rates`, {
            method: "POST",
            headers: json,
            body: JSON.stringify({ courier: "sandbox", query: { toWilaya: 16, deliveryType: "home" } })
          })
          assert.strictEqual(rates.status, 200, rates.text)
          assert.strictEqual((yield* send(`${app.shippingUrl}/v1/wilayas`, {})).status, 200)

          yield* proxy.restore
          for (const [name, request] of Object.entries(requests)) {
            const answer = yield* request()
            assert.strictEqual(
              answer.status,
              expectedUp[name as keyof typeof requests],
              `${name} restored: ${answer.text}`
            )
          }
          assert.strictEqual((yield* getJson(`${app.storeUrl}/health`)).body.instance, instance, "the same process")
          const logs = app.stdout()
          assert.include(logs, '"message":"database unavailable"')
          assert.notInclude(logs, "unhandled failure", "no request was answered as a bug")
          assert.notInclude(logs + app.stderr(), url.password || "\u0000")
        }).pipe(Effect.scoped),
      180_000
    )
  })
}
