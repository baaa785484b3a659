import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { type Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { adapter, Credentials, make, origin } from "../src/Maystro.ts"
import * as Mapping from "../src/MaystroMapping.ts"
import {
  COMMUNES,
  KEY,
  MaystroFake,
  type Misbehaviour,
  price,
  type RecordedRequest,
  SHIPPED_ORDER_ID
} from "./fake/MaystroFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: KEY }) }

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

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

/** Each test gets a fresh adapter, so that no test sees another's cached communes. */
const operations = (options: Parameters<typeof make>[0] = {}) =>
  make(options).operations as Required<typeof adapter.operations>

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, MaystroFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(MaystroFake.layer())))

const assertAuthenticated = (request: RecordedRequest) => {
  assert.strictEqual(request.headers.authorization, `Token ${KEY}`, request.path)
  assert.strictEqual(request.headers.accept, "application/json", request.path)
  assert.deepStrictEqual(
    Object.keys(request.query).filter((name) => /key|token/i.test(name)),
    [],
    request.path
  )
}

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

const assertNoKey = (reason: CourierError.CourierErrorReason) => {
  assert.notInclude(JSON.stringify(reason), KEY)
  assert.notInclude(reason.message, KEY)
}

describe("Maystro", () => {
  describe("manifest", () => {
    it("declares the platform, its courier, the apiKey credential and its seven operations", () => {
      assert.strictEqual(adapter.platform, "maystro")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, aliases, endpoint }) => ({ key, aliases, endpoint })),
        [
          {
            key: "maystro",
            aliases: ["maystro_delivery"],
            endpoint: { origin: "https://backend.maystro-delivery.com" }
          }
        ]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiKey"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: false,
        trackBatch: false,
        createBatch: false,
        stopDesks: false,
        communes: true,
        checkCredentials: true,
        push: true
      })
      assert.isUndefined(adapter.codStatuses, "Maystro reports no cash events")
      const catalogue = Catalogue.make([adapter])
      assert.strictEqual(catalogue.resolve("Maystro_Delivery")?.manifest.key, "maystro")
      assert.isFalse(catalogue.resolve("maystro")?.entry.requiresBaseUrl)
    })

    it("keeps the key redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ apiKey: "a".repeat(40) })
      assert.strictEqual(Redacted.value(decoded.apiKey), "a".repeat(40))
      assert.notInclude(JSON.stringify(decoded), "aaaa")
      assert.notInclude(String(decoded.apiKey), "aaaa")
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
    it.live("looks the commune id up, then creates with it: two calls, each with Token auth", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create } = operations()
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
          assert.strictEqual(created.courierReference, "880001")
          assert.strictEqual(created.rawStatus, "4")
          assert.strictEqual(adapter.statuses[created.rawStatus], "created")

          assert.deepStrictEqual(paths(fake.requests), ["GET /api/shared/communes/", "POST /api/stores/orders/"])
          const [lookup, createCall] = fake.requests
          assert.deepStrictEqual(lookup?.query, { wilaya: "16" })
          assert.deepStrictEqual(createCall?.body, Mapping.toCreateOrder(order(), 1628))
          assert.strictEqual(createCall?.headers["content-type"], "application/json")
          for (const request of fake.requests) assertAuthenticated(request)

          const stored = fake.orders.get(created.trackingNumber)
          assert.strictEqual(stored?.fields.commune, 1628)
          assert.strictEqual(stored?.fields.customer_phone, "0555123456")
          assert.strictEqual(stored?.fields.source, 4)
        })
      )
    )

    it.live("sends a stop desk as delivery_type 2 with its desk id", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create } = operations()
          const stopdesk = order(
            { deliveryType: "stopdesk", stopDeskId: "58" },
            { wilayaCode: 31, communeName: "bir el djir", addressLine: undefined }
          )
          const created = yield* create(stopdesk, context)
          const stored = fake.orders.get(created.trackingNumber)!
          assert.strictEqual(stored.fields.delivery_type, 2)
          assert.strictEqual(stored.fields.stop_desk_id, "58")
          assert.strictEqual(stored.fields.commune, 3103)
          assert.strictEqual(stored.fields.destination_text, "bir el djir")
        })
      )
    )

    it.effect("keeps a wilaya's communes for a day: one lookup serves every create until it expires", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create } = operations()
          const lookups = () => fake.requests.filter((request) => request.path === "/api/shared/communes/").length
          yield* create(order(), context)
          yield* create(order({}, { fullName: "Nadia Saidi", phone: "0661000001", communeName: "Hydra" }), context)
          assert.strictEqual(lookups(), 1, "the second create in Algiers reused the list")
          yield* create(order({}, { fullName: "Karim Haddad", wilayaCode: 31, communeName: "Oran" }), context)
          assert.strictEqual(lookups(), 2, "another wilaya has its own list")
          yield* TestClock.adjust("23 hours")
          yield* create(order({}, { fullName: "Lina Amrani", phone: "0770000002", communeName: "Kouba" }), context)
          assert.strictEqual(lookups(), 2, "still fresh after 23 hours")
          yield* TestClock.adjust("2 hours")
          yield* create(order({}, { fullName: "Omar Tazi", phone: "0770000003", communeName: "Kouba" }), context)
          assert.strictEqual(lookups(), 3, "looked up again once a day has passed")
        })
      )
    )

    it.live("keeps no failed lookup: a refused key is asked again next time", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create } = operations()
          fake.misbehaveNext({ kind: "status", status: 503 }, "/api/shared/communes/")
          assert.strictEqual((yield* Effect.flip(create(order(), context)))._tag, "Unreachable")
          yield* create(order(), context)
          assert.deepStrictEqual(paths(fake.requests), [
            "GET /api/shared/communes/",
            "GET /api/shared/communes/",
            "POST /api/stores/orders/"
          ])
        })
      )
    )

    it.live("refuses a commune Maystro does not list in the wilaya, naming it, without creating anything", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create } = operations()
          const reason = yield* Effect.flip(create(order({}, { communeName: "Bab Ezzouar Nord" }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, 'order.recipient.communeName: Maystro knows no commune "Bab Ezzouar Nord"')
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/shared/communes/"])
          assert.strictEqual(fake.orders.size, 0)
        })
      )
    )

    it.live(
      "the same-day duplicate: Maystro refuses a second order for the same name and phone until the next day",
      () =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* MaystroFake
            const { create } = operations()
            const first = yield* create(order(), context)
            const again = yield* Effect.flip(create(order({ reference: "CMD-8", productList: "1x sac" }), context))
            assert.strictEqual(again._tag, "Refused", "a duplicate is the caller's to handle, never retried")
            assert.include(again.message, "Une commande existe déjà aujourd'hui pour ce client")
            assert.strictEqual(fake.orders.size, 1, "Maystro kept only the first order")

            // Another phone is another customer; the same customer the next day is a new order.
            yield* create(order({}, { phone: "0661234567" }), context)
            fake.setClock("2026-04-19", "08:00:00")
            const nextDay = yield* create(order(), context)
            assert.notStrictEqual(nextDay.trackingNumber, first.trackingNumber)
            assert.strictEqual(fake.orders.size, 3)
          })
        )
    )

    it.live("refuses an exchange before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const reason = yield* Effect.flip(operations().create(order({ isExchange: true }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.deepStrictEqual(fake.requests, [])
        })
      )
    )

    it.live("passes Maystro's validation errors on under Tawsil's field names", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(operations().create(order({}, { addressLine: undefined }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "order.recipient.addressLine: This field is required.")
        })
      )
    )

    it.live("a key Maystro does not know is rejected", () =>
      withFake(
        Effect.gen(function* () {
          const credentials = Schema.decodeUnknownSync(Credentials)({ apiKey: `${KEY}-revoked` })
          const reason = yield* Effect.flip(operations().create(order(), { credentials }))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Invalid token.")
          assert.notInclude(reason.message, KEY)
        })
      )
    )
  })

  describe("track", () => {
    it.live("reads the order's history, every status with its Algiers time, by the exact order id", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create, track } = operations()
          const { trackingNumber } = yield* create(order(), context)
          for (const [date, time, status] of [
            ["2026-04-19", "09:12:40", 15],
            ["2026-04-20", "08:05:12", 31],
            ["2026-04-20", "14:02:33", 41]
          ] as const) {
            fake.setClock(date, time)
            fake.addStatus(trackingNumber, status)
          }
          const events = yield* track(trackingNumber.toUpperCase(), context)
          assert.deepStrictEqual(events, [
            { rawStatus: "4", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "15", timestamp: "2026-04-19T09:12:40+01:00" },
            { rawStatus: "31", timestamp: "2026-04-20T08:05:12+01:00" },
            { rawStatus: "41", timestamp: "2026-04-20T14:02:33+01:00" }
          ])
          const request = fake.requests.at(-1)!
          assert.strictEqual(`${request.method} ${request.path}`, `GET /api/stores/history_order/${trackingNumber}`)
          assertAuthenticated(request)
        })
      )
    )

    it.live("refuses an unknown order id, and anything that is not an order id before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { track } = operations()
          const unknown = yield* Effect.flip(track("5e1c0a7d-3b2f-4c8e-9a61-999999999999", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.include(unknown.message, "trackingNumber: Maystro has no order with this id")
          const sent = fake.requests.length
          for (const trackingNumber of ["880001", "../orders/", "5e1c0a7d-3b2f-4c8e-9a61-000000000001/x"]) {
            assert.strictEqual((yield* Effect.flip(track(trackingNumber, context)))._tag, "Refused")
          }
          assert.strictEqual(fake.requests.length, sent)
        })
      )
    )
  })

  describe("rates", () => {
    it.live("prices every option to the commune, one call each, and answers the asked one", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const result = yield* operations().rates(
            query({ toWilaya: 31, toCommune: "Es Senia", deliveryType: "stopdesk", codAmount: 9000 }),
            context
          )
          assert.strictEqual(result.deliveryType, "stopdesk")
          assert.strictEqual(result.tier, "economic")
          assert.strictEqual(result.deliveryFee, price(3104, 2, false))
          assert.strictEqual(result.total, result.deliveryFee)
          assert.strictEqual(result.codFee, 0)
          assert.deepStrictEqual<ReadonlyArray<unknown>>(
            result.options.map((option) => [option.deliveryType, option.tier, option.deliveryFee]),
            [
              ["home", "economic", 650],
              ["home", "express", 950],
              ["stopdesk", "economic", 500]
            ]
          )
          assert.deepStrictEqual(paths(fake.requests), [
            "GET /api/shared/communes/",
            ...Array.from({ length: 4 }, () => "GET /api/stores/delivery_price/")
          ])
          assert.deepStrictEqual(
            fake.requests.slice(1).map((request) => request.query),
            [
              { commune: "3104", delivery_type: "1" },
              { commune: "3104", delivery_type: "1", express: "true" },
              { commune: "3104", delivery_type: "2" },
              { commune: "3104", delivery_type: "2", express: "true" }
            ]
          )
          for (const request of fake.requests) assertAuthenticated(request)
        })
      )
    )

    it.live("prices a wilaya by its first commune when the caller names none; express when asked", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const result = yield* operations().rates(
            query({ toWilaya: 16, deliveryType: "home", tier: "express" }),
            context
          )
          assert.strictEqual(result.tier, "express")
          assert.strictEqual(result.deliveryFee, price(COMMUNES[16]![0]![0], 1, true))
          assert.strictEqual(fake.requests[1]?.query.commune, String(COMMUNES[16]![0]![0]))
        })
      )
    )

    it.live.each<readonly [string, Record<string, unknown>, string]>([
      ["a stop desk where there is none", { toWilaya: 11, deliveryType: "stopdesk" }, "no economic stop-desk"],
      ["a wilaya Maystro does not serve", { toWilaya: 33, deliveryType: "home" }, "lists no commune in wilaya 33"],
      ["a commune it does not know", { toWilaya: 16, toCommune: "Atlantis", deliveryType: "home" }, "Atlantis"]
    ])("refuses %s", ([, input, says]) =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(operations().rates(query(input), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, says)
        })
      )
    )
  })

  describe("label", () => {
    it.live("prints the bordereau of the order, by its id, as the PDF Maystro renders", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create, label } = operations()
          const created = yield* create(order(), context)
          const printed = yield* label(created.trackingNumber, context)
          assert.strictEqual(printed.contentType, "application/pdf")
          const text = new TextDecoder().decode(printed.bytes)
          assert.isTrue(text.startsWith("%PDF-"))
          assert.include(text, `${created.courierReference} ${created.trackingNumber}`)
          const request = fake.requests.at(-1)!
          assert.strictEqual(`${request.method} ${request.path}`, "POST /api/delivery/starter/v2/starter_bordureau/")
          assert.deepStrictEqual(request.body, { orders_ids: [created.trackingNumber] })
          assertAuthenticated(request)
          const unknown = yield* Effect.flip(label("5e1c0a7d-3b2f-4c8e-9a61-999999999999", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.include(unknown.message, "trackingNumber: Invalid pk")
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
      ["a refusal", { kind: "refuse", detail: "Magasin suspendu." }, "Refused"],
      ["a refusal that quotes the key", { kind: "echoToken" }, "Refused"]
    ]

    it.live.each(cases)("%s, on every operation", ([, misbehaviour, tag]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { create, track, rates, label } = operations()
          const { trackingNumber } = yield* create(order(), context)
          const calls: ReadonlyArray<Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>> =
            [
              create(order({}, { phone: "0661999999" }), context),
              track(trackingNumber, context),
              rates(query({ toWilaya: 16, deliveryType: "home" }), context),
              label(trackingNumber, context)
            ]
          for (const call of calls) {
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(call)
            assert.strictEqual(reason._tag, tag, reason.message)
            if (reason._tag === "CourierRateLimited") assert.strictEqual(reason.retryAfterSeconds, 17)
            // A courier that echoes a credential is blanked out by the core, before and after the adapter (conformance "secrets").
            if (misbehaviour.kind !== "echoToken") assertNoKey(reason)
          }
        })
      )
    )
  })

  describe("the fake", () => {
    /** A raw request to the fake, around the adapter: what Maystro does with a wrong one. */
    const raw = (request: CourierHttp.CourierRequest) =>
      Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))
    const token = { authorization: `Token ${KEY}`, accept: "application/json" }

    it.live(
      "refuses what Maystro refuses: a Bearer key, a wrong method, a path without its slash, a commune name",
      () =>
        withFake(
          Effect.gen(function* () {
            const bearer = yield* raw({
              method: "GET",
              path: "/api/shared/communes/",
              query: { wilaya: "16" },
              headers: { authorization: `Bearer ${KEY}` }
            })
            assert.strictEqual(bearer.status, 401)
            assert.include(bearer.text, "Authentication credentials were not provided.")
            const wrongMethod = yield* raw({ method: "GET", path: "/api/stores/orders/", headers: token })
            assert.strictEqual(wrongMethod.status, 405)
            const noSlash = yield* raw({
              method: "GET",
              path: "/api/shared/communes",
              query: { wilaya: "16" },
              headers: token
            })
            assert.strictEqual(noSlash.status, 404)
            assert.include(noSlash.headers["content-type"] ?? "", "text/html")
            const byName = yield* raw({
              method: "POST",
              path: "/api/stores/orders/",
              headers: token,
              json: { ...Mapping.toCreateOrder(order(), 1628), commune: "Bab Ezzouar" }
            })
            assert.strictEqual(byName.status, 400)
            assert.include(byName.text, '"commune":["A valid integer is required."]')
            const renamed = yield* raw({
              method: "POST",
              path: "/api/stores/orders/",
              headers: token,
              json: { ...Mapping.toCreateOrder(order(), 1628), customer_name: undefined, name: "Amina Benali" }
            })
            assert.strictEqual(renamed.status, 400)
            assert.include(renamed.text, '"customer_name":["This field is required."]')
            const notApi = yield* raw({
              method: "POST",
              path: "/api/stores/orders/",
              headers: token,
              json: { ...Mapping.toCreateOrder(order(), 1628), source: 1 }
            })
            assert.strictEqual(notApi.status, 400)
          })
        )
    )
  })

  describe("communes", () => {
    it.live("lists the wilaya's communes as create reads them, from the same cached list", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { communes, create } = operations()
          const listed = yield* communes(wilaya(16), context)
          assert.deepStrictEqual(
            listed,
            (COMMUNES[16] ?? []).map(([id, name]) => ({ name, id: String(id), home: true, stopdesk: true }))
          )
          // Every listed commune is one the create accepts, in the listed spelling, without asking again.
          for (const [index, commune] of listed.entries()) {
            yield* create(order({}, { communeName: commune.name, fullName: `Client ${index}` }), context)
          }
          assert.deepStrictEqual(
            paths(fake.requests).filter((path) => path.includes("communes")),
            ["GET /api/shared/communes/"]
          )
          assert.deepStrictEqual(fake.requests[0]?.query, { wilaya: "16" })
          assertAuthenticated(fake.requests[0]!)
          assert.deepStrictEqual(yield* communes(wilaya(40), context), [], "a wilaya Maystro lists nothing in")
        })
      )
    )

    it.live("a refused key is CredentialsRejected, without the key", () =>
      withFake(
        Effect.gen(function* () {
          const revoked = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: `${KEY}-revoked` }) }
          const reason = yield* Effect.flip(operations().communes(wilaya(16), revoked))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assertNoKey(reason)
        })
      )
    )
  })

  describe("cancel", () => {
    it.live("aborts an order not yet picked up: one PATCH to status 50, and the history says so", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { cancel, create, track } = operations()
          const { trackingNumber } = yield* create(order(), context)
          const before = fake.requests.length
          yield* cancel(trackingNumber, context)
          const sent = fake.requests.slice(before)
          assert.deepStrictEqual(paths(sent), [`PATCH /api/shared/status/${trackingNumber}/`])
          assert.deepStrictEqual(sent[0]?.body, { status: 50, abort_reason: 21 })
          assertAuthenticated(sent[0]!)
          const events = yield* track(trackingNumber, context)
          assert.strictEqual(events.at(-1)?.rawStatus, "50")
          assert.strictEqual(adapter.statuses["50"], "cancelled")
        })
      )
    )

    it.live("an order already picked up is NotCancellable in Maystro's words, read with its history", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { cancel, create } = operations()
          const { trackingNumber } = yield* create(order(), context)
          fake.addStatus(trackingNumber, 8)
          const before = fake.requests.length
          const reason = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(reason._tag, "NotCancellable")
          assert.include(reason.message, "Impossible d'annuler une commande déjà ramassée.")
          assert.include(reason.message, "status 8")
          assert.deepStrictEqual(paths(fake.requests.slice(before)), [
            `PATCH /api/shared/status/${trackingNumber}/`,
            `GET /api/stores/history_order/${trackingNumber}`
          ])
        })
      )
    )

    it.live("an order already aborted, or unknown, stays Refused; a display number is refused before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { cancel, create } = operations()
          const { trackingNumber } = yield* create(order(), context)
          yield* cancel(trackingNumber, context)
          const again = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(again._tag, "Refused")
          assert.strictEqual(again.message, "Cette commande est déjà annulée.")
          const unknown = yield* Effect.flip(cancel(SHIPPED_ORDER_ID, context))
          assert.strictEqual(unknown._tag, "Refused", "the fake is not seeded here")
          const before = fake.requests.length
          const display = yield* Effect.flip(cancel("880001", context))
          assert.strictEqual(display._tag, "Refused")
          assert.include(display.message, "trackingNumber")
          assert.lengthOf(fake.requests, before)
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("reads shared/wilayas/ with the key, creating nothing; a refused key is CredentialsRejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MaystroFake
          const { checkCredentials } = operations()
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/shared/wilayas/"])
          assert.deepStrictEqual(fake.requests[0]?.query, { country: "1" })
          assertAuthenticated(fake.requests[0]!)
          const revoked = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: `${KEY}-revoked` }) }
          const reason = yield* Effect.flip(checkCredentials(undefined, revoked))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Invalid token.")
          assertNoKey(reason)
          assert.strictEqual(fake.orders.size, 0)
        })
      )
    )
  })
})
