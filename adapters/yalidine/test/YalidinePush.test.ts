import { assert, describe, it } from "@effect/vitest"
import { Push } from "@tawsil/courier"
import { FakePusher } from "@tawsil/courier/testing"
import { Effect, Option, Redacted, Result, Schema } from "effect"
import * as fc from "fast-check"
import { adapter } from "../src/Yalidine.ts"
import * as YalidinePush from "../src/YalidinePush.ts"
import * as Pusher from "./fake/YalidinePusher.ts"
import { pushSamples, statusBatch } from "./fixtures/pushes.ts"

const SECRET = pushSamples.secret
const secret = Redacted.make(SECRET)
const NOW = Date.UTC(2026, 3, 18, 18, 45, 6)

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"))

const post = (body: Uint8Array, headers: Record<string, string> = Pusher.sign(body, SECRET)): Push.PushRequest => ({
  method: "POST",
  query: {},
  headers: { "content-type": "application/json", ...headers },
  body
})

const get = (query: Record<string, string>): Push.PushRequest => ({
  method: "GET",
  query,
  headers: {},
  body: new Uint8Array()
})

const receive = (request: Push.PushRequest) => YalidinePush.receive(request, secret, NOW)

/** `Challenge`, `Events`, or the refusal's reason. */
const outcome = (result: Result.Result<Push.PushAnswer, Push.PushRejected>) =>
  Result.isFailure(result) ? result.failure.reason : result.success._tag

describe("YalidinePush", () => {
  it("is the adapter's push; the secret is 8 to 256 visible characters", () => {
    assert.strictEqual(adapter.push, YalidinePush.push)
    assert.isTrue(adapter.capabilities.push)
    const decodes = (text: string) => Option.isSome(Schema.decodeUnknownOption(YalidinePush.Secret)(text))
    assert.isTrue(decodes(SECRET))
    for (const bad of ["short", "with a space", "x".repeat(257), "tab\there00"]) assert.isFalse(decodes(bad), bad)
  })

  it("answers the CRC challenge with the token as JSON, and only a token it can echo safely", () => {
    const answered = receive(get({ subscribe: "", crc_token: "AbC-123_x.y~z+/=" }))
    assert.deepStrictEqual(Result.getOrThrow(answered), {
      _tag: "Challenge",
      contentType: "application/json",
      body: '{"crc_token":"AbC-123_x.y~z+/="}'
    })
    for (const query of [
      { crc_token: "abc" },
      { subscribe: "" },
      { subscribe: "", crc_token: "" },
      { subscribe: "", crc_token: "a".repeat(YalidinePush.MAX_CRC_TOKEN + 1) },
      { subscribe: "", crc_token: '"},"x":"' },
      { subscribe: "", crc_token: "<script>alert(1)</script>" },
      { subscribe: "", crc_token: "line\r\nbreak" }
    ]) {
      assert.strictEqual(outcome(receive(get(query))), "malformed", JSON.stringify(query).slice(0, 60))
    }
    assert.strictEqual(outcome(receive(get({ subscribe: "", crc_token: "a".repeat(256) }))), "Challenge")
  })

  it("reads a payment's payment_id as the payout (statement) it was paid in; a status update carries none", () => {
    const at = Date.UTC(2026, 10, 30, 10)
    const read = (type: Pusher.EventType, events: ReadonlyArray<Pusher.Event>) => {
      const answer = receive(post(Pusher.bodyOf(type, events)))
      assert.isTrue(Result.isSuccess(answer))
      return (Result.getOrThrow(answer) as Push.Events).events
    }
    const [paid, unpaid] = read("parcel_payment_updated", [
      Pusher.paymentUpdated("yal-PAY001", "payed", { paymentId: "PAY-2026-11-30", at }),
      Pusher.paymentUpdated("yal-PAY002", "ready", { at })
    ])
    assert.deepStrictEqual([paid!.rawStatus, paid!.payment], ["payed", { statement: "PAY-2026-11-30" }])
    assert.deepStrictEqual([unpaid!.rawStatus, unpaid!.payment], ["ready", undefined])
    const [moved] = read("parcel_status_updated", [Pusher.statusUpdated("yal-PAY001", "Livré", { at })])
    assert.strictEqual(moved!.payment, undefined)
  })

  it("checks X-YALIDINE-SIGNATURE over the exact bytes, in either letter case, before reading the body", () => {
    const body = bytes(statusBatch)
    const signature = Pusher.sign(body, SECRET)["x-yalidine-signature"]!
    assert.strictEqual(outcome(receive(post(body, { "x-yalidine-signature": signature.toUpperCase() }))), "Events")
    assert.strictEqual(outcome(receive(post(body, { "x-yalidine-signature": ` ${signature} ` }))), "Events")
    const reformatted = bytes(JSON.stringify(JSON.parse(statusBatch), null, 2))
    assert.strictEqual(
      outcome(receive(post(reformatted, { "x-yalidine-signature": signature }))),
      "signature",
      "the same JSON re-serialised is another body"
    )
    assert.strictEqual(outcome(receive(post(bytes("not json"), { "x-yalidine-signature": signature }))), "signature")
    assert.strictEqual(outcome(receive(post(body, { "x-yalidine-signature": `sha256=${signature}` }))), "signature")
    assert.strictEqual(outcome(receive({ ...post(body), method: "PUT" })), "malformed")
  })

  it("never throws: any bytes, headers and queries are read or refused for a reason", () => {
    const reasons = new Set(["Events", "Challenge", "signature", "malformed"])
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2048 }),
        fc.boolean(),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ unit: "binary", maxLength: 80 }), { maxKeys: 4 }),
        fc.constantFrom("GET", "POST", "HEAD", "post"),
        (body, signed, extra, method) => {
          const headers = signed ? { ...extra, ...Pusher.sign(body, SECRET) } : extra
          const read = YalidinePush.receive({ method, query: extra, headers, body }, secret, NOW)
          assert.isTrue(reasons.has(outcome(read)))
          if (method === "POST" && !signed && !Object.hasOwn(extra, "x-yalidine-signature")) {
            assert.strictEqual(outcome(read), "signature")
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("reads any signed JSON as events or refuses it as malformed, never with a stray value in an event", () => {
    const value = fc.jsonValue({ maxDepth: 6 })
    const shaped = fc.record({
      type: fc.oneof(fc.constantFrom("parcel_status_updated", "parcel_payment_updated", "parcel_deleted"), value),
      events: fc.oneof(
        fc.array(
          fc.record({
            event_id: value,
            occurred_at: fc.oneof(fc.constant("2026-04-18 10:02:11"), value),
            data: fc.oneof(fc.record({ tracking: value, status: value, reason: value }), value)
          }),
          { maxLength: 5 }
        ),
        value
      )
    })
    fc.assert(
      fc.property(fc.oneof(shaped, value), (json) => {
        const read = receive(post(bytes(JSON.stringify(json))))
        if (Result.isFailure(read)) return assert.strictEqual(read.failure.reason, "malformed")
        assert.strictEqual(read.success._tag, "Events")
        if (read.success._tag !== "Events") return
        for (const event of read.success.events) {
          for (const text of [event.parcel.trackingNumber, event.rawStatus, event.eventId]) {
            if (text === undefined) continue
            assert.strictEqual(Push.idText(text), text, "at most 128 characters, trimmed, no control character")
          }
          assert.match(event.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("refuses hostile bodies signed with the secret: deep nesting, huge numbers, NUL and control characters", () => {
    for (const text of [
      `${"[".repeat(50_000)}${"]".repeat(50_000)}`,
      `{"type":"parcel_status_updated","events":${"[".repeat(20_000)}${"]".repeat(20_000)}}`,
      '{"type":"parcel_status_updated","events":[{"event_id":1e999,"occurred_at":1e400,"data":{"tracking":-1e309}}]}',
      '{"type":"\u0000","events":[]}',
      "\u0000\u0001\u0002"
    ]) {
      const read = receive(post(bytes(text)))
      assert.isTrue(
        Result.isFailure(read) || (read.success._tag === "Events" && read.success.events.length === 0),
        text.slice(0, 40)
      )
    }
  })

  describe("against the fake's sender, over HTTP", () => {
    const fast = { secret: SECRET, retryDelays: ["20 millis", "20 millis"], timeout: "2 seconds" } as const

    it.live("subscribes after a real challenge, pushes signed batches the adapter reads, and records both", () =>
      Effect.gen(function* () {
        const receiver = yield* FakePusher.receiver(YalidinePush.push, secret)
        const pusher = Pusher.make(fast)
        yield* pusher.subscribe(`${receiver.url}/v1/hooks/couriers/7`)
        assert.isTrue(pusher.challenges[0]!.passed)
        assert.strictEqual(receiver.received[0]!.query.subscribe, "", "`?subscribe` without a value")
        const delivery = yield* pusher.push("parcel_status_updated", [
          Pusher.statusUpdated("yal-337AAS", "Sorti en livraison"),
          Pusher.statusUpdated("yal-337AAS", "Tentative échouée", { reason: "Client absent (reporté)" })
        ])
        assert.isTrue(delivery.delivered)
        assert.strictEqual(delivery.attempts.length, 1)
        assert.strictEqual(delivery.attempts[0]!.answer, '{"received":2}')
        const read = receiver.answers.at(-1)!
        assert.isTrue(Result.isSuccess(read))
        if (Result.isSuccess(read) && read.success._tag === "Events") {
          assert.deepStrictEqual(
            read.success.events.map((event) => [event.rawStatus, event.reason]),
            [
              ["Sorti en livraison", undefined],
              ["Tentative échouée", "Client absent (reporté)"]
            ]
          )
        }
        assert.isTrue(yield* pusher.revalidate, "the periodic check passes too")
        assert.lengthOf(pusher.challenges, 2)
      }).pipe(Effect.scoped)
    )

    it.live("is not created when the receiver does not echo the token, and is disabled when a check fails", () =>
      Effect.gen(function* () {
        let echo = false
        const receiver = yield* FakePusher.receiver(
          {
            ...YalidinePush.push,
            receive: (request, key, now) =>
              echo
                ? YalidinePush.receive(request, key, now)
                : Result.succeed({ _tag: "Challenge", contentType: "application/json", body: '{"crc_token":"other"}' })
          },
          secret
        )
        const pusher = Pusher.make(fast)
        const refused = yield* Effect.flip(pusher.subscribe(receiver.url))
        assert.strictEqual(refused._tag, "SubscriptionRefused")
        assert.strictEqual((yield* Effect.flip(pusher.push("parcel_deleted", []))).reason, "no webhook was created")
        echo = true
        yield* pusher.subscribe(receiver.url)
        echo = false
        assert.isFalse(yield* pusher.revalidate)
        assert.isTrue(pusher.disabled())
        assert.strictEqual((yield* Effect.flip(pusher.push("parcel_deleted", []))).reason, "the webhook is disabled")
      }).pipe(Effect.scoped)
    )

    it.live("retries what is not a 200 on its schedule, and disables the webhook after the last attempt", () =>
      Effect.gen(function* () {
        // The receiver holds another secret: every push is refused (401) until the account's is set right.
        const receiver = yield* FakePusher.receiver(YalidinePush.push, Redacted.make(pushSamples.otherSecret))
        const pusher = Pusher.make(fast)
        yield* pusher.subscribe(receiver.url)
        const delivery = yield* pusher.push("parcel_status_updated", [Pusher.statusUpdated("yal-1", "Livré")])
        assert.isFalse(delivery.delivered)
        assert.deepStrictEqual(
          delivery.attempts.map((attempt) => attempt.status),
          [401, 401, 401],
          "the first attempt and one per delay"
        )
        assert.isAtLeast(delivery.attempts[2]!.at - delivery.attempts[0]!.at, 40)
        assert.isTrue(pusher.disabled())
      }).pipe(Effect.scoped)
    )

    it("keeps Yalidine's documented schedule and timeout by default", () => {
      assert.deepStrictEqual(Pusher.RETRY_DELAYS, ["5 minutes", "15 minutes", "1 hour", "3 hours", "12 hours", "1 day"])
      assert.strictEqual(Pusher.TIMEOUT, "10 seconds")
      assert.strictEqual(Pusher.algiersTime(Date.UTC(2026, 3, 18, 23, 30, 0)), "2026-04-19 00:30:00")
    })
  })
})
