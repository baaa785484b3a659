import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as CityCache from "../src/internal/CityCache.ts"
import { adapter, Credentials, make, origin } from "../src/Mdm.ts"
import * as Mapping from "../src/MdmMapping.ts"
import { CITIES, KEY, MdmFake, type Misbehaviour, OFFICES, type RecordedRequest } from "./fake/MdmFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const OTHER_KEY = "fake-mdm-other-key-91d04e"
const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: KEY }) }
const other = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: OTHER_KEY }) }

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

/** Each test gets a fresh adapter, so that no test sees another's cached cities. */
const operations = (options: Parameters<typeof make>[0] = {}) =>
  make(options).operations as Required<
    Pick<typeof adapter.operations, "create" | "track" | "label" | "stopDesks" | "communes" | "checkCredentials">
  >

/** Runs `effect` against a fresh fake (taking {@link KEY} and {@link OTHER_KEY}) through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, MdmFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(MdmFake.layer({ keys: [KEY, OTHER_KEY] }))))

const wilaya = Schema.decodeUnknownSync(WilayaCode.WilayaCode)

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

/** The key went in `x-api-key` and nowhere else: no query, no other header, no body. */
const assertKeyInHeaderOnly = (request: RecordedRequest, key = KEY) => {
  assert.strictEqual(request.headers["x-api-key"], key, request.path)
  assert.strictEqual(request.headers.accept, "application/json", request.path)
  assert.isUndefined(request.headers.authorization, request.path)
  assert.notInclude(JSON.stringify(request.query), key, request.path)
  assert.notInclude(request.text, key, request.path)
}

describe("Mdm", () => {
  describe("manifest", () => {
    it("declares the platform, its courier, the apiKey credential, and no rates", () => {
      assert.strictEqual(adapter.platform, "mdm")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, aliases, endpoint }) => ({ key, aliases, endpoint })),
        [{ key: "mdm", aliases: [], endpoint: { origin: "https://api.mdm.express" } }]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiKey"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: false,
        label: true,
        cancel: false,
        dispatch: false,
        trackBatch: false,
        createBatch: false,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: false
      })
      assert.deepStrictEqual(
        adapter.rateLimits.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
        [[60, 60_000]]
      )
      const catalogue = Catalogue.make([adapter])
      assert.strictEqual(catalogue.resolve("MDM")?.manifest.key, "mdm")
      assert.isFalse(catalogue.resolve("mdm")?.entry.requiresBaseUrl)
    })

    it("keeps the key redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ apiKey: "k".repeat(40) })
      assert.strictEqual(Redacted.value(decoded.apiKey), "k".repeat(40))
      assert.notInclude(JSON.stringify(decoded), "kkkk")
      assert.notInclude(String(decoded.apiKey), "kkkk")
      for (const apiKey of [
        "short",
        "with a space-inside",
        "line\nbreak-0123456789",
        "x".repeat(513),
        "clé-0123456789"
      ]) {
        const result = Schema.decodeUnknownResult(Credentials)({ apiKey })
        assert.isTrue(Result.isFailure(result), JSON.stringify(apiKey))
        if (Result.isFailure(result)) assert.notInclude(result.failure.message, apiKey)
      }
    })
  })

  describe("create", () => {
    it.live("looks the city id up, then creates with it: two calls, each with the key in x-api-key", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const created = yield* operations().create(order(), context)
          assert.deepStrictEqual(created, { trackingNumber: "ORD-000001", rawStatus: "confirmed" })
          assert.strictEqual(adapter.statuses[created.rawStatus], "pending_pickup")

          assert.deepStrictEqual(paths(fake.requests), ["GET /api/geo/cities", "POST /api/v2/orders"])
          const [lookup, createCall] = fake.requests
          assert.deepStrictEqual(lookup?.query, { "countryId[]": "DZA", "stateId[]": "DZA16", perPage: "2000" })
          assert.deepStrictEqual(createCall?.body, Mapping.toCreateOrder(order(), "DZA161628"))
          assert.strictEqual(createCall?.headers["content-type"], "application/json")
          for (const request of fake.requests) assertKeyInHeaderOnly(request)

          const stored = fake.orders.get(created.trackingNumber)
          assert.deepStrictEqual(stored?.body.destination, {
            cityId: "DZA161628",
            streetAddress: "Cité 2000 logements"
          })
          assert.strictEqual(stored?.parcel, "PCL-000001", "a confirmed order has its parcel at once")
        })
      )
    )

    it.live("sends a stop desk with its office id", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const stopdesk = order(
            { deliveryType: "stopdesk", stopDeskId: "OFC-ORN-01" },
            { wilayaCode: 31, communeName: "bir el djir", addressLine: undefined }
          )
          const created = yield* operations().create(stopdesk, context)
          const stored = fake.orders.get(created.trackingNumber)!
          assert.strictEqual(stored.body.isStopDesk, true)
          assert.strictEqual(stored.body.stopDeskId, "OFC-ORN-01")
          assert.deepStrictEqual(stored.body.destination, { cityId: "DZA313103", streetAddress: "bir el djir" })
        })
      )
    )

    it.effect("keeps a wilaya's cities per account for a day, keyed by a digest of the key, never the key", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const cache = CityCache.make({ ttl: "24 hours", capacity: 100 })
          const { create } = operations({ cache })
          const lookups = () => fake.requests.filter((request) => request.path === "/api/geo/cities")
          yield* create(order(), context)
          yield* create(order({}, { communeName: "Hydra" }), context)
          assert.strictEqual(lookups().length, 1, "the second create in Algiers reused the list")
          yield* create(order({}, { wilayaCode: 31, communeName: "Oran" }), context)
          assert.strictEqual(lookups().length, 2, "another wilaya has its own list")
          yield* create(order(), other)
          assert.strictEqual(lookups().length, 3, "another account has its own list")
          assert.strictEqual(lookups()[2]?.headers["x-api-key"], OTHER_KEY)

          assert.strictEqual(cache.keys().length, 3)
          for (const entry of cache.keys()) {
            assert.match(entry, /^[0-9a-f]{64}:\d+$/)
            assert.notInclude(entry, KEY)
            assert.notInclude(entry, OTHER_KEY)
          }
          assert.include(cache.keys(), `${CityCache.digest(context.credentials.apiKey)}:16`)

          yield* TestClock.adjust("23 hours")
          yield* create(order({}, { communeName: "Alger Centre" }), context)
          assert.strictEqual(lookups().length, 3, "still fresh after 23 hours")
          yield* TestClock.adjust("2 hours")
          yield* create(order(), context)
          assert.strictEqual(lookups().length, 4, "looked up again once a day has passed")
        })
      )
    )

    it.live("keeps no failed lookup: a lookup that failed is asked again next time", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { create } = operations()
          fake.misbehaveNext({ kind: "status", status: 503 }, "/api/geo/cities")
          assert.strictEqual((yield* Effect.flip(create(order(), context)))._tag, "Unreachable")
          yield* create(order(), context)
          assert.deepStrictEqual(paths(fake.requests), [
            "GET /api/geo/cities",
            "GET /api/geo/cities",
            "POST /api/v2/orders"
          ])
        })
      )
    )

    it.live("refuses a commune MDM does not list in the wilaya, naming it, without creating anything", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          for (const [wilayaCode, communeName] of [
            [16, "Bab Ezzouar Nord"],
            [33, "Illizi"]
          ] as const) {
            const reason = yield* Effect.flip(operations().create(order({}, { wilayaCode, communeName }), context))
            assert.strictEqual(reason._tag, "Refused")
            assert.include(
              reason.message,
              `order.recipient.communeName: MDM Express knows no commune "${communeName}" in wilaya ${wilayaCode}`
            )
          }
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/geo/cities", "GET /api/geo/cities"])
          assert.strictEqual(fake.orders.size, 0)
        })
      )
    )

    it.live("refuses an exchange and a stop desk without its office before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          for (const input of [order({ isExchange: true }), order({ deliveryType: "stopdesk" })]) {
            assert.strictEqual((yield* Effect.flip(operations().create(input, context)))._tag, "Refused")
          }
          assert.deepStrictEqual(fake.requests, [])
        })
      )
    )

    it.live("passes MDM's validation refusal on in its words, with its code", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const reason = yield* Effect.flip(operations().create(order({}, { addressLine: undefined }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "destination.streetAddress should not be empty")
          if (reason._tag === "Refused") assert.strictEqual(reason.courierCode, "VALIDATION_ERROR")
          const desk = yield* Effect.flip(
            operations().create(order({ deliveryType: "stopdesk", stopDeskId: "OFC-ORN-01" }), context)
          )
          assert.include(desk.message, "stopDeskId: the office is not in the destination's state")
          assert.strictEqual(fake.orders.size, 0)
        })
      )
    )

    it.live("a key MDM does not know is rejected, in MDM's words, without quoting it", () =>
      withFake(
        Effect.gen(function* () {
          const credentials = Schema.decodeUnknownSync(Credentials)({ apiKey: `${KEY}-revoked` })
          const reason = yield* Effect.flip(operations().create(order(), { credentials }))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "the API key (HTTP 401: Invalid API key)")
          assert.notInclude(reason.message, KEY)
        })
      )
    )
  })

  describe("track", () => {
    it.live("reads the order's status history, every step in Algiers time, by its tracking id", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { create, track } = operations()
          const { trackingNumber } = yield* create(order(), context)
          for (const [iso, status] of [
            ["2026-04-19T08:12:40.000Z", "shipped"],
            ["2026-04-20T13:02:33.000Z", "delivered"]
          ] as const) {
            fake.setClock(iso)
            fake.addStatus(trackingNumber, status)
          }
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [
            { rawStatus: "pending", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "confirmed", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "shipped", timestamp: "2026-04-19T09:12:40+01:00" },
            { rawStatus: "delivered", timestamp: "2026-04-20T14:02:33+01:00" }
          ])
          const request = fake.requests.at(-1)!
          assert.strictEqual(`${request.method} ${request.path}`, `GET /api/v2/orders/${trackingNumber}/status-history`)
          assertKeyInHeaderOnly(request)
        })
      )
    )

    it.live("an order without history yet: its current status, from the order itself", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { create, track } = operations()
          const { trackingNumber } = yield* create(order(), context)
          fake.clearHistory(trackingNumber)
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [{ rawStatus: "confirmed", timestamp: "2026-04-18T19:45:06+01:00" }])
          assert.deepStrictEqual(paths(fake.requests).slice(-2), [
            `GET /api/v2/orders/${trackingNumber}/status-history`,
            `GET /api/v2/orders/${trackingNumber}`
          ])
        })
      )
    )

    it.live("refuses an unknown order (or another account's), and anything not a tracking id before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { create, track } = operations()
          const { trackingNumber } = yield* create(order(), context)
          for (const [tracking, credentials] of [
            ["ORD-999999", context],
            [trackingNumber, other]
          ] as const) {
            const unknown = yield* Effect.flip(track(tracking, credentials))
            assert.strictEqual(unknown._tag, "Refused")
            assert.include(unknown.message, "trackingNumber: MDM Express has no such order")
          }
          const sent = fake.requests.length
          for (const bad of ["../geo/cities", "ORD-1/status-history", "ORD 1"]) {
            assert.strictEqual((yield* Effect.flip(track(bad, context)))._tag, "Refused")
          }
          assert.strictEqual(fake.requests.length, sent)
        })
      )
    )
  })

  describe("label", () => {
    it.live("prints the slip of the order's parcel and fetches the PDF: three calls", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { create, label } = operations()
          const { trackingNumber } = yield* create(order(), context)
          const before = fake.requests.length
          const printed = yield* label(trackingNumber, context)
          assert.strictEqual(printed.contentType, "application/pdf")
          const text = new TextDecoder().decode(printed.bytes)
          assert.isTrue(text.startsWith("%PDF-"))
          assert.include(text, "parcel slip PCL-000001")
          const requests = fake.requests.slice(before)
          assert.deepStrictEqual(paths(requests), [
            `GET /api/v2/orders/${trackingNumber}`,
            "POST /api/prints/parcel-slips",
            "GET /api/prints/files/FIL-000001"
          ])
          assert.deepStrictEqual(requests[1]?.body, { parcelIds: ["PCL-000001"] })
          for (const request of requests) assertKeyInHeaderOnly(request)
        })
      )
    )

    it.live("refuses the label of an order MDM has made no parcel for, before printing anything", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { label } = operations()
          // An order left to MDM's own confirmation (not what create sends): no parcel yet.
          const unconfirmed = yield* Effect.flatMap(CourierHttp.CourierHttp, (http) =>
            http.request({
              method: "POST",
              path: "/api/v2/orders",
              headers: { "x-api-key": KEY },
              json: { ...Mapping.toCreateOrder(order(), "DZA161628"), confirmed: false }
            })
          )
          const trackingNumber = Result.getOrThrow(Mapping.fromCreated(unconfirmed)).trackingNumber
          const reason = yield* Effect.flip(label(trackingNumber, context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, 'no parcel for this order yet (status "pending")')
          assert.notInclude(paths(fake.requests).join(","), "/api/prints/")
        })
      )
    )
  })

  describe("desks, communes and the credentials check", () => {
    it.live("stopDesks: the wilaya's cities, then the offices in them, each with its commune and street", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const desks = yield* operations().stopDesks(wilaya(16), context)
          assert.deepStrictEqual(desks, [
            {
              id: "OFC-ALG-01",
              name: "Bureau Bab Ezzouar",
              wilayaCode: wilaya(16),
              communeName: "Bab Ezzouar",
              address: "Agence MDM, Bab Ezzouar"
            },
            {
              id: "OFC-ALG-02",
              name: "Bureau Hydra",
              wilayaCode: wilaya(16),
              communeName: "Hydra",
              address: "Agence MDM, Hydra"
            }
          ])
          assert.deepStrictEqual(paths(fake.requests), [
            "GET /api/geo/cities",
            "GET /api/v2/shipping/companies/offices"
          ])
          assert.deepStrictEqual(fake.requests[0]?.query, Mapping.citiesQuery(16))
          assert.deepStrictEqual(fake.requests[1]?.query, Mapping.officesQuery)
          for (const request of fake.requests) assertKeyInHeaderOnly(request)
        })
      )
    )

    it.live(
      "a listed desk is one a stop-desk create takes, in any city of its wilaya; the cities come from the cache",
      () =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* MdmFake
            const { create, stopDesks } = operations()
            for (const code of Object.keys(CITIES).map(Number)) {
              const desks = yield* stopDesks(wilaya(code), context)
              assert.deepStrictEqual(
                desks.map((desk) => desk.id),
                OFFICES.filter(([, city]) => city.startsWith(Mapping.stateId(code))).map(([id]) => id)
              )
              for (const desk of desks) {
                const created = yield* create(
                  order(
                    { deliveryType: "stopdesk", stopDeskId: desk.id },
                    { wilayaCode: code, communeName: CITIES[code]![0]![1] }
                  ),
                  context
                )
                assert.match(created.trackingNumber, /^ORD-/)
              }
            }
            assert.strictEqual(
              fake.requests.filter((request) => request.path === "/api/geo/cities").length,
              Object.keys(CITIES).length,
              "one city lookup per wilaya, shared by stopDesks and create"
            )
          })
        )
    )

    it.live("a wilaya MDM lists no city of has no desks and no communes, asked in one call each", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { stopDesks, communes } = operations()
          assert.deepStrictEqual(yield* stopDesks(wilaya(33), context), [])
          assert.deepStrictEqual(yield* communes(wilaya(34), context), [])
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/geo/cities", "GET /api/geo/cities"])
        })
      )
    )

    it.live("communes: MDM's cities of the wilaya with their ids, at home, a desk where an office is", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          assert.deepStrictEqual(yield* operations().communes(wilaya(31), context), [
            { name: "Oran", id: "DZA313101", home: true, stopdesk: false },
            { name: "Bir El Djir", id: "DZA313103", home: true, stopdesk: true },
            { name: "Es Sénia", id: "DZA313104", home: true, stopdesk: false }
          ])
          assert.deepStrictEqual(paths(fake.requests), [
            "GET /api/geo/cities",
            "GET /api/v2/shipping/companies/offices"
          ])
        })
      )
    )

    it.live("checkCredentials reads the countries and creates nothing; an unknown key is rejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { checkCredentials } = operations()
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/geo/countries"])
          assertKeyInHeaderOnly(fake.requests[0]!)
          assert.strictEqual(fake.orders.size, 0)
          const revoked = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: `${KEY}-revoked` }) }
          const reason = yield* Effect.flip(checkCredentials(undefined, revoked))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Invalid API key")
          assert.notInclude(JSON.stringify(reason), `${KEY}-revoked`)
        })
      )
    )
  })

  describe("failures", () => {
    const cases: ReadonlyArray<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"]]> = [
      ["a 429 with Retry-After", { kind: "rateLimited", retryAfter: "17" }, "CourierRateLimited"],
      ["a 503", { kind: "status", status: 503 }, "Unreachable"],
      ["an HTML page", { kind: "html" }, "BadResponse"],
      ["a redirect", { kind: "status", status: 302 }, "BadResponse"],
      ["a refusal", { kind: "refuse", code: "STORES.SUSPENDED", message: "Store suspended" }, "Refused"],
      ["a refusal that quotes the key", { kind: "echoKey" }, "CredentialsRejected"]
    ]

    it.live.each(cases)("%s, on every operation", ([, misbehaviour, tag]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MdmFake
          const { create, track, label, stopDesks, communes, checkCredentials } = operations()
          const { trackingNumber } = yield* create(order(), context)
          // Wilaya 16's cities are cached by the create: the misbehaving call is the offices list.
          const calls: ReadonlyArray<Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>> =
            [
              create(order({}, { wilayaCode: 31, communeName: "Oran" }), context),
              track(trackingNumber, context),
              label(trackingNumber, context),
              stopDesks(wilaya(16), context),
              communes(wilaya(16), context),
              checkCredentials(undefined, context)
            ]
          for (const call of calls) {
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(call)
            assert.strictEqual(reason._tag, tag, reason.message)
            if (reason._tag === "CourierRateLimited") assert.strictEqual(reason.retryAfterSeconds, 17)
            // A courier that echoes the key is blanked out by the core (conformance "secrets"), not here.
            if (misbehaviour.kind !== "echoKey") assert.notInclude(JSON.stringify(reason), KEY)
          }
        })
      )
    )
  })

  describe("the fake", () => {
    /** A raw request to the fake, around the adapter: what MDM does with a wrong one. */
    const raw = (request: CourierHttp.CourierRequest) =>
      Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))
    const key = { "x-api-key": KEY }

    it.live("refuses what MDM refuses: no key, the key as Bearer, an unknown path, a commune name as the city", () =>
      withFake(
        Effect.gen(function* () {
          const missing = yield* raw({ method: "GET", path: "/api/geo/cities" })
          assert.strictEqual(missing.status, 401)
          assert.include(missing.text, "AUTH.MISSING_API_KEY")
          const bearer = yield* raw({
            method: "GET",
            path: "/api/geo/cities",
            headers: { authorization: `Bearer ${KEY}` }
          })
          assert.strictEqual(bearer.status, 401)
          const unknownPath = yield* raw({ method: "GET", path: "/api/v2/parcels", headers: key })
          assert.strictEqual(unknownPath.status, 404)
          assert.include(unknownPath.text, "Cannot GET /api/v2/parcels")
          const byName = yield* raw({
            method: "POST",
            path: "/api/v2/orders",
            headers: key,
            json: {
              ...Mapping.toCreateOrder(order(), "DZA161628"),
              destination: { cityId: "Bab Ezzouar", streetAddress: "x" }
            }
          })
          assert.strictEqual(byName.status, 400)
          assert.include(byName.text, "destination.cityId: city Bab Ezzouar not found")
          const international = yield* raw({
            method: "POST",
            path: "/api/v2/orders",
            headers: key,
            json: {
              ...Mapping.toCreateOrder(order(), "DZA161628"),
              client: { firstName: "A", lastName: "B", phone: "+213555123456" }
            }
          })
          assert.strictEqual(international.status, 400)
          const offices = yield* raw({
            method: "GET",
            path: "/api/v2/shipping/companies/offices",
            query: { countryId: "DZA" },
            headers: key
          })
          assert.strictEqual(offices.status, 200)
          assert.include(offices.text, "OFC-ALG-01")
        })
      )
    )
  })
})
