/**
 * Issue 34: the create answer's display number, which Maystro's label prints and its push names the order by.
 * Maystro's own documentation (its GitBook) could not be read; four public integrations read the create answer's
 * `display_id` (one, liberta's webhook handling, `display_id_order`): research §1.5. None of it was checked against
 * the live platform.
 */
import { assert, describe, it } from "@effect/vitest"
import { Shipment } from "@tawsil/courier"
import { Effect, Layer, Result, Schema } from "effect"
import { Credentials, make } from "../src/Maystro.ts"
import * as Mapping from "../src/MaystroMapping.ts"
import { KEY, MaystroFake } from "./fake/MaystroFake.ts"
import { response } from "./fixtures/responses.ts"
import * as Loopback from "./LoopbackHttp.ts"

const UUID = "5e1c0a7d-3b2f-4c8e-9a61-000000000042"
const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: KEY }) }

describe("Maystro's create answer, as the public integrations read it", () => {
  it("returns the display number as the courier's reference, from display_id or display_id_order", () => {
    for (const body of [
      { id: UUID, display_id: 880042, status: 4 },
      { id: UUID, display_id_order: "880042", status: 4 },
      { id: UUID, display_id: "880042", display_id_order: 1, status: 4 }
    ]) {
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromCreated(response(201, body))), {
        trackingNumber: UUID,
        courierReference: "880042",
        rawStatus: "4"
      })
    }
    assert.notProperty(
      Result.getOrThrow(Mapping.fromCreated(response(201, { id: UUID, display_id: null, status: 4 }))),
      "courierReference"
    )
  })

  it.live("against the fake, which answers display_id: the order's UUID to track, its display number beside it", () =>
    Effect.gen(function* () {
      const fake = yield* MaystroFake
      const { create } = make().operations as Required<ReturnType<typeof make>["operations"]>
      const created = yield* create(
        Schema.decodeUnknownSync(Shipment.ParcelOrder)({
          reference: "CMD-34",
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
        }),
        context
      )
      const stored = fake.orders.get(created.trackingNumber)!
      assert.strictEqual(created.courierReference, String(stored.displayId))
    }).pipe(
      Effect.provide(Loopback.layer().pipe(Layer.provideMerge(MaystroFake.layer()))),
      (effect) => effect as Effect.Effect<void, unknown, never>
    )
  )
})
