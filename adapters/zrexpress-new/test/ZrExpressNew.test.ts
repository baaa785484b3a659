import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Catalogue } from "@tawsil/shipping"
import { type Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/ZrExpressNew.ts"
import * as Mapping from "../src/ZrExpressNewMapping.ts"
import {
  type Account,
  BAB_EZZOUAR_TARIFF,
  communeId,
  DISCOUNTED_HOME_16,
  HUBS,
  LAST_DELETABLE,
  type Misbehaviour,
  NO_DESK,
  type Options,
  PICKUP_POINTS,
  type RecordedRequest,
  STATES,
  stateId,
  tariff,
  UNSERVED,
  wilayaId,
  ZrExpressNewFake
} from "./fake/ZrExpressNewFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const API_KEY = "zr-test-key-8b1f47c2d9e05a36"

/** Every test has a tenant of its own, so that what one caches is never another's. */
let tenants = 0
const newAccount = (): Account => {
  tenants += 1
  return { tenantId: `0000000a-0000-4000-8000-${String(tenants).padStart(12, "0")}`, apiKey: API_KEY }
}

const contextOf = (account: Account) => ({ credentials: Schema.decodeUnknownSync(Credentials)(account) })

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "0555 12 34 56",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000 logements"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const recipient = (overrides: Record<string, unknown>) => ({ ...order().recipient, ...overrides })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, dispatch, track, rates, cancel, stopDesks, communes, checkCredentials } =
  adapter.operations as Required<
    Pick<
      typeof adapter.operations,
      "create" | "dispatch" | "track" | "rates" | "cancel" | "stopDesks" | "communes" | "checkCredentials"
    >
  >

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

type Context = ReturnType<typeof contextOf>

/** Runs `effect` against a fresh fake (and a fresh tenant) on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: (context: Context, account: Account) => Effect.Effect<A, E, ZrExpressNewFake | CourierHttp.CourierHttp>,
  options: Options & { readonly timeout?: Duration.Input } = {}
) => {
  const account = newAccount()
  return Effect.provide(
    effect(contextOf(account), account),
    Loopback.layer(options).pipe(
      Layer.provideMerge(ZrExpressNewFake.layer({ ...options, accounts: [account, ...(options.accounts ?? [])] }))
    )
  )
}

const calls = (requests: ReadonlyArray<RecordedRequest>) =>
  requests.map((request) => `${request.method} ${request.path}`)

const assertAuthenticated = (request: RecordedRequest, account: Account) => {
  assert.strictEqual(request.headers["x-tenant"], account.tenantId, request.path)
  assert.strictEqual(request.headers["x-api-key"], account.apiKey, request.path)
  assert.strictEqual(request.headers.accept, "application/json", request.path)
  assert.isUndefined(request.headers.authorization, request.path)
}

const assertNoSecret = (reason: CourierError.CourierErrorReason, account: Account) => {
  for (const secret of [account.apiKey, account.tenantId]) {
    assert.notInclude(JSON.stringify(reason), secret)
    assert.notInclude(reason.message, secret)
  }
}

/** A raw request to the fake, as a mistaken adapter would send it. */
const raw = (request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))

/** The read-back after the create, and the state change, whatever the new parcel's id. */
const READ_BACK = /^\/api\/v1\/parcels\/[0-9a-f-]{36}$/
const STATE_CHANGE = /^\/api\/v1\/parcels\/[0-9a-f-]{36}\/state$/

const HUB_ALGIERS = Object.keys(PICKUP_POINTS).find((hub) => PICKUP_POINTS[hub] === 16)!
const HUB_ORAN = Object.keys(PICKUP_POINTS).find((hub) => PICKUP_POINTS[hub] === 31)!

describe("ZrExpressNew", () => {
  describe("manifest", () => {
    it("declares the platform, its courier (not the legacy zrexpress key), its label host, the key and tenant", () => {
      assert.strictEqual(adapter.platform, "zrexpress_new")
      assert.deepStrictEqual(adapter.couriers, [
        {
          key: "zrexpress_new",
          name: "ZR Express (new platform)",
          aliases: ["zrexpressnew"],
          endpoint: { origin: "https://api.zrexpress.app" },
          documents: ["*.blob.core.windows.net"]
        }
      ])
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiKey", "tenantId"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: true,
        trackBatch: false,
        createBatch: false,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: true
      })
      const catalogue = Catalogue.make([adapter])
      assert.strictEqual(catalogue.resolve("zrexpressnew")?.manifest.key, "zrexpress_new")
      assert.strictEqual(catalogue.resolve("ZREXPRESS_NEW")?.manifest.key, "zrexpress_new")
      assert.isUndefined(catalogue.resolve("zrexpress"), "the legacy key belongs to the Procolis adapter")
    })

    it("keeps the key and tenant redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ apiKey: "k".repeat(40), tenantId: newAccount().tenantId })
      assert.strictEqual(Redacted.value(decoded.apiKey), "k".repeat(40))
      assert.notInclude(JSON.stringify(decoded), "kkkk")
      assert.notInclude(JSON.stringify(decoded), "0000000a")
      for (const credentials of [
        { apiKey: "short", tenantId: newAccount().tenantId },
        { apiKey: "with a space-inside", tenantId: newAccount().tenantId },
        { apiKey: "x".repeat(1025), tenantId: newAccount().tenantId },
        { apiKey: API_KEY, tenantId: "tenant-not-a-uuid-123" },
        { apiKey: API_KEY, tenantId: `${newAccount().tenantId}\n` }
      ]) {
        const result = Schema.decodeUnknownResult(Credentials)(credentials)
        assert.isTrue(Result.isFailure(result), JSON.stringify(credentials))
        if (Result.isFailure(result)) {
          assert.notInclude(result.failure.message, credentials.apiKey.slice(0, 20))
          assert.notInclude(result.failure.message, credentials.tenantId.trim())
        }
      }
    })
  })

  describe("create", () => {
    it.live("looks the territories and the ReadyToDispatch state up, creates, reads back, and makes it ready", () =>
      withFake((context, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const created = yield* create(order(), context)
          const parcel = fake.byTracking(created.trackingNumber)
          assert.isDefined(parcel)
          assert.match(created.trackingNumber, /^16-[0-9A-Z]{6}-ZR$/)
          assert.strictEqual(created.courierReference, parcel?.id)
          assert.strictEqual(created.rawStatus, "ReadyToDispatch")
          assert.strictEqual(adapter.statuses[created.rawStatus], "pending_pickup")

          assert.deepStrictEqual(calls(fake.requests), [
            "POST /api/v1/territories/search",
            "POST /api/v1/territories/search",
            "POST /api/v1/workflows/search",
            "POST /api/v1/parcels",
            `GET /api/v1/parcels/${parcel?.id}`,
            `PATCH /api/v1/parcels/${parcel?.id}/state`
          ])
          for (const request of fake.requests) assertAuthenticated(request, account)
          assert.deepStrictEqual(fake.requests[1]?.body, Mapping.communesSearch(wilayaId(16), 1))
          const body = fake.requests[3]?.body as Record<string, unknown>
          const customerId = (body.customer as { customerId: string }).customerId
          assert.deepStrictEqual(
            body,
            Mapping.toCreateParcel(order(), {
              cityTerritoryId: wilayaId(16),
              districtTerritoryId: communeId(16, "Bab Ezzouar"),
              stateId: stateId("ReadyToDispatch"),
              customerId
            })
          )
          assert.deepStrictEqual(fake.requests[5]?.body, {
            parcelId: parcel?.id,
            newStateId: stateId("ReadyToDispatch")
          })

          assert.strictEqual(parcel?.state, "ReadyToDispatch", "the hub will collect it")
          assert.deepStrictEqual(
            parcel?.history.map((row) => row.stateName),
            ["OrderReceived", "ReadyToDispatch"]
          )
        })
      )
    )

    it.live("caches territories and the state per tenant: the next create of that tenant makes three calls", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          yield* create(order(), context)
          const before = fake.requests.length
          const second = yield* create(order({ recipient: recipient({ communeName: "hydra" }) }), context)
          const parcel = fake.byTracking(second.trackingNumber)!
          assert.deepStrictEqual(calls(fake.requests.slice(before)), [
            "POST /api/v1/parcels",
            `GET /api/v1/parcels/${parcel.id}`,
            `PATCH /api/v1/parcels/${parcel.id}/state`
          ])
          assert.strictEqual(
            (parcel.body.deliveryAddress as { districtTerritoryId: string }).districtTerritoryId,
            communeId(16, "Hydra")
          )
          const another = fake.requests.length
          yield* create(order({ recipient: recipient({ wilayaCode: 31, communeName: "Bir El Djir" }) }), context)
          assert.deepStrictEqual(
            calls(fake.requests.slice(another)).slice(0, 2),
            ["POST /api/v1/territories/search", "POST /api/v1/parcels"],
            "a new wilaya: its communes only"
          )
        })
      )
    )

    it.live("skips the state change when the platform created the parcel ready", () =>
      withFake(
        (context) =>
          Effect.gen(function* () {
            const fake = yield* ZrExpressNewFake
            const created = yield* create(order(), context)
            assert.deepStrictEqual(calls(fake.requests).slice(-2), [
              "POST /api/v1/parcels",
              `GET /api/v1/parcels/${created.courierReference}`
            ])
            assert.strictEqual(fake.byTracking(created.trackingNumber)?.state, "ReadyToDispatch")
          }),
        { createHonoursStateId: true }
      )
    )

    it.live("follows every page of a search the platform cuts short", () =>
      withFake(
        (context) =>
          Effect.gen(function* () {
            const fake = yield* ZrExpressNewFake
            const created = yield* create(
              order({ recipient: recipient({ wilayaCode: 58, communeName: "Wilaya 58" }) }),
              context
            )
            const searches = fake.requests.filter((request) => request.path === "/api/v1/territories/search")
            assert.deepStrictEqual(
              searches.map((request) => (request.body as { pageNumber: number }).pageNumber),
              [1, 2, 3, 4, 5, 6, 1]
            )
            assert.match(created.trackingNumber, /^58-/)
          }),
        { maxPageSize: 10 }
      )
    )

    it.live("creates a pickup-point parcel at the given hub", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const created = yield* create(order({ deliveryType: "stopdesk", stopDeskId: HUB_ALGIERS }), context)
          const body = fake.byTracking(created.trackingNumber)?.body
          assert.strictEqual(body?.deliveryType, "pickup-point")
          assert.strictEqual(body?.hubId, HUB_ALGIERS)
        })
      )
    )

    it.live.each<readonly [string, Record<string, unknown>, string, string | undefined]>([
      [
        "a commune the wilaya does not have",
        { recipient: recipient({ communeName: "Bir El Djir" }) },
        "order.recipient.communeName",
        undefined
      ],
      [
        "a stop desk without a hub UUID",
        { deliveryType: "stopdesk", stopDeskId: "3104" },
        "order.stopDeskId",
        undefined
      ],
      [
        "a hub in another wilaya",
        { deliveryType: "stopdesk", stopDeskId: HUB_ORAN },
        "order.stopDeskId: The pickup point is not in the city.",
        "POST /api/v1/parcels"
      ],
      [
        "a wilaya the courier does not serve",
        { recipient: recipient({ wilayaCode: UNSERVED[0], communeName: `Wilaya ${UNSERVED[0]}` }) },
        "n'est pas disponible",
        "POST /api/v1/parcels"
      ]
    ])("refuses %s, creating nothing", ([, overrides, says, last]) =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const reason = yield* Effect.flip(create(order(overrides), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, says)
          assert.strictEqual(fake.parcels.size, 0)
          assert.strictEqual(calls(fake.requests).at(-1), last ?? calls(fake.requests).at(-1))
          if (last === undefined) assert.notInclude(calls(fake.requests), "POST /api/v1/parcels")
        })
      )
    )

    it.live("refuses to create a parcel that would be stranded: a workflow without ReadyToDispatch", () =>
      withFake(
        (context) =>
          Effect.gen(function* () {
            const fake = yield* ZrExpressNewFake
            const reason = yield* Effect.flip(create(order(), context))
            assert.strictEqual(reason._tag, "Refused")
            assert.include(reason.message, "ReadyToDispatch")
            assert.include(reason.message, "nothing was created")
            assert.notInclude(calls(fake.requests), "POST /api/v1/parcels")
          }),
        { states: ["OrderReceived", "Dispatched", "Delivered"] }
      )
    )

    it.live.each<readonly [string, RegExp, Misbehaviour, string]>([
      ["reading it back fails (502)", READ_BACK, { kind: "status", status: 502 }, "HTTP 502"],
      ["reading it back gets no answer", READ_BACK, { kind: "hang" }, "did not answer in time"],
      ["the state change is rate limited", STATE_CHANGE, { kind: "rateLimited", retryAfter: "30" }, "retry after 30 s"],
      [
        "the state change is refused",
        STATE_CHANGE,
        { kind: "refuse", detail: "Transition interdite" },
        "Transition interdite"
      ],
      ["the state change answers HTML", STATE_CHANGE, { kind: "html" }, "not JSON"]
    ])("after the parcel exists, %s: a refusal naming it, never a retryable error", ([, path, misbehaviour, says]) =>
      withFake(
        (context, account) =>
          Effect.gen(function* () {
            const fake = yield* ZrExpressNewFake
            fake.misbehaveNext(misbehaviour, path)
            const reason = yield* Effect.flip(create(order(), context))
            const [parcel] = [...fake.parcels.values()]
            assert.strictEqual(reason._tag, "Refused")
            assert.include(reason.message, path === READ_BACK ? parcel!.id : parcel!.trackingNumber)
            assert.include(reason.message, "do not create it again")
            assert.include(reason.message, says)
            assert.strictEqual(parcel?.state, "OrderReceived")
            assertNoSecret(reason, account)
          }),
        { timeout: "300 millis" }
      )
    )

    it.live("forgets a ReadyToDispatch id the courier refuses, so that the next create looks it up again", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          yield* create(order(), context)
          fake.misbehaveNext({ kind: "refuse", detail: "State not found." }, STATE_CHANGE)
          yield* Effect.flip(create(order(), context))
          const before = fake.requests.length
          yield* create(order(), context)
          assert.deepStrictEqual(calls(fake.requests.slice(before)).slice(0, 2), [
            "POST /api/v1/workflows/search",
            "POST /api/v1/parcels"
          ])
        })
      )
    )
  })

  describe("track", () => {
    it.live("reads the state history of exactly the asked parcel as raw events in Algiers time", () =>
      withFake((context, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const { trackingNumber, courierReference } = yield* create(order(), context)
          fake.setClock("2026-04-20T07:05:12.5000000Z")
          fake.addState(trackingNumber, "OutForDelivery")
          fake.setClock("2026-04-20T13:02:33Z")
          fake.addState(trackingNumber, "Delivered")
          const before = fake.requests.length
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [
            { rawStatus: "OrderReceived", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "ReadyToDispatch", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "OutForDelivery", timestamp: "2026-04-20T08:05:12+01:00" },
            { rawStatus: "Delivered", timestamp: "2026-04-20T14:02:33+01:00" }
          ])
          assert.deepStrictEqual(calls(fake.requests.slice(before)), [
            `GET /api/v1/parcels/${trackingNumber}`,
            `GET /api/v1/parcels/${courierReference}/state-history`
          ])
          for (const request of fake.requests) assertAuthenticated(request, account)
        })
      )
    )

    it.live("reads a tenant's spelling of its states by the rule create uses: created ready, tracked so", () =>
      withFake(
        (context) =>
          Effect.gen(function* () {
            const fake = yield* ZrExpressNewFake
            const { trackingNumber } = yield* create(order(), context)
            fake.addState(trackingNumber, "Out for delivery")
            const events = yield* track(trackingNumber, context)
            assert.deepStrictEqual(
              events.map((event) => event.rawStatus),
              ["OrderReceived", "ReadyToDispatch", "OutForDelivery"]
            )
          }),
        { states: STATES.map((name) => (name === "ReadyToDispatch" ? "Ready To Dispatch" : name)) }
      )
    )

    it.live("refuses an unknown tracking number, and a parcel's id given as one", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const { courierReference } = yield* create(order(), context)
          for (const asked of ["16-NOPE00-ZR", courierReference!]) {
            const reason = yield* Effect.flip(track(asked, context))
            assert.strictEqual(reason._tag, "Refused", asked)
            assert.include(reason.message, "trackingNumber")
          }
        })
      )
    )
  })

  describe("rates", () => {
    it.live.each<readonly [string, Record<string, unknown>, readonly [number, number | null, number], number]>([
      [
        "home to Algiers, at the account's discountedPrice",
        { toWilaya: 16, deliveryType: "home" },
        [DISCOUNTED_HOME_16, tariff(16)[1], tariff(16)[2]],
        1
      ],
      ["a pickup point in Oran", { toWilaya: 31, deliveryType: "stopdesk" }, tariff(31), 1],
      ["home where there is no pickup point", { toWilaya: NO_DESK[0], deliveryType: "home" }, tariff(NO_DESK[0]!), 1],
      [
        "home to Bab Ezzouar, priced on its own",
        { toWilaya: 16, toCommune: "Bab Ezzouar", deliveryType: "home" },
        BAB_EZZOUAR_TARIFF,
        3
      ],
      [
        "home to Hydra, priced as its wilaya",
        { toWilaya: 16, toCommune: "Hydra", deliveryType: "home" },
        [DISCOUNTED_HOME_16, tariff(16)[1], tariff(16)[2]],
        3
      ]
    ])("prices %s from the tenant's rate table", ([, asked, [home, desk, back], requests]) =>
      withFake((context, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const result = yield* rates(query({ ...asked, codAmount: 9000 }), context)
          const deliveryFee = asked.deliveryType === "home" ? home : desk
          assert.strictEqual(result.deliveryFee, deliveryFee)
          assert.strictEqual(result.returnFee, back)
          assert.strictEqual(result.codFee, 0)
          assert.strictEqual(result.total, deliveryFee)
          assert.deepStrictEqual(
            result.options.map((option) => [option.deliveryType, option.deliveryFee]),
            desk === null
              ? [["home", home]]
              : [
                  ["home", home],
                  ["stopdesk", desk]
                ]
          )
          assert.lengthOf(fake.requests, requests)
          assert.strictEqual(calls(fake.requests).at(-1), "GET /api/v1/delivery-pricing/rates")
          for (const request of fake.requests) assertAuthenticated(request, account)
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
      ["a pickup point where there is none", { toWilaya: NO_DESK[0], deliveryType: "stopdesk" }, "no stop-desk", 1],
      [
        "a commune the wilaya does not have",
        { toWilaya: 16, toCommune: "Oran", deliveryType: "home" },
        "communeName",
        2
      ],
      ["the express tier, before any call", { toWilaya: 16, deliveryType: "home", tier: "express" }, "express", 0]
    ])("refuses %s", ([, asked, says, requests]) =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const reason = yield* Effect.flip(rates(query(asked), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, says)
          assert.lengthOf(fake.requests, requests)
        })
      )
    )
  })

  describe("stopDesks", () => {
    it.live("lists the wilaya's pickup points from hubs/search, by their address's territory; a hub is no desk", () =>
      withFake((context, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const algiers = yield* stopDesks(wilaya(16), context)
          assert.deepStrictEqual(algiers, [
            {
              id: HUB_ALGIERS,
              name: "Point relais Bab Ezzouar",
              wilayaCode: wilaya(16),
              communeName: "Bab Ezzouar",
              address: "1 boulevard de l'ALN",
              phone: "+213550000000"
            }
          ])
          assert.isTrue(
            HUBS.some((hub) => hub.wilaya === 16 && !hub.isPickupPoint),
            "the sorting hub is left out"
          )
          assert.deepStrictEqual(calls(fake.requests), ["POST /api/v1/territories/search", "POST /api/v1/hubs/search"])
          for (const request of fake.requests) assertAuthenticated(request, account)
          assert.deepStrictEqual(
            (yield* stopDesks(wilaya(31), context)).map(({ id }) => id),
            [HUB_ORAN]
          )
          assert.deepStrictEqual(yield* stopDesks(wilaya(NO_DESK[0]!), context), [])
          assert.deepStrictEqual(yield* stopDesks(wilaya(UNSERVED[0]!), context), [], "no hub there either")
          assert.strictEqual(
            fake.requests.filter(({ path }) => path === "/api/v1/territories/search").length,
            1,
            "the wilayas come from the tenant's cache"
          )
        })
      )
    )

    it.live("a pickup point listed is one create accepts as stopDeskId", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const [desk] = yield* stopDesks(wilaya(31), context)
          const created = yield* create(
            order({
              deliveryType: "stopdesk",
              stopDeskId: desk!.id,
              recipient: recipient({ wilayaCode: 31, communeName: "Oran" })
            }),
            context
          )
          assert.strictEqual(fake.byTracking(created.trackingNumber)?.body.hubId, desk!.id)
        })
      )
    )
  })

  describe("communes", () => {
    it.live("lists the wilaya's commune territories with their ids and delivery flags, from the tenant's cache", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          assert.deepStrictEqual(yield* communes(wilaya(16), context), [
            { name: "Alger Centre", id: communeId(16, "Alger Centre"), home: true, stopdesk: true },
            { name: "Bab Ezzouar", id: communeId(16, "Bab Ezzouar"), home: true, stopdesk: true },
            { name: "Hydra", id: communeId(16, "Hydra"), home: true, stopdesk: true },
            { name: "Bir Mourad Raïs", id: communeId(16, "Bir Mourad Raïs"), home: true, stopdesk: true },
            { name: "El Marsa", id: communeId(16, "El Marsa"), home: true, stopdesk: true }
          ])
          assert.deepStrictEqual(yield* communes(wilaya(NO_DESK[0]!), context), [
            { name: "Wilaya 1", id: communeId(1, "Wilaya 1"), home: true, stopdesk: false }
          ])
          const searches = fake.requests.length
          yield* create(order(), context)
          assert.strictEqual(
            fake.requests.filter(({ path }) => path === "/api/v1/territories/search").length,
            3,
            `create reused the communes listed: ${searches} searches before it, none after`
          )
        })
      )
    )
  })

  describe("cancel", () => {
    it.live("deletes a ready parcel by its UUID, read from its tracking number", () =>
      withFake((context, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const created = yield* create(order(), context)
          const before = fake.requests.length
          yield* cancel(created.trackingNumber, context)
          assert.deepStrictEqual(calls(fake.requests.slice(before)), [
            `GET /api/v1/parcels/${created.trackingNumber}`,
            `DELETE /api/v1/parcels/${created.courierReference}`
          ])
          for (const request of fake.requests.slice(before)) assertAuthenticated(request, account)
          assert.isUndefined(fake.byTracking(created.trackingNumber), "the parcel is gone")
          const again = yield* Effect.flip(cancel(created.trackingNumber, context))
          assert.strictEqual(again._tag, "Refused", "a parcel the courier no longer knows")
          assert.include(again.message, "trackingNumber")
        })
      )
    )

    it.live("a parcel past ReadyToDispatch: the platform's 409 is NotCancellable, in its words", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const created = yield* create(order(), context)
          const next = STATES[STATES.indexOf(LAST_DELETABLE) + 1]!
          fake.addState(created.trackingNumber, next)
          const reason = yield* Effect.flip(cancel(created.trackingNumber, context))
          assert.strictEqual(reason._tag, "NotCancellable")
          assert.include(reason.message, "ne peut plus être supprimé")
          assert.isDefined(fake.byTracking(created.trackingNumber), "nothing was deleted")
        })
      )
    )
  })

  describe("dispatch", () => {
    it.live("holds a parcel in OrderReceived when asked, with no state lookup, and dispatches it later", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const held = yield* create(order(), { ...context, dispatch: false })
          const parcel = fake.byTracking(held.trackingNumber)
          assert.strictEqual(held.rawStatus, "OrderReceived")
          assert.strictEqual(adapter.statuses[held.rawStatus], "created")
          assert.strictEqual(parcel?.state, "OrderReceived", "the hub will not collect it yet")
          assert.deepStrictEqual(calls(fake.requests), [
            "POST /api/v1/territories/search",
            "POST /api/v1/territories/search",
            "POST /api/v1/parcels",
            `GET /api/v1/parcels/${parcel?.id}`
          ])
          assert.notProperty(fake.requests[2]?.body as object, "stateId")
          const before = fake.requests.length
          const dispatched = yield* dispatch(held.trackingNumber, context)
          assert.deepStrictEqual(dispatched, { rawStatus: "ReadyToDispatch" })
          assert.strictEqual(fake.byTracking(held.trackingNumber)?.state, "ReadyToDispatch")
          assert.deepStrictEqual(calls(fake.requests.slice(before)), [
            `GET /api/v1/parcels/${held.trackingNumber}`,
            "POST /api/v1/workflows/search",
            `PATCH /api/v1/parcels/${parcel?.id}/state`
          ])
        })
      )
    )

    it.live(
      "never moves a parcel back: one ready or past it answers its state; a cancelled or unknown one is refused",
      () =>
        withFake((context) =>
          Effect.gen(function* () {
            const fake = yield* ZrExpressNewFake
            const ready = yield* create(order(), context)
            const before = fake.requests.length
            assert.deepStrictEqual(yield* dispatch(ready.trackingNumber, context), { rawStatus: "ReadyToDispatch" })
            fake.addState(ready.trackingNumber, "Dispatched")
            assert.deepStrictEqual(yield* dispatch(ready.trackingNumber, context), { rawStatus: "Dispatched" })
            assert.isFalse(
              fake.requests.slice(before).some((request) => request.method === "PATCH"),
              "a parcel already handed over is not moved"
            )
            fake.addState(ready.trackingNumber, "Cancelled")
            const cancelled = yield* Effect.flip(dispatch(ready.trackingNumber, context))
            assert.strictEqual(cancelled._tag, "Refused")
            assert.include(cancelled.message, "cancelled")
            fake.addState(ready.trackingNumber, "Téléporté")
            const odd = yield* Effect.flip(dispatch(ready.trackingNumber, context))
            assert.strictEqual(odd._tag, "Refused")
            assert.include(odd.message, "Téléporté")
            const unknown = yield* Effect.flip(dispatch("16-ZZZZZZ-ZR", context))
            assert.strictEqual(unknown._tag, "Refused")
          })
        )
    )

    it.live("a held parcel is still deleted by cancel", () =>
      withFake((context) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const held = yield* create(order(), { ...context, dispatch: false })
          yield* cancel(held.trackingNumber, context)
          assert.isUndefined(fake.byTracking(held.trackingNumber))
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("reads one workflow and creates nothing", () =>
      withFake((context, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(calls(fake.requests), ["POST /api/v1/workflows/search"])
          assert.deepStrictEqual(fake.requests[0]?.body, { pageNumber: 1, pageSize: 1 })
          assertAuthenticated(fake.requests[0]!, account)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )
  })

  describe("failures, on every operation", () => {
    const operations: ReadonlyArray<
      readonly [
        string,
        (context: Context) => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>
      ]
    > = [
      ["create", (context) => create(order(), context)],
      ["track", (context) => track("16-000001-ZR", context)],
      ["rates", (context) => rates(query({ toWilaya: 16, deliveryType: "home" }), context)],
      ["cancel", (context) => cancel("16-000001-ZR", context)],
      ["stopDesks", (context) => stopDesks(wilaya(16), context)],
      ["communes", (context) => communes(wilaya(16), context)],
      ["checkCredentials", (context) => checkCredentials(undefined, context)]
    ]

    it.live.each<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"]]>([
      ["a 500 → Unreachable", { kind: "status", status: 500 }, "Unreachable"],
      ["a redirect → BadResponse", { kind: "status", status: 302 }, "BadResponse"],
      ["an HTML page → BadResponse", { kind: "html" }, "BadResponse"],
      ["a 429 → CourierRateLimited", { kind: "rateLimited", retryAfter: "42" }, "CourierRateLimited"],
      ["a dropped connection → Unreachable", { kind: "reset" }, "Unreachable"],
      ["no answer → Unreachable", { kind: "hang" }, "Unreachable"],
      ["a refusal quoting the key → Refused", { kind: "echoToken" }, "Refused"]
    ])("%s", ([, misbehaviour, tag]) =>
      withFake(
        (context, account) =>
          Effect.forEach(operations, ([name, run]) =>
            Effect.gen(function* () {
              const fake = yield* ZrExpressNewFake
              fake.misbehaveNext(misbehaviour)
              const reason = yield* Effect.flip(run(context))
              assert.strictEqual(reason._tag, tag, name)
              if (reason._tag === "CourierRateLimited") assert.strictEqual(reason.retryAfterSeconds, 42)
              // A courier that echoes a credential is blanked out by the core, before and after the adapter (conformance "secrets").
              if (misbehaviour.kind !== "echoToken") assertNoSecret(reason, account)
            })
          ),
        { timeout: "300 millis" }
      )
    )

    it.live("answers CredentialsRejected when the courier does not know the key or the tenant", () =>
      withFake((_, account) =>
        Effect.forEach(
          [
            { apiKey: "another-key-00000000", tenantId: account.tenantId },
            { apiKey: account.apiKey, tenantId: newAccount().tenantId }
          ],
          (credentials) =>
            Effect.gen(function* () {
              const context = contextOf(credentials)
              for (const [name, run] of operations) {
                assert.strictEqual((yield* Effect.flip(run(context)))._tag, "CredentialsRejected", name)
              }
            })
        )
      )
    )
  })

  describe("the fake refuses what the platform refuses, so that a wrong mapping fails", () => {
    const validBody = () =>
      Mapping.toCreateParcel(order(), {
        cityTerritoryId: wilayaId(16),
        districtTerritoryId: communeId(16, "Bab Ezzouar"),
        stateId: stateId("ReadyToDispatch"),
        customerId: "0000000b-0000-4000-8000-000000000001"
      })

    it.live("wrong or missing field names, a national phone, a commune of another wilaya", () =>
      withFake((_, account) =>
        Effect.gen(function* () {
          const headers = { "X-Tenant": account.tenantId, "X-Api-Key": account.apiKey }
          const { customer, deliveryAddress, ...rest } = validBody()
          for (const [body, field] of [
            [{ ...rest, customer, address: deliveryAddress }, "address"],
            [
              { ...rest, deliveryAddress, customer: { ...customer, phone: { number1: "0555123456" } } },
              "customer.phone.number1"
            ],
            [
              {
                ...rest,
                customer,
                deliveryAddress: { ...deliveryAddress, districtTerritoryId: communeId(31, "Oran") }
              },
              "deliveryAddress.districtTerritoryId"
            ],
            [{ ...rest, customer, deliveryAddress, deliveryType: "stopdesk" }, "deliveryType"],
            [{ ...rest, customer, deliveryAddress, stateId: "0000000b-0000-4000-8000-000000000002" }, "stateId"]
          ] as const) {
            const response = yield* raw({ method: "POST", path: "/api/v1/parcels", headers, json: body })
            assert.strictEqual(response.status, 400, field)
            assert.include(Object.keys((JSON.parse(response.text) as { errors: object }).errors), field, field)
          }
          const accepted = yield* raw({ method: "POST", path: "/api/v1/parcels", headers, json: validBody() })
          assert.strictEqual(accepted.status, 201)
        })
      )
    )

    it.live("a parcel nobody makes ready stays in OrderReceived", () =>
      withFake((_, account) =>
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const headers = { "X-Tenant": account.tenantId, "X-Api-Key": account.apiKey }
          yield* raw({ method: "POST", path: "/api/v1/parcels", headers, json: validBody() })
          assert.deepStrictEqual(
            [...fake.parcels.values()].map((parcel) => parcel.state),
            ["OrderReceived"]
          )
        })
      )
    )

    it.live("a wrong method, and credentials in any other header", () =>
      withFake((_, account) =>
        Effect.gen(function* () {
          const headers = { "X-Tenant": account.tenantId, "X-Api-Key": account.apiKey }
          assert.strictEqual((yield* raw({ method: "GET", path: "/api/v1/territories/search", headers })).status, 405)
          assert.strictEqual(
            (yield* raw({ method: "POST", path: "/api/v1/delivery-pricing/rates", headers, json: {} })).status,
            405
          )
          for (const wrong of [
            { authorization: `Bearer ${account.apiKey}`, "X-Tenant": account.tenantId },
            { "X-Api-Key": account.apiKey },
            { "X-Tenant-Id": account.tenantId, "X-Api-Key": account.apiKey },
            { "X-Tenant": account.tenantId, "X-Api-Key": account.apiKey.toUpperCase() }
          ]) {
            const refused = yield* raw({ method: "GET", path: "/api/v1/delivery-pricing/rates", headers: wrong })
            assert.strictEqual(refused.status, 401, JSON.stringify(Object.keys(wrong)))
          }
        })
      )
    )
  })
})
