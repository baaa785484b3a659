/**
 * `POST /v1/orders` is answered directly (DirectRoute) when its body comes with a `Content-Length`, and by HttpApi
 * when it comes in chunks. The same requests, sent both ways to the app as users run it, get the same answers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import fc from "fast-check"
import { startApp } from "./AppProcess.ts"
import { type Sent, send } from "./FramedPost.ts"
import { mutated, nasty, validOrder } from "./ShippingBodies.ts"

const RUNS = 600

const bodies = [
  ...fc.sample(
    fc
      .oneof({ weight: 4, arbitrary: mutated(validOrder) }, { weight: 1, arbitrary: nasty })
      .map((v) => JSON.stringify(v)),
    {
      numRuns: RUNS,
      seed: 20261121
    }
  ),
  JSON.stringify(validOrder),
  `\uFEFF${JSON.stringify(validOrder)}`,
  JSON.stringify({ ...validOrder, courier: "no_such_courier" }),
  JSON.stringify({ ...validOrder, credentials: { token: "abc" } }),
  JSON.stringify({ ...validOrder, options: { baseUrl: "https://evil.example" } }),
  JSON.stringify({ ...validOrder, order: { ...validOrder.order, codAmount: 1_000_000 } }),
  '{"courier":"sandbox","order":',
  "",
  "null"
]

/** `POST /v1/orders` on the app's shipping listener, framed one way or the other. */
const post = (url: string, body: string, headers: Record<string, string>, chunked: boolean) =>
  send(Number(new URL(url).port), { path: "/v1/orders", headers, body, chunked })

/** A created parcel's tracking number encodes the time and a random part: everything else must be equal. */
const comparable = (answer: Sent) => {
  const { date: _, ...headers } = answer.headers
  if (answer.status !== 200) return { status: answer.status, headers, body: answer.body }
  const { trackingNumber, ...parcel } = JSON.parse(answer.body) as { trackingNumber: string; reference?: string }
  assert.match(trackingNumber, /^SBX[0-9A-Z]{12}$/)
  // Without a reference of its own, the parcel is referenced by its tracking number.
  const reference = parcel.reference === trackingNumber ? "<tracking number>" : parcel.reference
  return {
    status: answer.status,
    headers: { ...headers, "content-length": "<length>" },
    body: { ...parcel, reference }
  }
}

describe("POST /v1/orders answered directly", () => {
  it.live(
    `${bodies.length} bodies get the same answer with a Content-Length (direct) as in chunks (HttpApi)`,
    () =>
      Effect.gen(function* () {
        const app = yield* startApp({
          DATA_DIR: yield* TestDatabase.freshDataDir,
          SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
          LOG_LEVEL: "warn"
        })
        const statuses = new Map<number, number>()
        for (const [index, body] of bodies.entries()) {
          const headers = { "x-request-id": `fuzz-${index}` }
          const direct = yield* post(app.shippingUrl, body, headers, false)
          const routed = yield* post(app.shippingUrl, body, headers, true)
          assert.deepStrictEqual(comparable(direct), comparable(routed), body)
          statuses.set(direct.status, (statuses.get(direct.status) ?? 0) + 1)
        }
        assert.isAbove(statuses.get(200) ?? 0, 1)
        assert.isAbove(statuses.get(400) ?? 0, RUNS / 2)
        assert.isAbove(statuses.get(422) ?? 0, 0)
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )

  it.live("shares Idempotency-Key records and the per-client limit with the HttpApi route", () =>
    Effect.gen(function* () {
      const app = yield* startApp({ DATA_DIR: yield* TestDatabase.freshDataDir, SHIPPING_RATE_LIMIT_PER_MINUTE: "5" })
      const body = JSON.stringify(validOrder)
      const first = yield* post(app.shippingUrl, body, { "idempotency-key": "order-1" }, false)
      const replayed = yield* post(app.shippingUrl, body, { "idempotency-key": "order-1" }, true)
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual([replayed.status, replayed.body], [200, first.body], "one parcel, answered again")
      const other = JSON.stringify({ ...validOrder, order: { ...validOrder.order, codAmount: 100 } })
      const reused = [
        yield* post(app.shippingUrl, other, { "idempotency-key": "order-1" }, false),
        yield* post(app.shippingUrl, other, { "idempotency-key": "order-1" }, true)
      ]
      assert.deepStrictEqual(
        reused.map((answer) => [answer.status, JSON.parse(answer.body).error.code]),
        [
          [422, "idempotency_key_reuse"],
          [422, "idempotency_key_reuse"]
        ]
      )
      const malformed = yield* post(app.shippingUrl, body, { "idempotency-key": "no spaces" }, false)
      assert.strictEqual(malformed.status, 400)
      assert.hasAllKeys(JSON.parse(malformed.body).error.fields, ["headers.idempotency-key"])
      // Five calls so far, counted whichever way they came: the sixth is refused either way.
      const limited = [yield* post(app.shippingUrl, body, {}, false), yield* post(app.shippingUrl, body, {}, true)]
      for (const answer of limited) {
        assert.strictEqual(answer.status, 429)
        assert.strictEqual(JSON.parse(answer.body).error.code, "rate_limited")
        assert.isAbove(Number(answer.headers["retry-after"]), 0)
      }
    }).pipe(Effect.scoped)
  )
})
