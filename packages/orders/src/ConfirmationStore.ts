/**
 * Where the confirmation workflow keeps its records: the port `Confirmation` works through, and its in-memory
 * implementation (tests, one-process development); the SQL one is `ConfirmationStoreSql`. It runs inside the units of
 * `OrderStore.transaction`, so an attempt and the order move it causes commit together.
 *
 * Two rules it makes atomic: a link is used once (`useLink` is a compare-and-set), and the store's timeout records at
 * most one `timed_out` per order (`insertTimeout` answers false for a second one).
 */
import type { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Layer } from "effect"
import type { AnswerOutcome, Outcome, Source, TimeoutAction } from "./ConfirmationViews.ts"
import { OrderStore } from "./OrderStore.ts"

export interface AttemptRecord {
  readonly outcome: Outcome
  readonly source: Source
  readonly note: string | null
  readonly postponed_until: DateTime.Utc | null
  readonly created_at: DateTime.Utc
}

/** An attempt to record, with the order's phone at the time (what a risk score counts by). */
export interface NewAttempt extends AttemptRecord {
  readonly customer_phone: string
}

export interface SettingsRecord {
  readonly timeout_minutes: number | null
  readonly timeout_action: TimeoutAction
  readonly timeout_since: DateTime.Utc | null
  readonly updated_at: DateTime.Utc
}

export interface LinkRecord {
  readonly id: string
  readonly store_id: Ids.StoreId
  readonly order_id: number
  readonly expires_at: DateTime.Utc
  readonly created_at: DateTime.Utc
  readonly used_at: DateTime.Utc | null
  readonly answer: Extract<AnswerOutcome, "confirmed" | "customer_cancelled"> | null
}

/** A pending order the store's timeout has come for. */
export interface Due {
  readonly storeId: Ids.StoreId
  readonly orderId: number
  readonly action: TimeoutAction
}

export class ConfirmationStore extends Context.Service<
  ConfirmationStore,
  {
    /**
     * Runs `effect` as one unit with the orders' writes inside it (SQL: one transaction, joining the caller's; memory:
     * `OrderStore.transaction`).
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** The names of the store's products among `ids` (deleted ones too: an order keeps its lines). */
    readonly productNames: (
      storeId: Ids.StoreId,
      ids: ReadonlyArray<number>
    ) => Effect.Effect<ReadonlyMap<number, string>>
    /** The order's attempts, oldest first. */
    readonly attempts: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<ReadonlyArray<AttemptRecord>>
    readonly insertAttempt: (storeId: Ids.StoreId, orderId: number, attempt: NewAttempt) => Effect.Effect<void>
    /** Records the timeout's `timed_out`; false when the order has one already (nothing written). */
    readonly insertTimeout: (storeId: Ids.StoreId, orderId: number, attempt: NewAttempt) => Effect.Effect<boolean>
    readonly settings: (storeId: Ids.StoreId) => Effect.Effect<SettingsRecord | undefined>
    readonly saveSettings: (storeId: Ids.StoreId, settings: SettingsRecord) => Effect.Effect<void>
    readonly insertLink: (link: LinkRecord) => Effect.Effect<void>
    readonly findLink: (id: string) => Effect.Effect<LinkRecord | undefined>
    /** Spends a link with its answer, only if it is unused (compare-and-set); false when it was used already. */
    readonly useLink: (
      id: string,
      answer: NonNullable<LinkRecord["answer"]>,
      at: DateTime.Utc
    ) => Effect.Effect<boolean>
    /**
     * Up to `limit` pending orders, of stores whose timeout is on, created since it was turned on and at least its
     * minutes before `at`, with no `timed_out` yet and no postponement past `at`. SQL: locks them (`FOR UPDATE SKIP
     * LOCKED`) for the rest of the caller's unit, so concurrent sweeps take different orders.
     */
    readonly due: (at: DateTime.Utc, limit: number) => Effect.Effect<ReadonlyArray<Due>>
  }
>()("@tawsil/orders/ConfirmationStore") {}

interface StoredAttempt extends NewAttempt {
  readonly storeId: Ids.StoreId
  readonly orderId: number
}

/** The port in `Map`s, over the memory `OrderStore` (whose lock makes each unit run alone). */
export const layerMemory: Layer.Layer<ConfirmationStore, never, OrderStore> = Layer.effect(
  ConfirmationStore,
  Effect.gen(function* () {
    const orders = yield* OrderStore
    const attempts: Array<StoredAttempt> = []
    const settings = new Map<Ids.StoreId, SettingsRecord>()
    const links = new Map<string, LinkRecord>()
    const of = (storeId: Ids.StoreId, orderId: number) =>
      attempts.filter((attempt) => attempt.storeId === storeId && attempt.orderId === orderId)

    return ConfirmationStore.of({
      transaction: orders.transaction,
      productNames: orders.productNames,
      attempts: (storeId, orderId) =>
        Effect.sync(() =>
          of(storeId, orderId).map(({ outcome, source, note, postponed_until, created_at }) => ({
            outcome,
            source,
            note,
            postponed_until,
            created_at
          }))
        ),
      insertAttempt: (storeId, orderId, attempt) =>
        Effect.sync(() => {
          attempts.push({ ...attempt, storeId, orderId })
        }),
      insertTimeout: (storeId, orderId, attempt) =>
        Effect.sync(() => {
          if (of(storeId, orderId).some((stored) => stored.outcome === "timed_out")) return false
          attempts.push({ ...attempt, storeId, orderId })
          return true
        }),
      settings: (storeId) => Effect.sync(() => settings.get(storeId)),
      saveSettings: (storeId, record) =>
        Effect.sync(() => {
          settings.set(storeId, record)
        }),
      insertLink: (link) =>
        Effect.sync(() => {
          links.set(link.id, link)
        }),
      findLink: (id) => Effect.sync(() => links.get(id)),
      useLink: (id, answer, at) =>
        Effect.sync(() => {
          const link = links.get(id)
          if (link === undefined || link.used_at !== null) return false
          links.set(id, { ...link, used_at: at, answer })
          return true
        }),
      due: Effect.fnUntraced(function* (at, limit) {
        const found: Array<Due> = []
        for (const [storeId, setting] of settings) {
          if (setting.timeout_minutes === null || setting.timeout_since === null) continue
          const since = setting.timeout_since
          const latest = DateTime.subtract(at, { minutes: setting.timeout_minutes })
          const pending = yield* orders.listOrders(
            storeId,
            { status: "pending" },
            { afterId: undefined, limit: Number.MAX_SAFE_INTEGER }
          )
          for (const order of [...pending].reverse()) {
            if (DateTime.isLessThan(order.created_at, since) || DateTime.isGreaterThan(order.created_at, latest))
              continue
            const held = of(storeId, order.id).some(
              (attempt) =>
                attempt.outcome === "timed_out" ||
                (attempt.postponed_until !== null && DateTime.isGreaterThan(attempt.postponed_until, at))
            )
            if (!held) found.push({ storeId, orderId: order.id, action: setting.timeout_action })
            if (found.length >= limit) return found
          }
        }
        return found
      })
    })
  })
)
