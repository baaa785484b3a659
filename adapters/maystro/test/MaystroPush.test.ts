import { assert, describe, it } from "@effect/vitest"
import { Push } from "@tawsil/courier"
import { FakePusher } from "@tawsil/courier/testing"
import { Effect, Option, Redacted, Result, Schema } from "effect"
import * as fc from "fast-check"
import { adapter } from "../src/Maystro.ts"
import * as MaystroPush from "../src/MaystroPush.ts"
import * as Pusher from "./fake/MaystroPusher.ts"
import { delivered, pushSamples } from "./fixtures/pushes.ts"

const SECRET = pushSamples.secret
const secret = Redacted.make(SECRET)
const NOW = Date.UTC(2026, 3, 18, 18, 45, 6)

const post = (body: Uint8Array, headers: Record<string, string> = Pusher.sign(body, SECRET)): Push.PushRequest => ({
  method: "POST",
  query: {},
  headers,
  body
})

const receive = (request: Push.PushRequest) => MaystroPush.receive(request, secret, NOW)

const outcome = (result: Result.Result<Push.PushAnswer, Push.PushRejected>) =>
  Result.isFailure(result) ? result.failure.reason : result.success._tag

const statuses = (result: Result.Result<Push.PushAnswer, Push.PushRejected>) =>
  Result.isSuccess(result) && result.success._tag === "Events"
    ? result.success.events.map((event) => event.rawStatus)
    : outcome(result)

describe("MaystroPush", () => {
  it("is the adapter's push; the secret is the merchant's, 16 to 256 visible characters", () => {
    assert.strictEqual(adapter.push, MaystroPush.push)
    const decodes = (text: string) => Option.isSome(Schema.decodeUnknownOption(MaystroPush.Secret)(text))
    assert.isTrue(decodes(SECRET))
    for (const bad of ["too-short", "x".repeat(257), "with a space inside it"]) assert.isFalse(decodes(bad), bad)
  })

  it("takes the sender's X-Webhook-Secret only when it is the secret, whatever the body", () => {
    const body = Pusher.bodyOf(delivered)
    assert.strictEqual(outcome(receive(post(body))), "Events")
    for (const presented of [
      "",
      SECRET.slice(0, -1),
      `${SECRET} `,
      SECRET.toUpperCase(),
      `${SECRET}${SECRET}`,
      pushSamples.otherSecret
    ]) {
      assert.strictEqual(outcome(receive(post(body, { "x-webhook-secret": presented }))), "signature", presented)
    }
    assert.strictEqual(outcome(receive(post(body, { authorization: `Token ${SECRET}` }))), "signature")
    assert.strictEqual(outcome(receive({ ...post(body), method: "GET" })), "malformed")
  })

  it("reads the order encoded twice, once, or not at all, bare, as a JSON string, or under data or payload", () => {
    const json = JSON.stringify(delivered)
    const once = Buffer.from(json).toString("base64")
    for (const [name, text] of [
      ["twice", Pusher.encode(delivered)],
      ["twice, wrapped at 76 characters", Pusher.encode(delivered).replace(/(.{76})/g, "$1\r\n")],
      ["once", once],
      ["not encoded", json],
      ["a JSON string", JSON.stringify(Pusher.encode(delivered))],
      ["under data", JSON.stringify({ data: Pusher.encode(delivered) })],
      ["under payload, once", JSON.stringify({ payload: once })],
      ["a list", Pusher.encode([delivered])],
      ["under orders", JSON.stringify({ orders: [delivered] })]
    ] as const) {
      assert.deepStrictEqual(statuses(receive(post(Buffer.from(text)))), ["41"], name)
    }
    assert.strictEqual(
      outcome(receive(post(Buffer.from(Buffer.from(Pusher.encode(delivered)).toString("base64"))))),
      "malformed",
      "three times is more than Maystro encodes"
    )
  })

  it("never throws: any bytes and headers are read or refused for a reason", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 2048 }),
          fc.jsonValue({ maxDepth: 5 }).map((value) => Pusher.bodyOf(value, "raw")),
          fc.jsonValue({ maxDepth: 5 }).map((value) => Pusher.bodyOf(value, "data"))
        ),
        fc.boolean(),
        fc.string({ unit: "binary", maxLength: 64 }),
        (body, signed, header) => {
          const read = receive(post(body, signed ? Pusher.sign(body, SECRET) : { "x-webhook-secret": header }))
          if (!signed && header !== SECRET) return assert.strictEqual(outcome(read), "signature")
          if (Result.isFailure(read)) return assert.strictEqual(read.failure.reason, "malformed")
          if (read.success._tag !== "Events") return assert.fail("a POST is never a challenge")
          for (const event of read.success.events) {
            assert.match(event.rawStatus, /^\d{1,6}$/)
            assert.isTrue(Push.namesParcel(event.parcel))
            assert.match(event.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("refuses hostile payloads behind the encoding: deep nesting, huge numbers, control characters", () => {
    const twice = (json: string) => Buffer.from(Buffer.from(Buffer.from(json).toString("base64")).toString("base64"))
    for (const json of [
      `${"[".repeat(50_000)}${"]".repeat(50_000)}`,
      `${'{"data":'.repeat(50_000)}1${"}".repeat(50_000)}`,
      '{"id":"x","status":1e400}',
      '{"display_id_order":1e400,"status":41}',
      '{"status":"41\u0000","display_id_order":"\u0007"}'
    ]) {
      const read = receive(post(twice(json)))
      assert.isTrue(
        Result.isFailure(read) || (read.success._tag === "Events" && read.success.events.length === 0),
        json.slice(0, 40)
      )
    }
  })

  describe("against the fake's sender, over HTTP", () => {
    it.live("pushes in every form a receiver has met, and the adapter reads each", () =>
      Effect.gen(function* () {
        const receiver = yield* FakePusher.receiver(MaystroPush.push, secret)
        const pusher = Pusher.make({ secret: SECRET, retryDelays: ["20 millis"] })
        yield* pusher.subscribe(`${receiver.url}/v1/hooks/couriers/3`)
        for (const wrapping of ["raw", "json-string", "data", "payload"] as const) {
          const delivery = yield* pusher.push({ ...delivered, status: 31 }, wrapping)
          assert.isTrue(delivery.delivered, wrapping)
          assert.deepStrictEqual(statuses(receiver.answers.at(-1)!), ["31"], wrapping)
        }
      }).pipe(Effect.scoped)
    )

    it.live("retries a refused push on its (assumed) schedule, then gives up", () =>
      Effect.gen(function* () {
        const receiver = yield* FakePusher.receiver(MaystroPush.push, Redacted.make(pushSamples.otherSecret))
        const pusher = Pusher.make({ secret: SECRET, retryDelays: ["20 millis", "20 millis"] })
        yield* pusher.subscribe(receiver.url)
        const delivery = yield* pusher.push(delivered)
        assert.isFalse(delivery.delivered)
        assert.deepStrictEqual(
          delivery.attempts.map((attempt) => attempt.status),
          [401, 401, 401]
        )
      }).pipe(Effect.scoped)
    )
  })
})
