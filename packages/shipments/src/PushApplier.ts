/**
 * Applies acknowledged courier pushes (docs/cod-loop.md, "Push"). The receiver (`PushIntake`) answers the courier as
 * soon as a request's events are recorded; every instance runs an applier, which claims the unapplied events
 * (`TrackingStore.claimPushed`: `FOR UPDATE SKIP LOCKED` under a lease, so N instances never take one event at once
 * and a killed instance's claims are taken over when their lease runs out) and applies them by order through what
 * every source of tracking shares: each order's events in one unit that marks them applied first (an event is
 * applied once, even when a lease ran out under a slow applier), then moves the shipment and the order (dedup, never
 * backwards, the state machine, webhooks through the outbox).
 *
 * Events whose parcel is not attached (a push that overtakes our own create, or a parcel that is not ours) are
 * deferred: `PushIntake.applyPending` applies them when the shipment is attached; the applier tries them again after
 * as long as they have waited, within `retry`, as a safety net (an attach whose process died before it looked).
 *
 * The loop sweeps at start, then wakes when this process's receiver has recorded events (`PushSignal`) or every
 * `every` (what other instances recorded, claims that ran out), and goes on at once while claims come back full.
 */

import { Orders } from "@tawsil/orders"
import { Gateway } from "@tawsil/shipping"
import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { CourierAccountStore } from "./CourierAccountStore.ts"
import * as Pushed from "./internal/applyPushed.ts"
import { PushSignal } from "./PushSignal.ts"
import * as ShipmentMetrics from "./ShipmentMetrics.ts"
import { type ClaimedPush, type RetryWait, TrackingStore } from "./TrackingStore.ts"

export interface Options {
  /** The longest time between two looks when no receive wakes the applier. */
  readonly every: Duration.Duration
  /** Events claimed at once, at most. */
  readonly batch: number
  /** Orders applied at once (each holds a connection: the receivers' statements need the pool's others). */
  readonly concurrency: number
  /** How long a claim holds: a killed instance's claims are taken over after it. */
  readonly lease: Duration.Duration
  /** When an event whose parcel is not attached is tried again. */
  readonly retry: RetryWait
  /** How often the backlog gauges are read. */
  readonly backlogInterval: Duration.Duration
}

export const defaults: Options = {
  every: Duration.seconds(5),
  batch: 500,
  concurrency: 4,
  lease: Duration.seconds(30),
  retry: { min: Duration.minutes(1), max: Duration.hours(6) },
  backlogInterval: Duration.seconds(5)
}

/** What one round did. */
export interface RoundReport {
  readonly claimed: number
  readonly applied: number
  /** Claimed events whose parcel is not attached: deferred. */
  readonly deferred: number
}

export class PushApplier extends Context.Service<
  PushApplier,
  {
    /** Claims one batch and applies it. */
    readonly round: Effect.Effect<RoundReport>
    /** Rounds until a claim comes back short: everything due now is applied or deferred. */
    readonly drain: Effect.Effect<RoundReport>
  }
>()("@tawsil/shipments/PushApplier") {}

const byAccount = (rows: ReadonlyArray<ClaimedPush>) => {
  const groups = new Map<number, Array<ClaimedPush>>()
  for (const row of rows) {
    const group = groups.get(row.accountId) ?? []
    group.push(row)
    groups.set(row.accountId, group)
  }
  return groups
}

export const make = (options: Options = defaults) =>
  Effect.gen(function* () {
    const orders = yield* Orders.Orders
    const tracking = yield* TrackingStore
    const accounts = yield* CourierAccountStore
    const { catalogue } = yield* Gateway.Gateway
    const { apply } = Pushed.applier(orders, tracking, catalogue)

    const round = Effect.gen(function* () {
      const claimed = yield* tracking.claimPushed(options.batch, options.lease)
      let applied = 0
      let deferred = 0
      for (const [accountId, rows] of byAccount(claimed)) {
        const account = yield* accounts.findById(accountId)
        const adapter = account === undefined ? undefined : catalogue.resolve(account.courier)?.adapter
        // The account's courier is no longer installed: its events wait as a parcel not attached does.
        const outcome =
          adapter === undefined
            ? { applied: 0, waiting: rows }
            : yield* apply(accountId, adapter, rows, options.concurrency)
        yield* tracking.deferPushed(
          accountId,
          outcome.waiting.map((row) => row.key),
          options.retry
        )
        applied += outcome.applied
        deferred += outcome.waiting.length
      }
      return { claimed: claimed.length, applied, deferred } satisfies RoundReport
    }).pipe(Effect.withSpan("PushApplier.round"))

    const drain = Effect.gen(function* () {
      const total = { claimed: 0, applied: 0, deferred: 0 }
      for (;;) {
        const report = yield* round
        total.claimed += report.claimed
        total.applied += report.applied
        total.deferred += report.deferred
        if (report.claimed < options.batch) return total as RoundReport
      }
    })

    return PushApplier.of({ round, drain })
  })

/** The applier, without its loop (tests and tools run `round` or `drain` themselves). */
export const layerNoLoop = (options: Options = defaults) => Layer.effect(PushApplier, make(options))

/**
 * The applier and its loop, in the layer's scope: a sweep at start, then a round when this process's receiver
 * recorded events (`PushSignal`) or every `options.every`, at once again after a full claim; a failing round is
 * logged, not fatal. The backlog gauges (`ShipmentMetrics`) are read every `options.backlogInterval`.
 */
export const layer = (options: Options = defaults) =>
  Layer.effect(
    PushApplier,
    Effect.gen(function* () {
      const applier = yield* make(options)
      const signal = yield* PushSignal
      const tracking = yield* TrackingStore
      yield* tracking.pushBacklog.pipe(
        Effect.flatMap(ShipmentMetrics.recordPushBacklog),
        Effect.catchCause((cause) => Effect.logDebug("courier push backlog not read", cause)),
        Effect.repeat(Schedule.spaced(options.backlogInterval)),
        Effect.forkScoped
      )
      yield* Effect.gen(function* () {
        for (;;) {
          const report = yield* applier.round.pipe(
            Effect.catchCause((cause) =>
              Effect.as(Effect.logError("courier push: apply round failed", cause), undefined)
            )
          )
          // A full claim means more may be due now; otherwise wait to be woken, or the interval.
          if (report === undefined || report.claimed < options.batch) yield* signal.wait(options.every)
        }
      }).pipe(Effect.forkScoped)
      return applier
    })
  )
