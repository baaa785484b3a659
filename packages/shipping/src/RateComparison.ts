/**
 * One parcel priced with several couriers at once, as merchants compare them: every courier is asked at the same
 * time, with its own credentials, under one deadline for the whole comparison. A courier that has not answered by
 * then is reported as timed out and never holds the others back; a courier's failure is its own row, not the
 * call's. Quotes come back cheapest first (by `total`), then the failures in the order asked.
 */
import type { RatesQuery, RatesResult } from "@tawsil/courier/Shipment"
import { Duration, Effect, Schema } from "effect"
import * as Shipping from "./Shipping.ts"

/** At most this many couriers in one comparison. */
export const MAX_COURIERS = 20

/** The courier did not answer within the comparison's deadline. */
export class TimedOut extends Schema.TaggedError<TimedOut>()("TimedOut", {
  courier: Schema.String,
  timeoutMs: Schema.Int
}) {
  override get message() {
    return `${this.courier} did not answer within ${this.timeoutMs} ms`
  }
}

/** A courier's answer; `index` is its place in the request's `couriers` (one courier may be asked twice). */
export type Quote =
  | { readonly _tag: "Priced"; readonly index: number; readonly courier: string; readonly rates: RatesResult }
  | {
      readonly _tag: "Failed"
      readonly index: number
      readonly courier: string
      readonly error: Shipping.ShippingError | TimedOut
    }

export interface Request {
  readonly couriers: ReadonlyArray<Shipping.CourierCall>
  readonly query: RatesQuery
  /** The whole comparison's budget; each courier call gets it too. Default `Shipping.DEFAULT_TIMEOUT`. */
  readonly timeoutMs?: number | undefined
}

/** Prices `query` with every courier of `request` at once; never fails as a whole. */
export const compare = (
  shipping: Shipping.Shipping["Service"],
  request: Request
): Effect.Effect<ReadonlyArray<Quote>> => {
  const timeoutMs = request.timeoutMs ?? Duration.toMillis(Shipping.DEFAULT_TIMEOUT)
  return Effect.forEach(
    request.couriers,
    (call, index): Effect.Effect<Quote> =>
      shipping
        .rates({
          ...call,
          query: request.query,
          // The comparison's deadline decides (and names a courier that misses it as timed out): a courier's own
          // budget runs a little past it, so its transport never answers first with a failure of its own.
          options: { ...call.options, timeoutMs: timeoutMs + 1000 }
        })
        .pipe(
          Effect.timeoutOrElse({
            duration: Duration.millis(timeoutMs),
            orElse: () => Effect.fail(new TimedOut({ courier: call.courier, timeoutMs }))
          }),
          Effect.match({
            onSuccess: (rates): Quote => ({ _tag: "Priced", index, courier: call.courier, rates }),
            onFailure: (error): Quote => ({ _tag: "Failed", index, courier: call.courier, error })
          })
        ),
    { concurrency: "unbounded" }
  ).pipe(
    Effect.map((quotes) => [
      ...quotes
        .filter((quote) => quote._tag === "Priced")
        .sort((a, b) => (a._tag === "Priced" && b._tag === "Priced" ? a.rates.total - b.rates.total : 0)),
      ...quotes.filter((quote) => quote._tag === "Failed")
    ])
  )
}
