/**
 * Tracking fed back by polling (docs/cod-loop.md, "Polling"), for every shipment whose courier does not push and as a
 * safety net for those that do. Every instance runs it: each cycle claims the due checks (`TrackingStore.claimDue`:
 * `FOR UPDATE SKIP LOCKED` under a lease, so N instances check each parcel once per cycle and a killed instance's
 * claims are taken over when their lease runs out), reads them through the shipping gateway a hundred at a time where
 * the platform has a batch read, applies what it reads (the order follows) and reschedules each by its new status.
 *
 * A cycle claims the most overdue accounts' checks, at most `perAccount` of each (whole batch reads of a few accounts
 * at once). An account is asked at most what 80 % of each documented limit allows (`TrackingSchedule`), a budget that
 * accrues with the time elapsed since the account was last asked, up to one interval's share (at least one call); what
 * it cannot be asked now is released, due as it was. A cycle that read all it claimed is followed at once (a backlog is
 * worked through without waiting): the transport's pacer spaces each account's calls under its limits, so such cycles
 * last as long as the limits make them. A courier that fails a read (down, limiting, refusing the account) is asked
 * nothing more this cycle. The transport's own limiter holds every call under the limits besides.
 */
import type { Ids } from "@tawsil/domain"
import { Orders } from "@tawsil/orders"
import { Gateway, type Shipping } from "@tawsil/shipping"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { CourierAccounts } from "./CourierAccounts.ts"
import * as Following from "./internal/follow.ts"
import * as TrackingSchedule from "./TrackingSchedule.ts"
import { type Check, TrackingStore } from "./TrackingStore.ts"

export interface Options {
  /** Time between cycles. */
  readonly every: Duration.Duration
  /** Checks claimed per cycle, at most. */
  readonly claim: number
  /** Checks of one account claimed per cycle, at most (default: `claim` shared by the accounts polled at once). */
  readonly perAccount?: number
  /** How long a claim holds: a killed instance's claims are taken over after it. */
  readonly lease: Duration.Duration
  /** The deadline of one courier read. */
  readonly timeout: Duration.Duration
}

export const defaults: Options = {
  every: Duration.seconds(30),
  claim: 2000,
  lease: Duration.minutes(5),
  timeout: Duration.seconds(60)
}

/** What one cycle did. */
export interface CycleReport {
  readonly claimed: number
  readonly checked: number
  readonly released: number
  /** Courier reads made. */
  readonly calls: number
}

export class Poller extends Context.Service<
  Poller,
  {
    /** One cycle, now. */
    readonly cycle: Effect.Effect<CycleReport>
  }
>()("@tawsil/shipments/Poller") {}

const chunk = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const chunks: Array<ReadonlyArray<A>> = []
  for (let at = 0; at < items.length; at += size) chunks.push(items.slice(at, at + size))
  return chunks
}

/** Whether a failed read of one parcel says something about the parcel (the courier refused it: it does not know it). */
const aboutTheParcel = (error: Shipping.ShippingError): boolean =>
  error._tag === "CourierError" && error.reason._tag === "Refused"

/** Accounts polled at once. */
const ACCOUNT_CONCURRENCY = 4

export const make = (options: Options = defaults) =>
  Effect.gen(function* () {
    const orders = yield* Orders.Orders
    const accounts = yield* CourierAccounts
    const tracking = yield* TrackingStore
    const gateway = yield* Gateway.Gateway
    const { follow } = Following.follower(orders, tracking, gateway.catalogue)
    /** Each account's calls not made yet, as counted at `at`: the budget accrues with the time elapsed. */
    const credits = new Map<number, { readonly calls: number; readonly at: number }>()
    const perAccount = options.perAccount ?? Math.ceil(options.claim / ACCOUNT_CONCURRENCY)

    const pollAccount = Effect.fnUntraced(function* (accountId: number, checks: ReadonlyArray<Check>) {
      const release = (rest: ReadonlyArray<Check>) =>
        Effect.as(tracking.release(rest.map((check) => check.orderId)), rest.length)
      const storeId = checks[0]!.storeId as Ids.StoreId
      const opened = yield* accounts.open(storeId, accountId).pipe(Effect.option)
      if (opened._tag === "None") {
        yield* Effect.logWarning("shipment poll: courier account cannot be opened").pipe(
          Effect.annotateLogs({ account: accountId })
        )
        return { checked: 0, released: yield* release(checks), calls: 0 }
      }
      const { account, call } = opened.value
      const adapter = gateway.catalogue.resolve(account.courier)?.adapter
      if (adapter === undefined) return { checked: 0, released: yield* release(checks), calls: 0 }
      const batchRead = adapter.operations.trackBatch !== undefined
      // A platform without a batch read is asked once per parcel.
      const perCall = batchRead ? TrackingSchedule.BATCH_SIZE : 1
      // The most one account may spend at once: one interval's share of its limits, at least one call (a limit
      // slower than one call an interval adds up to one). Cycles that follow at once share the time between them.
      const share = TrackingSchedule.callsPerCycle(adapter.rateLimits, options.every)
      const now = yield* Clock.currentTimeMillis
      const before = credits.get(accountId)
      const accrued =
        before === undefined
          ? share
          : before.calls + TrackingSchedule.callsPerCycle(adapter.rateLimits, Duration.millis(now - before.at))
      const available = Math.min(Math.max(share, 1), accrued)
      const calls = Math.min(Math.floor(available), Math.ceil(checks.length / perCall))
      if (Number.isFinite(share)) credits.set(accountId, { calls: available - calls, at: now })
      const asked = checks.slice(0, calls * perCall)
      let released = yield* release(checks.slice(asked.length))
      let checked = 0
      let made = 0
      const pushes = adapter.push !== undefined
      for (const [index, group] of chunk(asked, TrackingSchedule.BATCH_SIZE).entries()) {
        made += batchRead ? 1 : group.length
        const items = yield* gateway
          .trackBatch({
            ...call,
            options: { ...call.options, timeoutMs: Duration.toMillis(options.timeout) },
            trackingNumbers: group.map((check) => check.trackingNumber)
          })
          .pipe(Effect.option)
        if (items._tag === "None") {
          // The courier could not be asked: this account waits for the next cycle.
          released += yield* release(asked.slice(index * TrackingSchedule.BATCH_SIZE))
          break
        }
        const byNumber = new Map(group.map((check) => [check.trackingNumber, check]))
        // A courier that reads one parcel a call answers its failures parcel by parcel: one that could not be asked
        // (down, limiting, refusing the account) is no answer about the parcel, and gives its claim back.
        const unanswered = items.value.filter((item) => "error" in item && !aboutTheParcel(item.error))
        if (unanswered.length > 0) {
          const answered = new Set(
            items.value.flatMap((item) => (unanswered.includes(item) ? [] : [item.trackingNumber]))
          )
          released += yield* release(
            asked.slice(index * TrackingSchedule.BATCH_SIZE).filter((check) => !answered.has(check.trackingNumber))
          )
        }
        for (const item of items.value) {
          const check = byNumber.get(item.trackingNumber)
          if (check === undefined || unanswered.includes(item)) continue
          if ("error" in item) {
            // The courier does not say (yet): asked again when its status would have been.
            const next = TrackingSchedule.nextCheck(check.status as never, pushes) ?? TrackingSchedule.PUSHED_INTERVAL
            yield* tracking.checked(check.orderId, check.status, next)
          } else {
            yield* follow(
              { storeId: check.storeId as Ids.StoreId, orderId: check.orderId },
              Following.fromTrack(adapter, item.result.events),
              { pushes, checked: true }
            )
          }
          checked++
        }
        if (unanswered.length > 0) break
      }
      return { checked, released, calls: made }
    })

    const cycle = Effect.gen(function* () {
      // By account (the most overdue first, each with all its due checks up to the limit): whole batch reads.
      const claimed = yield* tracking.claimDue(options.claim, options.lease, perAccount)
      const byAccount = new Map<number, Array<Check>>()
      for (const check of claimed) {
        const group = byAccount.get(check.accountId) ?? []
        group.push(check)
        byAccount.set(check.accountId, group)
      }
      const reports = yield* Effect.forEach(byAccount, ([accountId, checks]) => pollAccount(accountId, checks), {
        concurrency: ACCOUNT_CONCURRENCY
      })
      return {
        claimed: claimed.length,
        checked: reports.reduce((sum, report) => sum + report.checked, 0),
        released: reports.reduce((sum, report) => sum + report.released, 0),
        calls: reports.reduce((sum, report) => sum + report.calls, 0)
      }
    }).pipe(Effect.withSpan("Poller.cycle"))

    return Poller.of({ cycle })
  })

/** The poller, without its loop (tests and tools run `cycle` themselves). */
export const layerNoLoop = (options: Options = defaults) => Layer.effect(Poller, make(options))

/**
 * The poller and its loop, in the layer's scope: a cycle every `options.every`, or at once after a cycle that read
 * all it claimed (more may be due and the accounts allowed it: a backlog is worked through without waiting; a claim
 * that finds nothing ends it); a failing cycle is logged, not fatal.
 */
export const layer = (options: Options = defaults) =>
  Layer.effect(
    Poller,
    Effect.gen(function* () {
      const poller = yield* make(options)
      const next = poller.cycle.pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logError("shipment poll cycle failed", cause), undefined)),
        Effect.flatMap((report) =>
          // A claim all read (nothing given back for an account's limits or a failure): go on at once.
          report !== undefined && report.claimed > 0 && report.released === 0
            ? Effect.void
            : Effect.sleep(options.every)
        )
      )
      yield* Effect.forkScoped(Effect.forever(next))
      return poller
    })
  )
