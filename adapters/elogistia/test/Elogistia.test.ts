import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Redaction, Shipment } from "@tawsil/courier"
import { LoopbackHttp } from "@tawsil/courier/testing"
import { WilayaCode } from "@tawsil/domain"
import { Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Elogistia.ts"
import * as Mapping from "../src/ElogistiaMapping.ts"
import { CANNOT_DELETE, ElogistiaFake, KEY, type Misbehaviour, NO_DESK, UNSERVED } from "./fake/ElogistiaFake.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: KEY }) }

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "0555123456",
      wilayaCode: wilaya(16),
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, track, rates, label, cancel, trackBatch, stopDesks, communes, checkCredentials } =
  adapter.operations as Required<typeof adapter.operations>

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

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
          wilayaCode: wilaya(16),
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
      { recipient: { fullName: "Ali Bey", phone: "0555123456", wilayaCode: wilaya(16), communeName: "Hydra" } },
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

  it.live("tracks a batch in one getManyTracking/ call, the numbers comma-separated, unknown ones left out", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        const first = yield* create(order(), context)
        const second = yield* create(order({ reference: "CMD-8" }), context)
        fake.setClock("2026-04-20 08:05:12")
        fake.addStatus(second.trackingNumber, "Ramassée")
        const before = fake.requests.length
        const batch = yield* trackBatch([first.trackingNumber, second.trackingNumber, "L-NOPE00"], context)
        assert.deepStrictEqual([...batch.keys()], [first.trackingNumber, second.trackingNumber])
        assert.deepStrictEqual(batch.get(first.trackingNumber), [
          { rawStatus: "À expédiée", timestamp: "2026-04-18T19:45:07+01:00" }
        ])
        assert.deepStrictEqual(batch.get(second.trackingNumber), [
          { rawStatus: "À expédiée", timestamp: "2026-04-18T19:45:09+01:00" },
          { rawStatus: "Ramassée", timestamp: "2026-04-20T08:05:12+01:00" }
        ])
        assert.deepStrictEqual(
          fake.requests.slice(before).map(({ method, path, query }) => [method, path, query]),
          [
            [
              "GET",
              "/getManyTracking/",
              { tracking: `${first.trackingNumber},${second.trackingNumber},L-NOPE00`, apiKey: KEY }
            ]
          ]
        )
        // Nothing to ask, or too much to ask in one call: no request.
        assert.strictEqual((yield* trackBatch([], context)).size, 0)
        const many = Array.from({ length: 101 }, (_, i) => `L-${String(i).padStart(6, "0")}`)
        const refused = yield* Effect.flip(trackBatch(many, context))
        assert.strictEqual(refused._tag, "Refused")
        assert.include(refused.message, "at most 100")
        assert.lengthOf(fake.requests, before + 1)
      })
    )
  )

  it.live("cancels through deleteOrder/ before pickup; after it, the courier's refusal is NotCancellable", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        const waiting = yield* create(order(), context)
        const before = fake.requests.length
        yield* cancel(waiting.trackingNumber, context)
        assert.deepStrictEqual(
          fake.requests.slice(before).map(({ method, path, query, text }) => [method, path, query, text]),
          [["GET", "/deleteOrder/", { tracking: waiting.trackingNumber, apiKey: KEY }, ""]]
        )
        assert.isFalse(fake.parcels.has(waiting.trackingNumber))

        const picked = yield* create(order({ reference: "CMD-9" }), context)
        fake.addStatus(picked.trackingNumber, "Ramassée")
        const late = yield* Effect.flip(cancel(picked.trackingNumber, context))
        assert.strictEqual(late._tag, "NotCancellable")
        assert.include(late.message, CANNOT_DELETE)
        assert.include(late.message, "Ramassée")
        assert.isTrue(fake.parcels.has(picked.trackingNumber))
        assert.deepStrictEqual(
          fake.requests.slice(-2).map(({ path }) => path),
          ["/deleteOrder/", "/getTracking/"]
        )

        // An unknown parcel is refused in the courier's words, not as past pickup.
        const unknown = yield* Effect.flip(cancel("L-NOPE00", context))
        assert.strictEqual(unknown._tag, "Refused")
        assert.include(unknown.message, "Commande introuvable")
      })
    )
  )

  it.live("lists a wilaya's desks from getAgences/?type=2 and its communes from getMunicipalities/", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        assert.deepStrictEqual(yield* stopDesks(wilaya(16), context), [
          {
            id: "Agence Bab Ezzouar",
            name: "Agence Bab Ezzouar",
            wilayaCode: wilaya(16),
            communeName: "Bab Ezzouar",
            address: "Rue principale, Bab Ezzouar"
          },
          {
            id: "Agence Hydra",
            name: "Agence Hydra",
            wilayaCode: wilaya(16),
            communeName: "Hydra",
            address: "Rue principale, Hydra"
          }
        ])
        assert.deepStrictEqual(yield* stopDesks(wilaya(NO_DESK[0] ?? 37), context), [])
        assert.deepStrictEqual(yield* communes(wilaya(16), context), [
          { name: "Alger Centre", id: "1600", home: true, stopdesk: false },
          { name: "Bab Ezzouar", id: "1601", home: true, stopdesk: true },
          { name: "Hydra", id: "1602", home: true, stopdesk: true },
          { name: "Kouba", id: "1603", home: true, stopdesk: false }
        ])
        assert.deepStrictEqual(
          fake.requests.map(({ method, path, query }) => [method, path, query]),
          [
            ["GET", "/getAgences/", { type: "2", key: KEY }],
            ["GET", "/getAgences/", { type: "2", key: KEY }],
            ["GET", "/getMunicipalities/", { wilaya: "16", key: KEY }],
            ["GET", "/getAgences/", { type: "2", key: KEY }]
          ]
        )
      })
    )
  )

  it.live("checks the key with one getWilayas/ read, and a refused key is CredentialsRejected", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ElogistiaFake
        yield* checkCredentials(undefined, context)
        assert.deepStrictEqual(
          fake.requests.map(({ method, path, query }) => [method, path, query]),
          [["GET", "/getWilayas/", { key: KEY }]]
        )
        const wrong = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: "not-the-key-0123" }) }
        const refused = yield* Effect.flip(checkCredentials(undefined, wrong))
        assert.strictEqual(refused._tag, "CredentialsRejected")
        fake.misbehaveNext({ kind: "keyRefusedIn200" })
        assert.strictEqual((yield* Effect.flip(checkCredentials(undefined, context)))._tag, "CredentialsRejected")
        assert.strictEqual(fake.parcels.size, 0)
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
      ["label", () => label("L-000001", context)],
      ["cancel", () => cancel("L-000001", context)],
      ["trackBatch", () => trackBatch(["L-000001", "L-000002"], context)],
      ["stopDesks", () => stopDesks(wilaya(16), context)],
      ["communes", () => communes(wilaya(16), context)],
      ["checkCredentials", () => checkCredentials(undefined, context)]
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
