import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { Effect, Layer, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Ecotrack.ts"
import * as Mapping from "../src/EcotrackMapping.ts"
import * as Status from "../src/EcotrackStatus.ts"
import { EcotrackFake, TOKEN, UNSERVED } from "./fake/EcotrackFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ token: TOKEN }) }

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
    codAmount: 4500
  })

const createBatch = adapter.operations.createBatch!

/**
 * The adapter alone against the fake: no host here paces the account (decision 0032), so the fake's 50 a minute is
 * raised for the 101 requests of a batch of 100.
 */
const withFake = <A, E>(effect: Effect.Effect<A, E, EcotrackFake | CourierHttp.CourierHttp>) =>
  Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(EcotrackFake.layer({ perMinute: 1000 }))))

describe("Ecotrack createBatch", () => {
  it.effect("100 orders in one create/orders, each made parcel validated, the unserved refused alone", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* EcotrackFake
        const orders = Array.from({ length: 100 }, (_, index) =>
          order(`CMD-${index}`, index % 20 === 7 ? UNSERVED[0] : 16)
        )
        const results = yield* createBatch(orders, context)
        assert.strictEqual(results.length, 100)
        const refused = results.flatMap((result, index) => (Result.isFailure(result) ? [index] : []))
        assert.deepStrictEqual(refused, [7, 27, 47, 67, 87])
        for (const index of refused) {
          const result = results[index]!
          assert.isTrue(Result.isFailure(result) && result.failure._tag === "Refused")
          if (Result.isFailure(result)) assert.include(result.failure.message, "10002")
        }
        const made = results.flatMap((result) => (Result.isSuccess(result) ? [result.success] : []))
        assert.strictEqual(new Set(made.map((parcel) => parcel.trackingNumber)).size, 95)
        for (const parcel of made) {
          assert.strictEqual(parcel.rawStatus, Status.validated, "as create answers a validated parcel")
          assert.isTrue(fake.parcels.get(parcel.trackingNumber)?.validated, `${parcel.trackingNumber} validated`)
        }
        const paths = fake.requests.map(({ method, path }) => `${method} ${path}`)
        assert.strictEqual(paths.filter((path) => path === "POST /api/v1/create/orders").length, 1)
        assert.strictEqual(paths.filter((path) => path === "POST /api/v1/create/order").length, 0)
        assert.strictEqual(paths.filter((path) => path === "POST /api/v1/valid/order").length, 95)
        // The documented body: the orders keyed by index, each as create/order takes it.
        const sent = fake.requests.find(({ path }) => path === "/api/v1/create/orders")!.body as {
          orders: Record<string, { reference: string }>
        }
        assert.deepStrictEqual(Object.keys(sent.orders).slice(0, 3), ["0", "1", "2"])
        assert.strictEqual(sent.orders["42"]!.reference, "CMD-42")
      })
    )
  )

  it("reads each order's result by its reference: field errors and business codes refuse that order alone", () => {
    const answer = {
      status: 200,
      headers: { "content-type": "application/json" },
      text: JSON.stringify({
        results: {
          "A-1": { success: true, tracking: "ECT1" },
          "A-2": { telephone: ["Le champ telephone doit contenir entre 9 et 10 chiffres."] },
          "A-3": { success: false, error: 10002, message: "Pas de livraison" }
        }
      }),
      bytes: new Uint8Array()
    }
    const read = Mapping.fromCreatedBatch(["A-1", "A-2", "A-3", "A-4"], answer)
    assert.isTrue(Result.isSuccess(read))
    if (Result.isFailure(read)) return
    const [made, fields, business, missing] = read.success
    assert.deepStrictEqual(made, Result.succeed("ECT1"))
    assert.isTrue(Result.isFailure(fields!) && fields.failure._tag === "Refused")
    if (Result.isFailure(fields!)) assert.include(fields.failure.message, "order.recipient.phone")
    assert.isTrue(Result.isFailure(business!) && business.failure._tag === "Refused")
    assert.isTrue(Result.isFailure(missing!) && missing.failure._tag === "BadResponse")
  })
})
