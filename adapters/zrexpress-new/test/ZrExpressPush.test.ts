import { assert, describe, it } from "@effect/vitest"
import { Push } from "@tawsil/courier"
import { FakePusher } from "@tawsil/courier/testing"
import { Effect, Option, Redacted, Result, Schema } from "effect"
import * as fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { adapter } from "../src/ZrExpressNew.ts"
import * as ZrExpressPush from "../src/ZrExpressPush.ts"
import * as Pusher from "./fake/ZrExpressPusher.ts"
import { MESSAGE_ID, outForDelivery, pushSamples } from "./fixtures/pushes.ts"

const SECRET = pushSamples.secret
const secret = Redacted.make(SECRET)
const NOW = Date.UTC(2026, 3, 18, 18, 45, 6)

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"))

const post = (body: Uint8Array, headers: Record<string, string> = Pusher.sign(body, SECRET, NOW, MESSAGE_ID)) => ({
  method: "POST",
  query: {},
  headers: { "content-type": "application/json", ...headers },
  body
})

const receive = (request: Push.PushRequest, now = NOW) => ZrExpressPush.receive(request, secret, now)

/** `Events`, or the refusal's reason. */
const outcome = (result: Result.Result<Push.PushAnswer, Push.PushRejected>) =>
  Result.isFailure(result) ? result.failure.reason : result.success._tag

describe("ZrExpressPush", () => {
  it("is the adapter's push; the secret is whsec_ and the base64 of a 16 to 128-byte key", () => {
    assert.strictEqual(adapter.push, ZrExpressPush.push)
    const decodes = (text: string) => Option.isSome(Schema.decodeUnknownOption(ZrExpressPush.Secret)(text))
    assert.isTrue(decodes(SECRET))
    assert.isTrue(decodes(Pusher.newSecret()))
    for (const bad of [
      "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "whsec_",
      "whsec_c2hvcnQ=",
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS",
      `whsec_${Buffer.alloc(129).toString("base64")}`
    ]) {
      assert.isFalse(decodes(bad), bad)
    }
  })

  it("signs as the Standard Webhooks reference library does, and the adapter accepts the library's signatures", () => {
    const body = bytes(outForDelivery)
    const at = new Date(NOW)
    const library = new Webhook(SECRET).sign(MESSAGE_ID, at, outForDelivery)
    assert.strictEqual(Pusher.sign(body, SECRET, NOW, MESSAGE_ID)["svix-signature"], library)
    const headers = { "svix-id": MESSAGE_ID, "svix-timestamp": String(NOW / 1000), "svix-signature": library }
    assert.strictEqual(outcome(receive(post(body, headers))), "Events")
    // And the library accepts what the fake's sender signs (under its own webhook-* names), at its own clock.
    const signed = Pusher.sign(body, SECRET, Date.now(), MESSAGE_ID)
    assert.doesNotThrow(() =>
      new Webhook(SECRET).verify(outForDelivery, {
        "webhook-id": signed["svix-id"]!,
        "webhook-timestamp": signed["svix-timestamp"]!,
        "webhook-signature": signed["svix-signature"]!
      })
    )
  })

  it("accepts any v1 entry during a rotation, skips other versions, and reads the unbranded header names", () => {
    const body = bytes(outForDelivery)
    const ours = Pusher.sign(body, SECRET, NOW, MESSAGE_ID)
    const theirs = Pusher.sign(body, pushSamples.otherSecret, NOW, MESSAGE_ID)
    const rotating = `${theirs["svix-signature"]} v1a,c29tZXRoaW5n ${ours["svix-signature"]}`
    assert.strictEqual(outcome(receive(post(body, { ...ours, "svix-signature": rotating }))), "Events")
    assert.strictEqual(
      outcome(receive(post(body, { ...ours, "svix-signature": theirs["svix-signature"]! }))),
      "signature"
    )
    const unbranded = {
      "webhook-id": ours["svix-id"]!,
      "webhook-timestamp": ours["svix-timestamp"]!,
      "webhook-signature": ours["svix-signature"]!
    }
    assert.strictEqual(outcome(receive(post(body, unbranded))), "Events")
  })

  it("calls an authentic request stale outside five minutes either way, and a forged one forged", () => {
    const body = bytes(outForDelivery)
    assert.strictEqual(outcome(receive(post(body), NOW + 299_000)), "Events")
    assert.strictEqual(outcome(receive(post(body), NOW + 301_000)), "stale")
    assert.strictEqual(outcome(receive(post(body), NOW - 301_000)), "stale")
    const forged = Pusher.sign(body, pushSamples.otherSecret, NOW - 3_600_000, MESSAGE_ID)
    assert.strictEqual(outcome(receive(post(body, forged))), "signature")
    for (const stamp of ["", "-1", "1.5", "9".repeat(13), "0x10"]) {
      assert.strictEqual(
        outcome(receive(post(body, { ...Pusher.sign(body, SECRET, NOW), "svix-timestamp": stamp }))),
        "signature",
        stamp
      )
    }
    assert.strictEqual(
      outcome(receive(post(body, Pusher.sign(body, SECRET, NOW, "msg.with.dots")))),
      "signature",
      "an id with a full stop would make the signed text ambiguous"
    )
  })

  it("never throws: any bytes and headers are read or refused for a reason", () => {
    const reasons = new Set(["Events", "signature", "stale", "malformed"])
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2048 }),
        fc.boolean(),
        fc.dictionary(
          fc.constantFrom("svix-id", "svix-timestamp", "svix-signature", "webhook-id", "x"),
          fc.string({ unit: "binary", maxLength: 120 })
        ),
        fc.integer({ min: -400, max: 400 }),
        (body, signed, headers, skew) => {
          const request = {
            method: "POST",
            query: {},
            headers: signed ? { ...headers, ...Pusher.sign(body, SECRET, NOW + skew * 1000) } : headers,
            body
          }
          const read = receive(request)
          assert.isTrue(reasons.has(outcome(read)))
          if (signed && Math.abs(skew) <= 300 && Result.isFailure(read))
            assert.strictEqual(read.failure.reason, "malformed")
        }
      ),
      { numRuns: 300 }
    )
  })

  it("reads any signed JSON as at most one event, or refuses it as malformed", () => {
    const value = fc.jsonValue({ maxDepth: 5 })
    const shaped = fc.record({
      eventType: fc.oneof(fc.constantFrom("parcel.state.updated", "parcel.state.situation.created"), value),
      occurredAt: fc.oneof(fc.constant("2026-04-18T09:02:11.000Z"), value),
      data: fc.oneof(
        fc.record({
          id: value,
          trackingNumber: value,
          externalId: value,
          state: fc.oneof(fc.record({ name: value }), value),
          situation: value
        }),
        value
      )
    })
    fc.assert(
      fc.property(fc.oneof(shaped, value), (json) => {
        const read = receive(post(bytes(JSON.stringify(json))))
        if (Result.isFailure(read)) return assert.strictEqual(read.failure.reason, "malformed")
        if (read.success._tag !== "Events") return assert.fail("a POST is never a challenge")
        assert.isAtMost(read.success.events.length + read.success.unread, 1)
        for (const event of read.success.events) {
          assert.strictEqual(event.eventId, MESSAGE_ID)
          assert.strictEqual(Push.idText(event.rawStatus), event.rawStatus)
          assert.isTrue(Push.namesParcel(event.parcel))
          assert.match(event.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
        }
      }),
      { numRuns: 300 }
    )
  })

  describe("against the fake's sender, over HTTP", () => {
    const parcel = { id: "8f14e45f-ceea-4167-a5a3-6b1e0e2a9d31", trackingNumber: "16-JUKYSI-ZR", externalId: "TW-1" }

    it.live("pushes signed events the adapter reads, the message id kept as the event's id", () =>
      Effect.gen(function* () {
        const receiver = yield* FakePusher.receiver(ZrExpressPush.push, secret)
        const pusher = Pusher.make({ secret: SECRET })
        yield* pusher.subscribe(`${receiver.url}/v1/hooks/couriers/9`)
        const delivery = yield* pusher.push(Pusher.stateUpdated(parcel, "Delivered"))
        assert.isTrue(delivery.delivered)
        const read = receiver.answers.at(-1)!
        if (Result.isFailure(read) || read.success._tag !== "Events") return assert.fail("not read")
        assert.deepStrictEqual(
          read.success.events.map((event) => [event.eventId, event.rawStatus, event.parcel.trackingNumber]),
          [[delivery.attempts[0]!.headers["svix-id"], "Delivered", "16-JUKYSI-ZR"]]
        )
        const situation = yield* pusher.push(
          Pusher.situationCreated(parcel, "FailedDelivery", { name: "Client injoignable" })
        )
        assert.isTrue(situation.delivered)
        const again = receiver.answers.at(-1)!
        assert.deepStrictEqual(
          Result.isSuccess(again) && again.success._tag === "Events" ? again.success.events[0]?.reason : undefined,
          "Client injoignable"
        )
      }).pipe(Effect.scoped)
    )

    it.live("retries on Svix's schedule, signing each attempt at its own time under one message id", () =>
      Effect.gen(function* () {
        const receiver = yield* FakePusher.receiver(ZrExpressPush.push, Redacted.make(pushSamples.otherSecret))
        const pusher = Pusher.make({ secret: SECRET, retryDelays: ["1100 millis", "20 millis"] })
        yield* pusher.subscribe(receiver.url)
        const delivery = yield* pusher.push(Pusher.isReturnUpdated(parcel, true, "InReturn"))
        assert.isFalse(delivery.delivered)
        assert.deepStrictEqual(
          delivery.attempts.map((attempt) => attempt.status),
          [401, 401, 401]
        )
        const [first, second] = delivery.attempts
        assert.strictEqual(first!.headers["svix-id"], second!.headers["svix-id"], "one message id for every attempt")
        assert.notStrictEqual(first!.headers["svix-timestamp"], second!.headers["svix-timestamp"], "each signed anew")
      }).pipe(Effect.scoped)
    )

    it("keeps Svix's documented schedule and timeout by default", () => {
      assert.deepStrictEqual(Pusher.RETRY_DELAYS, [
        "5 seconds",
        "5 minutes",
        "30 minutes",
        "2 hours",
        "5 hours",
        "10 hours",
        "10 hours"
      ])
      assert.strictEqual(Pusher.TIMEOUT, "15 seconds")
    })
  })
})
