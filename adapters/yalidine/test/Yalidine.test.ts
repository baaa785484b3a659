import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue, CourierPacer, HttpTransport, Shipping } from "@tawsil/shipping"
import { Context, Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Yalidine.ts"
import * as Mapping from "../src/YalidineMapping.ts"
import {
  API_ID,
  API_TOKEN,
  COD_PERCENTAGE,
  COMMUNES,
  centerOf,
  feesOf,
  type Misbehaviour,
  type Options,
  type RecordedRequest,
  retourFeeOf,
  UNDELIVERABLE,
  YalidineFake
} from "./fake/YalidineFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const credentials = Schema.decodeUnknownSync(Credentials)({ apiId: API_ID, apiToken: API_TOKEN })
const alger = WilayaCode.WilayaCode.make(16)
const context = { credentials, fromWilaya: alger }

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "+213 555 12 34 56",
      wilayaCode: 31,
      communeName: "Bir El Djir",
      addressLine: "Cité 2000 logements"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, track, rates, label } = adapter.operations as Required<typeof adapter.operations>

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, YalidineFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input; readonly fake?: Options } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(YalidineFake.layer(options.fake))))

const assertAuthenticated = (request: RecordedRequest) => {
  assert.strictEqual(request.headers["x-api-id"], API_ID, request.path)
  assert.strictEqual(request.headers["x-api-token"], API_TOKEN, request.path)
}

const assertNoSecret = (reason: CourierError.CourierErrorReason) => {
  for (const secret of [API_ID, API_TOKEN]) {
    assert.notInclude(JSON.stringify(reason), secret)
    assert.notInclude(reason.message, secret)
  }
}

const oran = COMMUNES.find((commune) => commune.name === "Oran")!
const birElDjir = COMMUNES.find((commune) => commune.name === "Bir El Djir")!

describe("Yalidine", () => {
  describe("manifest", () => {
    it("declares one engine for six networks, the API id and token, every capability and the documented quotas", () => {
      assert.strictEqual(adapter.platform, "yalidine")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key }) => key),
        ["yalidine", "yalitec", "guepex", "economiqua", "easyandspeed", "wecan"]
      )
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiId", "apiToken"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: false,
        trackBatch: true,
        createBatch: true,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: true
      })
      assert.deepStrictEqual(
        adapter.rateLimits.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
        [
          [5, 1000],
          [50, 60_000],
          [1000, 3_600_000],
          [10_000, 86_400_000]
        ]
      )
      assert.isFalse(adapter.codTracked, "payment is pushed, never in the history tracking reads")
    })

    it("pins each network to its own https origin", () => {
      const endpoints = Object.fromEntries(adapter.couriers.map(({ key, endpoint }) => [key, endpoint]))
      assert.deepStrictEqual(endpoints, {
        yalidine: { origin: "https://api.yalidine.app" },
        yalitec: { origin: "https://api.yalitec.me" },
        guepex: { origin: "https://api.guepex.app" },
        economiqua: { origin: "https://api.economiqua.app" },
        easyandspeed: { origin: "https://api.easyandspeed.app" },
        wecan: { origin: "https://api.wecanservices.me" }
      })
      for (const endpoint of Object.values(endpoints)) {
        assert.isTrue("origin" in endpoint && Result.isSuccess(Egress.parseOrigin(endpoint.origin)))
      }
    })

    it("resolves every key and alias in a catalogue, and finds the family by search", () => {
      const catalogue = Catalogue.make([adapter])
      for (const [name, key] of [
        ["yalidine", "yalidine"],
        ["Guepex", "guepex"],
        ["goupex", "guepex"],
        ["easy_and_speed", "easyandspeed"],
        ["wecan_services", "wecan"],
        ["economiqua", "economiqua"],
        ["yalitec", "yalitec"]
      ] as const) {
        assert.strictEqual(catalogue.resolve(name)?.manifest.key, key, name)
      }
      assert.deepStrictEqual(
        catalogue.list({ platform: "yalidine" }).map((entry) => entry.key),
        ["easyandspeed", "economiqua", "guepex", "wecan", "yalidine", "yalitec"]
      )
      assert.deepStrictEqual(
        catalogue.list({ q: "speed" }).map((entry) => entry.key),
        ["easyandspeed"]
      )
    })

    it("keeps the API id and token redacted and refuses malformed ones without quoting them", () => {
      assert.strictEqual(Redacted.value(credentials.apiToken), API_TOKEN)
      assert.notInclude(JSON.stringify(credentials), API_TOKEN)
      assert.notInclude(JSON.stringify(credentials), API_ID)
      assert.notInclude(String(credentials.apiId), API_ID)
      for (const value of [
        "short",
        "with a space-inside",
        "line\nbreak-0123456789",
        "x".repeat(257),
        "tokén-0123456789"
      ]) {
        for (const field of ["apiId", "apiToken"]) {
          const result = Schema.decodeUnknownResult(Credentials)({ apiId: API_ID, apiToken: API_TOKEN, [field]: value })
          assert.isTrue(Result.isFailure(result), `${field}: ${JSON.stringify(value)}`)
          if (Result.isFailure(result)) assert.notInclude(result.failure.message, value)
        }
      }
    })
  })

  describe("the fake refuses what the platform refuses", () => {
    const parcel = Result.getOrThrow(Mapping.toParcel(order(), alger, "o1"))
    const send = (request: CourierHttp.CourierRequest) =>
      Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))
    const auth = { "x-api-id": API_ID, "x-api-token": API_TOKEN }
    const refusedParcel = (body: unknown) =>
      Effect.map(send({ method: "POST", path: "/v1/parcels/", headers: auth, json: body }), (response) => {
        assert.strictEqual(response.status, 200, response.text)
        return (JSON.parse(response.text) as Record<string, { success: boolean; message: string }>).o1!
      })

    it.live.each<readonly [string, Readonly<Record<string, string>>]>([
      ["no credentials", {}],
      ["the id alone", { "x-api-id": API_ID }],
      ["the token alone", { "x-api-token": API_TOKEN }],
      ["a wrong token", { "x-api-id": API_ID, "x-api-token": `${API_TOKEN}x` }],
      ["the pair as a bearer token", { authorization: `Bearer ${API_TOKEN}` }]
    ])("401 with %s", ([, headers]) =>
      withFake(
        Effect.gen(function* () {
          assert.strictEqual((yield* send({ method: "GET", path: "/v1/wilayas/", headers })).status, 401)
        })
      )
    )

    it.live("405 for a method the route does not take; 404 for a route it does not have", () =>
      withFake(
        Effect.gen(function* () {
          assert.strictEqual(
            (yield* send({ method: "PUT", path: "/v1/parcels/", headers: auth, json: [] })).status,
            405
          )
          assert.strictEqual(
            (yield* send({ method: "POST", path: "/v1/histories/", headers: auth, json: [] })).status,
            405
          )
          assert.strictEqual((yield* send({ method: "GET", path: "/v1/parcel/", headers: auth })).status, 404)
          assert.strictEqual((yield* send({ method: "GET", path: "/parcels/", headers: auth })).status, 404)
        })
      )
    )

    it.live("400 for a parcel that is not in an array, and for fees without both wilayas", () =>
      withFake(
        Effect.gen(function* () {
          assert.strictEqual(
            (yield* send({ method: "POST", path: "/v1/parcels/", headers: auth, json: parcel })).status,
            400
          )
          const fees = yield* send({ method: "GET", path: "/v1/fees/", headers: auth, query: { to_wilaya_id: "31" } })
          assert.strictEqual(fees.status, 400)
        })
      )
    )

    it.live.each<readonly [string, Record<string, unknown>, string]>([
      [
        "a misspelt field",
        { to_commune_name: undefined, to_commune: "Bir El Djir" },
        "The to_commune parameter is not recognised"
      ],
      ["a missing required field", { weight: undefined }, "weight parameter is required"],
      ["a phone in international form", { contact_phone: "+213555123456" }, "contact_phone"],
      ["a wilaya code instead of its name", { to_wilaya_name: "31" }, "to_wilaya_name"],
      ["a commune of another wilaya", { to_commune_name: "Bab Ezzouar" }, "to_commune_name"],
      ["a boolean given as text", { do_insurance: "false" }, "do_insurance parameter must be of type boolean"],
      ["a fractional weight", { weight: 1.5 }, "weight"],
      ["a price above 150 000", { price: 150001 }, "price"],
      ["a stop desk without center", { is_stopdesk: true }, "stopdesk_id parameter is required"],
      ["a center of another wilaya", { is_stopdesk: true, stopdesk_id: 163001 }, "stopdesk_id"],
      ["an exchange without what to collect", { has_exchange: true }, "product_to_collect"]
    ])("success: false for %s, inside an HTTP 200", ([, change, says]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const result = yield* refusedParcel([{ ...parcel, ...change }])
          assert.isFalse(result.success)
          assert.include(result.message, says)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live("creates the valid parcels of a request and refuses the others; an order_id once per request", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const results = (json: unknown) =>
            Effect.map(send({ method: "POST", path: "/v1/parcels/", headers: auth, json }), (response) =>
              Object.fromEntries(
                Object.entries(JSON.parse(response.text) as Record<string, { success: boolean }>).map(([id, r]) => [
                  id,
                  r.success
                ])
              )
            )
          assert.deepStrictEqual(yield* results([parcel, { ...parcel, order_id: "o2", price: -1 }]), {
            o1: true,
            o2: false
          })
          assert.strictEqual(fake.parcels.size, 1)
          assert.deepStrictEqual(
            yield* results([
              { ...parcel, order_id: "o3" },
              { ...parcel, order_id: "o3" }
            ]),
            {
              o3: false
            }
          )
          assert.strictEqual(fake.parcels.size, 2, "the first o3 was created, the second refused")
        })
      )
    )

    it.live("answers the quota headers, and 429 with Retry-After past a quota", () =>
      withFake(
        Effect.gen(function* () {
          const first = yield* send({ method: "GET", path: "/v1/wilayas/", headers: auth })
          assert.strictEqual(first.headers["x-second-quota-left"], "4")
          assert.strictEqual(first.headers["x-minute-quota-left"], "1")
          assert.strictEqual(first.headers["x-hour-quota-left"], "999")
          assert.strictEqual(first.headers["x-day-quota-left"], "9999")
          yield* send({ method: "GET", path: "/v1/wilayas/", headers: auth })
          const limited = yield* send({ method: "GET", path: "/v1/wilayas/", headers: auth })
          assert.strictEqual(limited.status, 429)
          assert.strictEqual(limited.headers["x-minute-quota-left"], "0")
          // The minute started on the clock's own boundary ("every new minute"): 30 s of it are left.
          assert.strictEqual(limited.headers["retry-after"], "30")
          const reason = Mapping.errorOf(limited)
          assert.strictEqual(reason._tag === "CourierRateLimited" && reason.retryAfterSeconds, 30)
        }),
        {
          fake: {
            accounts: [{ apiId: API_ID, apiToken: API_TOKEN, quotas: { minute: 2 } }],
            now: () => Date.UTC(2026, 3, 18, 18, 45, 30)
          }
        }
      )
    )
  })

  describe("create", () => {
    it.live("sends one parcel in an array, authenticated; answers the tracking number and the public label link", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^yal-[0-9A-Z]{6}$/)
          assert.match(
            created.labelUrl ?? "",
            new RegExp(`^https://yalidine\\.app/app/bordereau\\.php\\?tracking=${created.trackingNumber}&token=`)
          )
          assert.strictEqual(created.rawStatus, "En préparation")
          assert.strictEqual(adapter.statuses[created.rawStatus], "created")
          const [request, ...rest] = fake.requests
          assert.lengthOf(rest, 0, "no follow-up step")
          assert.strictEqual(request?.method, "POST")
          assert.strictEqual(request?.path, "/v1/parcels/")
          assert.strictEqual(request?.headers["content-type"], "application/json")
          assert.deepStrictEqual(request?.body, [Result.getOrThrow(Mapping.toParcel(order(), alger, "CMD-7"))])
          assertAuthenticated(request!)
          const parcel = fake.parcels.get(created.trackingNumber)
          assert.strictEqual(parcel?.fields.contact_phone, "0555123456")
          assert.strictEqual(parcel?.fields.from_wilaya_name, "Alger")
          assert.strictEqual(parcel?.fields.to_wilaya_name, "Oran")
        })
      )
    )

    it.live("passes on the 2026 transcription's label link as given", () =>
      withFake(
        Effect.gen(function* () {
          const created = yield* create(order(), context)
          assert.strictEqual(created.labelUrl, `https://api.yalidine.app/labels/${created.trackingNumber}`)
        }),
        { fake: { labelLinks: "api" } }
      )
    )

    it.live("to a stop desk: the center id, and the commune for the address", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const { recipient } = order()
          const { addressLine: _, ...withoutAddress } = recipient
          const created = yield* create(
            order({ recipient: withoutAddress, deliveryType: "stopdesk", stopDeskId: String(centerOf(birElDjir)) }),
            context
          )
          const parcel = fake.parcels.get(created.trackingNumber)!
          assert.strictEqual(parcel.fields.stopdesk_id, centerOf(birElDjir))
          assert.strictEqual(parcel.fields.is_stopdesk, true)
          assert.strictEqual(parcel.fields.address, "Bir El Djir")
        })
      )
    )

    it.live("refuses without any call when the origin wilaya is not given", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const reason = yield* Effect.flip(create(order(), { credentials }))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "options.fromWilaya")
          assert.lengthOf(fake.requests, 0)
        })
      )
    )

    it.live("reads a parcel refused inside an HTTP 200 as a refusal with the courier's words", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const reason = yield* Effect.flip(
            create(order({ recipient: { ...order().recipient, communeName: "Bab Ezzouar" } }), context)
          )
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "to_commune_name Bab Ezzouar does not belong to the wilaya")
          assert.strictEqual(fake.parcels.size, 0)
          fake.misbehaveNext({ kind: "refuseParcel", message: "Compte suspendu" })
          const refused = yield* Effect.flip(create(order(), context))
          assert.strictEqual(refused._tag, "Refused")
          assert.strictEqual(refused.message, "Compte suspendu")
        })
      )
    )

    it.live("refuses where the network does not deliver", () =>
      withFake(
        Effect.gen(function* () {
          const wilayaCode = UNDELIVERABLE[0]
          const reason = yield* Effect.flip(
            create(
              order({ recipient: { ...order().recipient, wilayaCode, communeName: "Bordj Badji Mokhtar" } }),
              context
            )
          )
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "not deliverable")
        })
      )
    )
  })

  describe("track", () => {
    it.live("a parcel without history yet: its current status, from the parcel itself", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          fake.setClock("2026-04-18 19:45:06")
          const { trackingNumber } = yield* create(order(), context)
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [{ rawStatus: "En préparation", timestamp: "2026-04-18T19:45:06+01:00" }])
          assert.deepStrictEqual(
            fake.requests.slice(1).map(({ method, path }) => `${method} ${path}`),
            [`GET /v1/histories/${trackingNumber}`, `GET /v1/parcels/${trackingNumber}`]
          )
          for (const request of fake.requests) assertAuthenticated(request)
        })
      )
    )

    it.live("reads the history in Algiers time, one call, the alert's resolution kept (unmapped: unknown)", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const { trackingNumber } = yield* create(order(), context)
          for (const [at, status] of [
            ["2026-04-19 09:12:40", "Ramassé"],
            ["2026-04-19 18:00:00", "En alerte"],
            ["2026-04-20 08:00:00", "Alerte résolue"],
            ["2026-04-20 08:05:12", "Sorti en livraison"],
            ["2026-04-20 14:02:33", "Livré"]
          ] as const) {
            fake.setClock(at)
            fake.addHistory(trackingNumber, status)
          }
          const before = fake.requests.length
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(
            [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
            [
              { rawStatus: "Ramassé", timestamp: "2026-04-19T09:12:40+01:00" },
              { rawStatus: "En alerte", timestamp: "2026-04-19T18:00:00+01:00" },
              { rawStatus: "Alerte résolue", timestamp: "2026-04-20T08:00:00+01:00" },
              { rawStatus: "Sorti en livraison", timestamp: "2026-04-20T08:05:12+01:00" },
              { rawStatus: "Livré", timestamp: "2026-04-20T14:02:33+01:00" }
            ]
          )
          assert.strictEqual(fake.requests.length, before + 1)
        })
      )
    )

    it.live("answers the exact tracking number only, never another that starts with it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          for (const tracking of ["yal-ABC1", "yal-ABC12"]) fake.addParcel(tracking)
          fake.setClock("2026-04-19 10:00:00")
          fake.addHistory("yal-ABC12", "Livré")
          fake.setClock("2026-04-19 09:00:00")
          fake.addHistory("yal-ABC1", "Ramassé")
          assert.deepStrictEqual(yield* track("yal-ABC1", context), [
            { rawStatus: "Ramassé", timestamp: "2026-04-19T09:00:00+01:00" }
          ])
          const unknown = yield* Effect.flip(track("yal-ABC", context))
          assert.strictEqual(unknown._tag, "Refused", "a prefix of two parcels is neither")
          assert.include(unknown.message, "trackingNumber")
        })
      )
    )

    it.live("refuses a tracking number that cannot be one, without a call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          for (const tracking of ["../v1/fees", "yal-1,yal-2", "yal 1"]) {
            assert.strictEqual((yield* Effect.flip(track(tracking, context)))._tag, "Refused")
            assert.strictEqual((yield* Effect.flip(label(tracking, context)))._tag, "Refused")
          }
          assert.lengthOf(fake.requests, 0)
        })
      )
    )
  })

  describe("rates", () => {
    it.live("prices express home delivery to the wilaya's seat when asked, with the return and COD fees", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const result = yield* rates(
            query({ toWilaya: 31, deliveryType: "home", tier: "express", codAmount: 9000 }),
            context
          )
          const expected = feesOf(16, oran)
          assert.strictEqual(result.tier, "express")
          assert.strictEqual(result.deliveryFee, expected.express_home)
          assert.strictEqual(result.returnFee, retourFeeOf(16, 31))
          assert.strictEqual(result.codFee, Math.round((9000 * COD_PERCENTAGE) / 100))
          assert.strictEqual(result.total, expected.express_home + result.codFee)
          assert.deepStrictEqual(
            result.options.map((option) => `${option.tier} ${option.deliveryType} ${option.deliveryFee}`),
            [
              `express home ${expected.express_home}`,
              `express stopdesk ${expected.express_desk}`,
              `economic home ${expected.economic_home}`,
              `economic stopdesk ${expected.economic_desk}`
            ]
          )
          const [request] = fake.requests
          assert.strictEqual(request?.method, "GET")
          assert.strictEqual(request?.path, "/v1/fees/")
          assert.deepStrictEqual(request?.query, { from_wilaya_id: "16", to_wilaya_id: "31" })
          assertAuthenticated(request!)
        })
      )
    )

    it.live("prices the commune and tier asked, from the query's origin over the caller's", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const result = yield* rates(
            query({
              fromWilaya: 9,
              toWilaya: 31,
              toCommune: "bir el djir",
              deliveryType: "stopdesk",
              tier: "economic"
            }),
            context
          )
          assert.strictEqual(result.deliveryFee, feesOf(9, birElDjir).economic_desk)
          assert.strictEqual(fake.requests[0]?.query.from_wilaya_id, "9")
        })
      )
    )

    it.live("refuses without a call when no origin is known, and where the network does not deliver", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const noOrigin = yield* Effect.flip(rates(query({ toWilaya: 31, deliveryType: "home" }), { credentials }))
          assert.strictEqual(noOrigin._tag, "Refused")
          assert.lengthOf(fake.requests, 0)
          const undeliverable = yield* Effect.flip(
            rates(query({ toWilaya: UNDELIVERABLE[0], deliveryType: "home" }), context)
          )
          assert.strictEqual(undeliverable._tag, "Refused")
          const deepSouth = yield* Effect.flip(rates(query({ toWilaya: 33, deliveryType: "stopdesk" }), context))
          assert.strictEqual(deepSouth._tag, "Refused")
          assert.include(deepSouth.message, "no economic stop-desk delivery")
        })
      )
    )
  })

  describe("label", () => {
    it.live("reads the parcel's label link, and streams the PDF when it is the API's own /labels path (2026)", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const { trackingNumber } = yield* create(order(), context)
          const before = fake.requests.length
          const pdf = yield* label(trackingNumber, context)
          assert.strictEqual(pdf.contentType, "application/pdf")
          const text = new TextDecoder().decode(pdf.bytes)
          assert.isTrue(text.startsWith("%PDF-"))
          assert.include(text, trackingNumber)
          assert.deepStrictEqual(
            fake.requests.slice(before).map((request) => request.path),
            [`/v1/parcels/${trackingNumber}`, `/labels/${trackingNumber}`]
          )
          assert.strictEqual(fake.requests.at(-1)?.headers.accept, "application/pdf")
          const unknown = yield* Effect.flip(label("yal-NOPE00", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.include(unknown.message, "trackingNumber")
        }),
        { fake: { labelLinks: "api" } }
      )
    )
  })

  describe("errors", () => {
    const stranger = {
      credentials: Schema.decodeUnknownSync(Credentials)({ apiId: API_ID, apiToken: "someone-elses-token-0123" }),
      fromWilaya: alger
    }
    const operations: Record<
      string,
      (caller?: typeof context) => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>
    > = {
      create: (caller = context) => create(order(), caller),
      track: (caller = context) => track("yal-000001", caller),
      rates: (caller = context) => rates(query({ toWilaya: 31, deliveryType: "home" }), caller),
      label: (caller = context) => label("yal-000001", caller)
    }
    const cases: ReadonlyArray<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"], number?]> = [
      ["no answer", { kind: "hang" }, "Unreachable"],
      ["a dropped connection", { kind: "reset" }, "Unreachable"],
      ["HTTP 500", { kind: "status", status: 500 }, "Unreachable"],
      ["HTTP 503", { kind: "status", status: 503 }, "Unreachable"],
      ["an HTML page on HTTP 200", { kind: "html" }, "BadResponse"],
      ["JSON of an undocumented shape", { kind: "json", status: 200, body: { items: [] } }, "BadResponse"],
      ["429 with Retry-After", { kind: "rateLimited", retryAfter: "17" }, "CourierRateLimited", 17],
      [
        "429 with only the quota headers",
        { kind: "rateLimited", quotaLeft: { second: 3, minute: 0 } },
        "CourierRateLimited",
        60
      ],
      ["a refusal quoting the token", { kind: "echoToken" }, "Refused"]
    ]
    for (const [operation, run] of Object.entries(operations)) {
      it.live.each(cases)(`${operation}: %s → %s`, ([, misbehaviour, tag, retryAfterSeconds]) =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* YalidineFake
            fake.addParcel("yal-000001")
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, tag)
            if (retryAfterSeconds !== undefined && reason._tag === "CourierRateLimited") {
              assert.strictEqual(reason.retryAfterSeconds, retryAfterSeconds)
            }
            // A courier that echoes a credential is blanked out by the core, before and after the adapter (conformance "secrets").
            if (misbehaviour.kind !== "echoToken") assertNoSecret(reason)
          }),
          { timeout: "300 millis" }
        )
      )

      if (operation !== "label") {
        it.live(`${operation}: a token the courier does not know → CredentialsRejected`, () =>
          withFake(
            Effect.gen(function* () {
              const reason = yield* Effect.flip(run(stranger))
              assert.strictEqual(reason._tag, "CredentialsRejected")
              assert.notInclude(JSON.stringify(reason), "someone-elses-token-0123")
            })
          )
        )
      }
    }
  })

  describe("through the core", () => {
    const transport = Layer.effect(
      Shipping.Transport,
      Effect.map(YalidineFake, (fake) => Shipping.Transport.of({ bind: () => Loopback.make(fake.origin) }))
    )
    const core = Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
      Layer.provide(transport),
      Layer.provideMerge(YalidineFake.layer())
    )
    const call = { credentials: { apiId: API_ID, apiToken: API_TOKEN }, options: { fromWilaya: alger } }

    it.live(
      "creates and tracks on a sister network by alias; the core maps the statuses with the adapter's table",
      () =>
        Effect.gen(function* () {
          const shipping = yield* Shipping.Shipping
          const fake = yield* YalidineFake
          const created = yield* shipping.create({ ...call, courier: "goupex", order: order() })
          assert.strictEqual(created.status, "created")
          assert.strictEqual(created.reference, "CMD-7")
          assert.isTrue(created.labelUrl?.startsWith("https://yalidine.app/app/bordereau.php?"))
          for (const [at, status] of [
            ["2026-04-19 09:12:40", "Ramassé"],
            ["2026-04-19 11:00:00", "En attente du client"]
          ] as const) {
            fake.setClock(at)
            fake.addHistory(created.trackingNumber, status)
          }
          const tracked = yield* shipping.track({ ...call, courier: "guepex", trackingNumber: created.trackingNumber })
          assert.strictEqual(tracked.status, "at_stopdesk")
          assert.isUndefined(tracked.cod)
          assert.deepStrictEqual(
            tracked.events.map(({ status, rawStatus, timestamp }) => [status, rawStatus, timestamp]),
            [
              ["picked_up", "Ramassé", "2026-04-19T09:12:40+01:00"],
              ["at_stopdesk", "En attente du client", "2026-04-19T11:00:00+01:00"]
            ]
          )
        }).pipe(Effect.provide(core))
    )

    it.live("the origin wilaya comes from options.fromWilaya", () =>
      Effect.gen(function* () {
        const shipping = yield* Shipping.Shipping
        const error = yield* Effect.flip(
          shipping.create({ courier: "yalidine", credentials: call.credentials, order: order() })
        )
        assert.strictEqual(error._tag === "CourierError" && error.reason._tag, "Refused")
        assert.include(error.message, "options.fromWilaya")
      }).pipe(Effect.provide(core))
    )
  })

  describe("through the core's transport", () => {
    const core = Effect.gen(function* () {
      const fake = yield* YalidineFake
      const overrides = Result.getOrThrow(
        Egress.parseOverrides(`https://api.yalidine.app=${fake.origin},https://api.guepex.app=${fake.origin}`)
      )
      return Context.get(
        yield* Layer.build(
          Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
            Layer.provide(HttpTransport.layer({ overrides })),
            Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemory])
          )
        ),
        Shipping.Shipping
      )
    })
    const accounts = [
      { apiId: API_ID, apiToken: API_TOKEN },
      { apiId: "second-account-0001", apiToken: "second-token-6tDv0VDFh5" }
    ]

    // Paced at 4 a second, an account's next call is 250 ms after its last: a call that may wait only 200 ms is
    // refused unsent. On the test clock, so that a slow machine's answer is never taken for a timeout.
    it.effect(
      "paces each account under the declared quotas: a call that cannot wait for its slot is refused unsent",
      () =>
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const shipping = yield* core
          const price = (courier: string, account: (typeof accounts)[number]) =>
            Effect.map(
              Effect.result(
                shipping.rates({
                  courier,
                  credentials: account,
                  options: { fromWilaya: alger, timeoutMs: 200 },
                  query: query({ toWilaya: 31, deliveryType: "home" })
                })
              ),
              (result) =>
                Result.isSuccess(result)
                  ? "priced"
                  : result.failure._tag === "CourierError" && result.failure.reason._tag === "CourierRateLimited"
                    ? `limited ${result.failure.reason.retryAfterSeconds}s`
                    : result.failure._tag
            )
          const first = yield* Effect.forEach([1, 2], () => price("yalidine", accounts[0]!))
          assert.deepStrictEqual(first, ["priced", "limited 1s"])
          assert.lengthOf(fake.requests, 1, "the second was never sent")
          assert.strictEqual(yield* price("yalidine", accounts[1]!), "priced", "another account has its own pace")
          assert.strictEqual(
            yield* price("guepex", accounts[0]!),
            "priced",
            "so has the same account on another network"
          )
        }).pipe(
          Effect.provide(
            YalidineFake.layer({ accounts: accounts.map((account) => ({ ...account, quotas: { second: 100 } })) })
          )
        )
    )
  })
})
