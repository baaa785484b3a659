/**
 * The order's 7 states and the rules of moving between them (spec "Order status"): the transition table, the
 * same-state no-op, which states hold stock, the PATCH body `{ status }` and the spec's 400 messages. Pure data and
 * functions; `Orders` applies them with a compare-and-set on the stored status.
 */

import { Result, Schema } from "effect"
import { IllegalTransition, InvalidStatusChange } from "./OrderError.ts"

export const statuses = ["pending", "confirmed", "processing", "shipped", "delivered", "cancelled", "returned"] as const

export const OrderStatus = Schema.Literals(statuses)
export type OrderStatus = typeof OrderStatus.Type

/** The legal next states of each state; `cancelled` and `returned` are terminal. */
export const transitions: { readonly [S in OrderStatus]: ReadonlyArray<OrderStatus> } = {
  pending: ["confirmed", "processing", "cancelled"],
  confirmed: ["processing", "shipped", "cancelled"],
  processing: ["shipped", "cancelled"],
  shipped: ["delivered", "returned"],
  delivered: ["returned"],
  cancelled: [],
  returned: []
}

/**
 * The moves a courier's account of the parcel may make besides the table's (docs/cod-loop.md): a shipped order whose
 * parcel the courier cancelled before it left goes to `cancelled`. `PATCH /v1/orders/{id}` keeps the spec's table.
 */
export const courierTransitions: { readonly [S in OrderStatus]: ReadonlyArray<OrderStatus> } = {
  ...transitions,
  shipped: [...transitions.shipped, "cancelled"]
}

/** Who asks for a move: the API's caller (the spec's table), or the courier through the order's shipment. */
export type Mover = "api" | "courier"

/** States in which the order's stock is taken out of the catalogue. */
export const committed: ReadonlySet<OrderStatus> = new Set(["confirmed", "processing", "shipped", "delivered"])

export const isTerminal = (status: OrderStatus): boolean => transitions[status].length === 0

export const canMove = (from: OrderStatus, to: OrderStatus, by: Mover = "api"): boolean =>
  (by === "api" ? transitions : courierTransitions)[from].includes(to)

/**
 * What a move does to stock, from the order's `stock_committed` flag: the first entry into a committed state takes
 * the stock (and raises sales counts), a move to `cancelled` or `returned` with stock taken gives it back, and every
 * other move leaves it alone.
 */
export type StockMove = "commit" | "restore" | "none"

export const stockMove = (stockCommitted: boolean, to: OrderStatus): StockMove => {
  if (!stockCommitted && committed.has(to)) return "commit"
  if (stockCommitted && (to === "cancelled" || to === "returned")) return "restore"
  return "none"
}

/** The stock flag after a move. */
export const stockCommittedAfter = (move: StockMove, before: boolean): boolean =>
  move === "commit" ? true : move === "restore" ? false : before

export const messages = {
  statusRequired: "Field status is required",
  statusInvalid: `status must be one of: ${statuses.join(", ")}`,
  concurrent: "order status changed concurrently; retry",
  transition: (from: OrderStatus, to: OrderStatus) =>
    `Transition ${from} -> ${to} not allowed; allowed: ${isTerminal(from) ? "none" : transitions[from].join(", ")}`
} as const

/** The PATCH body: `{ status }`, one of the 7 names. */
export const PatchBody = Schema.Struct({ status: OrderStatus })

/**
 * Reads a PATCH body. A body that is not an object, or whose `status` is absent, null or empty, lacks the field;
 * any other value that is not one of the 7 names is refused with the list of names.
 */
export const decodePatch = (body: unknown): Result.Result<OrderStatus, InvalidStatusChange> => {
  const status =
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as { status?: unknown }).status
      : undefined
  if (status === undefined || status === null || status === "") {
    return Result.fail(new InvalidStatusChange({ message: messages.statusRequired }))
  }
  return Schema.is(OrderStatus)(status)
    ? Result.succeed(status)
    : Result.fail(new InvalidStatusChange({ message: messages.statusInvalid }))
}

/** What a requested move comes to: nothing to do, the move with its stock effect, or the 400 of an illegal move. */
export type Decision =
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Move"; readonly from: OrderStatus; readonly to: OrderStatus; readonly stock: StockMove }

export const decide = (
  current: { readonly status: OrderStatus; readonly stock_committed: boolean },
  to: OrderStatus,
  by: Mover = "api"
): Result.Result<Decision, IllegalTransition> => {
  if (current.status === to) return Result.succeed({ _tag: "Unchanged" })
  if (!canMove(current.status, to, by)) {
    return Result.fail(new IllegalTransition({ message: messages.transition(current.status, to) }))
  }
  return Result.succeed({ _tag: "Move", from: current.status, to, stock: stockMove(current.stock_committed, to) })
}
