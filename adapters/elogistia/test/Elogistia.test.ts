import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Redaction, Shipment } from "@tawsil/courier"
import { LoopbackHttp } from "@tawsil/courier/testing"
import { Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Elogistia.ts"
import * as Mapping from "../src/ElogistiaMapping.ts"
import { ElogistiaFake, KEY, type Misbehaviour, NO_DESK, UNSERVED } from "./fake/ElogistiaFake.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: KEY }) }

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "0555123456",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, track, rates, label } = adapter.operations as Required<typeof adapter.operations>

/** Runs `effect` against a fresh fake through the loopback `CourierHttp`, optionally scrubbed as the host does. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, ElogistiaFake | CourierHttp.CourierHttp>,
  options: { readonly scrubbed?: boolean } = {}
) =>
  Effect.provide(
    effect,
    Layer.effect(
      CourierHttp.CourierHttp,
      Effect.map(ElogistiaFake, (fake) => {
        const http = LoopbackHttp.make(fake.origin, "300 millis")
        return options.scrubbed === true ? Redaction.scrubbing(http, Redaction.scrubber([KEY])) : http
      })
    ).pipe(Layer.provideMerge(ElogistiaFake.layer()))
  )

const raw = (request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))

describe("Elogistia", () => {
  it("declares one courier on api.elogistia.com, its apiKey, 100 requests a minute and every operation", () => {
    assert.strictEqual(adapter.platform, "elogistia")
    assert.deepStrictEqual(
      adapter.couriers.map(({ key, name, endpoint }) => [key, name, endpoint]),
      [["elogistia", "Elogistia", { origin: "https://api.elogistia.com" }]]
    )
    assert.deepStrictEqual(adapter.requiredCredentials, ["apiKey"])
    const { create, track, rates, label } = adapter.capabilities
    assert.deepStrictEqual({ create, track, rates, label }, { create: true, track: true, rates: true, label: true })
    assert.deepStrictEqual(
      adapter.rateLimits.map(({ limit }) => limit),
      [100]
    )
  })

  it("keeps the key redacted, and refuses one that would need escaping in a URL without quoting it", () => {
    const decoded = Schema.decodeUnknownSync(Credentials)({ apiKey: "a".repeat(64) })
    assert.strictEqual(Redacted.value(decoded.apiKey), "a".repeat(64))
    assert.notInclude(JSON.stringify(decoded), "aaaa")
    for (const bad of [
      "short",
      "with space-0123",
      "amp&key=0123456",
      "line\nbreak-0123",
      "clé-0123456789",
      "x".repeat(513)
    ]) {
      const result = Schema.decodeUnknownResult(Credentials)({ apiKey: bad })
      assert.isTrue(Result.isFailure(result), bad)
      if (Result.isFailure(result)) assert.notInclude(result.failure.message, bad)
    }
  })

  it.live("creates with every field in the query string and no body, the key as apiKey", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        const created = yield* create(order(), context)
        assert.match(created.trackingNumber, /^L-[0-9A-Z]{6}$/)
        assert.strictEqual(created.rawStatus, "À expédiée")
        const [request, ...rest] = fake.requests
        assert.lengthOf(rest, 0)
        assert.strictEqual(request?.method, "POST")
        assert.strictEqual(request?.path, "/insertCommande/")
        assert.strictEqual(request?.text, "")
        assert.deepStrictEqual(request?.query, { ...Mapping.query(Mapping.toInsertCommande(order())), apiKey: KEY })
        assert.isTrue(fake.parcels.has(created.trackingNumber))
      })
    )
  )

  it.live.each<readonly [string, Record<string, unknown>, string]>([
    [
      "an unknown commune",
      {
        recipient: {
          fullName: "Ali Bey",
          phone: "0555123456",
          wilayaCode: 16,
          communeName: "Atlantis",
          addressLine: "x"
        }
      },
      "Cette commune n'existe pas"
    ],
    [
      "an unserved wilaya",
      {
        recipient: {
          fullName: "Ali Bey",
          phone: "0555123456",
          wilayaCode: UNSERVED[0],
          communeName: "Illizi",
          addressLine: "x"
        }
      },
      "n'est pas desservie"
    ],
    [
      "a home parcel without address",
      { recipient: { fullName: "Ali Bey", phone: "0555123456", wilayaCode: 16, communeName: "Hydra" } },
      "address est obligatoire"
    ],
    [
      "a desk where there is none",
      {
        deliveryType: "stopdesk",
        recipient: { fullName: "Ali Bey", phone: "0555123456", wilayaCode: NO_DESK[0], communeName: "Tindouf" }
      },
      "Pas de stop desk"
    ]
  ])("passes the courier's refusal on: %s", ([, overrides, says]) =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        const reason = yield* Effect.flip(create(order(overrides), context))
        assert.strictEqual(reason._tag, "Refused")
        assert.include(reason.message, says)
        assert.strictEqual(fake.parcels.size, 0)
      })
    )
  )

  it.live("tracks the history, prices from the list with the key as key, labels the parcel", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        const { trackingNumber } = yield* create(order(), context)
        fake.setClock("2026-04-20 08:05:12")
        fake.addStatus(trackingNumber, "en cours livraison")
        assert.deepStrictEqual(yield* track(trackingNumber, context), [
          { rawStatus: "En cours livraison", timestamp: "2026-04-20T08:05:12+01:00" },
          { rawStatus: "À expédiée", timestamp: "2026-04-18T19:45:07+01:00" }
        ])
        const priced = yield* rates(query({ toWilaya: 16, deliveryType: "stopdesk" }), context)
        assert.strictEqual(priced.total, 250)
        const printed = yield* label(trackingNumber, context)
        assert.include(new TextDecoder().decode(printed.bytes), trackingNumber)
        assert.deepStrictEqual(
          fake.requests.slice(1).map(({ method, path, query }) => [method, path, query]),
          [
            ["GET", "/getTracking/", { tracking: trackingNumber, apiKey: KEY }],
            ["GET", "/getShippingCost/", { key: KEY }],
            ["GET", "/printBordereau_10x15/", { tracking: trackingNumber, apiKey: KEY }]
          ]
        )
        const unknown = yield* Effect.flip(label("L-NOPE00", context))
        assert.include(unknown.message, "Commande introuvable")
      })
    )
  )

  it.live("the fake refuses the key in a header or in the other parameter, and a path without its slash", () =>
    withFake(
      Effect.gen(function* () {
        for (const request of [
          { method: "GET", path: "/getShippingCost/", query: { apiKey: KEY } },
          { method: "GET", path: "/getTracking/", query: { key: KEY, tracking: "L-1" } },
          {
            method: "GET",
            path: "/getTracking/",
            query: { tracking: "L-1" },
            headers: { authorization: `Bearer ${KEY}` }
          }
        ] satisfies ReadonlyArray<CourierHttp.CourierRequest>) {
          assert.strictEqual((yield* raw(request)).status, 401, JSON.stringify(request.query))
        }
        assert.strictEqual((yield* raw({ method: "GET", path: "/getShippingCost", query: { key: KEY } })).status, 404)
      })
    )
  )

  describe("the key in failures", () => {
    const operations: ReadonlyArray<
      readonly [string, () => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>]
    > = [
      ["create", () => create(order(), context)],
      ["track", () => track("L-000001", context)],
      ["rates", () => rates(query({ toWilaya: 16, deliveryType: "home" }), context)],
      ["label", () => label("L-000001", context)]
    ]

    // The adapter's own guarantee: no failure quotes a key value, even with nothing blanking the answers.
    it.live.each<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"]]>([
      ["a refusal quoting the URL", { kind: "quoteUrl" }, "Refused"],
      ["a redirect carrying the key", { kind: "redirectWithKey" }, "BadResponse"],
      ["a crash page quoting the URL", { kind: "crashQuotingUrl" }, "Unreachable"],
      ["the key refused in words", { kind: "keyRefusedIn200" }, "CredentialsRejected"]
    ])("%s, unscrubbed", ([, misbehaviour, tag]) =>
      withFake(
        Effect.forEach(operations, ([name, run]) =>
          Effect.gen(function* () {
            const fake = yield* ElogistiaFake
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, tag, name)
            assert.notInclude(JSON.stringify(reason), KEY, name)
            assert.notInclude(reason.message, KEY, name)
          })
        )
      )
    )

    // A key quoted in free words is the host's to blank out (Redaction): with it, as the core runs adapters, nothing.
    it.live("a 401 quoting the key in its words, through the host's redaction", () =>
      withFake(
        Effect.forEach(operations, ([name, run]) =>
          Effect.gen(function* () {
            const fake = yield* ElogistiaFake
            fake.misbehaveNext({ kind: "rejectQuotingKey" })
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, "CredentialsRejected", name)
            assert.notInclude(reason.message, KEY, name)
            assert.include(reason.message, "<redacted>", name)
          })
        ),
        { scrubbed: true }
      )
    )
  })
})
