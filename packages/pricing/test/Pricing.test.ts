import { assert, describe, it } from "@effect/vitest"
import { StoreAmount } from "@tawsil/domain"
import { BigDecimal, Schema } from "effect"
import * as fc from "fast-check"
import { Pricing } from "../src/index.ts"

const decimal = BigDecimal.fromStringUnsafe
const fromJson = Schema.decodeUnknownSync(StoreAmount.FromNumber)

const assertAmount = (actual: StoreAmount.StoreAmount, expected: string) =>
  assert.isTrue(BigDecimal.equals(actual, decimal(expected)), `${BigDecimal.format(actual)} is not ${expected}`)

const zero = StoreAmount.zero

const tshirt: Pricing.CatalogueProduct = {
  price: decimal("1200"),
  options: [
    { group_name: "Taille", option_name: "XL", price_adjustment: decimal("150") },
    { group_name: "Taille", option_name: "M", price_adjustment: decimal("0") },
    { group_name: "Couleur", option_name: "Rouge", price_adjustment: decimal("-50.5") }
  ]
}

const chosen = (group_name: string, option_name: string, price_adjustment: string): Pricing.ChosenVariant => ({
  group_name,
  option_name,
  color_code: null,
  price_adjustment: decimal(price_adjustment)
})

const order = (
  lines: ReadonlyArray<Pricing.Line>,
  amounts: Partial<Record<"shipping" | "discount" | "fee", string>> = {}
) =>
  Pricing.priceOrder({
    lines,
    shipping_cost: decimal(amounts.shipping ?? "0"),
    discount: decimal(amounts.discount ?? "0"),
    payment_fee: decimal(amounts.fee ?? "0")
  })

describe("Pricing", () => {
  it("prices a line at the catalogue price with the catalogue's adjustments", () => {
    const priced = order([
      { product: tshirt, quantity: 2, variants: [chosen("Taille", "XL", "9999"), chosen("Couleur", "Rouge", "0")] }
    ])
    assertAmount(priced.lines[0]!.price, "1200")
    assert.deepStrictEqual(
      priced.lines[0]!.variants.map((v) => [v.group_name, v.option_name, BigDecimal.format(v.price_adjustment)]),
      [
        ["Taille", "XL", "150"],
        ["Couleur", "Rouge", "-50.5"]
      ]
    )
    // 2 × (1200 + 150 − 50.5)
    assertAmount(priced.subtotal, "2599")
    assertAmount(priced.total, "2599")
  })

  it("keeps the sent adjustment, name and colour of a pair the product does not have", () => {
    const sent: Pricing.ChosenVariant = {
      group_name: "Couleur",
      option_name: "Vert",
      color_code: "#00ff00",
      price_adjustment: decimal("75.25")
    }
    const priced = order([{ product: tshirt, quantity: 1, variants: [sent] }])
    assert.deepStrictEqual(priced.lines[0]!.variants, [sent])
    assertAmount(priced.subtotal, "1275.25")
  })

  it("matches a pair on both names: an option of another group is not the catalogue's", () => {
    // "XL" exists in "Taille", not in "Couleur"; and "Taille"/"Rouge" is not a catalogue pair either.
    const priced = order([
      { product: tshirt, quantity: 1, variants: [chosen("Couleur", "XL", "10"), chosen("Taille", "Rouge", "20")] }
    ])
    assert.deepStrictEqual(
      priced.lines[0]!.variants.map((v) => BigDecimal.format(v.price_adjustment)),
      ["10", "20"]
    )
    assertAmount(priced.subtotal, "1230")
  })

  it("matches names exactly as sent (case and spaces count)", () => {
    const priced = order([
      { product: tshirt, quantity: 1, variants: [chosen("taille", "XL", "1"), chosen("Taille ", "XL", "2")] }
    ])
    assertAmount(priced.subtotal, "1203")
  })

  it("adds shipping and fee, subtracts the discount, and clamps the total at 0", () => {
    const lines = [{ product: tshirt, quantity: 1, variants: [] }]
    assertAmount(order(lines, { shipping: "350.5", discount: "100", fee: "25.125" }).total, "1475.625")
    const clamped = order(lines, { shipping: "400", discount: "5000" })
    assertAmount(clamped.subtotal, "1200")
    assertAmount(clamped.total, "0")
  })

  it("sums several lines, each times its quantity", () => {
    const book: Pricing.CatalogueProduct = { price: decimal("0.1"), options: [] }
    const priced = order([
      { product: book, quantity: 3, variants: [] },
      { product: tshirt, quantity: 1, variants: [chosen("Taille", "M", "500")] },
      { product: book, quantity: 1, variants: [chosen("Format", "Poche", "0.2")] }
    ])
    assertAmount(priced.subtotal, "1200.6")
  })

  it("adds 0.1 and 0.2 to exactly 0.3", () => {
    const product: Pricing.CatalogueProduct = { price: fromJson(0.1), options: [] }
    const priced = Pricing.priceOrder({
      lines: [{ product, quantity: 1, variants: [] }],
      shipping_cost: fromJson(0.2),
      discount: zero,
      payment_fee: zero
    })
    assertAmount(priced.total, "0.3")
    assert.strictEqual(StoreAmount.toJsonNumber(priced.total), 0.3)
  })

  it("refuses a fractional quantity", () => {
    assert.throws(() => order([{ product: tshirt, quantity: 1.5, variants: [] }]), RangeError)
  })

  describe("properties", () => {
    /** An exact decimal as (unscaled, scale), computed on below with bigints only. */
    const amount = (min: bigint, max: bigint) => fc.tuple(fc.bigInt({ min, max }), fc.integer({ min: 0, max: 4 }))
    const SCALE = 4
    const scaled = ([value, scale]: readonly [bigint, number]) => value * 10n ** BigInt(SCALE - scale)
    const toDecimal = ([value, scale]: readonly [bigint, number]) => BigDecimal.make(value, scale)

    const option = fc.record({
      group: fc.constantFrom("Taille", "Couleur", "Format"),
      option: fc.constantFrom("S", "M", "XL", "Rouge"),
      adjustment: amount(-100_000n, 100_000n)
    })
    const line = fc.record({
      price: amount(0n, 10_000_000n),
      catalogue: fc.uniqueArray(option, { selector: (o) => `${o.group}/${o.option}`, maxLength: 6 }),
      chosen: fc.array(option, { maxLength: 4 }),
      quantity: fc.integer({ min: 1, max: 9999 })
    })
    const nonNegative = amount(0n, 10_000_000n)
    const orderArb = fc.record({
      lines: fc.array(line, { minLength: 1, maxLength: 8 }),
      shipping: nonNegative,
      discount: amount(0n, 10_000_000_000n),
      fee: nonNegative
    })

    it("prices exactly: the total is the bigint computation, and never negative", () => {
      fc.assert(
        fc.property(orderArb, (o) => {
          let subtotal = 0n
          for (const l of o.lines) {
            const catalogue = new Map(l.catalogue.map((c) => [`${c.group}/${c.option}`, c.adjustment]))
            const adjustments = l.chosen.map((c) => scaled(catalogue.get(`${c.group}/${c.option}`) ?? c.adjustment))
            subtotal += BigInt(l.quantity) * (scaled(l.price) + adjustments.reduce((a, b) => a + b, 0n))
          }
          const raw = subtotal + scaled(o.shipping) - scaled(o.discount) + scaled(o.fee)
          const total = raw < 0n ? 0n : raw

          const priced = Pricing.priceOrder({
            lines: o.lines.map((l) => ({
              product: {
                price: toDecimal(l.price),
                options: l.catalogue.map((c) => ({
                  group_name: c.group,
                  option_name: c.option,
                  price_adjustment: toDecimal(c.adjustment)
                }))
              },
              quantity: l.quantity,
              variants: l.chosen.map((c) => ({
                group_name: c.group,
                option_name: c.option,
                color_code: null,
                price_adjustment: toDecimal(c.adjustment)
              }))
            })),
            shipping_cost: toDecimal(o.shipping),
            discount: toDecimal(o.discount),
            payment_fee: toDecimal(o.fee)
          })
          assert.isTrue(BigDecimal.equals(priced.subtotal, BigDecimal.make(subtotal, SCALE)))
          assert.isTrue(BigDecimal.equals(priced.total, BigDecimal.make(total, SCALE)))
          assert.isFalse(BigDecimal.isNegative(priced.total))
        })
      )
    })

    it("never lets a sent adjustment change a catalogue pair's price", () => {
      fc.assert(
        fc.property(line, amount(-1_000_000n, 1_000_000n), (l, sent) => {
          const product: Pricing.CatalogueProduct = {
            price: toDecimal(l.price),
            options: l.catalogue.map((c) => ({
              group_name: c.group,
              option_name: c.option,
              price_adjustment: toDecimal(c.adjustment)
            }))
          }
          const pick = (adjustment: BigDecimal.BigDecimal) =>
            product.options.map((o) => ({ ...o, color_code: null, price_adjustment: adjustment }))
          const a = Pricing.priceOrder({
            lines: [{ product, quantity: l.quantity, variants: pick(toDecimal(sent)) }],
            shipping_cost: zero,
            discount: zero,
            payment_fee: zero
          })
          const b = Pricing.priceOrder({
            lines: [{ product, quantity: l.quantity, variants: pick(zero) }],
            shipping_cost: zero,
            discount: zero,
            payment_fee: zero
          })
          assert.isTrue(BigDecimal.equals(a.total, b.total))
        })
      )
    })
  })

  describe("at the maxima", () => {
    const MAX = StoreAmount.MAXIMUM
    const exactly = (amount: StoreAmount.StoreAmount) =>
      BigInt(StoreAmount.format(BigDecimal.scale(amount, 0)).slice(0, -3))

    it("bounds every computed amount by MAX_TOTAL, below 2^53", () => {
      assertAmount(Pricing.MAX_TOTAL, "1049895200000000")
      assert.isTrue(exactly(Pricing.MAX_TOTAL) < 2n ** 53n)
      assert.strictEqual(StoreAmount.toJsonNumber(Pricing.MAX_TOTAL), 1_049_895_200_000_000)
    })

    it("prices the largest order there can be to exactly MAX_TOTAL, a safe integer in JSON", () => {
      const variants = Array.from({ length: Pricing.MAX_VARIANTS_PER_LINE }, (_, index) =>
        chosen(`Groupe ${index}`, "Option", StoreAmount.MAXIMUM_TEXT)
      )
      const line: Pricing.Line = { product: { price: MAX, options: [] }, quantity: Pricing.MAX_QUANTITY, variants }
      const priced = Pricing.priceOrder({
        lines: Array.from({ length: Pricing.MAX_LINES }, () => line),
        shipping_cost: MAX,
        discount: zero,
        payment_fee: MAX
      })
      assertAmount(priced.total, "1049895200000000")
      assert.isTrue(Pricing.isWithinBounds(priced))
      const json = JSON.parse(JSON.stringify({ total: StoreAmount.toJsonNumber(priced.total) })).total
      assert.isTrue(Number.isSafeInteger(json))
      assert.strictEqual(BigInt(json), exactly(priced.total))
      // The most negative subtotal: free products, every adjustment at -MAXIMUM; the total clamps at 0.
      const negative = Pricing.priceOrder({
        lines: Array.from({ length: Pricing.MAX_LINES }, () => ({
          ...line,
          product: { price: zero, options: [] },
          variants: variants.map((v) => ({ ...v, price_adjustment: BigDecimal.negate(MAX) }))
        })),
        shipping_cost: zero,
        discount: MAX,
        payment_fee: zero
      })
      assertAmount(negative.subtotal, "-999900000000000")
      assertAmount(negative.total, "0")
      assert.isTrue(Pricing.isWithinBounds(negative))
    })

    /** An amount within ±MAXIMUM (≥ 0 unless `negative`) with 0 to `decimals` decimals, weighted towards the bounds. */
    const bounded = (negative: boolean, decimals: number) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(MAX) },
        { weight: negative ? 2 : 0, arbitrary: fc.constant(BigDecimal.negate(MAX)) },
        { weight: 1, arbitrary: fc.constant(zero) },
        {
          weight: 3,
          arbitrary: fc
            .tuple(
              fc.bigInt({ min: negative ? -(10n ** 10n) : 0n, max: 10n ** 10n }),
              fc.integer({ min: 0, max: decimals })
            )
            .map(([value, scale]) => BigDecimal.make(value, scale))
            .filter((amount) => BigDecimal.isLessThanOrEqualTo(BigDecimal.abs(amount), MAX))
        }
      )
    const boundedOrder = (decimals: number) =>
      fc.record({
        lines: fc.array(
          fc.record({
            price: bounded(false, decimals),
            quantity: fc.oneof(fc.constant(Pricing.MAX_QUANTITY), fc.integer({ min: 1, max: Pricing.MAX_QUANTITY })),
            adjustments: fc.array(bounded(true, decimals), { maxLength: Pricing.MAX_VARIANTS_PER_LINE })
          }),
          { minLength: 1, maxLength: Pricing.MAX_LINES }
        ),
        shipping_cost: bounded(false, decimals),
        discount: bounded(false, decimals),
        payment_fee: bounded(false, decimals)
      })
    type BoundedOrder = typeof boundedOrder extends (decimals: number) => fc.Arbitrary<infer O> ? O : never

    const price = (o: BoundedOrder) =>
      Pricing.priceOrder({
        lines: o.lines.map((l) => ({
          product: { price: l.price, options: [] },
          quantity: l.quantity,
          variants: l.adjustments.map((adjustment, index) => ({
            group_name: `G${index}`,
            option_name: "O",
            color_code: null,
            price_adjustment: adjustment
          }))
        })),
        shipping_cost: o.shipping_cost,
        discount: o.discount,
        payment_fee: o.payment_fee
      })

    it("keeps every order within the bounds a finite JSON number within MAX_TOTAL, its decimals exact", () => {
      fc.assert(
        fc.property(boundedOrder(2), (o) => {
          const priced = price(o)
          assert.isTrue(Pricing.isWithinBounds(priced))
          for (const amount of [priced.subtotal, priced.total]) {
            const json = JSON.parse(JSON.stringify({ amount: StoreAmount.toJsonNumber(amount) })).amount
            assert.isTrue(Number.isFinite(json), StoreAmount.format(amount))
            assert.isAtMost(Math.abs(json), StoreAmount.toJsonNumber(Pricing.MAX_TOTAL))
            // Stored and shown as a decimal string exactly: never more decimals than the inputs had.
            assert.isAtMost(BigDecimal.normalize(amount).scale, 2)
          }
        }),
        { numRuns: 200 }
      )
    })

    it("answers every whole-dinar amount of an order within the bounds exactly as a JSON number", () => {
      fc.assert(
        fc.property(boundedOrder(0), (o) => {
          const priced = price(o)
          for (const amount of [priced.subtotal, priced.total]) {
            const json = JSON.parse(JSON.stringify({ amount: StoreAmount.toJsonNumber(amount) })).amount
            assert.isTrue(Number.isSafeInteger(json), StoreAmount.format(amount))
            assert.strictEqual(BigInt(json), exactly(amount))
          }
        }),
        { numRuns: 200 }
      )
    })

    it("tells an order priced from amounts above the maximum (stored before it existed) out of bounds", () => {
      const huge = { product: { price: decimal("1e308"), options: [] }, quantity: 2, variants: [] }
      const priced = Pricing.priceOrder({ lines: [huge], shipping_cost: zero, discount: zero, payment_fee: zero })
      assert.isFalse(Pricing.isWithinBounds(priced))
      assert.strictEqual(StoreAmount.toJsonNumber(priced.total), Number.POSITIVE_INFINITY, "what the guard prevents")
    })
  })
})
