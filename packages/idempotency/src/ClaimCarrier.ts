/**
 * The port through which a write's first SQL statement carries its Idempotency-Key's claim (decision 0027): the
 * idempotency store hands the write the claim as parts of a statement, and the write puts them in front of its own
 * read, so that claim and read are one round trip. The write knows the parts' shape, not the store's SQL; a store
 * that cannot carry a claim in a statement (memory) hands none, and the write claims first (`Idempotency.claimPending`).
 */
import type { Effect } from "effect"
import type { Statement } from "effect/sql"

/** The pending claim, carried by the statement about to run (`Idempotency.carryPending`). */
export interface CarriedClaim {
  /** The claim's `WITH` items, to put first in the statement's `WITH` list (its own items after a comma). */
  readonly ctes: Statement.Fragment
  /** A `json` column saying what the claim found: select it, and hand its value to `settle`. */
  readonly found: Statement.Fragment
  /**
   * The claim as `found` tells it: the write goes on once the key is acquired (waiting for another holder as a
   * claim does), or stops here (a defect that `Idempotency.transact` recognises) and `transact` answers as it does
   * for a claim: the replay, `InFlight` or `KeyReused`.
   */
  readonly settle: (found: unknown) => Effect.Effect<void>
}
