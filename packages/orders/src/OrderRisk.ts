/**
 * What an order create and a customer's detail ask of the risk rules (`Risk`, docs/risk.md): may this phone order
 * (admitted, refused, or admitted and flagged, by the store's setting), note a flagged order, and a customer's score.
 * Nobody is refused and every score is 0 unless a layer provides the rules (`Risk.orderRisk`).
 */
import type { Ids } from "@tawsil/domain"
import { Context, Effect } from "effect"
import * as FraudScore from "./FraudScore.ts"
import type { CustomerRecord } from "./OrderStore.ts"

/** The refusal's message (`OrderError.CustomerBanned`). */
export const BANNED_MESSAGE = "The customer's phone is banned: the store refuses its orders"

/** What an order from a phone meets. */
export type Admission = "admit" | "refuse" | "flag"

export interface Rules {
  /** Read in the create's unit of work, after its body is valid and before it inserts (phone as stored). */
  readonly admit: (storeId: Ids.StoreId, phone: string) => Effect.Effect<Admission>
  /** An order admitted with `flag`: the flag noted, and its customer (made by the insert, maybe) marked banned. */
  readonly flagged: (storeId: Ids.StoreId, orderId: number, phone: string) => Effect.Effect<void>
  readonly score: (storeId: Ids.StoreId, customer: CustomerRecord) => Effect.Effect<FraudScore.Score>
}

export const OrderRisk = Context.Reference<Rules>("@tawsil/orders/OrderRisk", {
  defaultValue: () => ({
    admit: () => Effect.succeed("admit"),
    flagged: () => Effect.void,
    score: () => Effect.succeed(FraudScore.none)
  })
})
