import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CodStatement from "../src/CodStatement.ts"

const read = (text: string) => {
  const parsed = CodStatement.parse(text)
  if ("problems" in parsed) throw new Error(`unreadable: ${parsed.problems.join(" | ")}`)
  return parsed.lines
}

const problemsOf = (text: string) => {
  const parsed = CodStatement.parse(text)
  assert.isTrue("problems" in parsed, `expected a refusal of ${JSON.stringify(text)}`)
  return (parsed as CodStatement.Unreadable).problems
}

describe("CodStatement", () => {
  describe("parse", () => {
    it("reads the lines after the header, in any column order, with commas or semicolons", () => {
      assert.deepStrictEqual(read("tracking_number,amount,date\nyal-1,4500,2026-11-30\r\nyal-2,1200.00,01/12/2026\n"), [
        { line: 2, trackingNumber: "yal-1", amount: 4500, paidOn: "2026-11-30" },
        { line: 3, trackingNumber: "yal-2", amount: 1200, paidOn: "2026-12-01" }
      ])
      assert.deepStrictEqual(read("\uFEFFDate;Montant;Tracking;Agence\n30/11/2026;4500,00;DHD-9;Alger\n"), [
        { line: 2, trackingNumber: "DHD-9", amount: 4500, paidOn: "2026-11-30" }
      ])
    })

    it("reads quoted fields (a comma, a quote, a line break inside) and skips empty lines", () => {
      assert.deepStrictEqual(read('tracking_number,amount,date\n\n"A,""1""",10,2026-01-02\n"B\nC",20,2026-01-03\n\n'), [
        { line: 3, trackingNumber: 'A,"1"', amount: 10, paidOn: "2026-01-02" },
        { line: 4, trackingNumber: "B\nC", amount: 20, paidOn: "2026-01-03" }
      ])
    })

    it("refuses the whole statement for any bad line, naming each", () => {
      const problems = problemsOf(
        "tracking_number,amount,date\n" +
          "ok-1,100,2026-02-01\n" +
          ",100,2026-02-01\n" +
          "ok-3,12.50,2026-02-01\n" +
          "ok-4,-5,2026-02-01\n" +
          "ok-5,1000000000000,2026-02-01\n" +
          "ok-6,100,2026-02-30\n" +
          "ok-7,100,31/13/2026\n" +
          "ok-8,100,1999-12-31\n" +
          "ok-9,1e5,2026-02-01\n"
      )
      assert.deepStrictEqual(problems, [
        "line 3: tracking_number is empty",
        "line 4: amount must be whole dinars",
        "line 5: amount must be a number of dinars such as 1500 or 1500.00",
        "line 6: amount must be at most 999999999999",
        "line 7: date is not a day of the calendar",
        "line 8: date is not a day of the calendar",
        "line 9: date must be between 2000 and 2100",
        "line 10: amount must be a number of dinars such as 1500 or 1500.00"
      ])
    })

    it("refuses NUL bytes, control characters, a missing header, an open quote, and an empty statement", () => {
      assert.deepStrictEqual(problemsOf("tracking_number,amount,date\nA\u0000,1,2026-01-01\n"), [
        "the statement contains a NUL character"
      ])
      assert.deepStrictEqual(problemsOf("tracking_number,amount,date\nA\u0007B,1,2026-01-01\n"), [
        "line 2: tracking_number holds a control character"
      ])
      assert.deepStrictEqual(problemsOf("yal-1,4500,2026-11-30\n"), [
        "line 1: the header must name the columns tracking_number, amount and date"
      ])
      assert.deepStrictEqual(problemsOf('tracking_number,amount,date\n"yal-1,4500,2026-11-30\n'), [
        "line 2: a quoted field is not closed"
      ])
      assert.deepStrictEqual(problemsOf(""), ["the statement is empty: expected a header tracking_number,amount,date"])
      assert.deepStrictEqual(problemsOf("tracking_number,amount,date\n"), [
        "the statement has no line after its header"
      ])
    })

    it("refuses more than MAX_LINES lines", () => {
      const text = `tracking_number,amount,date\n${"T,1,2026-01-01\n".repeat(CodStatement.MAX_LINES + 1)}`
      assert.deepStrictEqual(problemsOf(text), [`the statement has more than ${CodStatement.MAX_LINES} lines`])
    })

    it("never throws, and every line it reads holds a storable tracking number and an amount in range", () => {
      fc.assert(
        fc.property(fc.string({ unit: "binary", maxLength: 400 }), (noise) => {
          for (const text of [noise, `tracking_number,amount,date\n${noise}`]) {
            const parsed = CodStatement.parse(text)
            if ("problems" in parsed) {
              assert.isAbove(parsed.problems.length, 0)
              continue
            }
            for (const line of parsed.lines) {
              assert.isFalse(line.trackingNumber.includes("\u0000"))
              assert.isTrue(Number.isSafeInteger(line.amount) && line.amount <= CodStatement.MAX_AMOUNT)
              assert.match(line.paidOn, /^\d{4}-\d{2}-\d{2}$/)
            }
          }
        }),
        { numRuns: 100 }
      )
    })

    it("names at most ten problems in its message", () => {
      const message = CodStatement.describe({ problems: Array.from({ length: 14 }, (_, i) => `line ${i + 2}: bad`) })
      assert.include(message, "line 11: bad")
      assert.notInclude(message, "line 12: bad")
      assert.include(message, "and 4 more")
    })
  })

  describe("match", () => {
    const shipments = new Map<string, CodStatement.Payable>([
      ["yal-1", { orderId: 1, courier: "yalidine", expected: 4500, fee: null }],
      ["yal-2", { orderId: 2, courier: "yalidine", expected: 3000, fee: 400 }],
      ["dhd-1", { orderId: 3, courier: "dhd", expected: 1000, fee: null }]
    ])
    const line = (n: number, trackingNumber: string, amount: number): CodStatement.Line => ({
      line: n,
      trackingNumber,
      amount,
      paidOn: "2026-11-30"
    })

    it("matches the COD, or the COD less the courier's fee; flags another amount, an unknown number, a repeat", () => {
      const matched = CodStatement.match(
        [
          line(2, "yal-1", 4500),
          line(3, "yal-2", 2600),
          line(4, "dhd-1", 900),
          line(5, "nope", 700),
          line(6, "yal-1", 4500)
        ],
        shipments,
        undefined
      )
      assert.deepStrictEqual(
        matched.map((one) => [one.line, one.outcome, one.orderId, one.courier, one.expected]),
        [
          [2, "matched", 1, "yalidine", 4500],
          [3, "matched", 2, "yalidine", 3000],
          [4, "amount_differs", 3, "dhd", 1000],
          [5, "unmatched", null, null, null],
          [6, "repeated", 1, "yalidine", 4500]
        ]
      )
      assert.deepStrictEqual(
        CodStatement.remitting(matched).map((one) => one.line),
        [2, 3, 4]
      )
    })

    it("matches only the statement's courier's shipments when it is named", () => {
      const matched = CodStatement.match([line(2, "dhd-1", 1000), line(3, "yal-1", 4500)], shipments, "dhd")
      assert.deepStrictEqual(
        matched.map((one) => [one.outcome, one.courier]),
        [
          ["matched", "dhd"],
          ["unmatched", "dhd"]
        ]
      )
    })
  })
})
