/**
 * The shipping API's `shipping` group in memory (`src/shipping/shipping`): create, track, rates and labels through
 * the sandbox (its documented test values too) and `memco`; every refusal a create can meet — the body's fields
 * (all at once, a 2026 wilaya with the code to send, text a courier cannot keep, JSON that does not parse), the
 * phone, the courier, its credentials and `baseUrl`, the courier's own failures with the status and `Retry-After`
 * each answers — the `Idempotency-Key` of create and cancel, the capacity guard and the client's window. The same
 * through the app's process and the public dzship client: `../Shipping.test.ts`, `../Couriers.test.ts`,
 * `../ShippingText.test.ts`.
 */
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, create, memcoCall, order, orderTo, post, SANDBOX_TRACKING } = InMemory

layer(InMemory.layer(), { excludeTestServices: true })("shipping (memory)", (it) => {
  it.effect("creates, tracks and prices a sandbox parcel, and answers its label as a PDF", () =>
    Effect.gen(function* () {
      const created = yield* create()
      assert.strictEqual(created.status, 200, created.text)
      assert.match(created.body.trackingNumber, SANDBOX_TRACKING)
      assert.deepStrictEqual([created.body.status, created.body.reference], ["created", "cmd-1001"])

      const tracked = yield* post("/v1/track", { courier: "sandbox", trackingNumber: created.body.trackingNumber })
      assert.strictEqual(tracked.body.status, "created")
      assert.deepStrictEqual(
        tracked.body.events.map((event: { status: string; rawStatus: string }) => [event.status, event.rawStatus]),
        [["created", "order_created"]]
      )
      assert.match(tracked.body.events[0].timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+01:00$/)

      const rates = yield* post("/v1/rates", {
        courier: "sandbox",
        query: { toWilaya: 31, deliveryType: "stopdesk", codAmount: 12000 }
      })
      assert.deepStrictEqual(
        [rates.body.deliveryFee, rates.body.returnFee, rates.body.total, rates.body.currency],
        [400, 200, 520, "DZD"]
      )

      const label = yield* post("/v1/labels", { courier: "sandbox", trackingNumber: created.body.trackingNumber })
      assert.strictEqual(label.status, 200)
      assert.strictEqual(label.headers.get("content-type"), "application/pdf")
      const pdf = Buffer.from(label.bytes).toString("latin1")
      assert.strictEqual(pdf.slice(0, 5), "%PDF-")
      assert.include(pdf, created.body.trackingNumber)
      assert.include(pdf, "%%EOF")
      const unknown = yield* post("/v1/labels", { courier: "sandbox", trackingNumber: "SBX0000000000ZZ" })
      assert.strictEqual(unknown.status, 422)
    })
  )

  it.effect(
    "answers the dzship README's first example; a desk order goes to any commune, as docs/sandbox.md says",
    () =>
      Effect.gen(function* () {
        const readme = {
          recipient: { fullName: "Amine Bouzid", phone: "0551234567", wilayaCode: 16, communeName: "Bab Ezzouar" },
          deliveryType: "home",
          productList: "Sneakers x1",
          codAmount: 4500
        }
        const created = yield* create({ order: readme })
        assert.strictEqual(created.status, 200, created.text)
        assert.match(created.body.trackingNumber, SANDBOX_TRACKING)
        assert.match(created.body.reference, /^TW-[0-9A-Z]{10}$/, "a reference is made when none is sent")

        // What the page promises: a desk order without a desk id among what it accepts, to every commune.
        const page = readFileSync(Path.resolve(import.meta.dirname, "../../../../docs/sandbox.md"), "utf8")
        assert.include(page, "It **accepts every request the API accepts**")
        assert.include(page, "a stopdesk delivery without `stopDeskId`")
        const desksSection = page.split("\n## Desks\n")[1]!.split("\n## ")[0]!
        assert.include(desksSection, "serve **every commune** of their wilaya")
        assert.include(desksSection, "with or without `stopDeskId`")
        assert.include(desksSection, "never answers `commune_not_served`")

        // What it does: Bab Ezzouar (no desk of its own), every commune of Algiers, and one of each other wilaya.
        const desks = yield* post("/v1/stop-desks", { courier: "sandbox", wilayaCode: 16 })
        assert.notInclude(
          desks.body.map((desk: { communeName: string }) => desk.communeName),
          "Bab Ezzouar"
        )
        const deskOrder = (wilayaCode: number, communeName: string, stopDeskId?: string) =>
          create({
            order: {
              ...readme,
              deliveryType: "stopdesk",
              ...(stopDeskId === undefined ? {} : { stopDeskId }),
              recipient: { ...readme.recipient, wilayaCode, communeName }
            }
          })
        const communes = yield* InMemory.get("/v1/communes?wilaya=16")
        assert.lengthOf(communes.body, 57)
        const elsewhere = yield* Effect.forEach(
          Array.from({ length: 58 }, (_, index) => index + 1).filter((code) => code !== 16),
          (code) => Effect.map(InMemory.get(`/v1/communes?wilaya=${code}`), (answer) => [code, answer.body[0].nameFr])
        )
        for (const [wilayaCode, communeName] of [
          ...communes.body.map((commune: { nameFr: string }) => [16, commune.nameFr]),
          ...elsewhere
        ]) {
          const answer = yield* deskOrder(wilayaCode, communeName)
          assert.strictEqual(answer.status, 200, `${communeName} (${wilayaCode}): ${answer.text}`)
          assert.strictEqual(answer.body.status, "created")
        }
        const named = yield* deskOrder(16, "Bab Ezzouar", desks.body[0].id)
        assert.strictEqual(named.status, 200, named.text)
        const resolved = yield* post("/v1/communes/resolve", {
          courier: "sandbox",
          wilayaCode: 16,
          communeName: "Bab Ezzouar"
        })
        assert.deepStrictEqual(
          [resolved.body.courier.name, resolved.body.courier.home, resolved.body.courier.stopdesk],
          ["Bab Ezzouar", true, true]
        )
      })
  )

  it.effect("answers every documented sandbox test value with its outcome, on create and on track", () =>
    Effect.gen(function* () {
      const expected: ReadonlyArray<readonly [phone: string, tracking: string, status: number, code: string]> = [
        ["0500000422", "SBXTEST422", 422, "courier_refused"],
        ["0500000401", "SBXTEST401", 422, "credentials_rejected"],
        ["0500000502", "SBXTEST502", 502, "courier_unreachable"],
        ["0500000504", "SBXTEST504", 502, "courier_unreachable"],
        ["0500000429", "SBXTEST429", 429, "rate_limited"]
      ]
      for (const [phone, tracking, status, code] of expected) {
        for (const answer of [
          yield* create({ order: orderTo({ phone }) }),
          yield* post("/v1/track", { courier: "sandbox", trackingNumber: tracking })
        ]) {
          assert.deepStrictEqual(codeOf(answer), [status, code], phone)
          assert.strictEqual(answer.headers.get("retry-after"), status === 429 ? "30" : null, phone)
        }
      }
      const started = Date.now()
      const slow = yield* create({ order: orderTo({ phone: "0500000200" }) })
      assert.strictEqual(slow.body.status, "created")
      assert.isAtLeast(Date.now() - started, 700, "the slow test value answers within the caller's timeout, slowly")
    })
  )

  it.effect("reports every invalid field as a 400 with fields, and JSON that does not parse", () =>
    Effect.gen(function* () {
      const invalid = yield* create({
        order: { ...orderTo({ fullName: "A", wilayaCode: 59 }), codAmount: -5, notes: "x".repeat(256) }
      })
      assert.deepStrictEqual(codeOf(invalid), [400, "invalid_input"])
      assert.strictEqual(invalid.body.error.message, "Request validation failed")
      assert.deepStrictEqual(Object.keys(invalid.body.error.fields).sort(), [
        "order.codAmount",
        "order.notes",
        "order.recipient.fullName",
        "order.recipient.wilayaCode"
      ])
      const extra = yield* create({ surprise: 1 })
      assert.deepStrictEqual(codeOf(extra), [400, "invalid_input"], "an unknown property is refused")
      const garbled = yield* InMemory.call("POST", "/v1/orders", { raw: "{not json" })
      assert.strictEqual(garbled.text, '{"error":{"code":"invalid_input","message":"Body must be valid JSON"}}')
      const unknownRoute = yield* InMemory.get("/v1/nowhere")
      assert.deepStrictEqual(codeOf(unknownRoute), [404, "not_found"])
    })
  )

  it.effect("refuses a wilaya of the 2026 division with the code couriers deliver it as, wherever it is sent", () =>
    Effect.gen(function* () {
      const created = yield* create({ order: orderTo({ wilayaCode: 64 }) })
      assert.deepStrictEqual(codeOf(created), [400, "invalid_input"])
      assert.include(created.body.error.fields["order.recipient.wilayaCode"], "send wilayaCode 28")
      const rates = yield* post("/v1/rates", { courier: "sandbox", query: { toWilaya: 63, deliveryType: "home" } })
      assert.include(rates.body.error.fields["query.toWilaya"], "send wilayaCode 5")
      const from = yield* post("/v1/rates", {
        courier: "sandbox",
        options: { fromWilaya: 60 },
        query: { fromWilaya: 59, toWilaya: 16, deliveryType: "home" }
      })
      assert.include(from.body.error.fields["options.fromWilaya"], "send wilayaCode 32")
      assert.include(from.body.error.fields["query.fromWilaya"], "send wilayaCode 3")
      const beyond = yield* create({ order: orderTo({ wilayaCode: 70 }) })
      assert.strictEqual(
        beyond.body.error.fields["order.recipient.wilayaCode"],
        "Expected a wilaya code, an integer from 1 to 58",
        "a code of no wilaya keeps the schema's message"
      )
    })
  )

  it.effect("refuses text a courier could not keep (NUL, a lone surrogate) field by field; other controls pass", () =>
    Effect.gen(function* () {
      const refusals: ReadonlyArray<[string, Record<string, unknown>]> = [
        ["order.reference", { ...order, reference: "cmd\u00001" }],
        ["order.productList", { ...order, productList: "robe\u0000" }],
        ["order.notes", { ...order, notes: "\ud800 appeler avant" }],
        ["order.recipient.fullName", orderTo({ fullName: "Amina\u0000B" })],
        ["order.recipient.addressLine", orderTo({ addressLine: "Cité \udc00" })]
      ]
      for (const [field, body] of refusals) {
        const refused = yield* create({ order: body })
        assert.deepStrictEqual(codeOf(refused), [400, "invalid_input"], field)
        assert.include(Object.keys(refused.body.error.fields).join(" "), field)
      }
      const accepted = yield* create({
        order: { ...orderTo({ addressLine: "Cité 5 juillet\nbât. 3\tporte 2" }), productList: "robe\u0001" }
      })
      assert.strictEqual(accepted.status, 200, accepted.text)
    })
  )

  it.effect("answers 422 for a phone that is not an Algerian mobile, naming the field, before any courier", () =>
    Effect.gen(function* () {
      const phone = yield* create({ order: orderTo({ phone: "021 23 45 67" }) })
      assert.deepStrictEqual(codeOf(phone), [422, "invalid_phone"])
      assert.deepStrictEqual(phone.body.error.fields, { "order.recipient.phone": phone.body.error.message })
      const refused = yield* create({ order: orderTo({ phone: "0500000422" }) })
      assert.deepStrictEqual(codeOf(refused), [422, "courier_refused"])
      assert.deepStrictEqual(
        codeOf(yield* post("/v1/track", { courier: "sandbox", trackingNumber: "SBX0000000000ZZ" })),
        [422, "courier_refused"]
      )
    })
  )

  it.effect("answers 400 for an unknown courier (naming the list), credentials it does not take, a baseUrl", () =>
    Effect.gen(function* () {
      const unknown = yield* post("/v1/orders", { courier: "no_such_courier", order })
      assert.deepStrictEqual(unknown.body, {
        error: {
          code: "unknown_courier",
          message: 'unknown courier "no_such_courier"; GET /v1/couriers lists the keys'
        }
      })
      assert.strictEqual(unknown.status, 400)
      const credentials = yield* create({ credentials: { token: "abc" } })
      assert.deepStrictEqual(codeOf(credentials), [400, "invalid_credentials"])
      const baseUrl = yield* create({ options: { baseUrl: "https://evil.example" } })
      assert.deepStrictEqual(codeOf(baseUrl), [400, "blocked_egress"])
      const missing = yield* post("/v1/orders", { courier: "memco", order })
      assert.deepStrictEqual(codeOf(missing), [400, "invalid_credentials"], "memco takes a token")
    })
  )

  it.effect("maps a courier's failures: refused and rejected → 422, down or garbage → 502, limited → 429", () =>
    Effect.gen(function* () {
      const expected: ReadonlyArray<readonly [token: string, status: number, code: string, message: string]> = [
        ["refused", 422, "courier_refused", "the order breaks a rule"],
        ["rejected", 422, "credentials_rejected", "bad token"],
        ["down", 502, "courier_unreachable", "no answer"],
        ["garbage", 502, "courier_error", "unreadable answer"]
      ]
      for (const [token, status, code, message] of expected) {
        const tracked = yield* post("/v1/track", { ...memcoCall(token), trackingNumber: "MEM1" })
        assert.strictEqual(tracked.status, status, token)
        // Byte for byte what the dzship client reads: the code, and the courier's words after the call's name.
        assert.strictEqual(tracked.text, JSON.stringify({ error: { code, message: `memco track: ${message}` } }))
        assert.isNull(tracked.headers.get("retry-after"))
        const created = yield* post("/v1/orders", { ...memcoCall(token), order })
        assert.deepStrictEqual(codeOf(created), [status, code], token)
      }
      const limited = yield* post("/v1/rates", {
        ...memcoCall("limited"),
        query: { toWilaya: 16, deliveryType: "home" }
      })
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.headers.get("retry-after"), "42")
      assert.deepStrictEqual(Object.keys(limited.body.error), ["code", "message"], "when is said by Retry-After alone")
      assert.strictEqual(limited.body.error.code, "rate_limited")
      const unsupported = yield* post("/v1/labels", { ...memcoCall(), trackingNumber: "MEM1" })
      assert.deepStrictEqual(codeOf(unsupported), [400, "unsupported"])
    })
  )

  it.effect(
    "replays a create with the same Idempotency-Key and request, creating one parcel; refuses the key for another",
    () =>
      Effect.gen(function* () {
        const memco = yield* InMemory.Memco
        const key = { "idempotency-key": "order-1001" }
        const first = yield* post("/v1/orders", { ...memcoCall(), order }, key)
        assert.strictEqual(first.status, 200, first.text)
        const before = memco.creates.length
        const again = yield* post("/v1/orders", { ...memcoCall(), order }, key)
        assert.deepStrictEqual([again.status, again.text], [200, first.text])
        assert.strictEqual(memco.creates.length, before, "the replay created no second parcel")

        const other = yield* post("/v1/orders", { ...memcoCall(), order: { ...order, codAmount: 9999 } }, key)
        assert.strictEqual(other.status, 422)
        assert.deepStrictEqual(other.body.error, {
          code: "idempotency_key_reuse",
          message: "this Idempotency-Key was used for another request"
        })
        const otherCaller = yield* post("/v1/orders", { ...memcoCall("someone-else"), order }, key)
        assert.strictEqual(otherCaller.status, 200, "another caller (other credentials) has its own keys")
        assert.notStrictEqual(otherCaller.body.trackingNumber, first.body.trackingNumber)

        const malformed = yield* post("/v1/orders", { ...memcoCall(), order }, { "idempotency-key": "has spaces!" })
        assert.deepStrictEqual(malformed.body.error, {
          code: "invalid_input",
          message: "Request validation failed",
          fields: { "headers.idempotency-key": "malformed: expected 1-64 of A-Z a-z 0-9 _ - : ." }
        })

        // A failure that certainly created nothing frees the key: the retry runs again.
        const rejectedKey = { "idempotency-key": "order-1002" }
        for (const _ of [1, 2]) {
          const rejected = yield* post("/v1/orders", { ...memcoCall("rejected"), order }, rejectedKey)
          assert.deepStrictEqual(codeOf(rejected), [422, "credentials_rejected"], "ran again, not a 409")
        }

        // After a failure that may have created the parcel, the key stays claimed: a retry answers 409 with
        // Retry-After, not a second parcel.
        const lostKey = { "idempotency-key": "order-1003" }
        assert.strictEqual((yield* post("/v1/orders", { ...memcoCall("down"), order }, lostKey)).status, 502)
        const sent = memco.creates.length
        const retried = yield* post("/v1/orders", { ...memcoCall("down"), order }, lostKey)
        assert.strictEqual(retried.status, 409)
        assert.deepStrictEqual(retried.body.error, {
          code: "idempotency_in_flight",
          message: "a create with this Idempotency-Key is still in flight"
        })
        assert.isAbove(Number(retried.headers.get("retry-after")), 0)
        assert.strictEqual(memco.creates.length, sent, "no second create was sent")
      })
  )

  it.effect("cancels under an Idempotency-Key as create does; a parcel past pickup is 409 not_cancellable", () =>
    Effect.gen(function* () {
      const memco = yield* InMemory.Memco
      const key = { "idempotency-key": "cancel-1" }
      const cancelled = yield* post("/v1/cancel", { ...memcoCall(), trackingNumber: "MEM000001" }, key)
      assert.deepStrictEqual(
        [cancelled.status, cancelled.body],
        [200, { trackingNumber: "MEM000001", status: "cancelled" }]
      )
      const cancels = memco.cancels.length
      const replayed = yield* post("/v1/cancel", { ...memcoCall(), trackingNumber: "MEM000001" }, key)
      assert.deepStrictEqual([replayed.status, replayed.text], [200, cancelled.text])
      assert.strictEqual(memco.cancels.length, cancels, "the replay reached no courier")

      const late = yield* post("/v1/cancel", { ...memcoCall(), trackingNumber: "SHIPPED1" })
      assert.deepStrictEqual(late.body.error, {
        code: "not_cancellable",
        message: "memco cancel: the parcel was picked up"
      })
      assert.strictEqual(late.status, 409)

      // A cancel the courier may have acted on keeps its key: the retry is a 409 that says when in its message
      // (the cancel's one 409 shape, without Retry-After).
      const lostKey = { "idempotency-key": "cancel-2" }
      assert.strictEqual(
        (yield* post("/v1/cancel", { ...memcoCall("down"), trackingNumber: "MEM2" }, lostKey)).status,
        502
      )
      const retried = yield* post("/v1/cancel", { ...memcoCall("down"), trackingNumber: "MEM2" }, lostKey)
      assert.deepStrictEqual(codeOf(retried), [409, "idempotency_in_flight"])
      assert.match(
        retried.body.error.message,
        /^a cancel with this Idempotency-Key is still in flight; retry in \d+ s$/
      )
      assert.isNull(retried.headers.get("retry-after"))
    })
  )
})

describe("the capacity guard (memory)", () => {
  layer(InMemory.layer({ maxConcurrentCreates: 1 }), { excludeTestServices: true })("one create at a time", (it) => {
    it.effect(
      "turns creates away with 503 overloaded and Retry-After while full, and frees the place when the caller goes",
      () =>
        Effect.gen(function* () {
          const memco = yield* InMemory.Memco
          const first = yield* Effect.forkChild(post("/v1/orders", { ...memcoCall("hang"), order }))
          yield* Deferred.await(memco.hanging)
          const turned = yield* post("/v1/orders", { ...memcoCall(), order })
          assert.strictEqual(turned.status, 503)
          assert.strictEqual(turned.headers.get("retry-after"), "2")
          assert.deepStrictEqual(turned.body.error, {
            code: "overloaded",
            message: "too many parcels are being created right now; retry in 2 s"
          })
          assert.strictEqual((yield* post("/v1/orders", { ...memcoCall(), order })).status, 503, "still held")
          assert.strictEqual(
            (yield* post("/v1/rates", { ...memcoCall(), query: { toWilaya: 16, deliveryType: "home" } })).status,
            200,
            "only creates are guarded"
          )
          // The caller goes away: its create is interrupted and gives its place back.
          yield* Fiber.interrupt(first)
          const next = yield* post("/v1/orders", { ...memcoCall(), order })
          assert.strictEqual(next.status, 200, next.text)
        })
    )
  })
})

describe("the client's window (memory)", () => {
  layer(InMemory.layer({ requestsPerMinute: 3 }), { excludeTestServices: true })("three a minute", (it) => {
    it.effect("answers 429 with Retry-After past the limit on every shipping call; reference data is not limited", () =>
      Effect.gen(function* () {
        for (let i = 0; i < 3; i++) {
          const rates = yield* post("/v1/rates", { courier: "sandbox", query: { toWilaya: 16, deliveryType: "home" } })
          assert.strictEqual(rates.status, 200, rates.text)
        }
        for (const [path, body] of [
          ["/v1/track", { courier: "sandbox", trackingNumber: "SBX000000000000" }],
          ["/v1/orders", { courier: "sandbox", order }],
          ["/v1/rates/compare", { couriers: [{ courier: "sandbox" }], query: { toWilaya: 16, deliveryType: "home" } }]
        ] as const) {
          const limited = yield* post(path, body)
          assert.deepStrictEqual(
            limited.body.error,
            {
              code: "rate_limited",
              message: "more than 3 requests in a minute from this client"
            },
            path
          )
          assert.strictEqual(limited.status, 429)
          const retryAfter = Number(limited.headers.get("retry-after"))
          assert.isAbove(retryAfter, 0)
          assert.isAtMost(retryAfter, 60)
        }
        assert.strictEqual((yield* InMemory.get("/v1/couriers")).status, 200)
        assert.strictEqual((yield* InMemory.get("/v1/wilayas?16")).status, 200)
      })
    )
  })
})
