/** `Stock`'s pure parts: what a body comes to against the current stock, what an undo writes back, the summary. */
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Schema } from "effect"
import * as Stock from "../src/Stock.ts"

const option = (option_id: number, group_name: string, option_name: string, stock: number | null) =>
  new Stock.VariantStock({ option_id, group_name, option_name, stock })

const current = new Stock.ProductStock({
  product_id: Ids.ProductId.make(7),
  stock: 3,
  variants: [option(1, "Taille", "M", 10), option(2, "Taille", "XL", 0), option(3, "Couleur", "Rouge", null)]
})

const body = Schema.decodeUnknownSync(Stock.StockBody)

describe("Stock", () => {
  it("plans the quantities a body changes: a decrement stops at 0, unchanged ones are left out", () => {
    const plan = Stock.plan(
      current,
      body({
        adjust: -5,
        variants: [
          { option_id: 1, stock: 10 },
          { option_id: 2, adjust: 4 }
        ]
      })
    )
    assert.strictEqual(plan._tag, "Write")
    if (plan._tag !== "Write") return
    assert.deepStrictEqual(plan.write, { stock: 0, options: [{ id: 2, stock: 4 }] })
    assert.deepStrictEqual(plan.before, {
      product_id: current.product_id,
      stock: 3,
      variants: [option(2, "Taille", "XL", 0)]
    })
    assert.deepStrictEqual(plan.after, {
      product_id: current.product_id,
      stock: 0,
      variants: [option(2, "Taille", "XL", 4)]
    })
    assert.strictEqual(Stock.summary(plan.before, plan.after), "Set stock of product #7: 3 → 0, Taille XL 0 → 4")
    const nothing = Stock.plan(current, body({ stock: 3 }))
    assert.isTrue(nothing._tag === "Write" && Stock.writesNothing(nothing.write))
  })

  it("refuses what cannot be applied: an untracked quantity adjusted, an unknown or repeated option", () => {
    for (const [sent, message] of [
      [
        { variants: [{ group_name: "Couleur", option_name: "Rouge", adjust: 1 }] },
        "variants[0].adjust needs a tracked quantity: set stock first"
      ],
      [{ variants: [{ option_id: 9, stock: 1 }] }, "variants[0] names no option of this product"],
      [
        {
          variants: [
            { option_id: 1, stock: 1 },
            { group_name: "Taille", option_name: "M", stock: 2 }
          ]
        },
        "variants[1] names the same option as variants[0]"
      ],
      [{ adjust: 2_147_483_645 }, "adjust would take the quantity above 2147483647"]
    ] as const) {
      assert.deepStrictEqual(Stock.plan(current, body(sent)), { _tag: "Invalid", message })
    }
  })

  it("restores recorded quantities by option id, else by names; an option gone is skipped", () => {
    const replaced = new Stock.ProductStock({
      product_id: Ids.ProductId.make(7),
      stock: 1,
      variants: [option(11, "Taille", "M", 2), option(12, "Taille", "L", 5)]
    })
    const values: Stock.StockValues = {
      product_id: Ids.ProductId.make(7),
      variants: [option(1, "Taille", "M", 10), option(2, "Taille", "XL", 0)]
    }
    assert.deepStrictEqual(Stock.restore(replaced, values), { options: [{ id: 11, stock: 10 }] })
    assert.deepStrictEqual(Stock.restore(current, { ...values, stock: null }), {
      stock: null,
      options: [
        { id: 1, stock: 10 },
        { id: 2, stock: 0 }
      ]
    })
  })

  it("summarises the first five quantities, then how many more", () => {
    const variants = Array.from({ length: 7 }, (_, n) => option(n + 1, "Taille", `T${n}`, n))
    const after = variants.map((variant) => new Stock.VariantStock({ ...variant, stock: (variant.stock ?? 0) + 1 }))
    const id = Ids.ProductId.make(7)
    assert.strictEqual(
      Stock.summary({ product_id: id, variants }, { product_id: id, variants: after }),
      "Set stock of product #7: Taille T0 0 → 1, Taille T1 1 → 2, Taille T2 2 → 3, Taille T3 3 → 4, Taille T4 4 → 5 and 2 more"
    )
  })
})
