/**
 * What following parcels keeps (docs/cod-loop.md): the poller's due checks (`shipment_checks`: one per shipment on
 * its way, claimed under a lease so that N instances check each parcel once per cycle and a killed instance's claims
 * are taken over when their lease runs out) and the pushed events as the couriers sent them (`courier_push_events`:
 * each recorded once per account when the courier's request is acknowledged, then claimed by an applier under a lease
 * and applied to its shipment, each exactly once, or kept until its shipment is attached). The port and its in-memory
 * implementation; `TrackingStoreSql` is the SQL one. Times are the store's clock (the database's on SQL), so every
 * instance agrees on what is due.
 */
import type { Payment } from "@tawsil/courier/Shipment"
import { Clock, Context, type DateTime, Duration, Effect, Layer, Semaphore } from "effect"

/** A shipment the poller follows. */
export interface Check {
  readonly orderId: number
  readonly storeId: number
  readonly accountId: number
  readonly trackingNumber: string
  /** The shipment's canonical status when it was last checked (what the schedule was made from). */
  readonly status: string
  /** Checks made so far. */
  readonly checks: number
}

/** An event as a courier pushed it, before it reached a shipment. */
export interface PushedRow {
  /** The courier's event id, else tracking number + raw status + time. */
  readonly key: string
  readonly trackingNumber: string | null
  readonly courierReference: string | null
  readonly reference: string | null
  readonly rawStatus: string
  readonly reason: string | null
  readonly occurredAt: DateTime.Utc
  /** What a cash event said of the money (docs/cod-ledger.md); null when it said nothing. */
  readonly payment: Payment | null
}

/** A pushed event an applier claimed: its account's. */
export interface ClaimedPush extends PushedRow {
  readonly accountId: number
}

/** How long an event whose parcel is not attached yet waits before it is tried again: its age, within these. */
export interface RetryWait {
  readonly min: Duration.Duration
  readonly max: Duration.Duration
}

/** The pushed events not applied yet, on the whole store. */
export interface PushBacklog {
  /** Never tried: the appliers' backlog. */
  readonly pending: number
  /** Tried, their parcel not attached yet (or not one of ours): waiting. */
  readonly waiting: number
  /** How long ago the oldest pending event was recorded, in seconds (0: none is pending). */
  readonly lagSeconds: number
}

export class TrackingStore extends Context.Service<
  TrackingStore,
  {
    /** Runs `effect` as one unit (SQL: one transaction, joining the caller's when there is one). */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** Follows a shipment (or again, with a new status): due `dueIn` from now, unclaimed. */
    readonly schedule: (check: Omit<Check, "checks">, dueIn: Duration.Duration) => Effect.Effect<void>
    /**
     * Claims up to `limit` due checks not claimed by another (or whose claim ran out), each for `lease`; another
     * claimer skips them until then. By account: the accounts whose oldest check is the most overdue first, each with
     * its due checks oldest first, at most `perAccount` of one account (all of them by default), so that a cycle fills
     * whole batch reads of a few accounts rather than asking many accounts for a parcel or two each.
     */
    readonly claimDue: (
      limit: number,
      lease: Duration.Duration,
      perAccount?: number
    ) => Effect.Effect<ReadonlyArray<Check>>
    /** A check done: due again `dueIn` from now with its new status, the claim released. */
    readonly checked: (orderId: number, status: string, dueIn: Duration.Duration) => Effect.Effect<void>
    /** Claims given back unchecked (a courier that could not be asked): due as they were, claimable at once. */
    readonly release: (orderIds: ReadonlyArray<number>) => Effect.Effect<void>
    /** A shipment no longer followed (terminal). */
    readonly finish: (orderId: number) => Effect.Effect<void>
    /** How many shipments an account's parcels still being followed. */
    readonly following: (accountId: number) => Effect.Effect<number>
    /** Records pushed events, each once per account (one statement on SQL); answers the ones that were new. */
    readonly recordPushed: (
      accountId: number,
      rows: ReadonlyArray<PushedRow>
    ) => Effect.Effect<ReadonlyArray<PushedRow>>
    /** The account's pushed events not yet applied that name a parcel by any of these names. */
    readonly pendingPushed: (
      accountId: number,
      names: { readonly trackingNumber: string; readonly courierReference: string | null; readonly reference: string }
    ) => Effect.Effect<ReadonlyArray<PushedRow>>
    /**
     * Pushed events applied to order `orderId`'s shipment; answers the keys marked now, those no unit marked before
     * (SQL: locked until the caller's unit ends, so that two units never apply one event).
     */
    readonly markApplied: (
      accountId: number,
      keys: ReadonlyArray<string>,
      orderId: number
    ) => Effect.Effect<ReadonlyArray<string>>
    /**
     * Claims up to `limit` unapplied pushed events due for a try (new ones, and those whose claim or wait ran out),
     * the earliest due first; each is marked tried, and another claimer skips it for `lease` (a killed applier's
     * claims are taken over when it passes).
     */
    readonly claimPushed: (limit: number, lease: Duration.Duration) => Effect.Effect<ReadonlyArray<ClaimedPush>>
    /**
     * Claimed events whose parcel is not attached: tried again after as long as they have waited since they were
     * recorded, within `wait` (they are applied when their shipment is attached; this is the safety net).
     */
    readonly deferPushed: (accountId: number, keys: ReadonlyArray<string>, wait: RetryWait) => Effect.Effect<void>
    /** The pushed events not applied yet. */
    readonly pushBacklog: Effect.Effect<PushBacklog>
  }
>()("@tawsil/shipments/TrackingStore") {}

interface StoredCheck extends Check {
  readonly dueAt: number
  readonly leaseUntil: number | null
}

interface StoredPush extends PushedRow {
  readonly appliedTo: number | null
  readonly receivedAt: number
  readonly triedAt: number | null
  readonly nextTryAt: number
}

/** The wait before an event is tried again: its age, within `wait`. */
export const retryDelay = (age: number, wait: RetryWait): number =>
  Math.min(Duration.toMillis(wait.max), Math.max(Duration.toMillis(wait.min), age))

const rowOf = ({ appliedTo: _, receivedAt: __, triedAt: ___, nextTryAt: ____, ...row }: StoredPush): PushedRow => row

/** Marks fibers inside a memory transaction, so a nested one does not wait on itself. */
const InTransaction = Context.Reference<boolean>("@tawsil/shipments/TrackingStore/InTransaction", {
  defaultValue: () => false
})

export const layerMemory: Layer.Layer<TrackingStore> = Layer.effect(
  TrackingStore,
  Effect.gen(function* () {
    const checks = new Map<number, StoredCheck>()
    const pushed = new Map<number, Map<string, StoredPush>>()
    const lock = yield* Semaphore.make(1)
    const now = Clock.currentTimeMillis
    return TrackingStore.of({
      transaction: (effect) =>
        Effect.flatMap(InTransaction, (inside) =>
          inside ? effect : lock.withPermits(1)(Effect.provideService(effect, InTransaction, true))
        ),
      schedule: (check, dueIn) =>
        Effect.map(now, (at) => {
          checks.set(check.orderId, {
            ...check,
            checks: checks.get(check.orderId)?.checks ?? 0,
            dueAt: at + Duration.toMillis(dueIn),
            leaseUntil: null
          })
        }),
      claimDue: (limit, lease, perAccount = limit) =>
        Effect.map(now, (at) => {
          const byAccount = new Map<number, Array<StoredCheck>>()
          for (const check of checks.values()) {
            if (check.dueAt > at || (check.leaseUntil !== null && check.leaseUntil >= at)) continue
            const group = byAccount.get(check.accountId) ?? []
            group.push(check)
            byAccount.set(check.accountId, group)
          }
          const accounts = [...byAccount.values()]
            .map((group) => group.sort((a, b) => a.dueAt - b.dueAt).slice(0, perAccount))
            .sort((a, b) => a[0]!.dueAt - b[0]!.dueAt)
          const due = accounts.flat().slice(0, limit)
          for (const check of due) checks.set(check.orderId, { ...check, leaseUntil: at + Duration.toMillis(lease) })
          return due.map(({ dueAt: _, leaseUntil: __, ...check }) => check)
        }),
      checked: (orderId, status, dueIn) =>
        Effect.map(now, (at) => {
          const check = checks.get(orderId)
          if (check === undefined) return
          checks.set(orderId, {
            ...check,
            status,
            checks: check.checks + 1,
            dueAt: at + Duration.toMillis(dueIn),
            leaseUntil: null
          })
        }),
      release: (orderIds) =>
        Effect.sync(() => {
          for (const id of orderIds) {
            const check = checks.get(id)
            if (check !== undefined) checks.set(id, { ...check, leaseUntil: null })
          }
        }),
      finish: (orderId) => Effect.sync(() => void checks.delete(orderId)),
      following: (accountId) =>
        Effect.sync(() => [...checks.values()].filter((check) => check.accountId === accountId).length),
      recordPushed: (accountId, rows) =>
        Effect.map(now, (at) => {
          const account = pushed.get(accountId) ?? new Map<string, StoredPush>()
          pushed.set(accountId, account)
          return rows.filter((row) => {
            if (account.has(row.key)) return false
            account.set(row.key, { ...row, appliedTo: null, receivedAt: at, triedAt: null, nextTryAt: at })
            return true
          })
        }),
      pendingPushed: (accountId, names) =>
        Effect.sync(() =>
          [...(pushed.get(accountId)?.values() ?? [])]
            .filter(
              (row) =>
                row.appliedTo === null &&
                (row.trackingNumber === names.trackingNumber ||
                  (names.courierReference !== null && row.courierReference === names.courierReference) ||
                  row.reference === names.reference)
            )
            .map(rowOf)
        ),
      markApplied: (accountId, keys, orderId) =>
        Effect.sync(() => {
          const account = pushed.get(accountId)
          return [...new Set(keys)].filter((key) => {
            const row = account?.get(key)
            if (row === undefined || row.appliedTo !== null) return false
            account!.set(key, { ...row, appliedTo: orderId })
            return true
          })
        }),
      claimPushed: (limit, lease) =>
        Effect.map(now, (at) => {
          const due = [...pushed]
            .flatMap(([accountId, rows]) =>
              [...rows.values()]
                .filter((row) => row.appliedTo === null && row.nextTryAt <= at)
                .map((row) => ({ accountId, row }))
            )
            .sort((a, b) => a.row.nextTryAt - b.row.nextTryAt)
            .slice(0, limit)
          return due.map(({ accountId, row }) => {
            pushed.get(accountId)!.set(row.key, { ...row, triedAt: at, nextTryAt: at + Duration.toMillis(lease) })
            return { ...rowOf(row), accountId }
          })
        }),
      deferPushed: (accountId, keys, wait) =>
        Effect.map(now, (at) => {
          const account = pushed.get(accountId)
          for (const key of keys) {
            const row = account?.get(key)
            if (row === undefined || row.appliedTo !== null) continue
            account!.set(key, { ...row, nextTryAt: at + retryDelay(at - row.receivedAt, wait) })
          }
        }),
      pushBacklog: Effect.map(now, (at) => {
        const unapplied = [...pushed.values()]
          .flatMap((rows) => [...rows.values()])
          .filter((row) => row.appliedTo === null)
        const pending = unapplied.filter((row) => row.triedAt === null)
        const oldest = Math.min(...pending.map((row) => row.receivedAt))
        return {
          pending: pending.length,
          waiting: unapplied.length - pending.length,
          lagSeconds: pending.length === 0 ? 0 : Math.max(0, (at - oldest) / 1000)
        }
      })
    })
  })
)
