/**
 * The Zimou operations against the loopback fake, through the SDK's `LoopbackHttp` (the host transport's request
 * rules): what each sends, what Zimou's answers become, and Zimou's own refusals — above all the desk order, which
 * needs its office and the office's commune.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { LoopbackHttp } from "@tawsil/courier/testing"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials, origin } from "../src/Zimou.ts"
import * as Mapping from "../src/ZimouMapping.ts"
import { type RecordedRequest, TOKEN, ZimouFake } from "./fake/ZimouFake.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ token: TOKEN }) }
const revoked = { credentials: Schema.decodeUnknownSync(Credentials)({ token: `${TOKEN}-revoked` }) }

/** An order; a recipient member given as `undefined` is left out. */
const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: Object.fromEntries(
      Object.entries({
        fullName: "Amina Benali",
        phone: "0555123456",
        wilayaCode: 16,
        communeName: "Bab Ezzouar",
        addressLine: "Cité 2000 logements",
        ...recipient
      }).filter(([, value]) => value !== undefined)
    ),
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, track, rates, label } = adapter.operations as Required<typeof adapter.operations>

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(effect: Effect.Effect<A, E, ZimouFake | CourierHttp.CourierHttp>) =>
  Effect.provide(
    effect,
    LoopbackHttp.layer(Effect.map(ZimouFake, (fake) => fake.origin)).pipe(Layer.provideMerge(ZimouFake.layer()))
  )

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

describe("Zimou", () => {
  describe("manifest", () => {
    it("declares the platform, its courier, dzship's credential, its nine operations and no cash table", () => {
      assert.strictEqual(adapter.platform, "zimou")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, aliases, endpoint }) => ({ key, aliases, endpoint })),
        [{ key: "zimou", aliases: ["zimou_express"], endpoint: { origin: "https://zimou.express" } }]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["token"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: false,
        trackBatch: true,
        createBatch: false,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: false
      })
      assert.isUndefined(adapter.codStatuses)
      assert.deepStrictEqual(
        adapter.rateLimits.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
        [[60, 60_000]]
      )
      assert.strictEqual(Catalogue.make([adapter]).resolve("ZIMOU_EXPRESS")?.manifest.key, "zimou")
    })

    it("keeps the token redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ token: "t".repeat(60) })
      assert.strictEqual(Redacted.value(decoded.token), "t".repeat(60))
      assert.notInclude(JSON.stringify(decoded), "tttt")
      for (const bad of [{ token: "short" }, { token: "with a space-inside" }, { token: "x".repeat(513) }, {}]) {
        const result = Schema.decodeUnknownResult(Credentials)(bad)
        assert.isTrue(Result.isFailure(result), JSON.stringify(bad))
        if (Result.isFailure(result) && bad.token !== undefined) assert.notInclude(result.failure.message, bad.token)
      }
    })
  })

  describe("create", () => {
    it.live("sends one POST with the Bearer token; answers Zimou's code and the partner's as courierReference", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^ZM-\d{6}$/)
          assert.strictEqual(created.rawStatus, "1")
          assert.strictEqual(adapter.statuses[created.rawStatus], "created")
          const parcel = fake.parcels.get(created.trackingNumber)
          assert.strictEqual(parcel?.partner, "Yalidine")
          assert.strictEqual(created.courierReference, parcel?.partnerCode ?? "none")
          assert.match(created.courierReference ?? "", /^yal-/)

          assert.deepStrictEqual(paths(fake.requests), ["POST /api/v3/packages"])
          const [request] = fake.requests
          assert.deepStrictEqual(request?.body, Result.getOrThrow(Mapping.toCreatePackage(order())))
          assert.strictEqual(request?.headers.authorization, `Bearer ${TOKEN}`)
          assert.strictEqual(request?.headers.accept, "application/json")
          assert.deepStrictEqual(request?.query, {}, "nothing in the query")
        })
      )
    )

    it.live("sells Flexible for an economic home order", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const created = yield* create(
            order({ tier: "economic" }, { wilayaCode: 31, communeName: "Es Senia" }),
            context
          )
          const parcel = fake.parcels.get(created.trackingNumber)!
          assert.strictEqual(parcel.fields.delivery_type, "Flexible")
          assert.strictEqual(parcel.partner, "Maystro")
          assert.match(created.courierReference ?? "", /^88\d{4}$/)
        })
      )
    )

    it.live("sends a desk order to its office, in the office's commune, as Point relais", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const created = yield* create(
            order(
              { deliveryType: "stopdesk", stopDeskId: "311" },
              { wilayaCode: 31, communeName: "Bir El Djir", addressLine: undefined }
            ),
            context
          )
          const parcel = fake.parcels.get(created.trackingNumber)!
          assert.strictEqual(parcel.fields.delivery_type, "Point relais")
          assert.strictEqual(parcel.fields.office_id, 311)
          assert.strictEqual(parcel.fields.address, "Bir El Djir")
          assert.strictEqual(parcel.partner, "Maystro", "the office's partner carries it")
        })
      )
    )

    it.live("refuses a desk order without its office before sending anything", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const reason = yield* Effect.flip(create(order({ deliveryType: "stopdesk" }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "order.stopDeskId")
          assert.lengthOf(fake.requests, 0)
        })
      )
    )

    it.live("passes on Zimou's refusals in its words: an office in another commune, an unknown commune", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const elsewhere = yield* Effect.flip(create(order({ deliveryType: "stopdesk", stopDeskId: "102" }), context))
          assert.strictEqual(elsewhere._tag, "Refused")
          assert.strictEqual(elsewhere.message, "La commune doit être celle du point relais (Hydra)")
          const unknown = yield* Effect.flip(create(order({}, { communeName: "Oran" }), context))
          assert.strictEqual(unknown.message, "Commune introuvable dans cette wilaya")
          const noAddress = yield* Effect.flip(create(order({}, { addressLine: undefined }), context))
          assert.strictEqual(noAddress.message, "Merci de mettre l'adresse du client")
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live("a parcel Zimou has not routed yet has no courierReference", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          fake.misbehaveNext({ kind: "unrouted" }, "/api/v3/packages")
          const created = yield* create(order(), context)
          assert.isUndefined(created.courierReference)
          assert.isNull(fake.parcels.get(created.trackingNumber)?.partnerCode)
        })
      )
    )
  })

  describe("track", () => {
    it.live("asks for one code and answers its current status at the time it changed", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const { trackingNumber } = yield* create(order(), context)
          assert.deepStrictEqual(yield* track(trackingNumber, context), [
            { rawStatus: "1", timestamp: "2026-04-18T19:45:06+01:00" }
          ])
          fake.setClock("2026-04-20 13:02:33")
          fake.setStatus(trackingNumber, 8)
          assert.deepStrictEqual(yield* track(trackingNumber, context), [
            { rawStatus: "8", timestamp: "2026-04-20T14:02:33+01:00" }
          ])
          const asked = fake.requests.filter(({ path }) => path === "/api/v3/packages/status")
          assert.lengthOf(asked, 2)
          for (const request of asked) {
            assert.strictEqual(request.method, "GET")
            assert.deepStrictEqual(request.query, { "packages[]": trackingNumber })
          }
        })
      )
    )

    it.live("refuses a code Zimou does not know", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(track("ZM-999999", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "trackingNumber")
        })
      )
    )
  })

  describe("rates", () => {
    it.live("prices each service from the account's prices to the wilaya", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const express = yield* rates(query({ toWilaya: 31, deliveryType: "home" }), context)
          assert.strictEqual(express.tier, "express")
          assert.strictEqual(express.deliveryFee, 750)
          assert.strictEqual(express.returnFee, 200)
          assert.strictEqual(express.total, 750)
          assert.lengthOf(express.options, 3)
          const flexible = yield* rates(query({ toWilaya: 31, deliveryType: "home", tier: "economic" }), context)
          assert.strictEqual(flexible.deliveryFee, 600)
          const desk = yield* rates(query({ toWilaya: 31, deliveryType: "stopdesk" }), context)
          assert.strictEqual(desk.deliveryFee, 500)
          assert.isUndefined(desk.tier)
          const none = yield* Effect.flip(
            rates(query({ toWilaya: 11, deliveryType: "home", tier: "economic" }), context)
          )
          assert.strictEqual(none._tag, "Refused")
          assert.include(none.message, "Flexible")
          assert.deepStrictEqual(
            paths(fake.requests),
            Array.from({ length: 4 }, () => "GET /api/v3/my/prices")
          )
        })
      )
    )
  })

  describe("label", () => {
    it.live("answers the PDF for the parcel, and refuses an unknown code", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const { trackingNumber } = yield* create(order(), context)
          const pdf = yield* label(trackingNumber, context)
          assert.strictEqual(pdf.contentType, "application/pdf")
          assert.include(new TextDecoder().decode(pdf.bytes), trackingNumber)
          assert.deepStrictEqual(fake.requests.at(-1)?.body, { packages: [trackingNumber] })
          const unknown = yield* Effect.flip(label("ZM-999999", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.include(unknown.message, "Aucun colis")
        })
      )
    )
  })

  it.live("an unknown token is CredentialsRejected on every operation, quoting Zimou's words, never the token", () =>
    withFake(
      Effect.gen(function* () {
        const reasons = [
          yield* Effect.flip(create(order(), revoked)),
          yield* Effect.flip(track("ZM-000001", revoked)),
          yield* Effect.flip(rates(query({ toWilaya: 16, deliveryType: "home" }), revoked)),
          yield* Effect.flip(label("ZM-000001", revoked))
        ]
        for (const reason of reasons) {
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Unauthenticated.")
          assert.notInclude(JSON.stringify(reason), TOKEN)
        }
      })
    )
  )
})
