/**
 * The capacity guard of parcel creates: at most `limit` creates talk to couriers at once, and the next one is turned
 * away at once — `Overloaded`, retry in a couple of seconds — rather than queued behind slow couriers, where it would
 * hold a connection and time out anyway. A place is given back however the create ends: success, failure, or the
 * caller going away. Each turn-away is counted (`ShippingMetrics.refusals`, reason `capacity`).
 */
import { Effect, Option, Schema, Semaphore } from "effect"
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
}

/** A guard with `limit` places (at least 1). */
export const make = (limit: number): Effect.Effect<CapacityGuard> =>
  Effect.map(Semaphore.make(limit), (places) => ({
    guard: (create) =>
      places
        .withPermitsIfAvailable(1)(create)
        .pipe(
          Effect.flatMap(
            Option.match({
              onNone: () =>
                Effect.andThen(
                  ShippingMetrics.refused("capacity"),
                  Effect.fail(new Overloaded({ retryAfterSeconds: RETRY_AFTER_SECONDS }))
                ),
              onSome: Effect.succeed
            })
          )
        )
  }))
