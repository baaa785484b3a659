import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CodReport from "../src/CodReport.ts"

const DAY = 86_400_000
const NOW = Date.UTC(2026, 11, 7, 12)

const row = (overrides: Partial<CodReport.LedgerRow> = {}): CodReport.LedgerRow => ({
  orderId: 1,
  orderNumber: "ORD-1",
  courier: "yalidine",
  trackingNumber: "yal-1",
  status: "delivered",
  statusAt: NOW - DAY,
  codStatus: null,
  expected: 4500,
  collectedAmount: null,
  remittedAmount: null,
  fee: null,
  statement: null,
  ...overrides
})

const query = (given: Parameters<typeof CodReport.query>[0] = {}) => {
  const made = CodReport.query(given, NOW)
  if (typeof made === "string") throw new Error(made)
  return made
}

describe("CodReport", () => {
  describe("query", () => {
    it("defaults to the 30 days up to today (Algiers) and 14 days before a delivery is overdue", () => {
      const made = query()
      assert.deepInclude(made, { from: "2026-11-08", to: "2026-12-07", staleAfterDays: 14, courier: undefined })
      assert.strictEqual(made.start, Date.UTC(2026, 10, 8) - 3_600_000)
      assert.strictEqual(made.end, Date.UTC(2026, 11, 8) - 3_600_000)
    })

    it("names the parameter a bad period or threshold breaks", () => {
      const refused = (given: Parameters<typeof CodReport.query>[0]) => CodReport.query(given, NOW) as string
      assert.strictEqual(refused({ to: "2026-02-30" }), "to must be a date YYYY-MM-DD")
      assert.strictEqual(refused({ from: "30/11/2026" }), "from must be a date YYYY-MM-DD")
      assert.strictEqual(refused({ from: "2026-12-02", to: "2026-12-01" }), "to must not be before from")
      assert.strictEqual(refused({ from: "2025-01-01", to: "2026-12-01" }), "the period must be at most 366 days")
      for (const stale of ["0", "366", "1.5", "-1", "abc", "99999999999999999999"]) {
        assert.strictEqual(refused({ staleAfterDays: stale }), "stale_after_days must be a whole number from 1 to 365")
      }
      assert.strictEqual(query({ staleAfterDays: "30" }).staleAfterDays, 30)
    })
  })

  describe("entry", () => {
    const q = { asOf: NOW, staleAfterDays: 14 }
    it("flags a delivery older than the threshold that was not remitted, and not a younger one", () => {
      assert.strictEqual(CodReport.entry(row({ statusAt: NOW - 15 * DAY }), q).discrepancy, "not_remitted")
      assert.strictEqual(CodReport.entry(row({ statusAt: NOW - 13 * DAY }), q).discrepancy, undefined)
      assert.strictEqual(
        CodReport.entry(row({ statusAt: NOW - 15 * DAY, codStatus: "remitted" }), q).discrepancy,
        undefined
      )
    })

    it("flags a remittance other than the COD or the COD less the fee; a remittance with no amount is the COD", () => {
      const remitted = (remittedAmount: number | null, fee: number | null = null) =>
        CodReport.entry(row({ codStatus: "remitted", remittedAmount, fee }), q)
      assert.deepInclude(remitted(null), { remitted: 4500, discrepancy: undefined })
      assert.deepInclude(remitted(4500), { remitted: 4500, discrepancy: undefined })
      assert.deepInclude(remitted(4100, 400), { remitted: 4100, fee: 400, discrepancy: undefined })
      assert.deepInclude(remitted(4000), { remitted: 4000, discrepancy: "amount_differs" })
    })

    it("expects nothing of a cancelled parcel, and counts a returned one's COD as returned", () => {
      assert.deepInclude(CodReport.entry(row({ status: "cancelled" }), q), { expected: 0, returned: 0 })
      assert.deepInclude(CodReport.entry(row({ status: "returned" }), q), { expected: 4500, returned: 4500 })
    })
  })

  describe("fold", () => {
    const rows = fc.array(
      fc.record({
        orderId: fc.nat(),
        orderNumber: fc.constant("ORD"),
        courier: fc.constantFrom("yalidine", "dhd", "zr"),
        trackingNumber: fc.string({ maxLength: 5 }),
        status: fc.constantFrom("delivered", "returned", "in_transit", "cancelled"),
        statusAt: fc.integer({ min: NOW - 40 * DAY, max: NOW }),
        codStatus: fc.constantFrom(null, "not_collected", "collected", "remitted"),
        expected: fc.nat({ max: 100_000 }),
        collectedAmount: fc.option(fc.nat({ max: 100_000 })),
        remittedAmount: fc.option(fc.nat({ max: 100_000 })),
        fee: fc.option(fc.nat({ max: 1000 })),
        statement: fc.option(fc.string({ maxLength: 4 }))
      }),
      { maxLength: 60 }
    )

    it("adds up per courier and in total what a direct sum over the rows gives", () => {
      fc.assert(
        fc.property(rows, (ledger) => {
          const q = query()
          const totals = CodReport.start()
          for (const one of ledger) CodReport.foldShipment(totals, one as CodReport.LedgerRow, q)
          const sum = (of: ReadonlyArray<CodReport.LedgerRow>, pick: (row: CodReport.LedgerRow) => number) =>
            of.reduce((total, one) => total + pick(one), 0)
          const check = (figures: CodReport.Figures, of: ReadonlyArray<CodReport.LedgerRow>) => {
            assert.strictEqual(figures.shipments, of.length)
            const entries = of.map((one) => CodReport.entry(one, q))
            assert.strictEqual(
              figures.expected.amount,
              sum(of, (one) => (one.status === "cancelled" ? 0 : one.expected))
            )
            assert.strictEqual(
              figures.remitted.amount,
              sum(of, (one) => (one.codStatus === "remitted" ? (one.remittedAmount ?? one.expected) : 0))
            )
            assert.strictEqual(figures.remitted.count, of.filter((one) => one.codStatus === "remitted").length)
            assert.strictEqual(
              figures.collected_not_remitted.amount,
              sum(of, (one) => (one.codStatus === "collected" ? (one.collectedAmount ?? one.expected) : 0))
            )
            assert.strictEqual(
              figures.fees.amount,
              sum(of, (one) => one.fee ?? 0)
            )
            assert.strictEqual(
              figures.returned.amount,
              sum(of, (one) => (one.status === "returned" ? one.expected : 0))
            )
            assert.strictEqual(
              figures.discrepancies.not_remitted.count + figures.discrepancies.amount_differs.count,
              entries.filter((one) => one.discrepancy !== undefined).length
            )
          }
          const typed = ledger as ReadonlyArray<CodReport.LedgerRow>
          check(totals.total, typed)
          for (const courier of new Set(typed.map((one) => one.courier))) {
            check(
              totals.couriers.get(courier)!,
              typed.filter((one) => one.courier === courier)
            )
          }
          assert.strictEqual(totals.listed.length, totals.discrepancies)
        }),
        { numRuns: 100 }
      )
    })

    it("lists at most MAX_LISTED discrepancies, and counts them all", () => {
      const totals = CodReport.start()
      const q = query()
      for (let i = 0; i < CodReport.MAX_LISTED + 5; i++) {
        CodReport.foldShipment(totals, row({ orderId: i, statusAt: NOW - 20 * DAY }), q)
      }
      assert.strictEqual(totals.listed.length, CodReport.MAX_LISTED)
      assert.strictEqual(totals.discrepancies, CodReport.MAX_LISTED + 5)
      assert.strictEqual(totals.total.discrepancies.not_remitted.count, CodReport.MAX_LISTED + 5)
    })
  })

  describe("csv", () => {
    it("quotes separators and defuses formulas in a courier's text", () => {
      assert.strictEqual(CodReport.field('a,"b"'), '"a,""b"""')
      assert.strictEqual(CodReport.field("=HYPERLINK(1)"), "'=HYPERLINK(1)")
      assert.strictEqual(CodReport.field("-5"), "'-5")
      assert.strictEqual(CodReport.field(-5), "-5")
      assert.strictEqual(CodReport.field(null), "")
    })

    it("writes a totals line whose columns are the sums of the rows above it", () => {
      const q = query()
      const totals = CodReport.start()
      const ledger = [
        row({ orderId: 1, codStatus: "remitted", remittedAmount: 4000, fee: 100 }),
        row({ orderId: 2, codStatus: "collected", expected: 1200 }),
        row({ orderId: 3, status: "returned", expected: 800 })
      ]
      const lines = ledger.map((one) => CodReport.shipmentCsv(one, CodReport.foldShipment(totals, one, q)))
      const unmatched = {
        statementId: 3,
        line: 4,
        courier: "yalidine",
        trackingNumber: "x",
        amount: 50,
        paidOn: "2026-12-01"
      }
      CodReport.foldUnmatched(totals, unmatched)
      lines.push(CodReport.unmatchedCsv(unmatched))
      const columns = CodReport.CSV_HEADER.trim().split(",")
      const cells = lines.map((line) => line.trim().split(","))
      const total = CodReport.totalsCsv("total", "all", totals.total).trim().split(",")
      for (const name of ["expected", "collected_not_remitted", "remitted", "fee", "returned", "unmatched_amount"]) {
        const at = columns.indexOf(name)
        assert.strictEqual(
          Number(total[at]),
          cells.reduce((sum, one) => sum + Number(one[at] || 0), 0),
          name
        )
      }
      assert.strictEqual(total[columns.indexOf("discrepancy")], "2")
    })
  })
})
