/**
 * The optional operations (issue 21): their pure mapping over answers shaped as the research and the Postman
 * summaries show them, then each operation against the loopback fake through `LoopbackHttp` — batch tracking
 * (`get/trackings/info`), cancel (`delete/order`, refused with 10001 once validated), desks and communes
 * (`get/communes`), and the token check (`validate/token`).
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Effect, Layer, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Ecotrack.ts"
import * as Mapping from "../src/EcotrackMapping.ts"
import { COMMUNES, EcotrackFake, type Options, type RecordedRequest, TOKEN } from "./fake/EcotrackFake.ts"
import { response } from "./fixtures/responses.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ token: TOKEN }) }
const alger = WilayaCode.WilayaCode.make(16)

const { create, dispatch, track, cancel, trackBatch, stopDesks, communes, checkCredentials } =
  adapter.operations as Required<typeof adapter.operations>

const withFake = <A, E>(effect: Effect.Effect<A, E, EcotrackFake | CourierHttp.CourierHttp>, fake: Options = {}) =>
  Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(EcotrackFake.layer(fake))))

const order = Schema.decodeUnknownSync(Shipment.ParcelOrder)({
  reference: "CMD-7",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 2000 logements"
  },
  deliveryType: "home",
  productList: "2x robe",
  codAmount: 4500
})

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

const success = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  if (Result.isFailure(result)) assert.fail(`expected a success, got ${result.failure._tag}: ${result.failure.message}`)
  return (result as Result.Success<A, CourierError.CourierErrorReason>).success
}

const assertAuthenticated = (request: RecordedRequest) => {
  assert.strictEqual(request.headers.authorization, `Bearer ${TOKEN}`, request.path)
  assert.strictEqual(request.query.api_token, TOKEN, request.path)
}

const activity = (date: string, time: string, status: string) => ({ date, time, status, station: "Alger" })

describe("EcotrackMapping, optional operations", () => {
  it("sends a batch as indexed trackings[], once each, and refuses more than 100 or a blank number", () => {
    assert.deepStrictEqual(Mapping.trackingsQuery(success(Mapping.checkBatch(["ECT1", "ECT2", "ECT1"]))), {
      "trackings[0]": "ECT1",
      "trackings[1]": "ECT2"
    })
    assert.include(failure(Mapping.checkBatch(Array.from({ length: 101 }, (_, i) => `ECT${i}`))).message, "at most 100")
    assert.strictEqual(failure(Mapping.checkBatch(["ECT1", " "]))._tag, "Refused")
  })

  it("reads each asked parcel's activity by exact tracking number, remarks left out; others ignored", () => {
    const body = {
      ECT1: {
        status: "En livraison",
        activity: [
          activity("2026-04-19", "09:00:00", "picked"),
          activity("2026-04-19", "10:00", "notification_on_order"),
          activity("2026-04-20", "08:05:12", "dispatched_to_driver")
        ]
      },
      ECT12: { activity: [activity("2026-04-19", "09:00:00", "livred")] }
    }
    const answer = success(Mapping.fromTrackings(["ECT1", "ECT9"], response(200, body)))
    assert.deepStrictEqual(answer._tag === "Found" ? [...answer.events] : answer, [
      [
        "ECT1",
        [
          { rawStatus: "picked", timestamp: "2026-04-19T09:00:00+01:00" },
          { rawStatus: "dispatched_to_driver", timestamp: "2026-04-20T08:05:12+01:00" },
          // Its order status, "En livraison", read back to its key at the newest activity's time.
          { rawStatus: "en_livraison", timestamp: "2026-04-20T08:05:12+01:00" }
        ]
      ]
    ])
  })

  it("none found (404 Trackings non trouvés) is an empty map; a 404 for a missing route is not", () => {
    assert.deepStrictEqual(
      success(Mapping.fromTrackings(["ECT1"], response(404, { message: "Trackings non trouvés" }))),
      {
        _tag: "Found",
        events: new Map()
      }
    )
    assert.strictEqual(
      failure(Mapping.fromTrackings(["ECT1"], response(404, { message: "The route api/v1/x could not be found." })))
        ._tag,
      "BadResponse"
    )
    assert.strictEqual(
      failure(Mapping.fromTrackings(["ECT1"], response(200, { ECT1: { activity: "x" } })))._tag,
      "BadResponse"
    )
  })

  it("a deleted order is done; 10001 is NotCancellable in the courier's words; a legacy fail is a refusal", () => {
    assert.isTrue(
      Result.isSuccess(Mapping.fromDeleted(response(200, { success: true, message: "Commande supprimée" })))
    )
    assert.isTrue(Result.isSuccess(Mapping.fromDeleted(response(200, { delete: "success" }))))
    const locked = failure(
      Mapping.fromDeleted(response(200, { success: false, error: 10001, message: "Commande non modifiable" }))
    )
    assert.strictEqual(locked._tag, "NotCancellable")
    assert.include(locked.message, "Commande non modifiable")
    assert.strictEqual(failure(Mapping.fromDeleted(response(200, { delete: "fail" })))._tag, "Refused")
    const unknown = failure(
      Mapping.fromDeleted(
        response(422, {
          message: "The given data was invalid.",
          errors: { tracking: ["Le tracking sélectionné est invalide."] }
        })
      )
    )
    assert.strictEqual(unknown._tag, "Refused")
    assert.include(unknown.message, "trackingNumber")
  })

  it("reads communes keyed by index or as an array: every one at home, has_stop_desk a desk with its station", () => {
    const rows = {
      0: { nom: "Bab Ezzouar", wilaya_id: 16, code_postal: "16020", has_stop_desk: 1 },
      1: { nom: "Hydra", wilaya_id: "16", code_postal: "16035", has_stop_desk: 0 },
      2: { nom: "Reggane", wilaya_id: 1, code_postal: "1010", has_stop_desk: 1 },
      3: { nom: "Bordj El Kiffan", wilaya_id: 16, code_postal: null, has_stop_desk: true }
    }
    assert.deepStrictEqual(success(Mapping.fromCommunes(alger, response(200, rows))), [
      { name: "Bab Ezzouar", home: true, stopdesk: true },
      { name: "Hydra", home: true, stopdesk: false },
      { name: "Bordj El Kiffan", home: true, stopdesk: true }
    ])
    assert.deepStrictEqual(success(Mapping.fromDesks(alger, response(200, Object.values(rows)))), [
      { id: "16020", name: "Stop desk Bab Ezzouar", wilayaCode: alger, communeName: "Bab Ezzouar" }
    ])
    assert.strictEqual(failure(Mapping.fromCommunes(alger, response(200, { 0: { nom: "X" } })))._tag, "BadResponse")
  })

  it("VALID_TOKEN is fine; INVALID_TOKEN and TOKEN_NOT_ALLOWED reject the token, on 200 or 401", () => {
    assert.isTrue(Result.isSuccess(Mapping.fromTokenCheck(response(200, { success: true, message: "VALID_TOKEN" }))))
    for (const message of ["INVALID_TOKEN", "TOKEN_NOT_ALLOWED"]) {
      assert.strictEqual(
        failure(Mapping.fromTokenCheck(response(200, { success: false, message })))._tag,
        "CredentialsRejected"
      )
    }
    assert.strictEqual(
      failure(Mapping.fromTokenCheck(response(401, { message: "Unauthenticated." })))._tag,
      "CredentialsRejected"
    )
  })
})

describe("Ecotrack optional operations", () => {
  it.live("trackBatch: one call for every number, each parcel as track reads it, unknown ones left out", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* EcotrackFake
        const first = yield* create(order, context)
        const second = yield* create(order, context)
        fake.addActivity(first.trackingNumber, "picked")
        const before = fake.requests.length
        const batch = yield* trackBatch([first.trackingNumber, second.trackingNumber, "ECTNONE"], context)
        assert.deepStrictEqual([...batch.keys()].sort(), [first.trackingNumber, second.trackingNumber].sort())
        for (const tracking of [first.trackingNumber, second.trackingNumber]) {
          assert.deepStrictEqual(batch.get(tracking), yield* track(tracking, context))
        }
        const call = fake.requests[before]!
        assert.strictEqual(`${call.method} ${call.path}`, "GET /api/v1/get/trackings/info")
        assert.strictEqual(call.query["trackings[2]"], "ECTNONE")
        assertAuthenticated(call)
        assert.strictEqual((yield* trackBatch(["ECTNONE"], context)).size, 0, "none known: an empty map")
      })
    )
  )

  it.live("cancel: deletes an order left unvalidated; a validated one is NotCancellable and stays", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* EcotrackFake
        yield* cancel("ECTPND0000000001", context)
        assert.isFalse(fake.parcels.has("ECTPND0000000001"))
        const call = fake.requests.at(-1)!
        assert.strictEqual(
          `${call.method} ${call.path} ${call.query.tracking}`,
          "DELETE /api/v1/delete/order ECTPND0000000001"
        )
        assertAuthenticated(call)
        const { trackingNumber } = yield* create(order, context)
        const refused = yield* Effect.flip(cancel(trackingNumber, context))
        assert.strictEqual(refused._tag, "NotCancellable")
        assert.include(refused.message, "Commande non modifiable")
        assert.isTrue(fake.parcels.has(trackingNumber))
        const unknown = yield* Effect.flip(cancel("ECTNONE", context))
        assert.strictEqual(unknown._tag, "Refused")
      }),
      { pending: ["ECTPND0000000001"] }
    )
  )

  it.live("dispatch: a parcel created undispatched stays cancellable until valid/order, which dispatch sends", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* EcotrackFake
        const held = yield* create(order, { ...context, dispatch: false })
        assert.strictEqual(held.rawStatus, "order_information_received_by_carrier")
        assert.strictEqual(adapter.statuses[held.rawStatus], "created")
        assert.isFalse(fake.parcels.get(held.trackingNumber)?.validated, "the courier does not see it yet")
        assert.deepStrictEqual(
          fake.requests.map((request) => `${request.method} ${request.path}`),
          ["POST /api/v1/create/order"],
          "no valid/order"
        )
        const dispatched = yield* dispatch(held.trackingNumber, context)
        assert.deepStrictEqual(dispatched, { rawStatus: "prete_a_expedier" })
        assert.isTrue(fake.parcels.get(held.trackingNumber)?.validated)
        const call = fake.requests.at(-1)!
        assert.strictEqual(`${call.method} ${call.path}`, "POST /api/v1/valid/order")
        assert.deepInclude(call.query, { tracking: held.trackingNumber, ask_collection: "1" })
        assertAuthenticated(call)
        const again = yield* Effect.flip(dispatch(held.trackingNumber, context))
        assert.strictEqual(again._tag, "Refused", "validated already: Ecotrack's 10001, in its words")
        assert.strictEqual(again._tag === "Refused" ? again.courierCode : undefined, "10001")
        const gone = yield* Effect.flip(cancel(held.trackingNumber, context))
        assert.strictEqual(gone._tag, "NotCancellable", "once dispatched it can no longer be deleted")
        const other = yield* create(order, { ...context, dispatch: false })
        yield* cancel(other.trackingNumber, context)
        assert.isFalse(fake.parcels.has(other.trackingNumber), "held, it is deleted")
      })
    )
  )

  it.live("stopDesks and communes: the tenant's communes of the wilaya, desks by station code", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* EcotrackFake
        const algiers = COMMUNES.filter((commune) => commune.wilaya === 16)
        assert.deepStrictEqual(
          yield* communes(alger, context),
          algiers.map((commune) => ({ name: commune.nom, home: true, stopdesk: commune.station !== undefined }))
        )
        const desks = yield* stopDesks(alger, context)
        assert.deepStrictEqual(
          desks,
          algiers.flatMap((commune) =>
            commune.station === undefined
              ? []
              : [{ id: commune.station, name: `Stop desk ${commune.nom}`, wilayaCode: alger, communeName: commune.nom }]
          )
        )
        for (const call of fake.requests) {
          assert.strictEqual(`${call.method} ${call.path} ${call.query.wilaya_id}`, "GET /api/v1/get/communes 16")
          assertAuthenticated(call)
        }
        assert.deepStrictEqual(yield* stopDesks(WilayaCode.WilayaCode.make(11), context), [], "no desk in Tamanrasset")
      })
    )
  )

  it.live("checkCredentials: validate/token with the token in the query; a token it does not know is rejected", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* EcotrackFake
        yield* checkCredentials(undefined, context)
        const call = fake.requests.at(-1)!
        assert.strictEqual(`${call.method} ${call.path}`, "GET /api/v1/validate/token")
        assertAuthenticated(call)
        assert.strictEqual(fake.parcels.size, 0)
        const wrong = { credentials: Schema.decodeUnknownSync(Credentials)({ token: `${TOKEN}-revoked` }) }
        const rejected = yield* Effect.flip(checkCredentials(undefined, wrong))
        assert.strictEqual(rejected._tag, "CredentialsRejected")
        assert.notInclude(rejected.message, TOKEN)
      })
    )
  )
})
