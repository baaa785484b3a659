import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as OrderStatus from "../src/OrderStatus.ts"

const { statuses } = OrderStatus

/** The spec's table, written out independently of the module. */
const legal: ReadonlyArray<string> = [
  "pending -> confirmed",
  "pending -> processing",
  "pending -> cancelled",
  "confirmed -> processing",
  "confirmed -> shipped",
  "confirmed -> cancelled",
  "processing -> shipped",
  "processing -> cancelled",
  "shipped -> delivered",
  "shipped -> returned",
  "delivered -> returned"
]

const committedStates = ["confirmed", "processing", "shipped", "delivered"]

describe("OrderStatus", () => {
  it("has the 7 states of the spec", () => {
    assert.deepStrictEqual(
      [...statuses],
      ["pending", "confirmed", "processing", "shipped", "delivered", "cancelled", "returned"]
    )
  })

  it("decides every one of the 49 (from, to) pairs", () => {
    for (const from of statuses) {
      for (const to of statuses) {
        for (const stockCommitted of [false, true]) {
          const decision = OrderStatus.decide({ status: from, stock_committed: stockCommitted }, to)
          const pair = `${from} -> ${to}`
          if (from === to) {
            assert.deepStrictEqual(decision, Result.succeed({ _tag: "Unchanged" as const }), pair)
          } else if (legal.includes(pair)) {
            const stock =
              !stockCommitted && committedStates.includes(to)
                ? "commit"
                : stockCommitted && (to === "cancelled" || to === "returned")
                  ? "restore"
                  : "none"
            assert.deepStrictEqual(decision, Result.succeed({ _tag: "Move" as const, from, to, stock }), pair)
          } else {
            assert.isTrue(Result.isFailure(decision), pair)
            if (Result.isFailure(decision)) {
              assert.strictEqual(decision.failure._tag, "IllegalTransition")
              assert.match(decision.failure.message, new RegExp(`^Transition ${from} -> ${to} not allowed; allowed: `))
            }
          }
        }
      }
    }
  })

  it("lists the legal next states in the transition message, and none for terminal states", () => {
    const message = (from: OrderStatus.OrderStatus, to: OrderStatus.OrderStatus) => {
      const decision = OrderStatus.decide({ status: from, stock_committed: false }, to)
      return Result.isFailure(decision) ? decision.failure.message : undefined
    }
    assert.strictEqual(
      message("pending", "shipped"),
      "Transition pending -> shipped not allowed; allowed: confirmed, processing, cancelled"
    )
    assert.strictEqual(
      message("confirmed", "pending"),
      "Transition confirmed -> pending not allowed; allowed: processing, shipped, cancelled"
    )
    assert.strictEqual(
      message("processing", "confirmed"),
      "Transition processing -> confirmed not allowed; allowed: shipped, cancelled"
    )
    assert.strictEqual(
      message("shipped", "cancelled"),
      "Transition shipped -> cancelled not allowed; allowed: delivered, returned"
    )
    assert.strictEqual(
      message("delivered", "cancelled"),
      "Transition delivered -> cancelled not allowed; allowed: returned"
    )
    assert.strictEqual(message("cancelled", "pending"), "Transition cancelled -> pending not allowed; allowed: none")
    assert.strictEqual(message("returned", "delivered"), "Transition returned -> delivered not allowed; allowed: none")
  })

  it("cancels only from pending, confirmed and processing", () => {
    const from = statuses.filter((status) => OrderStatus.canMove(status, "cancelled"))
    assert.deepStrictEqual(from, ["pending", "confirmed", "processing"])
  })

  it("takes stock on the first committed state and gives it back on cancel or return, by the flag", () => {
    assert.strictEqual(OrderStatus.stockMove(false, "confirmed"), "commit")
    assert.strictEqual(OrderStatus.stockMove(false, "processing"), "commit")
    assert.strictEqual(OrderStatus.stockMove(true, "processing"), "none")
    assert.strictEqual(OrderStatus.stockMove(true, "shipped"), "none")
    assert.strictEqual(OrderStatus.stockMove(true, "cancelled"), "restore")
    assert.strictEqual(OrderStatus.stockMove(true, "returned"), "restore")
    assert.strictEqual(OrderStatus.stockMove(false, "cancelled"), "none")
    assert.strictEqual(OrderStatus.stockCommittedAfter("commit", false), true)
    assert.strictEqual(OrderStatus.stockCommittedAfter("restore", true), false)
    assert.strictEqual(OrderStatus.stockCommittedAfter("none", true), true)
  })

  it("lets the courier alone move a shipped order to cancelled; PATCH keeps the spec's table", () => {
    for (const from of statuses) {
      for (const to of statuses) {
        const courierOnly = from === "shipped" && to === "cancelled"
        assert.strictEqual(OrderStatus.canMove(from, to), legal.includes(`${from} -> ${to}`), `${from} -> ${to}`)
        assert.strictEqual(
          OrderStatus.canMove(from, to, "courier"),
          legal.includes(`${from} -> ${to}`) || courierOnly,
          `${from} -> ${to} by the courier`
        )
      }
    }
    const shipped = { status: "shipped" as const, stock_committed: true }
    const refused = OrderStatus.decide(shipped, "cancelled")
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.strictEqual(
        refused.failure.message,
        "Transition shipped -> cancelled not allowed; allowed: delivered, returned"
      )
    }
    assert.deepStrictEqual(
      OrderStatus.decide(shipped, "cancelled", "courier"),
      Result.succeed({
        _tag: "Move" as const,
        from: "shipped" as const,
        to: "cancelled" as const,
        stock: "restore" as const
      })
    )
  })

  it("reads the PATCH body with the spec's messages", () => {
    const failure = (body: unknown) => {
      const decoded = OrderStatus.decodePatch(body)
      return Result.isFailure(decoded) ? decoded.failure.message : decoded.success
    }
    for (const body of [undefined, null, 3, "shipped", [], {}, { status: null }, { status: "" }]) {
      assert.strictEqual(failure(body), "Field status is required", JSON.stringify(body))
    }
    for (const status of ["SHIPPED", "paid", " shipped", 1, false, {}]) {
      assert.strictEqual(
        failure({ status }),
        "status must be one of: pending, confirmed, processing, shipped, delivered, cancelled, returned"
      )
    }
    for (const status of statuses) assert.strictEqual(failure({ status, extra: true }), status)
    assert.strictEqual(OrderStatus.messages.concurrent, "order status changed concurrently; retry")
  })
})
