/**
 * The optional operations (issue 21) against the loopback fake, through `LoopbackHttp`: batch tracking over the
 * paginated histories list, cancel (deleting a parcel still "En préparation", `NotCancellable` after it), the
 * centers as stop desks, the communes with their flags, and the credential check.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { type Duration, Effect, Layer, Schema } from "effect"
import { adapter, Credentials } from "../src/Yalidine.ts"
import {
  API_ID,
  API_TOKEN,
  addressOf,
  COMMUNES,
  centerOf,
  type Options,
  type RecordedRequest,
  YalidineFake
} from "./fake/YalidineFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const credentials = Schema.decodeUnknownSync(Credentials)({ apiId: API_ID, apiToken: API_TOKEN })
const alger = WilayaCode.WilayaCode.make(16)
const context = { credentials, fromWilaya: alger }

const { create, track, cancel, trackBatch, stopDesks, communes, checkCredentials } = adapter.operations as Required<
  typeof adapter.operations
>

/** Quotas high enough for a test that makes many calls (the quotas themselves are tested in Yalidine.test.ts). */
const roomy: Options = {
  accounts: [{ apiId: API_ID, apiToken: API_TOKEN, quotas: { second: 10_000, minute: 10_000, hour: 10_000 } }]
}

const withFake = <A, E>(
  effect: Effect.Effect<A, E, YalidineFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input; readonly fake?: Options } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(YalidineFake.layer(options.fake ?? roomy))))

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
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
    codAmount: 4500,
    ...overrides
  })

const line = ({ method, path, query }: RecordedRequest) =>
  `${method} ${path}${Object.keys(query).length === 0 ? "" : `?${new URLSearchParams(query).toString()}`}`

describe("Yalidine optional operations", () => {
  describe("trackBatch", () => {
    it.live(
      "one histories list for every number, one parcels list for those with no history; unknown ones left out",
      () =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* YalidineFake
            for (const tracking of ["yal-ABC1", "yal-ABC12", "yal-NEW1"]) fake.addParcel(tracking)
            fake.setClock("2026-04-19 09:00:00")
            fake.addHistory("yal-ABC1", "Ramassé")
            fake.setClock("2026-04-19 10:00:00")
            fake.addHistory("yal-ABC12", "Livré")
            fake.addHistory("yal-ABC1", "Alerte résolue")
            const events = yield* trackBatch(["yal-ABC1", "yal-NEW1", "yal-NONE"], context)
            assert.deepStrictEqual(
              [...events].sort(([a], [b]) => a.localeCompare(b)),
              [
                [
                  "yal-ABC1",
                  [
                    { rawStatus: "Alerte résolue", timestamp: "2026-04-19T10:00:00+01:00" },
                    { rawStatus: "Ramassé", timestamp: "2026-04-19T09:00:00+01:00" }
                  ]
                ],
                ["yal-NEW1", [{ rawStatus: "En préparation", timestamp: "2026-04-18T19:45:06+01:00" }]]
              ]
            )
            assert.deepStrictEqual(fake.requests.map(line), [
              "GET /v1/histories/?tracking=yal-ABC1%2Cyal-NEW1%2Cyal-NONE&page_size=1000&page=1",
              "GET /v1/parcels/?tracking=yal-NEW1%2Cyal-NONE&page_size=1000&page=1"
            ])
            for (const request of fake.requests) {
              assert.strictEqual(request.headers["x-api-id"], API_ID)
              assert.strictEqual(request.headers["x-api-token"], API_TOKEN)
            }
          })
        )
    )

    it.live("answers like track for each parcel, in one call when every parcel has a history", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const numbers: Array<string> = []
          for (const reference of ["A", "B", "C"]) {
            const { trackingNumber } = yield* create(order({ reference }), context)
            fake.addHistory(trackingNumber, "Expédié")
            numbers.push(trackingNumber)
          }
          const before = fake.requests.length
          const batch = yield* trackBatch(numbers, context)
          assert.strictEqual(fake.requests.length, before + 1)
          for (const tracking of numbers) assert.deepStrictEqual(batch.get(tracking), yield* track(tracking, context))
        })
      )
    )

    it.live("follows has_more past the first 1 000 rows, never answering a history cut short", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          fake.addParcel("yal-LONG1")
          for (let i = 0; i < 1203; i++) fake.addHistory("yal-LONG1", "Centre")
          const batch = yield* trackBatch(["yal-LONG1"], context)
          assert.lengthOf(batch.get("yal-LONG1") ?? [], 1203)
          assert.deepStrictEqual(
            fake.requests.map(({ query }) => query.page),
            ["1", "2"]
          )
        })
      )
    )

    it.live("refuses more than 100 numbers, or one that is no tracking number, before any call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const many = Array.from({ length: 101 }, (_, i) => `yal-${i}`)
          assert.strictEqual((yield* Effect.flip(trackBatch(many, context)))._tag, "Refused")
          assert.strictEqual((yield* Effect.flip(trackBatch(["yal-1", "yal-2,yal-3"], context)))._tag, "Refused")
          assert.strictEqual((yield* trackBatch([], context)).size, 0)
          assert.lengthOf(fake.requests, 0)
        })
      )
    )
  })

  describe("cancel", () => {
    it.live("deletes a parcel still in preparation, and the courier no longer knows it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const { trackingNumber } = yield* create(order(), context)
          yield* cancel(trackingNumber, context)
          assert.isFalse(fake.parcels.has(trackingNumber))
          assert.strictEqual(line(fake.requests.at(-1)!), `DELETE /v1/parcels/${trackingNumber}`)
          const after = yield* Effect.flip(track(trackingNumber, context))
          assert.strictEqual(after._tag, "Refused")
        })
      )
    )

    it.live("a parcel picked up is not cancellable: NotCancellable naming its status, and it stays", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const { trackingNumber } = yield* create(order(), context)
          fake.addHistory(trackingNumber, "Ramassé")
          const before = fake.requests.length
          const refused = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(refused._tag, "NotCancellable")
          assert.include(refused.message, "Ramassé")
          assert.isTrue(fake.parcels.has(trackingNumber))
          assert.deepStrictEqual(fake.requests.slice(before).map(line), [
            `DELETE /v1/parcels/${trackingNumber}`,
            `GET /v1/parcels/${trackingNumber}`
          ])
        })
      )
    )

    it.live("an unknown parcel is refused on its tracking number; a malformed one without a call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const unknown = yield* Effect.flip(cancel("yal-NONE", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.include(unknown.message, "trackingNumber")
          const before = fake.requests.length
          assert.strictEqual((yield* Effect.flip(cancel("../v1/parcels", context)))._tag, "Refused")
          assert.strictEqual(fake.requests.length, before)
        })
      )
    )

    it.live("never deletes another parcel whose number starts with the one cancelled", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          for (const tracking of ["yal-ABC1", "yal-ABC12"]) fake.addParcel(tracking)
          yield* cancel("yal-ABC1", context)
          assert.deepStrictEqual([...fake.parcels.keys()], ["yal-ABC12"])
        })
      )
    )
  })

  describe("stopDesks", () => {
    it.live("lists the wilaya's centers: the center id is the stopDeskId a desk order sends", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const desks = yield* stopDesks(alger, context)
          const expected = COMMUNES.filter((commune) => commune.wilaya === 16 && commune.hasStopDesk)
          assert.deepStrictEqual(
            desks,
            expected.map((commune) => ({
              id: String(centerOf(commune)),
              name: `Centre de ${commune.name}`,
              wilayaCode: alger,
              communeName: commune.name,
              address: addressOf(commune)
            }))
          )
          assert.deepStrictEqual(fake.requests.map(line), ["GET /v1/centers/?wilaya_id=16&page_size=1000&page=1"])
          const desk = desks.find((candidate) => candidate.communeName === "Bordj El Kiffan")!
          const created = yield* create(
            order({
              deliveryType: "stopdesk",
              stopDeskId: desk.id,
              recipient: {
                fullName: "Amina Benali",
                phone: "0555123456",
                wilayaCode: 16,
                communeName: "Bordj El Kiffan"
              }
            }),
            context
          )
          assert.strictEqual(fake.parcels.get(created.trackingNumber)?.fields.stopdesk_id, Number(desk.id))
        })
      )
    )

    it.live("a wilaya without a center has none", () =>
      withFake(
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* stopDesks(WilayaCode.WilayaCode.make(33), context), [])
        })
      )
    )
  })

  describe("communes", () => {
    it.live("lists the wilaya's communes in Yalidine's spelling, with home and desk flags", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          assert.deepStrictEqual(yield* communes(alger, context), [
            { name: "Alger Centre", id: "1601", home: true, stopdesk: true },
            { name: "Bab Ezzouar", id: "1611", home: true, stopdesk: true },
            { name: "Hydra", id: "1620", home: true, stopdesk: false },
            { name: "Bordj El Kiffan", id: "1630", home: true, stopdesk: true }
          ])
          assert.deepStrictEqual(fake.requests.map(line), ["GET /v1/communes/?wilaya_id=16&page_size=1000&page=1"])
          assert.deepStrictEqual(yield* communes(WilayaCode.WilayaCode.make(50), context), [
            { name: "Bordj Badji Mokhtar", id: "5001", home: false, stopdesk: false }
          ])
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("reads one wilaya with the caller's id and token, creating nothing", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(fake.requests.map(line), ["GET /v1/wilayas/?page_size=1"])
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )

    it.live("credentials the courier does not know: CredentialsRejected, without quoting them", () =>
      withFake(
        Effect.gen(function* () {
          const wrong = Schema.decodeUnknownSync(Credentials)({ apiId: API_ID, apiToken: `${API_TOKEN}-revoked` })
          const rejected = yield* Effect.flip(checkCredentials(undefined, { credentials: wrong }))
          assert.strictEqual(rejected._tag, "CredentialsRejected")
          assert.notInclude(rejected.message, API_TOKEN)
        })
      )
    )
  })
})
