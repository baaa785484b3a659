import { assert, describe, it } from "@effect/vitest"
import { StoreAmount } from "@tawsil/domain"
import { BigDecimal, Schema } from "effect"
import * as fc from "fast-check"

const decimal = BigDecimal.fromStringUnsafe
const fromNumber = Schema.decodeUnknownSync(StoreAmount.FromNumber)
const fromString = Schema.decodeUnknownSync(StoreAmount.FromString)

const assertAmount = (actual: StoreAmount.StoreAmount, expected: string) =>
  assert.isTrue(BigDecimal.equals(actual, decimal(expected)), `${BigDecimal.format(actual)} is not ${expected}`)

/** Written independently of the module: `value / 10^scale` as plain decimal text. */
const text = (value: bigint, scale: number): string => {
  const digits = String(value < 0n ? -value : value).padStart(scale + 1, "0")
  const point = digits.length - scale
  const fraction = scale > 0 ? `.${digits.slice(point)}` : ""
  return `${value < 0n ? "-" : ""}${digits.slice(0, point)}${fraction}`
}

const anyDecimal = fc.tuple(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 6 }))

describe("StoreAmount", () => {
  it("reads a JSON number as the decimal it was written as", () => {
    assertAmount(fromNumber(350.5), "350.5")
    assertAmount(fromNumber(JSON.parse("0.1")), "0.1")
    assertAmount(fromNumber(1e21), "1000000000000000000000")
    assert.strictEqual(StoreAmount.format(fromNumber(JSON.parse("1250.00"))), "1250.00")
  })

  it("refuses non-finite numbers and strings where a number is expected", () => {
    for (const input of [Number.NaN, Number.POSITIVE_INFINITY, "350.5", null]) {
      assert.throws(() => fromNumber(input), undefined, undefined, String(input))
    }
  })

  it("adds 0.1 and 0.2 to exactly 0.3", () => {
    assertAmount(StoreAmount.sum([fromNumber(0.1), fromNumber(0.2)]), "0.3")
    assertAmount(StoreAmount.sum([fromString("0.1"), fromString("0.2")]), "0.3")
  })

  it("reads plain decimal strings only", () => {
    assertAmount(fromString("350.50"), "350.5")
    assertAmount(fromString("-200"), "-200")
    assertAmount(fromString("0"), "0")
    for (const input of ["", " 1", "1.", ".5", "+1", "1e3", "1,5", "١٢", "NaN", 350.5]) {
      assert.throws(() => fromString(input), undefined, undefined, String(input))
    }
  })

  it("refuses negative amounts where the spec wants >= 0", () => {
    const NonNegative = StoreAmount.FromNumber.check(StoreAmount.isNonNegative)
    assert.isTrue(Schema.is(NonNegative)(StoreAmount.zero))
    assert.throws(() => Schema.decodeUnknownSync(NonNegative)(-0.01), "Expected an amount >= 0")
    assertAmount(Schema.decodeUnknownSync(NonNegative)(0), "0")
  })

  it("bounds every amount by MAXIMUM, 100000000, in either sign where a sign is allowed", () => {
    assertAmount(StoreAmount.MAXIMUM, StoreAmount.MAXIMUM_TEXT)
    const Price = StoreAmount.FromNumber.check(StoreAmount.isNonNegative, StoreAmount.isAtMostMaximum())
    const Adjustment = StoreAmount.FromNumber.check(StoreAmount.isWithinMaximum())
    for (const input of [0, -0, 0.01, 1e8, 99_999_999.99]) {
      assert.doesNotThrow(() => Schema.decodeUnknownSync(Price)(input), String(input))
    }
    for (const input of [1e8 + 0.01, 1e308, 2 ** 53 + 1, Number.MAX_VALUE, Number.POSITIVE_INFINITY]) {
      assert.throws(() => Schema.decodeUnknownSync(Price)(input), undefined, undefined, String(input))
    }
    assert.throws(() => Schema.decodeUnknownSync(Price)(1e9), "Expected an amount of at most 100000000")
    for (const input of [-1e8, 1e8, -0.5]) assert.doesNotThrow(() => Schema.decodeUnknownSync(Adjustment)(input))
    for (const input of [-1e8 - 1, -1e308, 1e308]) {
      assert.throws(() => Schema.decodeUnknownSync(Adjustment)(input), "Expected an amount between -100000000")
    }
    // The field's own message wins.
    const Fee = StoreAmount.FromNumber.check(StoreAmount.isAtMostMaximum({ message: "fee must be at most 100000000" }))
    assert.throws(() => Schema.decodeUnknownSync(Fee)(1e308), "fee must be at most 100000000")
    // `-0` is zero, and `2^53 + 1` reads as the double JSON makes of it.
    assertAmount(fromNumber(-0), "0")
    assertAmount(fromNumber(JSON.parse("9007199254740993")), "9007199254740992")
    assert.throws(() => fromNumber(JSON.parse("1e309")))
  })

  it("prices an order: lines, shipping, discount, clamped at zero", () => {
    const line = StoreAmount.times(StoreAmount.sum([decimal("1000"), decimal("150.5"), decimal("-0.25")]), 3)
    assertAmount(line, "3450.75")
    const subtotal = StoreAmount.sum([line, decimal("99.99")])
    const total = StoreAmount.subtract(StoreAmount.sum([subtotal, fromNumber(350.5), fromNumber(0)]), decimal("500"))
    assertAmount(total, "3401.24")
    assertAmount(StoreAmount.clampAtZero(StoreAmount.subtract(total, decimal("9999"))), "0")
    assertAmount(StoreAmount.clampAtZero(total), "3401.24")
    assert.throws(() => StoreAmount.times(decimal("1"), 1.5), RangeError)
  })

  it("formats with at least 2 decimals and never rounds", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["1250", "1250.00"],
      ["350.5", "350.50"],
      ["350.50", "350.50"],
      ["0", "0.00"],
      ["-0.5", "-0.50"],
      ["0.125", "0.125"],
      ["1e-20", "0.00000000000000000001"],
      ["1e20", "100000000000000000000.00"]
    ]
    for (const [input, expected] of cases) assert.strictEqual(StoreAmount.format(decimal(input)), expected)
    assert.strictEqual(Schema.encodeSync(StoreAmount.FromString)(decimal("350.5")), "350.50")
  })

  it("writes a JSON number", () => {
    assert.strictEqual(JSON.stringify({ total: StoreAmount.toJsonNumber(decimal("350.50")) }), '{"total":350.5}')
    assert.strictEqual(Schema.encodeSync(StoreAmount.FromNumber)(decimal("0.30")), 0.3)
  })

  it("sums decimal strings to the exact decimal result", () => {
    fc.assert(
      fc.property(fc.array(anyDecimal, { maxLength: 20 }), (terms) => {
        const scale = Math.max(0, ...terms.map(([, s]) => s))
        const exact = terms.reduce((total, [value, s]) => total + value * 10n ** BigInt(scale - s), 0n)
        const sum = StoreAmount.sum(terms.map(([value, s]) => fromString(text(value, s))))
        assert.isTrue(BigDecimal.equals(sum, BigDecimal.make(exact, scale)))
      })
    )
  })

  it("multiplies by a quantity as repeated addition would", () => {
    fc.assert(
      fc.property(anyDecimal, fc.integer({ min: 0, max: 50 }), ([value, scale], quantity) => {
        const amount = BigDecimal.make(value, scale)
        const repeated = StoreAmount.sum(Array.from({ length: quantity }, () => amount))
        assert.isTrue(BigDecimal.equals(StoreAmount.times(amount, quantity), repeated))
      })
    )
  })

  it("round-trips decimal strings", () => {
    fc.assert(
      fc.property(anyDecimal, ([value, scale]) => {
        const amount = BigDecimal.make(value, scale)
        const encoded = Schema.encodeSync(StoreAmount.FromString)(amount)
        assert.isTrue(BigDecimal.equals(fromString(encoded), amount), encoded)
        // Text already in canonical form comes back unchanged.
        assert.strictEqual(Schema.encodeSync(StoreAmount.FromString)(fromString(encoded)), encoded)
      })
    )
  })

  it("reads any JSON amount with up to 2 decimals exactly, and writes the same number back", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }), (cents) => {
        const json = text(cents, 2)
        const amount = fromNumber(JSON.parse(json))
        assert.isTrue(BigDecimal.equals(amount, BigDecimal.make(cents, 2)), json)
        assert.strictEqual(Schema.encodeSync(StoreAmount.FromNumber)(amount), JSON.parse(json))
      })
    )
  })

  it("round-trips every finite number", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        assert.strictEqual(Schema.encodeSync(StoreAmount.FromNumber)(fromNumber(n)), n)
      })
    )
  })
})
