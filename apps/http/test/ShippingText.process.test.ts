/**
 * Text a courier could not keep as sent — a NUL character or a lone UTF-16 surrogate in any text field of a parcel —
 * is refused with 400 `invalid_input` naming the field, before any courier is asked; the other control characters
 * (a tab, a line break in an address) go through. Through the real app, on the sandbox.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import { postJson, startApp } from "./AppProcess.ts"
import { validOrder } from "./ShippingBodies.ts"

describe("text the shipping API passes to a courier", () => {
  it.live("is refused with NUL or a lone surrogate, field by field, and passes with other control characters", () =>
    Effect.gen(function* () {
      const app = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir })
      const create = (recipient: object, order: object = {}) =>
        postJson(`${app.shippingUrl}/v1/orders`, {
          ...validOrder,
          order: { ...validOrder.order, ...order, recipient: { ...validOrder.order.recipient, ...recipient } }
        })
      const refusals: ReadonlyArray<[string, ReturnType<typeof create>]> = [
        ["order.reference", create({}, { reference: "cmd\u00001" })],
        ["order.productList", create({}, { productList: "robe\u0000" })],
        ["order.notes", create({}, { notes: "\ud800 appeler avant" })],
        ["order.recipient.fullName", create({ fullName: "Amina\u0000B" })],
        ["order.recipient.addressLine", create({ addressLine: "Cité \udc00" })]
      ]
      for (const [field, answer] of refusals) {
        const { status, json } = yield* answer
        assert.strictEqual(status, 400, field)
        assert.strictEqual(json.error.code, "invalid_input", field)
        assert.include(Object.keys(json.error.fields ?? {}).join(" "), field, JSON.stringify(json.error))
      }
      const accepted = yield* create({ addressLine: "Cité 5 juillet\nbât. 3\tporte 2" }, { productList: "robe\u0001" })
      assert.strictEqual(accepted.status, 200, accepted.text)
    }).pipe(Effect.scoped)
  )
})
