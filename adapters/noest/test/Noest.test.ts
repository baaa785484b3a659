import { assert, describe, it } from "@effect/vitest"
import { CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue, Shipping } from "@tawsil/shipping"
import { type Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { adapter, Credentials, origin } from "../src/Noest.ts"
import * as Mapping from "../src/NoestMapping.ts"
import {
  COMMUNES,
  DESKS,
  GUID,
  type Misbehaviour,
  NO_DESK,
  NoestFake,
  type RecordedRequest,
  TOKEN,
  tariff,
  UNSERVED
} from "./fake/NoestFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const credentials = { apiToken: TOKEN, guid: GUID }
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

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

const { create, dispatch, cancel, track, rates, label, trackBatch, stopDesks, communes, checkCredentials } =
  adapter.operations as Required<typeof adapter.operations>

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, NoestFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(NoestFake.layer())))

/** The documented credentials: `api_token` + `user_guid` in the body of a POST or the query of a GET, and Bearer. */
const assertAuthenticated = (request: RecordedRequest) => {
  const carried = (request.method === "GET" ? request.query : request.body) as Record<string, unknown>
  assert.strictEqual(carried.api_token, TOKEN, request.path)
  assert.strictEqual(carried.user_guid, GUID, request.path)
  assert.strictEqual(request.headers.authorization, `Bearer ${TOKEN}`, request.path)
  assert.strictEqual(request.headers.accept, "application/json", request.path)
}

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

const assertNoSecret = (reason: CourierError.CourierErrorReason) => {
  for (const secret of [TOKEN, GUID]) {
    assert.notInclude(JSON.stringify(reason), secret)
    assert.notInclude(reason.message, secret)
  }
}

describe("Noest", () => {
  describe("manifest", () => {
    it("declares the platform, its courier, the two credentials, every capability and the cash table", () => {
      assert.strictEqual(adapter.platform, "noest")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, aliases, endpoint }) => ({ key, aliases, endpoint })),
        [{ key: "noest", aliases: ["noest_express", "nord_ouest"], endpoint: { origin: "https://app.noest-dz.com" } }]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiToken", "guid"])
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
      assert.isDefined(adapter.codStatuses)
      assert.strictEqual(Catalogue.make([adapter]).resolve("NOEST_EXPRESS")?.manifest.key, "noest")
    })

    it("keeps both credentials redacted and refuses malformed ones without quoting them", () => {
      const decoded = Schema.decodeUnknownSync(Credentials)({ apiToken: "t".repeat(60), guid: "G".repeat(20) })
      assert.strictEqual(Redacted.value(decoded.apiToken), "t".repeat(60))
      assert.strictEqual(Redacted.value(decoded.guid), "G".repeat(20))
      assert.notInclude(JSON.stringify(decoded), "tttt")
      assert.notInclude(JSON.stringify(decoded), "GGGG")
      for (const bad of [
        { apiToken: "short", guid: GUID },
        { apiToken: "with a space-inside", guid: GUID },
        { apiToken: TOKEN, guid: "a b c d" },
        { apiToken: TOKEN, guid: "g".repeat(129) },
        { apiToken: TOKEN, guid: "abc" },
        { apiToken: TOKEN }
      ]) {
        const result = Schema.decodeUnknownResult(Credentials)(bad)
        assert.isTrue(Result.isFailure(result), JSON.stringify(bad))
        if (Result.isFailure(result)) {
          for (const value of Object.values(bad)) {
            if (value !== TOKEN && value !== GUID) assert.notInclude(result.failure.message, value)
          }
        }
      }
    })
  })

  describe("create", () => {
    it.live("creates, then validates: two calls, each with api_token + user_guid in the body", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const created = yield* create(order(), context)
          assert.match(created.trackingNumber, /^NOE\d{9}FK$/)
          assert.strictEqual(created.rawStatus, "customer_validation")
          assert.strictEqual(adapter.statuses[created.rawStatus], "pending_pickup")

          assert.deepStrictEqual(paths(fake.requests), [
            "POST /api/public/create/order",
            "POST /api/public/valid/order"
          ])
          const [createCall, validateCall] = fake.requests
          assert.deepStrictEqual(createCall?.body, {
            api_token: TOKEN,
            user_guid: GUID,
            ...Mapping.toCreateOrder(order())
          })
          assert.deepStrictEqual(validateCall?.body, {
            api_token: TOKEN,
            user_guid: GUID,
            tracking: created.trackingNumber
          })
          for (const request of fake.requests) assertAuthenticated(request)

          const parcel = fake.parcels.get(created.trackingNumber)
          assert.strictEqual(parcel?.validated, true, "the courier sees the parcel")
          assert.strictEqual(parcel?.fields.phone, "0555123456")
          assert.deepStrictEqual(
            parcel?.activity.map(({ event_key }) => event_key),
            ["upload", "customer_validation"]
          )
        })
      )
    )

    it.live("sends a stop desk with its station code", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const created = yield* create(
            order(
              { deliveryType: "stopdesk", stopDeskId: "19A" },
              { wilayaCode: 19, communeName: "Setif", addressLine: undefined }
            ),
            context
          )
          const fields = fake.parcels.get(created.trackingNumber)!.fields
          assert.strictEqual(fields.stop_desk, 1)
          assert.strictEqual(fields.station_code, "19A")
          assert.strictEqual(fields.adresse, "Setif")
        })
      )
    )

    it.live("refuses a wilaya NOEST does not serve without trying to validate", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const reason = yield* Effect.flip(create(order({}, { wilayaCode: UNSERVED[0] }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "order.recipient.wilayaCode")
          assert.deepStrictEqual(paths(fake.requests), ["POST /api/public/create/order"])
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live("passes NOEST's validation errors on under Tawsil's field names", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          // What NOEST answers a create without `adresse` (the adapter sends the commune in its place).
          fake.misbehaveNext({
            kind: "json",
            status: 422,
            body: {
              message: "Le champ adresse est obligatoire.",
              errors: { adresse: ["Le champ adresse est obligatoire."] }
            }
          })
          const reason = yield* Effect.flip(create(order(), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "order.recipient.addressLine: Le champ adresse est obligatoire.")
        })
      )
    )

    it.live("a refused validation: a refusal naming the tracking number; the parcel exists unvalidated", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          fake.misbehaveNext({ kind: "refuse", message: "Solde insuffisant" }, "/api/public/valid/order")
          const reason = yield* Effect.flip(create(order(), context))
          const [tracking] = [...fake.parcels.keys()]
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, `created the parcel ${tracking}`)
          assert.include(reason.message, "Solde insuffisant")
          assert.strictEqual(fake.parcels.get(tracking!)?.validated, false)
          const unvalidated = yield* track(tracking!, context)
          assert.deepStrictEqual(
            unvalidated.map(({ rawStatus }) => rawStatus),
            ["upload"],
            "without validation the parcel stays created: the courier never sees it"
          )
          assert.strictEqual((yield* Effect.flip(label(tracking!, context)))._tag, "Refused", "no label either")
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
            const fake = yield* NoestFake
            fake.misbehaveNext(misbehaviour, "/api/public/valid/order")
            const reason = yield* Effect.flip(create(order(), context))
            assert.strictEqual(reason._tag, "Refused")
            assert.include(reason.message, [...fake.parcels.keys()][0]!)
            assert.include(reason.message, says)
            assertNoSecret(reason)
          }),
          { timeout: "300 millis" }
        )
    )
  })

  describe("dispatch and cancel", () => {
    it.live("holds a parcel uploaded, not validated; dispatch validates it; until then cancel deletes it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const held = yield* create(order(), { ...context, dispatch: false })
          assert.strictEqual(held.rawStatus, "upload")
          assert.strictEqual(adapter.statuses[held.rawStatus], "created")
          assert.isFalse(fake.parcels.get(held.trackingNumber)?.validated)
          assert.deepStrictEqual(paths(fake.requests), ["POST /api/public/create/order"])
          const dispatched = yield* dispatch(held.trackingNumber, context)
          assert.deepStrictEqual(dispatched, { rawStatus: "customer_validation" })
          assert.isTrue(fake.parcels.get(held.trackingNumber)?.validated)
          assertAuthenticated(fake.requests.at(-1)!)
          const again = yield* Effect.flip(dispatch(held.trackingNumber, context))
          assert.strictEqual(again._tag, "Refused", "NOEST validates once")

          const other = yield* create(order(), { ...context, dispatch: false })
          const before = fake.requests.length
          yield* cancel(other.trackingNumber, context)
          assert.deepStrictEqual(paths(fake.requests.slice(before)), ["POST /api/public/delete/order"])
          assert.deepStrictEqual(fake.requests.at(-1)?.body, {
            api_token: TOKEN,
            user_guid: GUID,
            tracking: other.trackingNumber
          })
          assert.isFalse(fake.parcels.has(other.trackingNumber), "deleted")
        })
      )
    )

    it.live("a validated parcel is NotCancellable, told from its events; an unknown one is refused", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const created = yield* create(order(), context)
          const before = fake.requests.length
          const refused = yield* Effect.flip(cancel(created.trackingNumber, context))
          assert.strictEqual(refused._tag, "NotCancellable")
          assert.include(refused.message, "Impossible de supprimer une commande déjà validée.")
          assert.deepStrictEqual(paths(fake.requests.slice(before)), [
            "POST /api/public/delete/order",
            "POST /api/public/get/trackings/info"
          ])
          assert.isTrue(fake.parcels.has(created.trackingNumber), "nothing was deleted")
          const unknown = yield* Effect.flip(cancel("NOE000000999FK", context))
          assert.strictEqual(unknown._tag, "Refused")
          assertNoSecret(unknown)
        })
      )
    )

    it("reads a refusal of a parcel only uploaded as the refusal it is", () => {
      const refusal = new CourierError.Refused({ message: "Suppression momentanément indisponible." })
      assert.strictEqual(
        Mapping.whyNotDeleted([{ rawStatus: "upload", timestamp: "2026-04-18T19:45:06+01:00" }], refusal),
        refusal
      )
      assert.strictEqual(
        Mapping.whyNotDeleted(
          [
            { rawStatus: "upload", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "customer_validation", timestamp: "2026-04-18T19:46:00+01:00" }
          ],
          refusal
        )._tag,
        "NotCancellable"
      )
    })
  })

  describe("track", () => {
    it.live("reads exactly the asked parcel's events in Algiers time, admin edits left out, cash kept", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const { trackingNumber } = yield* create(order(), context)
          yield* create(order({}, { fullName: "Nadia Saidi" }), context)
          for (const [date, time, key] of [
            ["2026-04-19", "09:12:40", "validation_collect_colis"],
            ["2026-04-19", "10:00:00", "edit_price"],
            ["2026-04-20", "08:05:12", "fdr_activated"],
            ["2026-04-20", "14:02:33", "livre"],
            ["2026-04-27", "10:00:00", "verssement_admin_cust"]
          ] as const) {
            fake.setClock(date, time)
            fake.addEvent(trackingNumber, key)
          }
          const events = yield* track(trackingNumber, context)
          assert.deepStrictEqual(events, [
            { rawStatus: "upload", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "customer_validation", timestamp: "2026-04-18T19:45:06+01:00" },
            { rawStatus: "validation_collect_colis", timestamp: "2026-04-19T09:12:40+01:00" },
            { rawStatus: "fdr_activated", timestamp: "2026-04-20T08:05:12+01:00" },
            { rawStatus: "livre", timestamp: "2026-04-20T14:02:33+01:00" },
            { rawStatus: "verssement_admin_cust", timestamp: "2026-04-27T10:00:00+01:00" }
          ])
          const request = fake.requests.at(-1)!
          assert.strictEqual(`${request.method} ${request.path}`, "POST /api/public/get/trackings/info")
          assert.deepStrictEqual((request.body as Record<string, unknown>).trackings, [trackingNumber])
          assertAuthenticated(request)
        })
      )
    )

    it.live("refuses an unknown tracking number, and one NOEST answers only a neighbour for", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const unknown = yield* Effect.flip(track("NOE999999999FK", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.include(unknown.message, "trackingNumber")
          const { trackingNumber } = yield* create(order(), context)
          fake.misbehaveNext({
            kind: "json",
            status: 200,
            body: { [`${trackingNumber}0`]: { activity: [{ event_key: "livre", date: "2026-04-20 10:00:00" }] } }
          })
          assert.strictEqual((yield* Effect.flip(track(trackingNumber, context)))._tag, "Refused")
        })
      )
    )
  })

  describe("rates", () => {
    it.live.each<readonly [string, number, "home" | "stopdesk"]>([
      ["home to Algiers", 16, "home"],
      ["a stop desk in Oran", 31, "stopdesk"],
      ["home where there is no desk", NO_DESK[0]!, "home"]
    ])("prices %s from the fee list, with its return fee", ([, toWilaya, deliveryType]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const result = yield* rates(query({ toWilaya, deliveryType, codAmount: 9000 }), context)
          const [home, desk, returnHome, returnDesk] = tariff(toWilaya)
          const deliveryFee = deliveryType === "home" ? home : desk
          assert.strictEqual<number | null>(result.deliveryFee, deliveryFee)
          assert.strictEqual<number | null>(result.returnFee, deliveryType === "home" ? returnHome : returnDesk)
          assert.strictEqual(result.codFee, 0)
          assert.strictEqual(result.tier, "economic")
          assert.strictEqual(result.options.length, desk === null ? 1 : 2)
          const [request] = fake.requests
          assert.strictEqual(`${request?.method} ${request?.path}`, "GET /api/public/fees")
          assertAuthenticated(request!)
        })
      )
    )

    it.live("refuses the express tier without calling the courier", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const reason = yield* Effect.flip(
            rates(query({ toWilaya: 16, deliveryType: "home", tier: "express" }), context)
          )
          assert.strictEqual(reason._tag, "Refused")
          assert.strictEqual(fake.requests.length, 0)
        })
      )
    )
  })

  describe("label", () => {
    it.live("fetches the validated parcel's label as a PDF; a redirect elsewhere is refused without its address", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const { trackingNumber } = yield* create(order(), context)
          const printed = yield* label(trackingNumber, context)
          assert.strictEqual(printed.contentType, "application/pdf")
          assert.include(new TextDecoder().decode(printed.bytes), `%PDF-1.4\n% bordereau NOEST ${trackingNumber}`)
          const request = fake.requests.at(-1)!
          assert.strictEqual(`${request.method} ${request.path}`, "GET /api/public/get/order/label")
          assert.strictEqual(request.query.tracking, trackingNumber)
          assertAuthenticated(request)

          fake.misbehaveNext({ kind: "redirectLabel" })
          const redirected = yield* Effect.flip(label(trackingNumber, context))
          assert.strictEqual(redirected._tag, "BadResponse")
          assert.notInclude(redirected.message, "amazonaws")
          assert.notInclude(redirected.message, "Signature")
        })
      )
    )
  })

  describe("trackBatch", () => {
    it.live("reads several parcels in one get/trackings/info call; a number NOEST does not know is left out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const first = (yield* create(order(), context)).trackingNumber
          const second = (yield* create(order({}, { fullName: "Nadia Saidi" }), context)).trackingNumber
          fake.setClock("2026-04-19", "09:12:40")
          fake.addEvent(second, "validation_collect_colis")
          fake.addEvent(second, "edit_price")
          const before = fake.requests.length
          const batch = yield* trackBatch([first, "NOE999999999FK", second], context)
          assert.deepStrictEqual([...batch.keys()], [first, second])
          assert.deepStrictEqual(batch.get(first), yield* track(first, context), "the events track reads")
          assert.deepStrictEqual(
            batch.get(second)?.map(({ rawStatus }) => rawStatus),
            ["upload", "customer_validation", "validation_collect_colis"],
            "admin edits left out, as track leaves them"
          )
          const request = fake.requests[before]!
          assert.strictEqual(`${request.method} ${request.path}`, "POST /api/public/get/trackings/info")
          assert.deepStrictEqual((request.body as Record<string, unknown>).trackings, [first, "NOE999999999FK", second])
          assertAuthenticated(request)
        })
      )
    )

    it.live("answers an empty map when NOEST knows none of them (PHP's []), and sends nothing for none", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          assert.strictEqual((yield* trackBatch(["NOE999999999FK"], context)).size, 0)
          assert.strictEqual(fake.requests.length, 1)
          assert.strictEqual((yield* trackBatch([], context)).size, 0)
          assert.strictEqual(fake.requests.length, 1, "an empty batch is not sent: NOEST refuses it with a 422")
        })
      )
    )
  })

  describe("stopDesks", () => {
    it.live("lists the wilaya's desks from GET desks, by the number their station code starts with", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const algiers = yield* stopDesks(wilaya(16), context)
          assert.deepStrictEqual(algiers, [
            {
              id: "16A",
              name: "Agence Bab Ezzouar",
              wilayaCode: wilaya(16),
              communeName: "Bab Ezzouar",
              address: "1 rue des Frères Bouadou, Bab Ezzouar",
              phone: "0550100000"
            },
            {
              id: "16B",
              name: "Agence Alger Centre",
              wilayaCode: wilaya(16),
              communeName: "Alger Centre",
              address: "2 rue des Frères Bouadou, Alger Centre",
              phone: "0550100001"
            }
          ])
          assert.deepStrictEqual(
            (yield* stopDesks(wilaya(1), context)).map(({ id }) => id),
            [],
            "Adrar: the fake has no desk there"
          )
          assert.deepStrictEqual(
            (yield* stopDesks(wilaya(19), context)).map(({ id }) => id),
            ["19A"],
            "not 1xA: the whole number"
          )
          const request = fake.requests[0]!
          assert.strictEqual(`${request.method} ${request.path}`, "GET /api/public/desks")
          assertAuthenticated(request)
        })
      )
    )

    it.live("a desk listed is one create accepts as stopDeskId", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const [desk] = yield* stopDesks(wilaya(31), context)
          const created = yield* create(
            order({ deliveryType: "stopdesk", stopDeskId: desk!.id }, { wilayaCode: 31, communeName: "Oran" }),
            context
          )
          assert.strictEqual(fake.parcels.get(created.trackingNumber)?.fields.station_code, "31A")
        })
      )
    )
  })

  describe("communes", () => {
    it.live("lists the wilaya's communes in NOEST's spelling, home when active, a desk where one is", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const listed = yield* communes(wilaya(16), context)
          assert.deepStrictEqual(listed, [
            { name: "Alger Centre", home: true, stopdesk: true },
            { name: "Bab Ezzouar", home: true, stopdesk: true },
            { name: "Bir Mourad Rais", home: true, stopdesk: false },
            { name: "Ouled Chebel", home: false, stopdesk: false }
          ])
          assert.strictEqual(listed.length, COMMUNES[16]!.length)
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/public/get/communes/16", "GET /api/public/desks"])
          for (const request of fake.requests) assertAuthenticated(request)
          assert.deepStrictEqual(
            yield* communes(wilaya(19), context),
            [
              { name: "Setif", home: true, stopdesk: true },
              { name: "El Eulma", home: true, stopdesk: false }
            ],
            "the desk's Sétif is the commune's Setif"
          )
          assert.isTrue(DESKS.some(({ commune }) => commune === "Sétif"))
          assert.deepStrictEqual(yield* communes(wilaya(11), context), [
            { name: "Tamanrasset", home: true, stopdesk: false }
          ])
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("reads GET get/wilayas and creates nothing; a refused token or GUID is CredentialsRejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/public/get/wilayas"])
          assertAuthenticated(fake.requests[0]!)
          assert.strictEqual(fake.parcels.size, 0)
          for (const caller of [
            { apiToken: `${TOKEN}-revoked`, guid: GUID },
            { apiToken: TOKEN, guid: "NOEST-GUID-OTHER" }
          ]) {
            const reason = yield* Effect.flip(
              checkCredentials(undefined, { credentials: Schema.decodeUnknownSync(Credentials)(caller) })
            )
            assert.strictEqual(reason._tag, "CredentialsRejected")
          }
        })
      )
    )
  })

  describe("errors", () => {
    const cases: ReadonlyArray<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"], number?]> = [
      ["no answer", { kind: "hang" }, "Unreachable"],
      ["a dropped connection", { kind: "reset" }, "Unreachable"],
      ["HTTP 503", { kind: "status", status: 503 }, "Unreachable"],
      ["an HTML page on HTTP 200", { kind: "html" }, "BadResponse"],
      ["JSON of an undocumented shape", { kind: "json", status: 200, body: [1, 2] }, "BadResponse"],
      ["429 with Retry-After", { kind: "rateLimited", retryAfter: "17" }, "CourierRateLimited", 17],
      ["429 without Retry-After", { kind: "rateLimited" }, "CourierRateLimited", 60],
      ["success:false on HTTP 200", { kind: "refuse", message: "Service suspendu" }, "Refused"],
      ["a refusal quoting the token", { kind: "echoToken" }, "Refused"]
    ]
    const operations: Record<
      string,
      (caller?: typeof context) => Effect.Effect<unknown, CourierError.CourierErrorReason, CourierHttp.CourierHttp>
    > = {
      create: (caller = context) => create(order(), caller),
      track: (caller = context) => track("NOE000000001FK", caller),
      rates: (caller = context) => rates(query({ toWilaya: 16, deliveryType: "home" }), caller),
      label: (caller = context) => label("NOE000000001FK", caller),
      trackBatch: (caller = context) => trackBatch(["NOE000000001FK", "NOE000000002FK"], caller),
      stopDesks: (caller = context) => stopDesks(wilaya(16), caller),
      communes: (caller = context) => communes(wilaya(16), caller),
      checkCredentials: (caller = context) => checkCredentials(undefined, caller)
    }
    for (const [operation, run] of Object.entries(operations)) {
      it.live.each(cases)(`${operation}: %s → %s`, ([, misbehaviour, tag, retryAfterSeconds]) =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* NoestFake
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(run())
            assert.strictEqual(reason._tag, tag, reason.message)
            if (retryAfterSeconds !== undefined && reason._tag === "CourierRateLimited") {
              assert.strictEqual(reason.retryAfterSeconds, retryAfterSeconds)
            }
            // A courier that echoes a credential is blanked out by the core, before and after the adapter (conformance "secrets").
            if (misbehaviour.kind !== "echoToken") assertNoSecret(reason)
          }),
          { timeout: "300 millis" }
        )
      )

      it.live(`${operation}: an unknown token, or a GUID of another account → CredentialsRejected`, () =>
        withFake(
          Effect.gen(function* () {
            for (const caller of [
              { apiToken: `${TOKEN}-revoked`, guid: GUID },
              { apiToken: TOKEN, guid: "NOEST-GUID-OTHER" }
            ]) {
              const reason = yield* Effect.flip(run({ credentials: Schema.decodeUnknownSync(Credentials)(caller) }))
              assert.strictEqual(reason._tag, "CredentialsRejected")
              assert.notInclude(JSON.stringify(reason), caller.apiToken)
              assert.notInclude(JSON.stringify(reason), caller.guid)
            }
          })
        )
      )
    }
  })

  describe("the fake", () => {
    /** A raw request to the fake, around the adapter: what NOEST does with a wrong one. */
    const raw = (request: CourierHttp.CourierRequest) =>
      Effect.flatMap(CourierHttp.CourierHttp, (http) => http.request(request))
    const accept = { accept: "application/json" }

    it.live("refuses what NOEST refuses: no credentials, no user GUID on a write, a wrong method, renamed fields", () =>
      withFake(
        Effect.gen(function* () {
          const body = Mapping.toCreateOrder(order())
          const anonymous = yield* raw({
            method: "POST",
            path: "/api/public/create/order",
            headers: accept,
            json: body
          })
          assert.strictEqual(anonymous.status, 401)
          const noGuid = yield* raw({
            method: "POST",
            path: "/api/public/create/order",
            headers: { ...accept, authorization: `Bearer ${TOKEN}` },
            json: body
          })
          assert.strictEqual(noGuid.status, 422)
          assert.include(noGuid.text, "Le champ user guid est obligatoire.")
          const disagree = yield* raw({
            method: "GET",
            path: "/api/public/fees",
            query: { api_token: "another-token-0000", user_guid: GUID },
            headers: { ...accept, authorization: `Bearer ${TOKEN}` }
          })
          assert.strictEqual(disagree.status, 401)
          const wrongMethod = yield* raw({
            method: "GET",
            path: "/api/public/create/order",
            query: { api_token: TOKEN, user_guid: GUID },
            headers: accept
          })
          assert.strictEqual(wrongMethod.status, 405)
          const { client: _, ...renamed } = body
          const misnamed = yield* raw({
            method: "POST",
            path: "/api/public/create/order",
            headers: accept,
            json: { api_token: TOKEN, user_guid: GUID, ...renamed, nom_client: "Amina Benali" }
          })
          assert.strictEqual(misnamed.status, 422)
          assert.include(misnamed.text, "Le champ client est obligatoire.")
        })
      )
    )
  })

  describe("through the core", () => {
    const transport = Layer.effect(
      Shipping.Transport,
      Effect.map(NoestFake, (fake) => Shipping.Transport.of({ bind: () => Loopback.make(fake.origin) }))
    )
    const core = Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
      Layer.provide(transport),
      Layer.provideMerge(NoestFake.layer())
    )

    it.live("a payment never moves the parcel: status from movement, cash from the cash events", () =>
      Effect.gen(function* () {
        const shipping = yield* Shipping.Shipping
        const fake = yield* NoestFake
        const created = yield* shipping.create({ courier: "noest", credentials, order: order() })
        assert.strictEqual(created.status, "pending_pickup")
        const trackNow = shipping.track({ courier: "noest", credentials, trackingNumber: created.trackingNumber })
        const steps: ReadonlyArray<readonly [string, string, string, string]> = [
          ["2026-04-19 09:00:00", "validation_collect_colis", "picked_up", "not_collected"],
          ["2026-04-20 08:00:00", "fdr_activated", "out_for_delivery", "not_collected"],
          ["2026-04-20 14:00:00", "livre", "delivered", "not_collected"],
          ["2026-04-21 09:00:00", "extra_fee", "delivered", "not_collected"],
          ["2026-04-27 10:00:00", "verssement_admin_cust", "delivered", "remitted"],
          ["2026-04-27 12:00:00", "verssement_admin_cust_canceled", "delivered", "collected"],
          ["2026-04-29 10:00:00", "validation_reception_cash_by_partener", "delivered", "remitted"]
        ]
        for (const [when, key, status, cod] of steps) {
          const [date, time] = when.split(" ") as [string, string]
          fake.setClock(date, time)
          fake.addEvent(created.trackingNumber, key)
          const tracked = yield* trackNow
          assert.deepStrictEqual([tracked.status, tracked.cod], [status, cod], `after ${key}`)
        }
        const tracked = yield* trackNow
        assert.notInclude(
          tracked.events.map(({ rawStatus }) => rawStatus),
          "extra_fee",
          "an admin edit is no event"
        )
        const last = tracked.events.at(-1)
        assert.deepStrictEqual(
          { status: last?.status, rawStatus: last?.rawStatus, timestamp: last?.timestamp },
          {
            status: "delivered",
            rawStatus: "validation_reception_cash_by_partener",
            timestamp: "2026-04-29T10:00:00+01:00"
          }
        )
      }).pipe(Effect.provide(core))
    )
  })
})
