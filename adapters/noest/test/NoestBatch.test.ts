import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { Effect, Layer, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Noest.ts"
import * as Status from "../src/NoestStatus.ts"
import { GUID, NoestFake, TOKEN, UNSERVED } from "./fake/NoestFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiToken: TOKEN, guid: GUID }) }

const order = (reference: string, wilayaCode = 16) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference,
    recipient: {
      fullName: "Amina Benali",
      phone: "0555123456",
      wilayaCode,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000 logements"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    weightKg: 1
  })

const createBatch = adapter.operations.createBatch!

const withFake = <A, E>(effect: Effect.Effect<A, E, NoestFake | CourierHttp.CourierHttp>) =>
  Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(NoestFake.layer())))

describe("NOEST createBatch", () => {
  it.effect("100 orders in one create/orders, each made parcel validated; the refused and the too short alone", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* NoestFake
        const orders = Array.from({ length: 100 }, (_, index) =>
          // Every 25th to a wilaya NOEST does not serve; one reference shorter than NOEST takes.
          index === 60 ? order("n-60") : order(`NOEST-${index}`, index % 25 === 4 ? UNSERVED[0] : 16)
        )
        const results = yield* createBatch(orders, context)
        assert.strictEqual(results.length, 100)
        const refused = results.flatMap((result, index) =>
          Result.isFailure(result) ? [{ index, failure: result.failure }] : []
        )
        assert.deepStrictEqual(
          refused.map(({ index, failure }) => [index, failure._tag]),
          [4, 29, 54, 60, 79].map((index) => [index, "Refused"])
        )
        // In NOEST's words for the wilaya, in ours for the reference it would not take.
        assert.include(refused[0]!.failure.message, "desservie")
        assert.include(refused[3]!.failure.message, "order.reference")
        const made = results.flatMap((result) => (Result.isSuccess(result) ? [result.success] : []))
        assert.strictEqual(new Set(made.map((parcel) => parcel.trackingNumber)).size, 95)
        for (const parcel of made) {
          assert.strictEqual(parcel.rawStatus, Status.validated, "as create answers a validated parcel")
          assert.isTrue(fake.parcels.get(parcel.trackingNumber)?.validated, `${parcel.trackingNumber} validated`)
        }
        const paths = fake.requests.map(({ method, path }) => `${method} ${path}`)
        assert.strictEqual(paths.filter((path) => path === "POST /api/public/create/orders").length, 1)
        assert.strictEqual(paths.filter((path) => path === "POST /api/public/create/order").length, 0)
        assert.strictEqual(paths.filter((path) => path === "POST /api/public/valid/order").length, 95)
        // The short reference was never sent; the others were, with the account's token and guid in the body.
        const sent = fake.requests.find(({ path }) => path === "/api/public/create/orders")!.body as {
          user_guid: string
          orders: Record<string, { reference: string }>
        }
        assert.strictEqual(Object.keys(sent.orders).length, 99)
        assert.strictEqual(sent.user_guid, GUID)
      })
    )
  )
})
