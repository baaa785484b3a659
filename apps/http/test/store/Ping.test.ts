/**
 * `GET /v1/ping` through the store API in memory (`src/store/ping`): no key needed, never counted, the request id
 * (the caller's valid `X-Request-Id`, else a new one) in the header and the envelope.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { call, createStore } = InMemory

layer(InMemory.layer(), { excludeTestServices: true })("ping (memory)", (it) => {
  it.effect("ping needs no key; every answer carries the request id in header and body", () =>
    Effect.gen(function* () {
      const pong = yield* call("GET", "/v1/ping", { headers: { "x-request-id": "trace-42" } })
      assert.strictEqual(pong.status, 200)
      assert.strictEqual(pong.body.data.pong, true)
      assert.strictEqual(pong.body.data.edge, true)
      assert.isBelow(Math.abs(Date.parse(pong.body.data.time) - Date.now()), 60_000)
      assert.strictEqual(pong.headers.get("x-request-id"), "trace-42")
      assert.deepStrictEqual(pong.body.meta, { request_id: "trace-42", api_version: "v1" })
      assert.strictEqual(pong.headers.get("x-api-version"), "v1")
      const invalid = yield* call("GET", "/v1/ping", { headers: { "x-request-id": "not valid!" } })
      assert.match(invalid.headers.get("x-request-id")!, /^req_[0-9a-f]{24}$/, "an invalid id is replaced")
      assert.strictEqual(invalid.body.meta.request_id, invalid.headers.get("x-request-id"))
    })
  )

  it.effect("a key sent to ping is neither checked nor counted", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      assert.strictEqual((yield* call("GET", "/v1/ping", { token: "nonsense" })).status, 200)
      yield* call("GET", "/v1/ping", { token: store.token })
      const usage = yield* store.get("/v1/usage")
      assert.deepStrictEqual(usage.body.data.usage.request, { total: 1, billable: 0 }, "this usage call only")
    })
  )
})
