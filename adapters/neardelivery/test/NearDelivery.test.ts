import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { type Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials, origin } from "../src/NearDelivery.ts"
import * as Mapping from "../src/NearDeliveryMapping.ts"
import {
  API_KEY,
  API_SECRET,
  BURALISTS,
  fee,
  type Misbehaviour,
  NearDeliveryFake,
  type Parcel,
  WILAYAS
} from "./fake/NearDeliveryFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: API_KEY, apiSecret: API_SECRET }) }

/** A relay-point order; a member given as `undefined` is left out. */
const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)(
    Object.fromEntries(
      Object.entries({
        reference: "CMD-7",
        recipient: {
          fullName: "Amina Benali",
          phone: "0555123456",
          wilayaCode: 16,
          communeName: "Bab Ezzouar",
          ...recipient
        },
        deliveryType: "stopdesk",
        stopDeskId: "101",
        productList: "2x robe",
        codAmount: 4500,
        ...overrides
      }).filter(([, value]) => value !== undefined)
    )
  )

const wilaya = Schema.decodeUnknownSync(WilayaCode.WilayaCode)

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, track, rates, stopDesks, communes, checkCredentials } = adapter.operations as Required<
  Pick<typeof adapter.operations, "create" | "track" | "rates" | "stopDesks" | "communes" | "checkCredentials">
>

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, NearDeliveryFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(NearDeliveryFake.layer())))

const paths = (requests: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  requests.map(({ method, path }) => `${method} ${path}`)

describe("NearDelivery", () => {
  describe("manifest", () => {
    it("declares the platform, its courier under dzship's key and courier-dz's id, two credentials, no label", () => {
      assert.strictEqual(adapter.platform, "neardelivery")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, name, aliases, endpoint }) => ({ key, name, aliases, endpoint })),
        [
          {
            key: "neardelivery",
            name: "Near Delivery",
            aliases: ["near_delivery"],
            endpoint: { origin: "https://api.neardelivery.app" }
          }
        ]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiKey", "apiSecret"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: false,
        cancel: false,
        dispatch: false,
        trackBatch: false,
        createBatch: false,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: false
      })
      assert.strictEqual(Catalogue.make([adapter]).resolve("NEAR_DELIVERY")?.manifest.key, "neardelivery")
    })

    it("keeps both credentials redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ apiKey: "k".repeat(40), apiSecret: "s".repeat(40) })
      assert.strictEqual(Redacted.value(decoded.apiKey), "k".repeat(40))
      assert.notInclude(JSON.stringify(decoded), "kkkk")
      assert.notInclude(JSON.stringify(decoded), "ssss")
      for (const bad of [
        { apiKey: "short", apiSecret: API_SECRET },
        { apiKey: "with a space inside", apiSecret: API_SECRET },
        { apiKey: API_KEY, apiSecret: "line\nbreak-secret" },
        { apiKey: API_KEY, apiSecret: "s".repeat(513) },
        { apiKey: API_KEY }
      ]) {
        const result = Schema.decodeUnknownResult(Credentials)(bad)
        assert.isTrue(Result.isFailure(result), JSON.stringify(bad))
        if (Result.isFailure(result)) {
          for (const value of Object.values(bad)) {
            if (value !== API_KEY && value !== API_SECRET) assert.notInclude(result.failure.message, value)
          }
        }
      }
    })
  })

  describe("create", () => {
    it.live("sends one parcel to its buralist with the ApiKey and ApiSecret headers", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^NRD\d{8}$/)
          assert.strictEqual(created.rawStatus, "0")
          assert.strictEqual(adapter.statuses[created.rawStatus], "pending_pickup")
          assert.strictEqual(created.courierReference, "5001")
          const [request] = fake.requests
          assert.deepStrictEqual(paths(fake.requests), ["POST /api/v1/sender/parcels"])
          assert.strictEqual(request?.headers.apikey, API_KEY)
          assert.strictEqual(request?.headers.apisecret, API_SECRET)
          assert.isUndefined(request?.headers.authorization, "no Bearer: the key travels in its own headers")
          assert.notInclude(request?.path ?? "", API_KEY)
          assert.deepStrictEqual(request?.body, Result.getOrThrow(Mapping.toCreateParcels(order())))
          const parcel = fake.parcels.get(created.trackingNumber) as Parcel
          assert.strictEqual(parcel.fields.buralist_id, 101)
          assert.strictEqual(parcel.fields.pickup_location_type, 1)
        })
      )
    )

    it.live("refuses a home delivery before any request, naming the relay-point rule", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          const reason = yield* Effect.flip(create(order({ deliveryType: "home", stopDeskId: undefined }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "relay point")
          assert.include(reason.message, 'send deliveryType "stopdesk" with stopDeskId')
          assert.strictEqual(fake.requests.length, 0, "nothing was sent to the courier")
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live.each<readonly [string, Record<string, unknown>, Record<string, unknown>, string]>([
      ["a wilaya it does not serve", {}, { wilayaCode: 33, communeName: "Illizi" }, "Wilaya 33 is not served"],
      ["a commune not in the wilaya", {}, { communeName: "Oran" }, "Commune Oran is not in wilaya Alger"],
      ["a buralist it does not know", { stopDeskId: "999" }, {}, "Buralist 999 not found"],
      ["a buralist in another wilaya", { stopDeskId: "311" }, {}, "Buralist 311 is not in wilaya Alger"],
      ["a phone it does not take", {}, { phone: "0212345678" }, "order.recipient.phone: Invalid Algerian mobile"]
    ])("passes on the courier's refusal of %s; nothing is created", ([, overrides, recipient, says]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          const reason = yield* Effect.flip(create(order(overrides, recipient), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, says)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live("takes a commune whatever its letter case or accents", () =>
      withFake(
        Effect.gen(function* () {
          const created = yield* create(order({ stopDeskId: "191" }, { wilayaCode: 19, communeName: "SETIF" }), context)
          assert.match(created.trackingNumber, /^NRD/)
        })
      )
    )
  })

  describe("track", () => {
    it.live("reads the parcel's history, UTC times in Algiers", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          yield* create(order({ reference: "CMD-8" }), context)
          fake.setClock("2026-04-19T08:12:40Z")
          fake.addStatus(trackingNumber, "2")
          fake.setClock("2026-04-20T09:00:00Z")
          fake.addStatus(trackingNumber, "6")
          fake.addStatus(trackingNumber, "7")
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [
            { rawStatus: "0", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "2", timestamp: "2026-04-19T09:12:40+01:00" },
            { rawStatus: "6", timestamp: "2026-04-20T10:00:00+01:00" },
            { rawStatus: "7", timestamp: "2026-04-20T10:01:00+01:00" }
          ])
          const request = fake.requests.at(-1)!
          assert.strictEqual(`${request.method} ${request.path}`, `GET /api/v1/sender/parcels/${trackingNumber}`)
          assert.strictEqual(request.headers.apikey, API_KEY)
        })
      )
    )

    it.live("refuses a tracking number Near Delivery does not know", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(track("NRD99999999", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "Parcel not found")
        })
      )
    )
  })

  describe("rates", () => {
    it.live.each<readonly [string, number, number]>([
      ["from Algiers to Oran", 16, 31],
      ["within Constantine", 25, 25]
    ])("prices a relay point %s from the fee grid", ([, from, to]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          const result = yield* rates(query({ toWilaya: to, deliveryType: "stopdesk", codAmount: 9000 }), {
            ...context,
            fromWilaya: wilaya(from)
          })
          const [delivery, back] = fee(from, to)
          assert.deepStrictEqual(
            [result.deliveryType, result.tier, result.deliveryFee, result.returnFee, result.codFee, result.total],
            ["stopdesk", "economic", delivery, back, 0, delivery]
          )
          const [request] = fake.requests
          assert.strictEqual(`${request?.method} ${request?.path}`, "GET /api/v1/sender/delivery-fees")
          assert.deepStrictEqual(request?.query, { wilaya: String(to), page: "1", size: "150" })
        })
      )
    )

    it.live("the query's origin wins over the caller's options; none where several ship from is refused", () =>
      withFake(
        Effect.gen(function* () {
          const result = yield* rates(query({ fromWilaya: 25, toWilaya: 31, deliveryType: "stopdesk" }), {
            ...context,
            fromWilaya: wilaya(16)
          })
          assert.strictEqual<number>(result.deliveryFee, fee(25, 31)[0])
          const reason = yield* Effect.flip(rates(query({ toWilaya: 31, deliveryType: "stopdesk" }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "options.fromWilaya")
        })
      )
    )

    it.live("refuses a home-delivery quote and the express tier before any request", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          for (const asked of [
            { toWilaya: 31, deliveryType: "home" },
            { toWilaya: 31, deliveryType: "stopdesk", tier: "express" }
          ]) {
            assert.strictEqual((yield* Effect.flip(rates(query(asked), context)))._tag, "Refused")
          }
          assert.strictEqual(fake.requests.length, 0)
        })
      )
    )
  })

  describe("reference lists", () => {
    it.live("stopDesks lists a wilaya's buralists with their communes, from the buralists and the wilayas", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          const desks = yield* stopDesks(wilaya(16), context)
          assert.deepStrictEqual(desks, [
            {
              id: "101",
              name: "buraliste-101",
              wilayaCode: wilaya(16),
              communeName: "Bab Ezzouar",
              address: "Bureau de tabac, Bab Ezzouar",
              phone: "0555000101"
            },
            {
              id: "102",
              name: "buraliste-102",
              wilayaCode: wilaya(16),
              communeName: "Hydra",
              address: "Bureau de tabac, Hydra",
              phone: "0555000102"
            }
          ])
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v1/sender/buralists", "GET /api/v1/sender/wilayas"])
          for (const request of fake.requests) {
            assert.strictEqual(request.headers.apikey, API_KEY)
            assert.strictEqual(request.headers.apisecret, API_SECRET)
          }
        })
      )
    )

    it.live("a listed desk is one a create takes as stopDeskId", () =>
      withFake(
        Effect.gen(function* () {
          for (const [code, , names] of WILAYAS) {
            const desks = yield* stopDesks(wilaya(code), context)
            assert.deepStrictEqual(
              desks.map((desk) => desk.id),
              BURALISTS.filter(([, at]) => at === code).map(([id]) => String(id))
            )
            for (const desk of desks) {
              const created = yield* create(
                order({ stopDeskId: desk.id }, { wilayaCode: code, communeName: names[0] }),
                context
              )
              assert.match(created.trackingNumber, /^NRD/)
            }
          }
        })
      )
    )

    it.live("a wilaya without buralists has no desks, asked in one call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          assert.deepStrictEqual(yield* stopDesks(wilaya(33), context), [])
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v1/sender/buralists"])
        })
      )
    )

    it.live("communes lists the wilaya's communes in Near Delivery's spelling, by relay point only", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          assert.deepStrictEqual(yield* communes(wilaya(19), context), [
            { name: "Sétif", id: "1901", home: false, stopdesk: true },
            { name: "El Eulma", id: "1902", home: false, stopdesk: true }
          ])
          assert.deepStrictEqual(yield* communes(wilaya(33), context), [])
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v1/sender/wilayas", "GET /api/v1/sender/wilayas"])
        })
      )
    )

    it.live("checkCredentials reads the centres and creates nothing; refused credentials are rejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NearDeliveryFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v1/sender/centers"])
          assert.strictEqual(fake.parcels.size, 0)
          const reason = yield* Effect.flip(
            checkCredentials(undefined, {
              credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: `${API_KEY}-old`, apiSecret: API_SECRET })
            })
          )
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Invalid API credentials")
        })
      )
    )
  })

  describe("errors", () => {
    const cases: ReadonlyArray<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"], number?]> = [
      ["no answer", { kind: "hang" }, "Unreachable"],
      ["a dropped connection", { kind: "reset" }, "Unreachable"],
      ["HTTP 503", { kind: "status", status: 503 }, "Unreachable"],
      ["a redirect", { kind: "status", status: 301 }, "BadResponse"],
      ["an HTML page on HTTP 200", { kind: "html" }, "BadResponse"],
      ["JSON of an undocumented shape", { kind: "json", status: 200, body: [1, 2] }, "BadResponse"],
      ["429 with Retry-After", { kind: "rateLimited", retryAfter: "17" }, "CourierRateLimited", 17],
      ["429 without Retry-After", { kind: "rateLimited" }, "CourierRateLimited", 60],
      ["status:false on HTTP 200", { kind: "refuse", message: "Service suspendu" }, "Refused"]
    ]
    const operations: Record<
      string,
      (caller?: typeof context) => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>
    > = {
      create: (caller = context) => create(order(), caller),
      track: (caller = context) => track("NRD00000001", caller),
      rates: (caller = context) => rates(query({ fromWilaya: 16, toWilaya: 31, deliveryType: "stopdesk" }), caller),
      stopDesks: (caller = context) => stopDesks(wilaya(16), caller),
      communes: (caller = context) => communes(wilaya(16), caller),
      checkCredentials: (caller = context) => checkCredentials(undefined, caller)
    }
    for (const [operation, run] of Object.entries(operations)) {
      it.live.each(cases)(`${operation}: %s → %s`, ([, misbehaviour, tag, retryAfterSeconds]) =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* NearDeliveryFake
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, tag, reason.message)
            if (retryAfterSeconds !== undefined && reason._tag === "CourierRateLimited") {
              assert.strictEqual(reason.retryAfterSeconds, retryAfterSeconds)
            }
            assert.notInclude(JSON.stringify(reason), API_KEY)
            assert.notInclude(JSON.stringify(reason), API_SECRET)
          }),
          { timeout: "300 millis" }
        )
      )

      it.live(`${operation}: an unknown key, or a secret that is not the key's → CredentialsRejected`, () =>
        withFake(
          Effect.gen(function* () {
            for (const caller of [
              { apiKey: `${API_KEY}-revoked`, apiSecret: API_SECRET },
              { apiKey: API_KEY, apiSecret: `${API_SECRET}-other` }
            ]) {
              const reason = yield* Effect.flip(run({ credentials: Schema.decodeUnknownSync(Credentials)(caller) }))
              assert.strictEqual(reason._tag, "CredentialsRejected")
              assert.include(reason.message, "Invalid API credentials")
              assert.notInclude(JSON.stringify(reason), caller.apiKey)
              assert.notInclude(JSON.stringify(reason), caller.apiSecret)
            }
          })
        )
      )
    }
  })

  describe("the fake", () => {
    /** A raw request to the fake, around the adapter: what Near Delivery does with a wrong one. */
    const raw = (request: CourierHttp.CourierRequest) =>
      Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))
    const auth = { ApiKey: API_KEY, ApiSecret: API_SECRET }

    it.live("refuses what Near Delivery refuses: no headers, a home delivery, missing fields, a wrong method", () =>
      withFake(
        Effect.gen(function* () {
          const body = Result.getOrThrow(Mapping.toCreateParcels(order()))
          const anonymous = yield* raw({ method: "POST", path: "/api/v1/sender/parcels", json: body })
          assert.strictEqual(anonymous.status, 403)
          const bearer = yield* raw({
            method: "GET",
            path: "/api/v1/sender/wilayas",
            headers: { authorization: `Bearer ${API_KEY}` }
          })
          assert.strictEqual(bearer.status, 403, "a Bearer token is not how this API authenticates")
          const home = yield* raw({
            method: "POST",
            path: "/api/v1/sender/parcels",
            headers: auth,
            json: { parcels: [{ ...body.parcels[0], pickup_location_type: 2 }] }
          })
          assert.strictEqual(home.status, 400)
          assert.include(home.text, "every parcel is delivered to a buralist")
          const { recipient_name: _, items: __, ...partial } = body.parcels[0]!
          const missing = yield* raw({
            method: "POST",
            path: "/api/v1/sender/parcels",
            headers: auth,
            json: { parcels: [partial] }
          })
          assert.strictEqual(missing.status, 422)
          assert.include(missing.text, "recipient_name")
          assert.include(missing.text, "items")
          const wrongMethod = yield* raw({ method: "GET", path: "/api/v1/sender/parcels", headers: auth })
          assert.strictEqual(wrongMethod.status, 405)
          const tooLarge = yield* raw({
            method: "GET",
            path: "/api/v1/sender/delivery-fees",
            headers: auth,
            query: { size: "151" }
          })
          assert.strictEqual(tooLarge.status, 422)
        })
      )
    )

    it.live("serves the reference lists: wilayas with communes, buralists, centres", () =>
      withFake(
        Effect.gen(function* () {
          for (const path of ["wilayas", "buralists", "centers"]) {
            const answer = yield* raw({ method: "GET", path: `/api/v1/sender/${path}`, headers: auth })
            assert.strictEqual(answer.status, 200, path)
            const listed = JSON.parse(answer.text) as { status: boolean; data: ReadonlyArray<unknown> }
            assert.isTrue(listed.status)
            assert.isNotEmpty(listed.data)
          }
        })
      )
    )
  })
})
