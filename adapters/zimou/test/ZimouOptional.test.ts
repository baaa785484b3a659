/**
 * Zimou's optional operations against the loopback fake, through the SDK's `LoopbackHttp`: batch tracking
 * (`packages/status` with several codes), cancel (`DELETE packages/bulk`, refused past pickup), the relay points and
 * communes of a wilaya (`helpers/offices`, `helpers/communes`) and the token check (`user`).
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { LoopbackHttp } from "@tawsil/courier/testing"
import { WilayaCode } from "@tawsil/domain"
import { Effect, Layer, Schema } from "effect"
import { adapter, Credentials } from "../src/Zimou.ts"
import { COMMUNES, communeId, OFFICES, type RecordedRequest, TOKEN, ZimouFake } from "./fake/ZimouFake.ts"

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)
const context = { credentials: Schema.decodeUnknownSync(Credentials)({ token: TOKEN }) }
const revoked = { credentials: Schema.decodeUnknownSync(Credentials)({ token: `${TOKEN}-revoked` }) }

const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "0555123456",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000 logements",
      ...recipient
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const { create, track, cancel, trackBatch, stopDesks, communes, checkCredentials } = adapter.operations as Required<
  typeof adapter.operations
>

const withFake = <A, E>(effect: Effect.Effect<A, E, ZimouFake | CourierHttp.CourierHttp>) =>
  Effect.provide(
    effect,
    LoopbackHttp.layer(Effect.map(ZimouFake, (fake) => fake.origin)).pipe(Layer.provideMerge(ZimouFake.layer()))
  )

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

describe("Zimou optional operations", () => {
  describe("trackBatch", () => {
    it.live("reads several parcels in one call, each at its current status; an unknown code is left out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const first = (yield* create(order(), context)).trackingNumber
          const second = (yield* create(order({ reference: "CMD-8" }), context)).trackingNumber
          fake.setClock("2026-04-20 13:02:33")
          fake.setStatus(second, 8)
          const before = fake.requests.length
          const found = yield* trackBatch([first, "ZM-999999", second], context)
          assert.deepStrictEqual(
            [...found.entries()],
            [
              [first, [{ rawStatus: "1", timestamp: "2026-04-18T19:45:06+01:00" }]],
              [second, [{ rawStatus: "8", timestamp: "2026-04-20T14:02:33+01:00" }]]
            ]
          )
          const sent = fake.requests.slice(before)
          assert.deepStrictEqual(paths(sent), ["GET /api/v3/packages/status"])
          assert.deepStrictEqual(sent[0]?.query, {
            "packages[0]": first,
            "packages[1]": "ZM-999999",
            "packages[2]": second
          })
          assert.strictEqual(sent[0]?.headers.authorization, `Bearer ${TOKEN}`)
        })
      )
    )

    it.live("answers an empty map when Zimou knows none, and asks nothing for no codes or more than 100", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          assert.strictEqual((yield* trackBatch(["ZM-999998", "ZM-999999"], context)).size, 0)
          assert.lengthOf(fake.requests, 1)
          assert.strictEqual((yield* trackBatch([], context)).size, 0)
          const tooMany = yield* Effect.flip(
            trackBatch(
              Array.from({ length: 101 }, (_, i) => `ZM-${i}`),
              context
            )
          )
          assert.strictEqual(tooMany._tag, "Refused")
          assert.lengthOf(fake.requests, 1, "nothing more was sent")
        })
      )
    )
  })

  describe("cancel", () => {
    it.live("deletes a parcel still waiting for pickup: one DELETE with its code, and Zimou no longer knows it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const { trackingNumber } = yield* create(order(), context)
          fake.setStatus(trackingNumber, 2)
          const before = fake.requests.length
          yield* cancel(trackingNumber, context)
          const sent = fake.requests.slice(before)
          assert.deepStrictEqual(paths(sent), ["DELETE /api/v3/packages/bulk"])
          assert.deepStrictEqual(sent[0]?.body, { tracking_codes: [trackingNumber] })
          assert.strictEqual(sent[0]?.headers.authorization, `Bearer ${TOKEN}`)
          assert.isFalse(fake.parcels.has(trackingNumber))
          assert.strictEqual((yield* Effect.flip(track(trackingNumber, context)))._tag, "Refused")
        })
      )
    )

    it.live("a parcel already picked up is NotCancellable in Zimou's words, read with its status", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const { trackingNumber } = yield* create(order(), context)
          fake.setStatus(trackingNumber, 3)
          const before = fake.requests.length
          const reason = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(reason._tag, "NotCancellable")
          assert.include(reason.message, `Le colis ${trackingNumber} ne peut plus être supprimé (EXPEDIE)`)
          assert.include(reason.message, "status 3")
          assert.deepStrictEqual(paths(fake.requests.slice(before)), [
            "DELETE /api/v3/packages/bulk",
            "GET /api/v3/packages/status"
          ])
          assert.isTrue(fake.parcels.has(trackingNumber), "the parcel is still there")
        })
      )
    )

    it.live("an unknown code stays Refused; a revoked token is CredentialsRejected without a second call", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const unknown = yield* Effect.flip(cancel("ZM-999999", context))
          assert.strictEqual(unknown._tag, "Refused")
          assert.strictEqual(unknown.message, "Aucun colis trouvé pour ces codes")
          const before = fake.requests.length
          const rejected = yield* Effect.flip(cancel("ZM-000001", revoked))
          assert.strictEqual(rejected._tag, "CredentialsRejected")
          assert.notInclude(JSON.stringify(rejected), TOKEN)
          assert.lengthOf(fake.requests, before + 1)
        })
      )
    )
  })

  describe("stopDesks", () => {
    it.live("lists the wilaya's relay points, placed by their commune, with the id a desk order sends", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const desks = yield* stopDesks(wilaya(16), context)
          assert.deepStrictEqual(desks, [
            {
              id: "101",
              name: "Yalidine Bab Ezzouar",
              wilayaCode: wilaya(16),
              communeName: "Bab Ezzouar",
              address: "Cité 2068 logements, Bab Ezzouar"
            },
            {
              id: "102",
              name: "Yalidine Hydra",
              wilayaCode: wilaya(16),
              communeName: "Hydra",
              address: "12 rue des Frères Oukid, Hydra"
            }
          ])
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v3/helpers/communes", "GET /api/v3/helpers/offices"])
          for (const request of fake.requests) assert.deepStrictEqual(request.query, {})
          assert.deepStrictEqual(yield* stopDesks(wilaya(11), context), [], "no relay point in Tamanrasset")
        })
      )
    )

    it.live("a listed desk, in its commune, is one Zimou's create takes", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const [desk] = yield* stopDesks(wilaya(31), context)
          assert.strictEqual(desk?.id, "311")
          const created = yield* create(
            order(
              { deliveryType: "stopdesk", stopDeskId: desk?.id },
              { wilayaCode: 31, communeName: desk?.communeName }
            ),
            context
          )
          assert.strictEqual(fake.parcels.get(created.trackingNumber)?.fields.office_id, 311)
        })
      )
    )
  })

  describe("communes", () => {
    it.live("lists every commune of the wilaya the create accepts, in Zimou's spelling, with ids and desks", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          const listed = yield* communes(wilaya(16), context)
          assert.deepStrictEqual(
            listed.map(({ name }) => name),
            [...(COMMUNES[16] ?? [])]
          )
          const withDesk = new Set(OFFICES.filter(({ wilaya }) => wilaya === 16).map(({ commune }) => commune))
          for (const commune of listed) {
            assert.strictEqual(commune.id, String(communeId(16, commune.name)))
            assert.isTrue(commune.home)
            assert.strictEqual(commune.stopdesk, withDesk.has(commune.name), commune.name)
          }
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v3/helpers/communes", "GET /api/v3/helpers/offices"])
          // Each listed commune is one the create takes, in the listed spelling.
          for (const commune of yield* communes(wilaya(31), context)) {
            yield* create(order({}, { wilayaCode: 31, communeName: commune.name }), context)
          }
          assert.deepStrictEqual(yield* communes(wilaya(1), context), [], "a wilaya Zimou lists nothing in")
        })
      )
    )

    it.live("a revoked token is CredentialsRejected, quoting Zimou's words", () =>
      withFake(
        Effect.gen(function* () {
          for (const reason of [
            yield* Effect.flip(communes(wilaya(16), revoked)),
            yield* Effect.flip(stopDesks(wilaya(16), revoked))
          ]) {
            assert.strictEqual(reason._tag, "CredentialsRejected")
            assert.include(reason.message, "Unauthenticated.")
          }
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.live("reads the token's account, creating nothing; a revoked token is CredentialsRejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZimouFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(paths(fake.requests), ["GET /api/v3/user"])
          const reason = yield* Effect.flip(checkCredentials(undefined, revoked))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Unauthenticated.")
          assert.notInclude(JSON.stringify(reason), TOKEN)
          assert.strictEqual(fake.parcels.size, 0)
        })
      )
    )
  })
})
