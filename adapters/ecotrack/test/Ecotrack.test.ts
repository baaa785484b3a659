import { assert, describe, it } from "@effect/vitest"
import { type CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue, Shipping } from "@tawsil/shipping"
import { type Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Ecotrack.ts"
import * as Mapping from "../src/EcotrackMapping.ts"
import {
  EcotrackFake,
  type Misbehaviour,
  NO_DESK,
  type RecordedRequest,
  TOKEN,
  tariff,
  UNSERVED
} from "./fake/EcotrackFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ token: TOKEN }) }

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "+213 555 12 34 56",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000 logements"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, track, rates } = adapter.operations as Required<typeof adapter.operations>

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, EcotrackFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(EcotrackFake.layer())))

const assertAuthenticated = (request: RecordedRequest) => {
  assert.strictEqual(request.headers.authorization, `Bearer ${TOKEN}`, request.path)
  assert.strictEqual(request.query.api_token, TOKEN, request.path)
  assert.strictEqual(request.headers.accept, "application/json", request.path)
}

const assertNoToken = (reason: CourierError.CourierErrorReason) => {
  assert.notInclude(JSON.stringify(reason), TOKEN)
  assert.notInclude(reason.message, TOKEN)
}

describe("Ecotrack", () => {
  describe("manifest", () => {
    it("declares the platform, its couriers, the token credential and every capability", () => {
      assert.strictEqual(adapter.platform, "ecotrack")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key }) => key),
        [
          "ecotrack",
          "andersondelivery",
          "areex",
          "baconsult",
          "conexlog",
          "coyoteexpress",
          "dhd",
          "distazero",
          "e48hrlivraison",
          "fretdirect",
          "golivri",
          "msmgo",
          "packers",
          "prest",
          "rblivraison",
          "rexlivraison",
          "rocketdelivery",
          "salvadelivery",
          "speeddelivery",
          "tslexpress",
          "worldexpress",
          "swiftexpress",
          "allolivraison",
          "samex",
          "sbl",
          "weeweedelivery",
          "jaguar",
          "rj360express",
          "expediachrono",
          "marsexpress",
          "lynx",
          "ecorapideexpress",
          "navexdelivery",
          "rmexpress",
          "rihalexpress",
          "atlasexpress",
          "boogi",
          "chronorex",
          "cirtaexpress",
          "colireli",
          "colizone",
          "gsecommerce",
          "joexpress",
          "omexpress",
          "ontimeexpress",
          "pdex",
          "quickdeliverydz",
          "rsexpress",
          "rutaexpress",
          "tawsilstar",
          "univerdelivery",
          "vitrans",
          "aranex",
          "bfkexpress",
          "hhdexpress",
          "medexpress",
          "alania",
          "championlogistics",
          "colex",
          "delivromail",
          "elguidedelivery",
          "fasthorse",
          "fzdelivery",
          "imir",
          "lihlihexpress",
          "mazaya",
          "ovred",
          "speedmail",
          "windelivery",
          "amana",
          "zinyatec",
          "sultancolisexpress",
          "majorex",
          "redex",
          "monohub",
          "negmarexpress",
          "ultraexpress",
          "assildelivery",
          "abdelivery",
          "oksbox",
          "oneexpress",
          "royaumedelivery",
          "siexpress",
          "wassimexpress"
        ]
      )
      assert.deepStrictEqual(adapter.requiredCredentials, ["token"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: true,
        trackBatch: true,
        createBatch: true,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: false
      })
    })

    it("pins named tenants to https origins; the generic key takes any tenant of the core's Ecotrack domain", () => {
      const endpoints = Object.fromEntries(adapter.couriers.map(({ key, endpoint }) => [key, endpoint]))
      assert.deepStrictEqual(endpoints.ecotrack, { tenantDomain: "ecotrack.dz" })
      // The two tenants on their own domains, and the doubtful hosts as resolved (README "Unverified").
      for (const [key, origin] of [
        ["conexlog", "https://app.conexlog-dz.com"],
        ["dhd", "https://platform.dhd-dz.com"],
        ["andersondelivery", "https://anderson-ecommerce.ecotrack.dz"],
        ["worldexpress", "https://worldexpress.ecotrack.dz"],
        ["monohub", "https://mono2.ecotrack.dz"],
        ["hhdexpress", "https://hhdexpress.ecotrack.dz"],
        ["msmgo", "https://msmgo.ecotrack.dz"],
        ["rocketdelivery", "https://rocket.ecotrack.dz"]
      ] as const) {
        assert.deepStrictEqual(endpoints[key], { origin }, key)
      }
      const origins = new Set<string>()
      for (const [key, endpoint] of Object.entries(endpoints)) {
        if (!("origin" in endpoint)) continue
        assert.isTrue(Result.isSuccess(Egress.parseOrigin(endpoint.origin)), endpoint.origin)
        assert.match(
          endpoint.origin,
          /^https:\/\/([a-z0-9-]+\.ecotrack\.dz|app\.conexlog-dz\.com|platform\.dhd-dz\.com)$/,
          key
        )
        assert.isFalse(origins.has(endpoint.origin), `${key}: two couriers on ${endpoint.origin}`)
        origins.add(endpoint.origin)
      }
    })

    it("keeps each tenant's doubts with it, and resolves every key and alias in a catalogue", () => {
      const catalogue = Catalogue.make([adapter])
      for (const [name, key] of [
        ["ecotrack", "ecotrack"],
        ["DHD", "dhd"],
        ["msmgo", "msmgo"],
        ["msm_go", "msmgo"],
        ["rocket", "rocketdelivery"],
        ["rocket_delivery", "rocketdelivery"],
        ["world_express", "worldexpress"],
        ["hdd_express", "hhdexpress"],
        ["anderson", "andersondelivery"],
        ["e48hr", "e48hrlivraison"],
        ["conexlog", "conexlog"]
      ] as const) {
        assert.strictEqual(catalogue.resolve(name)?.manifest.key, key, name)
      }
      for (const manifest of adapter.couriers) {
        for (const name of [manifest.key, ...manifest.aliases]) {
          assert.strictEqual(catalogue.resolve(name)?.manifest.key, manifest.key, name)
        }
      }
      assert.isTrue(catalogue.resolve("ecotrack")?.entry.requiresBaseUrl)
      for (const key of ["ultraexpress", "assildelivery", "monohub", "andersondelivery", "dhd", "worldexpress"]) {
        assert.isNotEmpty(catalogue.resolve(key)?.manifest.unverified ?? [], key)
      }
      // dzship's second wave: pinned to the platform's pattern, each saying so.
      for (const key of ["abdelivery", "oksbox", "oneexpress", "royaumedelivery", "siexpress", "wassimexpress"]) {
        const entry = catalogue.resolve(key)
        assert.deepStrictEqual(entry?.manifest.endpoint, { origin: `https://${key}.ecotrack.dz` }, key)
        assert.match(entry?.manifest.unverified?.[0] ?? "", /naming pattern.*unverified/, key)
      }
    })

    it("keeps the token redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ token: "a".repeat(60) })
      assert.strictEqual(Redacted.value(decoded.token), "a".repeat(60))
      assert.notInclude(JSON.stringify(decoded), "aaaa")
      assert.notInclude(String(decoded.token), "aaaa")
      for (const token of [
        "short",
        "with a space-inside",
        "line\nbreak-0123456789",
        "x".repeat(513),
        "tokén-0123456789"
      ]) {
        const result = Schema.decodeUnknownResult(Credentials)({ token })
        assert.isTrue(Result.isFailure(result), JSON.stringify(token))
        if (Result.isFailure(result)) assert.notInclude(result.failure.message, token)
      }
    })
  })

  describe("create", () => {
    it.live("creates, then validates with collection: two calls, each authenticated with Bearer and api_token", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^ECTFAK\d{10}$/)
          assert.strictEqual(created.rawStatus, "prete_a_expedier")
          assert.strictEqual(adapter.statuses[created.rawStatus], "pending_pickup")

          const [createCall, validateCall, ...rest] = fake.requests
          assert.strictEqual(rest.length, 0)
          assert.strictEqual(createCall?.method, "POST")
          assert.strictEqual(createCall?.path, "/api/v1/create/order")
          assert.deepStrictEqual(createCall?.body, Mapping.toCreateOrder(order()))
          assert.strictEqual(createCall?.headers["content-type"], "application/json")
          assert.strictEqual(validateCall?.method, "POST")
          assert.strictEqual(validateCall?.path, "/api/v1/valid/order")
          assert.deepStrictEqual(validateCall?.query, {
            tracking: created.trackingNumber,
            ask_collection: "1",
            api_token: TOKEN
          })
          for (const request of fake.requests) assertAuthenticated(request)

          const parcel = fake.parcels.get(created.trackingNumber)
          assert.strictEqual(parcel?.validated, true)
          assert.strictEqual(parcel?.askCollection, "1")
          assert.strictEqual(parcel?.fields.telephone, "0555123456")
        })
      )
    )

    it.live("refuses a wilaya the tenant does not serve (10002) without trying to validate", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const wilayaCode = UNSERVED[0]
          const reason = yield* Effect.flip(create(order({ recipient: { ...order().recipient, wilayaCode } }), context))
          assert.strictEqual(reason._tag, "Refused")
          if (reason._tag === "Refused") assert.strictEqual(reason.courierCode, "10002")
          assert.include(reason.message, "does not deliver to this wilaya")
          assert.strictEqual(fake.requests.length, 1)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live("passes the courier's validation errors on under Tawsil's field names", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          // A request the adapter would not send (it shapes both fields), to see how the courier's words come back.
          fake.misbehaveNext({
            kind: "json",
            status: 422,
            body: {
              message: "The given data was invalid.",
              errors: {
                adresse: ["Le champ adresse est obligatoire."],
                produit: ["Le texte produit ne peut contenir plus de 255 caractères."]
              }
            }
          })
          const reason = yield* Effect.flip(create(order(), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "order.recipient.addressLine: Le champ adresse est obligatoire.")
          assert.include(reason.message, "order.productList: Le texte produit ne peut contenir plus de 255 caractères.")
        })
      )
    )

    it.live("refused validation: a refusal naming the tracking number; the parcel exists unvalidated", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          fake.misbehaveNext({ kind: "refuse", message: "Solde insuffisant" }, "/api/v1/valid/order")
          const reason = yield* Effect.flip(create(order(), context))
          const [tracking] = [...fake.parcels.keys()]
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, `created the parcel ${tracking}`)
          assert.include(reason.message, "Solde insuffisant")
          assert.strictEqual(fake.parcels.get(tracking!)?.validated, false)
          assert.deepStrictEqual(yield* track(tracking!, context), [], "no activity before validation")
        })
      )
    )

    it.live.each<readonly [string, Misbehaviour, string]>([
      ["a 502", { kind: "status", status: 502 }, "HTTP 502"],
      ["a rate limit", { kind: "rateLimited", retryAfter: "30" }, "retry after 30 s"],
      ["an HTML page", { kind: "html" }, "not JSON"],
      ["a dropped connection", { kind: "reset" }, "could not be reached"],
      ["no answer", { kind: "hang" }, "did not answer in time"]
    ])(
      "validation failing with %s: a refusal naming the tracking number, never a retryable error",
      ([, misbehaviour, says]) =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* EcotrackFake
            fake.misbehaveNext(misbehaviour, "/api/v1/valid/order")
            const reason = yield* Effect.flip(create(order(), context))
            assert.strictEqual(reason._tag, "Refused")
            assert.include(reason.message, [...fake.parcels.keys()][0]!)
            assert.include(reason.message, says)
            assertNoToken(reason)
          }),
          { timeout: "300 millis" }
        )
    )
  })

  describe("track", () => {
    it.live("reads the activity as raw events in Algiers time, leaving remarks out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const { trackingNumber } = yield* create(order(), context)
          for (const [date, time, status] of [
            ["2026-04-19", "09:12:40", "picked"],
            ["2026-04-19", "10:00:00", "notification_on_order"],
            ["2026-04-20", "08:05:12", "dispatched_to_driver"],
            ["2026-04-20", "14:02:33", "livred"]
          ] as const) {
            fake.setClock(date, time)
            fake.addActivity(trackingNumber, status)
          }
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [
            { rawStatus: "order_information_received_by_carrier", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "picked", timestamp: "2026-04-19T09:12:40+01:00" },
            { rawStatus: "dispatched_to_driver", timestamp: "2026-04-20T08:05:12+01:00" },
            { rawStatus: "livred", timestamp: "2026-04-20T14:02:33+01:00" }
          ])
          const request = fake.requests.at(-1)!
          assert.strictEqual(request.method, "GET")
          assert.strictEqual(request.path, "/api/v1/get/tracking/info")
          assert.strictEqual(request.query.tracking, trackingNumber)
          assertAuthenticated(request)
        })
      )
    )

    it.live("refuses an unknown tracking number under Tawsil's field name", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(track("ECTNOPE0000000000", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "trackingNumber: Le tracking sélectionné est invalide.")
        })
      )
    )
  })

  describe("rates", () => {
    it.live.each<readonly [string, number, "home" | "stopdesk"]>([
      ["home to Algiers", 16, "home"],
      ["stop desk in Oran", 31, "stopdesk"],
      ["home where there is no desk", NO_DESK[0]!, "home"]
    ])("prices %s from the tenant's fee list", ([, toWilaya, deliveryType]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const result = yield* rates(query({ toWilaya, deliveryType, codAmount: 9000 }), context)
          const [home, desk, returnHome, returnDesk] = tariff(toWilaya)
          const deliveryFee = deliveryType === "home" ? home : desk
          assert.strictEqual(result.deliveryFee, deliveryFee)
          assert.strictEqual(result.returnFee, deliveryType === "home" ? returnHome : returnDesk)
          assert.strictEqual(result.codFee, 0)
          assert.strictEqual(result.total, deliveryFee)
          assert.strictEqual(result.tier, "economic")
          assert.deepStrictEqual(
            result.options.map((option) => [option.deliveryType, option.deliveryFee]),
            desk === null
              ? [["home", home]]
              : [
                  ["home", home],
                  ["stopdesk", desk]
                ]
          )
          const [request] = fake.requests
          assert.strictEqual(request?.method, "GET")
          assert.strictEqual(request?.path, "/api/v1/get/fees")
          assertAuthenticated(request!)
        })
      )
    )

    it.live.each<readonly [string, number, "home" | "stopdesk", string]>([
      ["a wilaya the tenant does not serve", UNSERVED[0]!, "home", `wilaya ${UNSERVED[0]}`],
      ["a stop desk where there is none", NO_DESK[0]!, "stopdesk", "no stop-desk delivery"]
    ])("refuses %s", ([, toWilaya, deliveryType, says]) =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(rates(query({ toWilaya, deliveryType }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, says)
        })
      )
    )

    it.live("refuses the express tier without calling the courier", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const reason = yield* Effect.flip(
            rates(query({ toWilaya: 16, deliveryType: "home", tier: "express" }), context)
          )
          assert.strictEqual(reason._tag, "Refused")
          assert.strictEqual(fake.requests.length, 0)
        })
      )
    )
  })

  describe("errors", () => {
    const STRANGER = "someone-elses-token-0123"
    const stranger = { credentials: Schema.decodeUnknownSync(Credentials)({ token: STRANGER }) }
    const operations: Record<
      string,
      (caller?: typeof context) => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>
    > = {
      create: (caller = context) => create(order(), caller),
      track: (caller = context) => track("ECTFAK0000000001", caller),
      rates: (caller = context) => rates(query({ toWilaya: 16, deliveryType: "home" }), caller)
    }
    const cases: ReadonlyArray<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"], number?]> = [
      ["no answer", { kind: "hang" }, "Unreachable"],
      ["a dropped connection", { kind: "reset" }, "Unreachable"],
      ["HTTP 500", { kind: "status", status: 500 }, "Unreachable"],
      ["HTTP 503", { kind: "status", status: 503 }, "Unreachable"],
      ["an HTML page on HTTP 200", { kind: "html" }, "BadResponse"],
      ["JSON of an undocumented shape", { kind: "json", status: 200, body: { data: [] } }, "BadResponse"],
      ["429 with Retry-After", { kind: "rateLimited", retryAfter: "17" }, "CourierRateLimited", 17],
      ["429 without Retry-After", { kind: "rateLimited" }, "CourierRateLimited", 60],
      ["success:false on HTTP 200", { kind: "refuse", message: "Service suspendu" }, "Refused"],
      ["INVALID_TOKEN", { kind: "refuse", message: "INVALID_TOKEN" }, "CredentialsRejected"],
      ["a refusal quoting the token", { kind: "echoToken" }, "Refused"]
    ]
    for (const [operation, run] of Object.entries(operations)) {
      it.live.each(cases)(`${operation}: %s → %s`, ([, misbehaviour, tag, retryAfterSeconds]) =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* EcotrackFake
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, tag)
            if (retryAfterSeconds !== undefined && reason._tag === "CourierRateLimited") {
              assert.strictEqual(reason.retryAfterSeconds, retryAfterSeconds)
            }
            // A courier that echoes a credential is blanked out by the core, before and after the adapter (conformance "secrets").
            if (misbehaviour.kind !== "echoToken") assertNoToken(reason)
          }),
          { timeout: "300 millis" }
        )
      )

      it.live(`${operation}: a token the courier does not know → CredentialsRejected`, () =>
        withFake(
          Effect.gen(function* () {
            const reason = yield* Effect.flip(run(stranger))
            assert.strictEqual(reason._tag, "CredentialsRejected")
            assert.notInclude(JSON.stringify(reason), STRANGER)
          })
        )
      )
    }
  })

  describe("through the core", () => {
    const transport = Layer.effect(
      Shipping.Transport,
      Effect.map(EcotrackFake, (fake) => Shipping.Transport.of({ bind: () => Loopback.make(fake.origin) }))
    )
    const core = Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
      Layer.provide(transport),
      Layer.provideMerge(EcotrackFake.layer())
    )
    const credentials = { token: TOKEN }

    it.live("creates and tracks for a named tenant; the core maps the statuses with the adapter's table", () =>
      Effect.gen(function* () {
        const shipping = yield* Shipping.Shipping
        const fake = yield* EcotrackFake
        const created = yield* shipping.create({ courier: "rocket", credentials, order: order() })
        assert.strictEqual(created.status, "pending_pickup")
        assert.strictEqual(created.reference, "CMD-7")
        for (const [date, time, status] of [
          ["2026-04-19", "09:12:40", "picked"],
          ["2026-04-19", "11:00:00", "notification_on_order"],
          ["2026-04-20", "14:02:33", "livred"]
        ] as const) {
          fake.setClock(date, time)
          fake.addActivity(created.trackingNumber, status)
        }
        const tracked = yield* shipping.track({
          courier: "rocket",
          credentials,
          trackingNumber: created.trackingNumber
        })
        assert.strictEqual(tracked.status, "delivered")
        assert.deepStrictEqual(
          tracked.events.map(({ status, rawStatus }) => [status, rawStatus]),
          [
            ["created", "order_information_received_by_carrier"],
            ["picked_up", "picked"],
            ["delivered", "livred"]
          ]
        )
      }).pipe(Effect.provide(core))
    )

    it.live("a refusal reaches the caller as the tenant's CourierError", () =>
      Effect.gen(function* () {
        const shipping = yield* Shipping.Shipping
        const error = yield* Effect.flip(
          shipping.rates({ courier: "dhd", credentials, query: query({ toWilaya: UNSERVED[0], deliveryType: "home" }) })
        )
        assert.strictEqual(error._tag, "CourierError")
        if (error._tag === "CourierError") {
          assert.strictEqual(error.courier, "dhd")
          assert.strictEqual(error.reason._tag, "Refused")
          assert.match(error.message, /^dhd rates: the courier does not deliver to wilaya/)
        }
      }).pipe(Effect.provide(core))
    )

    it.live("malformed credentials are refused before any call, without being quoted", () =>
      Effect.gen(function* () {
        const shipping = yield* Shipping.Shipping
        const fake = yield* EcotrackFake
        const token = "my secret token with spaces"
        const error = yield* Effect.flip(
          shipping.rates({
            courier: "dhd",
            credentials: { token },
            query: query({ toWilaya: 16, deliveryType: "home" })
          })
        )
        assert.strictEqual(error._tag, "InvalidCredentials")
        assert.notInclude(JSON.stringify(error), "secret")
        assert.strictEqual(fake.requests.length, 0)
      }).pipe(Effect.provide(core))
    )
  })
})
