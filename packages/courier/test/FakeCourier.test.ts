import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as CourierAdapter from "../src/CourierAdapter.ts"
import * as CourierError from "../src/CourierError.ts"
import type { CourierRequest } from "../src/CourierHttp.ts"
import { FakeCourier, LoopbackHttp } from "../src/testing/index.ts"

type Own = { readonly kind: "refuse"; readonly message: string } | { readonly kind: "refuseNextCreate" }

/** A courier whose API answers `POST /v1/parcels` with the tracking it was sent, and whose errors are `{ message }`. */
const start = Effect.gen(function* () {
  let refusing = false
  const fake = yield* FakeCourier.make<Own>({
    errorBody: (_status, message) => ({ message }),
    misbehave: (misbehaviour, _request, response) => {
      switch (misbehaviour.kind) {
        case "refuse":
          FakeCourier.json(response, 200, { success: false, message: misbehaviour.message })
          return true
        case "refuseNextCreate":
          refusing = true
          return false
        default:
          return false
      }
    },
    handle: (request, response) => {
      if (request.headers.authorization !== "Bearer t0ken") return FakeCourier.json(response, 401, { message: "no" })
      if (request.method === "POST" && request.path === "/v1/parcels") {
        return refusing
          ? FakeCourier.json(response, 200, { success: false, message: "refused as told" })
          : FakeCourier.json(response, 201, { success: true, tracking: (request.body as { ref: string }).ref })
      }
      return FakeCourier.json(response, 404, { message: "Not Found" })
    }
  })
  return fake
})

const send = (origin: string, request: Omit<CourierRequest, "headers">) =>
  LoopbackHttp.send(origin, { ...request, headers: { authorization: "Bearer t0ken" } }, "1 second")

describe("FakeCourier", () => {
  it.live("keeps every request, its JSON body, query and flattened headers, and hands it to the courier's API", () =>
    Effect.gen(function* () {
      const fake = yield* start
      const created = yield* send(fake.origin, {
        method: "POST",
        path: "/v1/parcels",
        query: { a: "1" },
        json: { ref: "R1" }
      })
      assert.strictEqual(created.status, 201)
      assert.deepStrictEqual(JSON.parse(created.text), { success: true, tracking: "R1" })
      const [request] = fake.requests
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.path, "/v1/parcels")
      assert.deepStrictEqual(request?.query, { a: "1" })
      assert.deepStrictEqual(request?.body, { ref: "R1" })
      assert.strictEqual(request?.text, `{"ref":"R1"}`)
      assert.strictEqual(request?.headers["content-type"], "application/json")
      assert.strictEqual(request?.headers.authorization, "Bearer t0ken")
    }).pipe(Effect.scoped)
  )

  it.live("plays the standard misbehaviours, with the courier's error body", () =>
    Effect.gen(function* () {
      const fake = yield* start
      const get = () => send(fake.origin, { method: "GET", path: "/v1/anything" })
      fake.misbehaveNext({ kind: "status", status: 503 })
      const unavailable = yield* get()
      assert.deepStrictEqual(
        [unavailable.status, JSON.parse(unavailable.text)],
        [503, { message: "Service Unavailable" }]
      )
      fake.misbehaveNext({ kind: "html" })
      const html = yield* get()
      assert.strictEqual(html.status, 200)
      assert.match(html.headers["content-type"] ?? "", /^text\/html/)
      fake.misbehaveNext({ kind: "rateLimited", retryAfter: "9" })
      const limited = yield* get()
      assert.deepStrictEqual([limited.status, limited.headers["retry-after"]], [429, "9"])
      fake.misbehaveNext({ kind: "json", status: 200, body: { any: "thing" } })
      assert.deepStrictEqual(JSON.parse((yield* get()).text), { any: "thing" })
      fake.misbehaveNext({ kind: "reset" })
      const reset = yield* Effect.flip(get())
      assert.strictEqual(reset._tag, "Unreachable")
      fake.misbehaveNext({ kind: "hang" })
      const hang = yield* Effect.flip(LoopbackHttp.send(fake.origin, { method: "GET", path: "/v1/x" }, "200 millis"))
      assert.strictEqual(hang.message, "the courier did not answer in time")
      // Back to the API once the queue is empty.
      assert.strictEqual((yield* get()).status, 404)
      assert.lengthOf(fake.requests, 7)
    }).pipe(Effect.scoped)
  )

  it.live("misbehaves on the next request to a given path only, named or matched", () =>
    Effect.gen(function* () {
      const fake = yield* start
      fake.misbehaveNext({ kind: "status", status: 500 }, "/v1/parcels")
      fake.misbehaveNext({ kind: "status", status: 502 }, /^\/v1\/labels\//)
      assert.strictEqual((yield* send(fake.origin, { method: "GET", path: "/v1/rates" })).status, 404)
      assert.strictEqual((yield* send(fake.origin, { method: "GET", path: "/v1/labels/T1" })).status, 502)
      assert.strictEqual(
        (yield* send(fake.origin, { method: "POST", path: "/v1/parcels", json: { ref: "x" } })).status,
        500
      )
      assert.strictEqual(
        (yield* send(fake.origin, { method: "POST", path: "/v1/parcels", json: { ref: "x" } })).status,
        201
      )
    }).pipe(Effect.scoped)
  )

  it.live("plays the courier's own misbehaviours, answered or carried on to its API", () =>
    Effect.gen(function* () {
      const fake = yield* start
      fake.misbehaveNext({ kind: "refuse", message: "Solde insuffisant" })
      const refused = yield* send(fake.origin, { method: "POST", path: "/v1/parcels", json: { ref: "x" } })
      assert.deepStrictEqual(JSON.parse(refused.text), { success: false, message: "Solde insuffisant" })
      fake.misbehaveNext({ kind: "refuseNextCreate" })
      const carried = yield* send(fake.origin, { method: "POST", path: "/v1/parcels", json: { ref: "x" } })
      assert.deepStrictEqual(JSON.parse(carried.text), { success: false, message: "refused as told" })
    }).pipe(Effect.scoped)
  )

  it.live("reads a form body (sent by the loopback CourierHttp's `form`) as its fields, with its content type", () =>
    Effect.gen(function* () {
      const fake = yield* start
      const answer = yield* send(fake.origin, {
        method: "POST",
        path: "/token",
        form: { grant_type: "password", username: "a b@c.dz", password: "p&ss=1" }
      })
      assert.strictEqual(answer.status, 404, "handed to the courier's API, not refused as bad JSON")
      const [request] = fake.requests
      assert.strictEqual(request?.headers["content-type"], "application/x-www-form-urlencoded")
      assert.strictEqual(request?.text, "grant_type=password&username=a+b%40c.dz&password=p%26ss%3D1")
      assert.deepStrictEqual(request?.body, { grant_type: "password", username: "a b@c.dz", password: "p&ss=1" })
    }).pipe(Effect.scoped)
  )

  it.live("answers a body that is not JSON with the courier's error body, and keeps the request", () =>
    Effect.gen(function* () {
      const fake = yield* start
      const answer = yield* Effect.promise(() =>
        fetch(`${fake.origin}/v1/parcels`, { method: "POST", body: "{not json" }).then(async (response) => ({
          status: response.status,
          body: await response.json()
        }))
      )
      assert.deepStrictEqual(answer, { status: 400, body: { message: "The request body is not valid JSON" } })
      assert.deepStrictEqual(
        fake.requests.map(({ text, body }) => ({ text, body })),
        [{ text: "{not json", body: undefined }]
      )
    }).pipe(Effect.scoped)
  )

  it.live("runs outside Effect until closed", () =>
    Effect.gen(function* () {
      const fake = yield* Effect.promise(() => FakeCourier.run(start))
      assert.strictEqual((yield* send(fake.origin, { method: "GET", path: "/v1/rates" })).status, 404)
      yield* Effect.promise(() => fake.close())
      assert.isTrue(Exit.isFailure(yield* Effect.exit(send(fake.origin, { method: "GET", path: "/v1/rates" }))))
    })
  )

  it.live("stops listening when its scope closes", () =>
    Effect.gen(function* () {
      const origin = yield* Effect.scoped(Effect.map(start, (fake) => fake.origin))
      const exit = yield* Effect.exit(send(origin, { method: "GET", path: "/v1/rates" }))
      assert.isTrue(Exit.isFailure(exit))
    })
  )
})

describe("FakeCourier.standardFailures", () => {
  const Credentials = Schema.Struct({ apiToken: Schema.String, accountId: Schema.String })
  const adapter = (operations: CourierAdapter.Operations<typeof Credentials.Type>) =>
    CourierAdapter.define({
      platform: "acme",
      couriers: [{ key: "acme", name: "Acme", aliases: [], endpoint: { origin: "https://api.acme.example" } }],
      credentials: Credentials,
      statuses: {},
      operations
    })
  const track = () => Effect.fail(new CourierError.Unreachable({ message: "unused" }))
  const credentials = { valid: { apiToken: "canary-0123456789ab", accountId: "A1" }, canary: "canary-0123456789ab" }

  it("are the rows the kit demands, with credentials the courier does not know derived from the canary", () => {
    const rows = FakeCourier.standardFailures({ adapter: adapter({ track, rates: track }), credentials })
    assert.deepStrictEqual(
      rows.map(({ name, operation, reason, timeoutMs, retryAfterSeconds }) => ({
        name,
        operation,
        reason,
        timeoutMs,
        retryAfterSeconds
      })),
      [
        {
          name: "no answer",
          operation: undefined,
          reason: "Unreachable",
          timeoutMs: 300,
          retryAfterSeconds: undefined
        },
        {
          name: "a dropped connection",
          operation: undefined,
          reason: "Unreachable",
          timeoutMs: undefined,
          retryAfterSeconds: undefined
        },
        {
          name: "HTTP 503",
          operation: "rates",
          reason: "Unreachable",
          timeoutMs: undefined,
          retryAfterSeconds: undefined
        },
        {
          name: "an HTML page",
          operation: undefined,
          reason: "BadResponse",
          timeoutMs: undefined,
          retryAfterSeconds: undefined
        },
        {
          name: "a redirect",
          operation: "track",
          reason: "BadResponse",
          timeoutMs: undefined,
          retryAfterSeconds: undefined
        },
        {
          name: "429 with Retry-After",
          operation: undefined,
          reason: "CourierRateLimited",
          timeoutMs: undefined,
          retryAfterSeconds: 17
        },
        {
          name: "credentials the courier does not know",
          operation: undefined,
          reason: "CredentialsRejected",
          timeoutMs: undefined,
          retryAfterSeconds: undefined
        }
      ]
    )
    assert.deepStrictEqual(rows.at(-1)?.credentials, { apiToken: "canary-0123456789ab-revoked", accountId: "A1" })
  })

  it("run the first declared operation where the adapter lacks rates or track", () => {
    const rows = FakeCourier.standardFailures({ adapter: adapter({ label: track }), credentials })
    assert.isTrue(rows.every((row) => row.operation === undefined))
  })
})
