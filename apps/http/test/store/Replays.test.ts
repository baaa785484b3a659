/**
 * Idempotent replays through the store API in memory, over every write endpoint of the definition (core spec
 * "Response headers": `X-Request-Id` "equals `meta.request_id`"): a replay is the first answer, its request id in the
 * body and in the header alike, whatever the first answer was — 200, 201, 400, 404, 409, 422.
 * How the replay's own request is still found (its access line and span) is `../Observability.process.test.ts`'s.
 */
import { assert, layer } from "@effect/vitest"
import { StoreApi } from "@tawsil/api/store/Api"
import { Idempotent } from "@tawsil/api/store/Endpoint"
import { Effect } from "effect"
import { HttpApi } from "effect/http-api"
import * as InMemory from "./InMemory.ts"

const { call, createStore, key } = InMemory

/** Every write endpoint of the store API (those `Idempotent` runs), as method and path template. */
const writeEndpoints: ReadonlyArray<{ readonly method: string; readonly path: string; readonly body: boolean }> =
  (() => {
    const found: Array<{ method: string; path: string; body: boolean }> = []
    HttpApi.reflect(StoreApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        if (endpoint.middlewares.has(Idempotent)) {
          found.push({ method: endpoint.method, path: endpoint.path, body: endpoint.payload.size > 0 })
        }
      }
    })
    return found
  })()

/** A call and its replay: both answers. */
const twice = (token: string, method: string, path: string, body: unknown) =>
  Effect.gen(function* () {
    const idempotencyKey = key()
    const first = yield* call(method, path, { token, key: idempotencyKey, body })
    const again = yield* call(method, path, { token, key: idempotencyKey, body })
    return { first, again }
  })

/**
 * The replay carries the first answer (its status and `meta`; its bytes but for what a replay must not repeat, a
 * minted key's secrets), its request id in the header as in the body.
 */
const assertReplayed = (
  label: string,
  { first, again }: { readonly first: InMemory.Answer; readonly again: InMemory.Answer }
) => {
  assert.strictEqual(again.headers.get("idempotency-replay"), "1", `${label}: a replay (${first.status})`)
  assert.strictEqual(again.status, first.status, label)
  assert.deepStrictEqual(again.body.meta, first.body.meta, `${label}: the first answer's meta`)
  const firstId = first.headers.get("x-request-id")
  assert.strictEqual(first.body.meta.request_id, firstId, `${label}: the first answer`)
  assert.strictEqual(again.headers.get("x-request-id"), again.body.meta.request_id, `${label}: header = body`)
  assert.strictEqual(again.headers.get("x-request-id"), firstId, `${label}: the first answer's id`)
}

layer(InMemory.layer(), { excludeTestServices: true })("replays (memory)", (it) => {
  it.effect("every write endpoint's replay answers one request id, in X-Request-Id and meta.request_id", () =>
    Effect.gen(function* () {
      // Every write endpoint, with path ids no item has and an empty body (or none): each answers something to keep.
      assert.isAbove(writeEndpoints.length, 30, "the write endpoints of the definition")
      const statuses = new Set<number>()
      for (const endpoint of writeEndpoints) {
        const dashboard = yield* createStore()
        const path = endpoint.path.replace(/:[A-Za-z_]+/g, "1")
        const label = `${endpoint.method} ${endpoint.path}`
        const answers = yield* twice(dashboard.token, endpoint.method, path, endpoint.body ? {} : undefined)
        assertReplayed(label, answers)
        statuses.add(answers.first.status)
      }
      // The same rule whatever the first answer was: 200, 201, 409 and 422 written on purpose.
      const dashboard = yield* createStore()
      const promo = { code: "REPLAY", discount_type: "fixed", discount_value: 300 }
      for (const [label, method, path, body] of [
        ["201", "POST", "/v1/promo-codes", promo],
        ["409", "POST", "/v1/promo-codes", promo],
        ["422", "POST", "/v1/promo-codes", { ...promo, code: "X" }],
        ["200", "PATCH", "/v1/store", { name: "Boutique rejouée" }],
        ["400", "PATCH", "/v1/store", { name: "" }]
      ] as const) {
        const answers = yield* twice(dashboard.token, method, path, body)
        assert.strictEqual(String(answers.first.status), label)
        assertReplayed(`${method} ${path} (${label})`, answers)
        statuses.add(answers.first.status)
      }
      for (const status of [200, 201, 400, 404, 409, 422]) assert.isTrue(statuses.has(status), `a ${status} replayed`)
    })
  )

  it.effect("a replay answers the first id even when the replay sends its own X-Request-Id", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const idempotencyKey = key()
      const body = { name: "Boutique" }
      const headers = (id: string) => ({ "x-request-id": id })
      const first = yield* call("PATCH", "/v1/store", {
        token: dashboard.token,
        key: idempotencyKey,
        body,
        headers: headers("client-first-1")
      })
      assert.strictEqual(first.headers.get("x-request-id"), "client-first-1")
      const again = yield* call("PATCH", "/v1/store", {
        token: dashboard.token,
        key: idempotencyKey,
        body,
        headers: headers("client-retry-2")
      })
      assert.strictEqual(again.headers.get("idempotency-replay"), "1")
      assert.deepStrictEqual(
        [again.headers.get("x-request-id"), again.body.meta.request_id],
        ["client-first-1", "client-first-1"]
      )
    })
  )
})
