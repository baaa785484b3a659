import { assert, describe, it } from "@effect/vitest"
import { type CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { LoopbackHttp } from "@tawsil/courier/testing"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials, origin } from "../src/Colivraison.ts"
import * as Mapping from "../src/ColivraisonMapping.ts"
import { ColivraisonFake, PUBLIC_KEY, type RecordedRequest, TOKEN, tariff, UNSERVED } from "./fake/ColivraisonFake.ts"

const credentials = { publicKey: PUBLIC_KEY, token: TOKEN }
const context = { credentials: Schema.decodeUnknownSync(Credentials)(credentials) }

/** An order; a recipient member given as `undefined` is left out. */
const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: Object.fromEntries(
      Object.entries({
        fullName: "Amina Benali",
        phone: "+213 555 12 34 56",
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

const { create, track, rates, label, trackBatch, checkCredentials } = adapter.operations as Required<
  typeof adapter.operations
>

/** Runs `effect` against a fresh fake on a random port, through the SDK's loopback `CourierHttp`. */
const withFake = <A, E>(effect: Effect.Effect<A, E, ColivraisonFake | CourierHttp.CourierHttp>) =>
  Effect.provide(
    effect,
    LoopbackHttp.layer(Effect.map(ColivraisonFake, (fake) => fake.origin)).pipe(
      Layer.provideMerge(ColivraisonFake.layer())
    )
  )

/** Both credentials in their headers, on every call; nothing of them anywhere else in the request. */
const assertAuthenticated = (request: RecordedRequest) => {
  assert.strictEqual(request.headers.authorization, `Bearer ${TOKEN}`, request.path)
  assert.strictEqual(request.headers["coliv-public-key"], PUBLIC_KEY, request.path)
  assert.deepStrictEqual(request.query, {}, request.path)
  for (const secret of [TOKEN, PUBLIC_KEY]) assert.notInclude(request.text, secret, request.path)
}

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

const assertNoSecret = (reason: CourierError.CourierErrorReason) => {
  for (const secret of [TOKEN, PUBLIC_KEY]) assert.notInclude(JSON.stringify(reason), secret)
}

describe("Colivraison", () => {
  describe("manifest", () => {
    it("declares the platform, its courier, the dzship credential names, every capability and a rate limit", () => {
      assert.strictEqual(adapter.platform, "colivraison")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, aliases, endpoint }) => ({ key, aliases, endpoint })),
        [
          {
            key: "colivraison",
            aliases: ["colivraison_express"],
            endpoint: { origin: "https://api.colivraison.express" }
          }
        ]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["publicKey", "token"])
      // Only what the plugin evidences: no cancel, desk or commune endpoint is shown (README).
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: false,
        dispatch: false,
        trackBatch: true,
        createBatch: false,
        stopDesks: false,
        communes: false,
        checkCredentials: true,
        push: false
      })
      assert.isUndefined(adapter.codStatuses)
      assert.deepStrictEqual(
        adapter.rateLimits?.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
        [[60, 60_000]]
      )
      assert.strictEqual(Catalogue.make([adapter]).resolve("Colivraison_Express")?.manifest.key, "colivraison")
    })

    it("keeps both credentials redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ publicKey: "p".repeat(40), token: "t".repeat(1200) })
      assert.strictEqual(Redacted.value(decoded.publicKey), "p".repeat(40))
      assert.strictEqual(Redacted.value(decoded.token), "t".repeat(1200))
      assert.notInclude(JSON.stringify(decoded), "pppp")
      assert.notInclude(JSON.stringify(decoded), "tttt")
      for (const bad of [
        { publicKey: "short", token: TOKEN },
        { publicKey: PUBLIC_KEY, token: "with a space-inside" },
        { publicKey: `${PUBLIC_KEY}\n`, token: TOKEN },
        { publicKey: "k".repeat(513), token: TOKEN },
        { publicKey: PUBLIC_KEY, token: "t".repeat(2001) },
        { publicKey: PUBLIC_KEY }
      ]) {
        const result = Schema.decodeUnknownResult(Credentials)(bad)
        assert.isTrue(Result.isFailure(result), JSON.stringify(bad).slice(0, 80))
        if (Result.isFailure(result)) {
          for (const value of Object.values(bad)) {
            if (value !== TOKEN && value !== PUBLIC_KEY) assert.notInclude(result.failure.message, value)
          }
        }
      }
    })
  })

  describe("create", () => {
    it.live("sends one order to orders/bulk, both credentials in headers; the parcel is PLACED", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^CLX\d{8}$/)
          assert.strictEqual(created.rawStatus, "PLACED")
          assert.strictEqual(adapter.statuses[created.rawStatus], "created")

          assert.deepStrictEqual(paths(fake.requests), ["POST /v2/orders/bulk"])
          const [request] = fake.requests
          assert.deepStrictEqual(request?.body, { orders: [Mapping.toOrder(order())] })
          assert.strictEqual(request?.headers.accept, "application/json")
          assertAuthenticated(request!)

          const parcel = fake.parcels.get(created.trackingNumber)
          assert.strictEqual(parcel?.fields.phone_st, "0555123456")
          assert.strictEqual(parcel?.fields.wilaya_name, "Alger")
          assert.strictEqual(parcel?.fields.order_ref, "CMD-7")
        })
      )
    )

    it.live("a desk parcel goes with stopdesk_status and the commune as its address", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const created = yield* create(
            order(
              { deliveryType: "stopdesk", stopDeskId: "19A" },
              { wilayaCode: 19, communeName: "El Eulma", addressLine: undefined }
            ),
            context
          )
          const fields = fake.parcels.get(created.trackingNumber)!.fields
          assert.strictEqual(fields.stopdesk_status, true)
          assert.strictEqual(fields.order_adress, "El Eulma")
          assert.strictEqual(fields.wilaya_name, "Sétif")
          assert.notInclude(JSON.stringify(fields), "19A", "Colivraison has no desk-id field")
        })
      )
    )

    it.live.each<readonly [name: string, refused: Shipment.ParcelOrder, words: string]>([
      ["a wilaya it does not serve", order({}, { wilayaCode: UNSERVED[0] }), "n'est pas desservie"],
      ["a commune it does not know", order({}, { communeName: "Atlantis" }), "Commune introuvable : Atlantis"],
      ["a phone that is no mobile", order({}, { phone: "021 23 45 67" }), "021 23 45 67 est invalide"]
    ])("passes on the courier's refusal of %s, inside its HTTP 200; nothing is made", ([, refused, words]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const reason = yield* Effect.flip(create(refused, context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, words)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )
  })

  describe("track", () => {
    it.live("reads the asked parcel's history from trackinghistory/bulk, stamped in Algiers time", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const { trackingNumber } = yield* create(order(), context)
          fake.setClock("2026-04-19", "09:12:40")
          fake.addStatus(trackingNumber, "PENDING_RECEPTION")
          fake.setClock("2026-04-20", "08:05:12")
          fake.addStatus(trackingNumber, "OUT_FOR_DELIVERY")
          yield* create(order({ reference: "CMD-8" }), context)

          const events = yield* track(trackingNumber, context)
          // The fake sends the newest first; the adapter passes them on as sent and the core orders them.
          assert.deepStrictEqual(events, [
            { rawStatus: "OUT_FOR_DELIVERY", timestamp: "2026-04-20T08:05:12+01:00" },
            { rawStatus: "PENDING_RECEPTION", timestamp: "2026-04-19T09:12:40+01:00" },
            { rawStatus: "PLACED", timestamp: "2026-04-18T19:45:06+01:00" }
          ])
          const request = fake.requests.find(({ path }) => path === "/v2/trackinghistory/bulk")
          assert.deepStrictEqual(request?.body, { tracking_numbers: [trackingNumber] })
          assertAuthenticated(request!)
        })
      )
    )

    it.live("refuses a number the courier does not know", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(track("CLX99999999", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "trackingNumber")
        })
      )
    )
  })

  describe("trackBatch", () => {
    it.live("asks trackinghistory/bulk once for every number; an unknown one is left out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const first = yield* create(order(), context)
          const second = yield* create(order({ reference: "CMD-8" }), context)
          fake.setClock("2026-04-20", "08:05:12")
          fake.addStatus(second.trackingNumber, "PENDING_RECEPTION")
          const before = fake.requests.length

          const batch = yield* trackBatch([first.trackingNumber, "CLX99999999", second.trackingNumber], context)
          assert.deepStrictEqual(
            [...batch],
            [
              [first.trackingNumber, [{ rawStatus: "PLACED", timestamp: "2026-04-18T19:45:06+01:00" }]],
              [
                second.trackingNumber,
                [
                  { rawStatus: "PENDING_RECEPTION", timestamp: "2026-04-20T08:05:12+01:00" },
                  { rawStatus: "PLACED", timestamp: "2026-04-18T19:45:06+01:00" }
                ]
              ]
            ]
          )
          const sent = fake.requests.slice(before)
          assert.deepStrictEqual(paths(sent), ["POST /v2/trackinghistory/bulk"])
          assert.deepStrictEqual(sent[0]?.body, {
            tracking_numbers: [first.trackingNumber, "CLX99999999", second.trackingNumber]
          })
          assertAuthenticated(sent[0]!)
        })
      )
    )

    it.live("answers an empty map when none is known (PHP's []), and refuses 101 numbers before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          assert.strictEqual((yield* trackBatch(["CLX99999998", "CLX99999999"], context)).size, 0)
          assert.strictEqual((yield* trackBatch([], context)).size, 0)
          const many = Array.from({ length: 101 }, (_, i) => `CLX${String(i).padStart(8, "0")}`)
          const reason = yield* Effect.flip(trackBatch(many, context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "at most 100")
          assert.lengthOf(fake.requests, 1)
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("reads getpricing with both headers, and creates nothing", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(paths(fake.requests), ["GET /v2/getpricing"])
          assertAuthenticated(fake.requests[0]!)
        })
      )
    )
  })

  describe("rates", () => {
    it.live("prices home delivery from getpricing", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const quoted = yield* rates(query({ fromWilaya: 16, toWilaya: 31, deliveryType: "home" }), context)
          assert.strictEqual(quoted.deliveryFee, tariff(31))
          assert.strictEqual(quoted.total, tariff(31))
          assert.strictEqual(quoted.codFee, 0)
          assert.deepStrictEqual(paths(fake.requests), ["GET /v2/getpricing"])
          assertAuthenticated(fake.requests[0]!)
        })
      )
    )

    it.live("refuses a wilaya missing from the list; refuses a desk before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const missing = yield* Effect.flip(rates(query({ toWilaya: UNSERVED[1], deliveryType: "home" }), context))
          assert.strictEqual(missing._tag, "Refused")
          assert.include(missing.message, `wilaya ${UNSERVED[1]}`)
          const desk = yield* Effect.flip(rates(query({ toWilaya: 16, deliveryType: "stopdesk" }), context))
          assert.strictEqual(desk._tag, "Refused")
          assert.deepStrictEqual(paths(fake.requests), ["GET /v2/getpricing"], "the desk asked nothing")
        })
      )
    )
  })

  describe("label", () => {
    it.live("answers the PDF of generate-download-pdfx1", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ColivraisonFake
          const { trackingNumber } = yield* create(order(), context)
          const printed = yield* label(trackingNumber, context)
          assert.strictEqual(printed.contentType, "application/pdf")
          assert.include(new TextDecoder().decode(printed.bytes), trackingNumber)
          const request = fake.requests.at(-1)!
          assert.strictEqual(request.path, "/v2/generate-download-pdfx1")
          assert.deepStrictEqual(request.body, { order_ids: [trackingNumber] })
          assert.strictEqual(request.headers.accept, "application/pdf, application/json")
          assertAuthenticated(request)
        })
      )
    )

    it.live("refuses an order the courier does not know, in its words", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(label("CLX99999999", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "Commande introuvable")
        })
      )
    )
  })

  describe("credentials the courier refuses", () => {
    it.live.each<readonly [name: string, given: typeof credentials, status: string]>([
      ["an unknown token", { publicKey: PUBLIC_KEY, token: "unknown-token-0000" }, "HTTP 401"],
      ["a public key of another account", { publicKey: "coliv-public-other", token: TOKEN }, "HTTP 403"]
    ])("%s: CredentialsRejected on every operation, quoting neither secret", ([, given, status]) =>
      withFake(
        Effect.gen(function* () {
          const refused = { credentials: Schema.decodeUnknownSync(Credentials)(given) }
          const reasons = yield* Effect.all([
            Effect.flip(create(order(), refused)),
            Effect.flip(track("CLX00000001", refused)),
            Effect.flip(rates(query({ toWilaya: 16, deliveryType: "home" }), refused)),
            Effect.flip(label("CLX00000001", refused)),
            Effect.flip(trackBatch(["CLX00000001", "CLX00000002"], refused)),
            Effect.flip(checkCredentials(undefined, refused))
          ])
          for (const reason of reasons) {
            assert.strictEqual(reason._tag, "CredentialsRejected")
            assert.include(reason.message, status)
            assertNoSecret(reason)
          }
        })
      )
    )
  })
})
