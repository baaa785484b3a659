/**
 * The capacity guard of parcel creates: at most `limit` creates talk to couriers at once, and the next one is turned
 * away at once — `Overloaded`, retry in a couple of seconds — rather than queued behind slow couriers, where it would
 * hold a connection and time out anyway. A place is given back however the create ends: success, failure, or the
 * caller going away. Each turn-away is counted (`ShippingMetrics.refusals`, reason `capacity`).
 */
import { Effect, Schema } from "effect"
import * as ShippingMetrics from "./ShippingMetrics.ts"

/** How long a caller turned away should wait before trying again. */
export const RETRY_AFTER_SECONDS = 2

/** Too many parcel creates are in flight: nothing was sent to any courier. */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", { retryAfterSeconds: Schema.Int }) {
  override get message() {
    return `too many parcels are being created right now; retry in ${this.retryAfterSeconds} s`
  }
}

export interface CapacityGuard {
  /** Runs `create` if a place is free, holding it until `create` ends; else fails with `Overloaded` at once. */
  readonly guard: <A, E, R>(create: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Overloaded, R>
  /**
   * Whether a create arriving now would be turned away, counted as a turn-away when it would: for the server's door,
   * which answers it before reading the request (a create let through is still guarded). A plain call: the door runs
   * on Node's request event with no fiber (issue 22).
   */
  readonly full: () => boolean
}

/** A guard with `limit` places (at least 1). */
export const make = (limit: number): Effect.Effect<CapacityGuard> =>
  // The metrics `full` counts in.
  Effect.map(Effect.context<never>(), (context) => {
    let inFlight = 0
    const turnedAway = ShippingMetrics.refused("capacity")
    return {
      guard: <A, E, R>(create: Effect.Effect<A, E, R>) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.suspend((): Effect.Effect<A, E | Overloaded, R> => {
            if (inFlight >= limit)
              return Effect.andThen(turnedAway, Effect.fail(new Overloaded({ retryAfterSeconds: RETRY_AFTER_SECONDS })))
            inFlight++
            return Effect.ensuring(
              restore(create),
              Effect.sync(() => {
                inFlight--
              })
            )
          })
        ),
      full: () => {
        if (inFlight < limit) return false
        ShippingMetrics.refusedIn(context, "capacity")
        return true
      }
    }
  })
