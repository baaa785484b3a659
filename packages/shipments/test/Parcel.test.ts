import { assert, describe, it } from "@effect/vitest"
import { StoreText } from "@tawsil/domain"
import type { OrderViews } from "@tawsil/orders"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Parcel from "../src/Parcel.ts"

type Detail = OrderViews.OrderDetail
type Item = Detail["items"][number]

const item = (productId: number, quantity: number, variants: ReadonlyArray<[string, string]> = []): Item => ({
  id: productId * 10,
  product_id: productId,
  price: 1000,
  quantity,
  variants: variants.map(([group_name, option_name]) => ({
    order_item_id: productId * 10,
    group_name,
    option_name,
    color_code: null,
    price_adjustment: "0.00"
  }))
})

const order = (overrides: Partial<Detail> = {}): Detail => ({
  id: 41,
  order_number: "ORD-3-20250501-0A1B2C3D",
  status: "confirmed",
  payment_status: "pending",
  payment_method: "cod",
  customer: {
    id: 9,
    name: "Amine Bensaïd",
    phone: "0555123456",
    email: null,
    wilaya_id: 16,
    commune: "Bab Ezzouar",
    address: "Cité 5 Juillet, bât. 3"
  },
  delivery: { type: "home", desk_id: null, desk_name: null },
  amounts: { subtotal: 5000, shipping_cost: 400.5, discount: 0, payment_fee: 0, total: 5400.5 },
  items: [item(1, 2, [["Taille", "XL"]]), item(2, 1)],
  shipment: null,
  created_at: "2025-05-01 10:00:00",
  updated_at: "2025-05-01 10:00:00",
  ...overrides
})

const names = new Map([
  [1, "Robe kabyle"],
  [2, "Foulard"]
])

const built = (detail: Detail, body: Parcel.ShipBody = { account_id: 1 }) => {
  const parcel = Parcel.fromOrder(detail, names, body)
  if (Result.isFailure(parcel)) throw new Error(parcel.failure)
  return parcel.success
}

const refusal = (detail: Detail, body: Parcel.ShipBody = { account_id: 1 }) => {
  const parcel = Parcel.fromOrder(detail, names, body)
  return Result.isFailure(parcel) ? parcel.failure : undefined
}

describe("Parcel", () => {
  describe("fromOrder", () => {
    it("builds the parcel field by field from the order", () => {
      assert.deepStrictEqual({ ...built(order()) }, {
        reference: "ORD-3-20250501-0A1B2C3D",
        recipient: {
          fullName: "Amine Bensaïd",
          phone: "0555123456",
          wilayaCode: 16,
          communeName: "Bab Ezzouar",
          addressLine: "Cité 5 Juillet, bât. 3"
        },
        deliveryType: "home",
        productList: "2x Robe kabyle (Taille: XL), 1x Foulard",
        codAmount: 5401
      } as never)
    })

    it("takes the request's options, and the order's desk delivery as a stop desk", () => {
      const parcel = built(order({ delivery: { type: "desk", desk_id: 3, desk_name: "Hydra" } }), {
        account_id: 1,
        stop_desk_id: "160101",
        tier: "express",
        weight_kg: 1.5,
        free_shipping: true,
        has_open_package: false,
        is_exchange: true,
        notes: "Appeler avant"
      })
      assert.deepStrictEqual(
        [
          parcel.deliveryType,
          parcel.stopDeskId,
          parcel.tier,
          parcel.weightKg,
          parcel.freeShipping,
          parcel.hasOpenPackage,
          parcel.isExchange,
          parcel.notes
        ],
        ["stopdesk", "160101", "express", 1.5, true, false, true, "Appeler avant"]
      )
      // The request's delivery type wins over the order's.
      assert.strictEqual(built(order(), { account_id: 1, delivery_type: "stopdesk" }).deliveryType, "stopdesk")
      assert.strictEqual(
        built(order({ delivery: { type: "desk", desk_id: 3, desk_name: "Hydra" } }), {
          account_id: 1,
          delivery_type: "home"
        }).deliveryType,
        "home"
      )
    })

    it("leaves a blank address out", () => {
      const parcel = built(order({ customer: { ...order().customer, address: "   " } }))
      assert.isFalse("addressLine" in parcel.recipient)
    })

    it("collects the total rounded to the dinar for a COD order, and nothing for a paid one", () => {
      const total = (value: number, payment_method: Detail["payment_method"] = "cod") =>
        built(order({ payment_method, amounts: { ...order().amounts, total: value } })).codAmount
      assert.deepStrictEqual(
        [total(5400.5), total(5400.499), total(0.4), total(0), total(1999.999), total(12_000_000)],
        [5401, 5400, 0, 0, 2000, 12_000_000]
      )
      assert.strictEqual(total(5400.5, "digital_payment"), 0)
      assert.strictEqual(total(5400.5, "free_digital"), 0)
    })

    it("refuses a digital order: it has no parcel", () => {
      assert.strictEqual(
        refusal(order({ delivery: { type: "digital", desk_id: null, desk_name: null } })),
        "Order 41 is a digital order: it has no parcel"
      )
    })

    it("refuses an order the couriers cannot take, naming each field", () => {
      const message = refusal(
        order({
          customer: { ...order().customer, name: "A", address: "x".repeat(256), commune: "" },
          items: []
        })
      )
      assert.match(message!, /^Order 41 cannot be sent to a courier as it is: /)
      for (const field of ["recipient.fullName", "recipient.addressLine", "recipient.communeName", "productList"]) {
        assert.include(message, `${field}: `)
      }
    })
  })

  describe("productList", () => {
    it("lists each line with its quantity and chosen options, naming unknown products by id", () => {
      assert.strictEqual(
        Parcel.productList(
          [
            item(1, 2, [
              ["Taille", "XL"],
              ["Couleur", "Rouge"]
            ]),
            item(7, 1)
          ],
          names
        ),
        "2x Robe kabyle (Taille: XL, Couleur: Rouge), 1x Product 7"
      )
    })

    it("cuts at 500 characters with an ellipsis", () => {
      const long = new Map([[1, "R".repeat(600)]])
      const list = Parcel.productList([item(1, 1)], long)
      assert.strictEqual(list.length, Parcel.PRODUCT_LIST_MAX)
      assert.isTrue(list.endsWith("R…"))
      const exact = new Map([[1, "R".repeat(Parcel.PRODUCT_LIST_MAX - 3)]])
      assert.strictEqual(Parcel.productList([item(1, 1)], exact), `1x ${"R".repeat(Parcel.PRODUCT_LIST_MAX - 3)}`)
      // A character outside the basic plane (two UTF-16 units) where the cut falls is left out whole.
      const cut = (name: string) => Parcel.productList([item(1, 1)], new Map([[1, name]]))
      assert.strictEqual(cut(`${"R".repeat(495)}👗👗`), `1x ${"R".repeat(495)}…`)
      assert.strictEqual(cut(`${"R".repeat(494)}👗👗`), `1x ${"R".repeat(494)}👗…`)
    })

    it("is always text a courier takes: at most 500 characters, never a split character, whatever the names", () => {
      const text = fc.string({ unit: "grapheme", maxLength: 80 })
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              name: text,
              quantity: fc.integer({ min: 1, max: 1000 }),
              variants: fc.array(fc.tuple(text, text), { maxLength: 3 })
            }),
            { minLength: 1, maxLength: 12 }
          ),
          (lines) => {
            const productNames = new Map(lines.map((line, index) => [index + 1, line.name]))
            const list = Parcel.productList(
              lines.map((line, index) => item(index + 1, line.quantity, line.variants)),
              productNames
            )
            assert.isAtMost(list.length, Parcel.PRODUCT_LIST_MAX)
            assert.isTrue(StoreText.isStorable(list), JSON.stringify(list))
          }
        )
      )
    })
  })

  describe("parseShip", () => {
    it("takes the body's fields and refuses others, naming them", () => {
      assert.deepStrictEqual(
        Parcel.parseShip({ account_id: 3, dispatch: false }),
        Result.succeed({ account_id: 3, dispatch: false })
      )
      const message = (body: unknown) => {
        const parsed = Parcel.parseShip(body)
        return Result.isFailure(parsed) ? parsed.failure : undefined
      }
      assert.match(message([])!, /^Body must be a JSON object/)
      for (const [body, field] of [
        [{}, "account_id"],
        [{ account_id: 0 }, "account_id"],
        [{ account_id: 2_147_483_648 }, "account_id"],
        [{ account_id: 1, delivery_type: "desk" }, "delivery_type"],
        [{ account_id: 1, weight_kg: 1001 }, "weight_kg"],
        [{ account_id: 1, notes: "\u0000" }, "notes"],
        [{ account_id: 1, from_wilaya: 70 }, "from_wilaya"],
        [{ account_id: 1, extra: true }, "extra"]
      ] as const) {
        assert.include(message(body), `${field}: `, JSON.stringify(body))
      }
    })
  })
})
