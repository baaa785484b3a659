import { assert, describe, it } from "@effect/vitest"
import { AlgerianMobile } from "@tawsil/domain"
import { Option } from "effect"
import * as fc from "fast-check"
import { nationalMobile } from "../../src/internal/mobile.ts"

/** What `AlgerianMobile`'s schema decodes `input` to: the reference the plain check must match. */
const bySchema = (input: string): string | undefined => Option.getOrUndefined(AlgerianMobile.normalize(input))

const ascii = fc.constantFrom(..."0123456789")
/** Digits that look like digits but are not ASCII: Arabic-Indic, Eastern Arabic-Indic, fullwidth, mathematical. */
const lookalike = fc.constantFrom(..."٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹０１２３４５６７８９", "𝟎", "𝟓", "O", "l")
const digit = fc.oneof({ weight: 12, arbitrary: ascii }, { weight: 1, arbitrary: lookalike })
/** What people put between digits, what `\s` covers (and what it does not), and a few things nobody should. */
const separator = fc.constantFrom(
  ..."  .-()/_,+\t\n\v\f\r",
  "\u00a0",
  "\u1680",
  "\u2009",
  "\u2028",
  "\u202f",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u200e",
  "\u200f",
  " - ",
  ""
)
const prefix = fc.constantFrom(
  "",
  "0",
  "+213",
  "00213",
  "+2130",
  "002130",
  "+213 (0)",
  "(0)",
  "213",
  "2130",
  "++213",
  "+ 213",
  "00 213",
  "0 0213",
  "+33",
  "0033",
  "00",
  "+",
  "٠",
  "+٢١٣",
  "٠٠٢١٣"
)

/** The digits after the prefix: mostly a mobile's nine (5, 6 or 7 first), else anything from 6 to 12 digits. */
const body = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom("5", "6", "7"), fc.array(digit, { minLength: 8, maxLength: 8 }))
      .map(([operator, rest]) => [operator, ...rest])
  },
  { weight: 1, arbitrary: fc.array(digit, { minLength: 6, maxLength: 12 }) }
)

/** A phone as a person (or a form) might write one: a prefix, the digits with separators, maybe noise around. */
const written = fc
  .tuple(
    separator,
    prefix,
    body.chain((digits) =>
      fc
        .array(fc.oneof({ weight: 3, arbitrary: fc.constant("") }, { weight: 1, arbitrary: separator }), {
          minLength: digits.length,
          maxLength: digits.length
        })
        .map((separators) => digits.map((d, i) => `${separators[i]}${d}`).join(""))
    ),
    fc.oneof({ weight: 6, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.string({ maxLength: 2 }) }),
    separator
  )
  .map(([before, start, digits, noise, after]) => `${before}${start}${digits}${noise}${after}`)

/** A national mobile starting 05, 06 or 07, before any rewriting. */
const mobile = fc
  .tuple(fc.constantFrom("5", "6", "7"), fc.string({ unit: ascii, minLength: 8, maxLength: 8 }))
  .map(([operator, rest]) => `0${operator}${rest}`)

describe("mobile", () => {
  it("accepts and refuses exactly what AlgerianMobile's schema does, on generated phone strings", () => {
    let accepted = 0
    let refused = 0
    fc.assert(
      fc.property(written, (input) => {
        const plain = nationalMobile(input)
        assert.strictEqual(plain, bySchema(input), JSON.stringify(input))
        if (plain === undefined) refused++
        else accepted++
      }),
      { numRuns: 20_000 }
    )
    // The generator must exercise both sides of the rule, not only refusals.
    assert.isAbove(accepted, 1_000, "accepted")
    assert.isAbove(refused, 1_000, "refused")
  })

  it("agrees on valid mobiles rewritten with one character swapped for a look-alike or a separator", () => {
    fc.assert(
      fc.property(mobile, prefix, fc.nat(), fc.oneof(lookalike, separator), (national, start, at, swapped) => {
        const input = `${start}${national.slice(1)}`
        const index = at % input.length
        const mutated = `${input.slice(0, index)}${swapped}${input.slice(index + 1)}`
        for (const candidate of [input, mutated, `${national.slice(0, 4)} ${national.slice(4)}`]) {
          assert.strictEqual(nationalMobile(candidate), bySchema(candidate), JSON.stringify(candidate))
        }
      }),
      { numRuns: 5_000 }
    )
  })

  it("agrees on any string at all", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 24 }), (input) => {
        assert.strictEqual(nationalMobile(input), bySchema(input), JSON.stringify(input))
      }),
      { numRuns: 5_000 }
    )
  })

  it.each([
    ["0555123456", "0555123456"],
    ["+213 5 55 12 34 56", "0555123456"],
    ["00213-661-23-45-67", "0661234567"],
    ["+213 (0) 661 23 45 67", "0661234567"],
    ["\u00a00771.23.45.67\u3000", "0771234567"],
    ["٠٥٥٥١٢٣٤٥٦", undefined],
    ["+٢١٣ 555 12 34 56", undefined],
    ["０５５５１２３４５６", undefined],
    ["213555123456", undefined],
    ["021234567", undefined],
    ["0555/12/34/56", undefined],
    ["", undefined]
  ] as const)("%j → %s", (input, national) => {
    assert.strictEqual(nationalMobile(input), national)
    assert.strictEqual(bySchema(input), national)
  })
})
