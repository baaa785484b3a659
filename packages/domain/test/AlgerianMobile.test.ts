import { assert, describe, it } from "@effect/vitest"
import { AlgerianMobile } from "@tawsil/domain"
import { Option, Schema } from "effect"
import * as fc from "fast-check"

const valid: ReadonlyArray<readonly [input: string, national: string]> = [
  ["0555123456", "0555123456"],
  ["0661234567", "0661234567"],
  ["0771234567", "0771234567"],
  ["+213 5 55 12 34 56", "0555123456"],
  ["+213555123456", "0555123456"],
  ["00213-661-23-45-67", "0661234567"],
  ["0771.23.45.67", "0771234567"],
  ["(0555) 12-34-56", "0555123456"],
  ["  0555 12 34 56  ", "0555123456"],
  // A 0 kept after the country code: accepted.
  ["+2130555123456", "0555123456"],
  ["+213 (0) 661 23 45 67", "0661234567"],
  ["002130771234567", "0771234567"]
]

const invalid: ReadonlyArray<readonly [input: string, why: string]> = [
  ["021234567", "Algiers landline"],
  ["+213 21 23 45 67", "landline with country code"],
  ["055512345", "9 digits"],
  ["05551234567", "11 digits"],
  ["+213 555 12 34 567", "10 digits after the country code"],
  ["0855123456", "08 is not a mobile prefix"],
  ["0555l23456", "letter l for digit 1"],
  ["abcdefghij", "letters"],
  ["", "empty"],
  ["   ", "blank"],
  ["+33612345678", "French mobile"],
  ["213555123456", "country code without + or 00"],
  ["++213555123456", "doubled +"],
  ["0555/12/34/56", "slashes are not separators"],
  ["555123456", "national number without its 0"]
]

describe("AlgerianMobile", () => {
  it.each(valid)("normalises %j to %s", (input, national) => {
    assert.deepStrictEqual(AlgerianMobile.normalize(input), Option.some(national as AlgerianMobile.AlgerianMobile))
    assert.strictEqual(Schema.decodeSync(AlgerianMobile.AlgerianMobile)(input), national)
  })

  it.each(invalid)("refuses %j (%s)", (input) => {
    assert.isTrue(Option.isNone(AlgerianMobile.normalize(input)))
    assert.throws(
      () => Schema.decodeSync(AlgerianMobile.AlgerianMobile)(input),
      "Expected an Algerian mobile number: 05, 06 or 07 followed by 8 digits"
    )
  })

  it("encodes the national form unchanged", () => {
    const mobile = Schema.decodeSync(AlgerianMobile.AlgerianMobile)("+213 661 23 45 67")
    assert.strictEqual(Schema.encodeSync(AlgerianMobile.AlgerianMobile)(mobile), "0661234567")
  })

  it("applies to strings only: a non-string fails as a type error, not as a refused number", () => {
    assert.throws(() => Schema.decodeUnknownSync(AlgerianMobile.AlgerianMobile)(555123456), /^Expected string/)
    assert.throws(() => Schema.decodeUnknownSync(AlgerianMobile.AlgerianMobile)(null), /^Expected string/)
  })

  const digit = fc.constantFrom(..."0123456789")
  const digits = (length: number) => fc.string({ unit: digit, minLength: length, maxLength: length })
  const separator = fc.constantFrom("", "", " ", ".", "-", " - ")

  it("recovers any mobile written with any prefix and separators", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("5", "6", "7"),
        digits(8),
        fc.constantFrom("0", "+213", "00213", "+2130", "+213 (0)", "(0)"),
        fc.array(separator, { minLength: 9, maxLength: 9 }),
        (operator, subscriber, prefix, separators) => {
          const national = `${operator}${subscriber}`
          const written = `${prefix}${[...national].map((d, i) => `${separators[i]}${d}`).join("")}`
          assert.deepStrictEqual(AlgerianMobile.normalize(written), Option.some(`0${national}`), written)
        }
      )
    )
  })

  it("refuses every national number outside 05, 06 and 07", () => {
    fc.assert(
      fc.property(fc.constantFrom("1", "2", "3", "4", "8", "9"), digits(8), (prefix, rest) => {
        assert.isTrue(Option.isNone(AlgerianMobile.normalize(`0${prefix}${rest}`)))
        assert.isTrue(Option.isNone(AlgerianMobile.normalize(`+213${prefix}${rest}`)))
      })
    )
  })

  it("returns only the national form, whatever the input", () => {
    fc.assert(
      fc.property(fc.string(), (input) => {
        const result = AlgerianMobile.normalize(input)
        assert.isTrue(Option.isNone(result) || /^0[567]\d{8}$/.test(result.value))
      })
    )
  })
})
