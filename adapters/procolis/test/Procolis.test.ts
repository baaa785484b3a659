import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { type Duration, Effect, Layer, Random, Redacted, Result, Schema } from "effect"
import { adapter, CONFIRM_ON_CREATE, Credentials, createWith } from "../src/Procolis.ts"
import * as Mapping from "../src/ProcolisMapping.ts"
import {
  ACCOUNT,
  type Misbehaviour,
  NO_DESK,
  ProcolisFake,
  type RecordedRequest,
  tariff,
  UNSERVED
} from "./fake/ProcolisFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)(ACCOUNT) }

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

const { create, track, rates, trackBatch, checkCredentials } = adapter.operations as Required<
  Pick<typeof adapter.operations, "create" | "track" | "rates" | "trackBatch" | "checkCredentials">
>
const createThenPret = createWith({ confirmOnCreate: false })

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, ProcolisFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(ProcolisFake.layer())))

const assertAuthenticated = (request: RecordedRequest) => {
  assert.strictEqual(request.headers.token, ACCOUNT.token, request.path)
  assert.strictEqual(request.headers.key, ACCOUNT.key, request.path)
  assert.strictEqual(request.headers.accept, "application/json", request.path)
  assert.isUndefined(request.headers.authorization, request.path)
}

const assertNoSecret = (reason: CourierError.CourierErrorReason) => {
  for (const secret of [ACCOUNT.token, ACCOUNT.key]) {
    assert.notInclude(JSON.stringify(reason), secret)
    assert.notInclude(reason.message, secret)
  }
}

/** A raw request to the fake, as a mistaken adapter would send it. */
const raw = (request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))

const validColis = () => Mapping.toColis(order(), "TWLRAW000000001", { confirmed: true })

describe("Procolis", () => {
  describe("manifest", () => {
    it("declares the platform, its five couriers, the token and key, and what it can do (no label)", () => {
      assert.strictEqual(adapter.platform, "procolis")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, name }) => [key, name]),
        [
          ["zrexpress", "ZR Express"],
          ["abex", "ABEX Express"],
          ["leopard_express", "Leopard Express"],
          ["colilog", "Colilog Express"],
          ["flash_delivery", "Flash Delivery"]
        ]
      )
      assert.deepStrictEqual(adapter.requiredCredentials, ["token", "key"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: false,
        cancel: false,
        dispatch: false,
        trackBatch: true,
        createBatch: false,
        stopDesks: false,
        communes: false,
        checkCredentials: true,
        push: false
      })
      assert.isTrue(CONFIRM_ON_CREATE)
    })

    it("pins every courier to procolis.com, a valid origin", () => {
      for (const { key, endpoint } of adapter.couriers) {
        assert.deepStrictEqual(endpoint, { origin: "https://procolis.com" }, key)
        assert.isTrue(Result.isSuccess(Egress.parseOrigin("https://procolis.com")))
      }
    })

    it("resolves every key and the public dzship catalogue's names in a catalogue", () => {
      const catalogue = Catalogue.make([adapter])
      for (const [name, key] of [
        ["zrexpress", "zrexpress"],
        ["ZRExpress", "zrexpress"],
        ["abex", "abex"],
        ["abexexpress", "abex"],
        ["leopardexpress", "leopard_express"],
        ["colilog", "colilog"],
        ["flashdelivery", "flash_delivery"],
        ["flash_delivery", "flash_delivery"]
      ] as const) {
        assert.strictEqual(catalogue.resolve(name)?.manifest.key, key, name)
      }
      assert.deepStrictEqual(
        catalogue.list({ q: "leopard" }).map(({ key }) => key),
        ["leopard_express"]
      )
    })

    it("keeps the token and key redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ token: "t".repeat(64), key: "k".repeat(32) })
      assert.strictEqual(Redacted.value(decoded.token), "t".repeat(64))
      assert.notInclude(JSON.stringify(decoded), "tttt")
      assert.notInclude(String(decoded.key), "kkkk")
      for (const bad of ["short", "with a space-inside", "line\nbreak-0123456789", "x".repeat(513), "clé-0123456789"]) {
        for (const credentials of [
          { token: bad, key: ACCOUNT.key },
          { token: ACCOUNT.token, key: bad }
        ]) {
          const result = Schema.decodeUnknownResult(Credentials)(credentials)
          assert.isTrue(Result.isFailure(result), JSON.stringify(credentials))
          if (Result.isFailure(result)) assert.notInclude(result.failure.message, bad)
        }
      }
    })
  })

  describe("create", () => {
    it.live("creates a confirmed parcel in one authenticated add_colis call, tracking number chosen by us", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^TWL[0-9A-Z]{12}$/)
          assert.strictEqual(created.rawStatus, "Prêt à expédier")
          assert.strictEqual(adapter.statuses[created.rawStatus], "pending_pickup")

          const [call, ...rest] = fake.requests
          assert.lengthOf(rest, 0)
          assert.strictEqual(call?.method, "POST")
          assert.strictEqual(call?.path, "/api_v1/add_colis")
          assert.strictEqual(call?.headers["content-type"], "application/json")
          assert.deepStrictEqual(call?.body, {
            Colis: [Mapping.toColis(order(), created.trackingNumber, { confirmed: true })]
          })
          assertAuthenticated(call!)

          const parcel = fake.parcels.get(created.trackingNumber)
          assert.strictEqual(parcel?.situation, "Prêt à expédier", "confirmed, so the courier will collect it")
          assert.strictEqual(parcel?.fields.MobileA, "0555123456")
          assert.strictEqual(parcel?.fields.IDWilaya, "16")
        })
      )
    )

    it.live("with confirmation as a separate step: add_colis leaves it en préparation, pret confirms it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          const created = yield* createThenPret(order(), context)
          assert.deepStrictEqual(
            fake.requests.map((request) => `${request.method} ${request.path}`),
            ["POST /api_v1/add_colis", "POST /api_v1/pret"]
          )
          const added = fake.requests[0]?.body as { Colis: Array<{ Confrimee: string }> } | undefined
          assert.strictEqual(added?.Colis[0]?.Confrimee, "")
          assert.deepStrictEqual(fake.requests[1]?.body, { Colis: [{ Tracking: created.trackingNumber }] })
          for (const request of fake.requests) assertAuthenticated(request)
          assert.strictEqual(fake.parcels.get(created.trackingNumber)?.situation, "Prêt à expédier")
        })
      )
    )

    it.live(
      "refuses what the courier refuses on HTTP 200: a wilaya it does not serve, a second parcel with one tracking",
      () =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* ProcolisFake
            const unserved = yield* Effect.flip(
              create(order({ recipient: { ...order().recipient, wilayaCode: UNSERVED[0] } }), context)
            )
            assert.strictEqual(unserved._tag, "Refused")
            assert.include(unserved.message, "Wilaya non desservie")
            assert.strictEqual(fake.parcels.size, 0)

            // The same random sequence chooses the same tracking number twice.
            const first = yield* create(order(), context).pipe(Random.withSeed("tawsil"))
            const twice = yield* Effect.flip(create(order(), context).pipe(Random.withSeed("tawsil")))
            assert.strictEqual(twice._tag, "Refused")
            if (twice._tag === "Refused") assert.strictEqual(twice.courierCode, "Double Tracking")
            assert.strictEqual(fake.parcels.size, 1)
            assert.isTrue(fake.parcels.has(first.trackingNumber))
          })
        )
    )

    it.live("lets the courier refuse a home delivery without address", () =>
      withFake(
        Effect.gen(function* () {
          const { addressLine: _, ...recipient } = order().recipient
          const reason = yield* Effect.flip(create(order({ recipient }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "Adresse obligatoire")
        })
      )
    )

    it.live.each<readonly [string, Misbehaviour, string]>([
      ["a 502", { kind: "status", status: 502 }, "HTTP 502"],
      ["a rate limit", { kind: "rateLimited", retryAfter: "30" }, "retry after 30 s"],
      ["a refusal", { kind: "refuse", message: "Tracking introuvable" }, "Tracking introuvable"],
      ["an HTML page", { kind: "html" }, "not JSON"],
      ["a dropped connection", { kind: "reset" }, "could not be reached"],
      ["no answer", { kind: "hang" }, "did not answer in time"]
    ])(
      "pret failing with %s: a refusal naming the tracking number, never a retryable error",
      ([, misbehaviour, says]) =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* ProcolisFake
            fake.misbehaveNext(misbehaviour, "/api_v1/pret")
            const reason = yield* Effect.flip(createThenPret(order(), context))
            const [tracking] = [...fake.parcels.keys()]
            assert.strictEqual(reason._tag, "Refused")
            assert.include(reason.message, `created the parcel ${tracking}`)
            assert.include(reason.message, says)
            assert.strictEqual(fake.parcels.get(tracking!)?.situation, "En Préparation")
            assertNoSecret(reason)
          }),
          { timeout: "300 millis" }
        )
    )
  })

  describe("track", () => {
    it.live("reads the current situation as one raw event in Algiers time, for exactly the asked parcel", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          const { trackingNumber } = yield* create(order(), context)
          assert.deepStrictEqual(yield* track(trackingNumber, context), [
            { rawStatus: "Prêt à expédier", timestamp: "2026-04-18T19:45:06+01:00" }
          ])
          fake.setClock("2026-04-20T08:05:12.900")
          fake.setSituation(trackingNumber, "SD - Appel sans Réponse 2")
          assert.deepStrictEqual(yield* track(trackingNumber, context), [
            { rawStatus: "SD - Appel sans Réponse 2", timestamp: "2026-04-20T08:05:12+01:00" }
          ])
          const request = fake.requests.at(-1)!
          assert.strictEqual(request.method, "POST")
          assert.strictEqual(request.path, "/api_v1/lire")
          assert.deepStrictEqual(request.body, { Colis: [{ Tracking: trackingNumber }] })
          assertAuthenticated(request)
        })
      )
    )

    it.live("refuses a tracking number the courier does not know (its literal null), and a prefix of a known one", () =>
      withFake(
        Effect.gen(function* () {
          const { trackingNumber } = yield* create(order(), context)
          for (const asked of ["TWLNOPE00000000", trackingNumber.slice(0, -1)]) {
            const reason = yield* Effect.flip(track(asked, context))
            assert.strictEqual(reason._tag, "Refused", asked)
            assert.include(reason.message, "trackingNumber")
          }
        })
      )
    )
  })

  describe("rates", () => {
    it.live.each<readonly [string, number, "home" | "stopdesk"]>([
      ["home to Algiers", 16, "home"],
      ["stop desk in Oran", 31, "stopdesk"],
      ["home where there is no desk", NO_DESK[0]!, "home"]
    ])("prices %s from the courier's tariff", ([, toWilaya, deliveryType]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          const result = yield* rates(query({ toWilaya, deliveryType, codAmount: 9000 }), context)
          const [home, desk, back] = tariff(toWilaya)
          const deliveryFee = deliveryType === "home" ? home : desk
          assert.strictEqual(result.deliveryFee, deliveryFee)
          assert.strictEqual(result.returnFee, back)
          assert.strictEqual(result.codFee, 0)
          assert.strictEqual(result.total, deliveryFee)
          assert.deepStrictEqual(
            result.options.map((option) => [option.deliveryType, option.deliveryFee]),
            desk === 0
              ? [["home", home]]
              : [
                  ["home", home],
                  ["stopdesk", desk]
                ]
          )
          const [request] = fake.requests
          assert.strictEqual(request?.method, "POST")
          assert.strictEqual(request?.path, "/api_v1/tarification")
          assertAuthenticated(request!)
        })
      )
    )

    it.live.each<readonly [string, Record<string, unknown>, string, number]>([
      [
        "a wilaya the courier does not serve",
        { toWilaya: UNSERVED[0], deliveryType: "home" },
        `wilaya ${UNSERVED[0]}`,
        1
      ],
      ["a stop desk where there is none", { toWilaya: NO_DESK[0], deliveryType: "stopdesk" }, "no stop-desk", 1],
      ["the express tier, before any call", { toWilaya: 16, deliveryType: "home", tier: "express" }, "express", 0]
    ])("refuses %s", ([, asked, says, calls]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          const reason = yield* Effect.flip(rates(query(asked), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, says)
          assert.lengthOf(fake.requests, calls)
        })
      )
    )
  })

  describe("failures, on every operation", () => {
    const operations: ReadonlyArray<
      readonly [string, () => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>]
    > = [
      ["create", () => create(order(), context)],
      ["track", () => track("TWL000000000001", context)],
      ["rates", () => rates(query({ toWilaya: 16, deliveryType: "home" }), context)]
    ]

    it.live.each<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"]]>([
      ["a 500 → Unreachable", { kind: "status", status: 500 }, "Unreachable"],
      ["a redirect → BadResponse", { kind: "status", status: 301 }, "BadResponse"],
      ["an HTML page → BadResponse", { kind: "html" }, "BadResponse"],
      ["a 429 → CourierRateLimited", { kind: "rateLimited", retryAfter: "42" }, "CourierRateLimited"],
      ["a dropped connection → Unreachable", { kind: "reset" }, "Unreachable"],
      ["no answer → Unreachable", { kind: "hang" }, "Unreachable"],
      ["a refusal quoting the token → Refused", { kind: "echoToken" }, "Refused"]
    ])("%s", ([, misbehaviour, tag]) =>
      withFake(
        Effect.forEach(operations, ([name, run]) =>
          Effect.gen(function* () {
            const fake = yield* ProcolisFake
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, tag, name)
            if (reason._tag === "CourierRateLimited") assert.strictEqual(reason.retryAfterSeconds, 42)
            // A courier that echoes a credential is blanked out by the core, before and after the adapter (conformance "secrets").
            if (misbehaviour.kind !== "echoToken") assertNoSecret(reason)
          })
        ),
        { timeout: "300 millis" }
      )
    )

    it.live("answers CredentialsRejected when the courier does not know the token and key", () =>
      withFake(
        Effect.forEach(
          [
            { token: ACCOUNT.token, key: "another-key-000" },
            { token: "another-token-000", key: ACCOUNT.key }
          ],
          (credentials) =>
            Effect.gen(function* () {
              const decoded = { credentials: Schema.decodeUnknownSync(Credentials)(credentials) }
              const runs: ReadonlyArray<
                Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>
              > = [
                create(order(), decoded),
                track("TWL000000000001", decoded),
                rates(query({ toWilaya: 16, deliveryType: "home" }), decoded)
              ]
              for (const run of runs) {
                assert.strictEqual((yield* Effect.flip(run))._tag, "CredentialsRejected")
              }
            })
        )
      )
    )
  })

  describe("the fake refuses what Procolis refuses, so that a wrong mapping fails", () => {
    it.live("a misspelled or missing field, a wilaya code not on two digits, a phone in another form", () =>
      withFake(
        Effect.gen(function* () {
          const headers = { token: ACCOUNT.token, key: ACCOUNT.key }
          const { Confrimee, ...withoutConfirmation } = validColis()
          for (const [colis, says] of [
            [{ ...withoutConfirmation, Confirmee: Confrimee }, "Champ inconnu : Confirmee"],
            [withoutConfirmation, "Confrimee obligatoire"],
            [{ ...validColis(), IDWilaya: "16 " }, "Wilaya non reconnue"],
            [{ ...validColis(), IDWilaya: "9" }, "Wilaya non reconnue"],
            [{ ...validColis(), MobileA: "+213555123456" }, "MobileA invalide"],
            [{ ...validColis(), TProduit: "" }, "TProduit obligatoire"]
          ] as const) {
            const response = yield* raw({
              method: "POST",
              path: "/api_v1/add_colis",
              headers,
              json: { Colis: [colis] }
            })
            assert.strictEqual(response.status, 200, says)
            const refused = Mapping.fromColisResults(validColis().Tracking, response)
            assert.isTrue(Result.isFailure(refused) && refused.failure.message.includes(says), says)
          }
        })
      )
    )

    it.live("a GET where the API reads with POST, and credentials in any other header", () =>
      withFake(
        Effect.gen(function* () {
          const lire = yield* raw({
            method: "GET",
            path: "/api_v1/lire",
            headers: { token: ACCOUNT.token, key: ACCOUNT.key }
          })
          assert.strictEqual(lire.status, 405)
          for (const headers of [
            { authorization: `Bearer ${ACCOUNT.token}` },
            { id: ACCOUNT.key, token: ACCOUNT.token },
            { Token: ACCOUNT.key, Key: ACCOUNT.token }
          ]) {
            const refused = yield* raw({ method: "POST", path: "/api_v1/tarification", headers, json: {} })
            assert.strictEqual(refused.status, 401, JSON.stringify(Object.keys(headers)))
          }
        })
      )
    )
  })

  describe("trackBatch", () => {
    it.live("reads several parcels in one lire, each at its current situation; an unknown number is left out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          const first = (yield* create(order(), context)).trackingNumber
          const second = (yield* create(order({ reference: "CMD-8" }), context)).trackingNumber
          fake.setClock("2026-04-20T14:02:33.120")
          fake.setSituation(second, "En livraison")
          const before = fake.requests.length
          const found = yield* trackBatch([first, "TWLUNKNOWN0000", second, first], context)
          assert.deepStrictEqual([...found.keys()], [first, second])
          assert.strictEqual(found.get(first)?.[0]?.rawStatus, "Prêt à expédier")
          assert.deepStrictEqual(found.get(second), [
            { rawStatus: "En livraison", timestamp: "2026-04-20T14:02:33+01:00" }
          ])
          const sent = fake.requests.slice(before)
          assert.deepStrictEqual(
            sent.map(({ method, path }) => `${method} ${path}`),
            ["POST /api_v1/lire"]
          )
          assert.deepStrictEqual(sent[0]?.body, {
            Colis: [{ Tracking: first }, { Tracking: "TWLUNKNOWN0000" }, { Tracking: second }]
          })
          assertAuthenticated(sent[0]!)
        })
      )
    )

    it.live("answers an empty map for the courier's null, and sends nothing for none or more than 100", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          assert.strictEqual((yield* trackBatch(["TWLUNKNOWN0000", "TWLUNKNOWN0001"], context)).size, 0)
          assert.lengthOf(fake.requests, 1)
          assert.strictEqual((yield* trackBatch([], context)).size, 0)
          const tooMany = yield* Effect.flip(
            trackBatch(
              Array.from({ length: 101 }, (_, i) => `TWL${i}`),
              context
            )
          )
          assert.strictEqual(tooMany._tag, "Refused")
          assert.include(tooMany.message, "at most 100")
          assert.lengthOf(fake.requests, 1, "nothing more was sent")
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("GET token answers Accès activé for a known account, creating nothing; others are rejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ProcolisFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(
            fake.requests.map(({ method, path }) => `${method} ${path}`),
            ["GET /api_v1/token"]
          )
          assertAuthenticated(fake.requests[0]!)
          const wrong = {
            credentials: Schema.decodeUnknownSync(Credentials)({ ...ACCOUNT, key: "another-key-0000" })
          }
          const reason = yield* Effect.flip(checkCredentials(undefined, wrong))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assertNoSecret(reason)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )
  })
})
