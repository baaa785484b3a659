/**
 * Where the ban list, the risk settings and the orders' risk flags live, and what the risk rules read of the store's
 * orders and shipments: the port `Risk` works through, and its in-memory implementation, which reads the orders
 * through `OrderStore`'s own port. The SQL implementation is `RiskStoreSql`. Every method is scoped by store id.
 */
import type { Ids } from "@tawsil/domain"
import { Clock, Context, DateTime, Effect, Layer, Schema } from "effect"
import { ConfirmationStore } from "./ConfirmationStore.ts"
import type * as CourierOutcomes from "./CourierOutcomes.ts"
import type * as FraudScore from "./FraudScore.ts"
import { type CustomerRecord, OrderStore } from "./OrderStore.ts"

/** What an order from a banned phone meets: a refusal (`CustomerBanned`) or its creation, flagged. */
export const BannedOrders = Schema.Literals(["refuse", "flag"])
export type BannedOrders = typeof BannedOrders.Type

/** The setting of a store that never changed it (decision 0038). */
export const DEFAULT_BANNED_ORDERS: BannedOrders = "flag"

export const OrderFlag = Schema.Literals(["customer_banned"])
export type OrderFlag = typeof OrderFlag.Type

export interface BanRecord {
  readonly id: number
  /** As customers' phones are kept: without spaces. */
  readonly phone: string
  readonly reason: string
  readonly created_at: DateTime.Utc
  /** The store's customer with this phone, if it has one. */
  readonly customer_id: number | null
}

export interface SettingsRecord {
  readonly banned_orders: BannedOrders
  /** Null for a store that never changed them. */
  readonly updated_at: DateTime.Utc | null
}

export interface FlagRecord {
  readonly flag: OrderFlag
  readonly created_at: DateTime.Utc
}

/** A period of shipments, by their creation: `from` included, `to` excluded. */
export interface Period {
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
}

export class RiskStore extends Context.Service<
  RiskStore,
  {
    readonly findBan: (storeId: Ids.StoreId, phone: string) => Effect.Effect<BanRecord | undefined>
    /** Bans a phone, or changes the reason of its ban. */
    readonly putBan: (storeId: Ids.StoreId, phone: string, reason: string) => Effect.Effect<BanRecord>
    /** Lifts a phone's ban; false when it had none. */
    readonly removeBan: (storeId: Ids.StoreId, phone: string) => Effect.Effect<boolean>
    /** Newest first, ids below `afterId` when set, at most `limit`. */
    readonly listBans: (
      storeId: Ids.StoreId,
      page: { readonly afterId: number | undefined; readonly limit: number }
    ) => Effect.Effect<ReadonlyArray<BanRecord>>
    readonly settings: (storeId: Ids.StoreId) => Effect.Effect<SettingsRecord>
    readonly putSettings: (storeId: Ids.StoreId, bannedOrders: BannedOrders) => Effect.Effect<SettingsRecord>
    readonly flagOrder: (storeId: Ids.StoreId, orderId: number, flag: OrderFlag) => Effect.Effect<void>
    readonly flagsOf: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<ReadonlyArray<FlagRecord>>
    /** The counts a customer's score is computed from. */
    readonly customerFacts: (storeId: Ids.StoreId, customer: CustomerRecord) => Effect.Effect<FraudScore.Inputs>
    /** The store's shipments created in the period, as the outcomes report reads them. */
    readonly shipmentOutcomes: (
      storeId: Ids.StoreId,
      period: Period
    ) => Effect.Effect<ReadonlyArray<CourierOutcomes.ShipmentOutcome>>
  }
>()("@tawsil/orders/RiskStore") {}

/** An address as the shared-address factor compares it: wilaya, commune and address, spaces folded, any case. */
export const addressKey = (customer: Pick<CustomerRecord, "wilaya_id" | "commune" | "address">): string | undefined => {
  const fold = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase()
  const address = fold(customer.address)
  return address === "" ? undefined : `${customer.wilaya_id}\u0000${fold(customer.commune)}\u0000${address}`
}

const DAY_MS = 86_400_000
/** Enough for any store a memory twin holds. */
const ALL = { afterId: undefined, limit: Number.MAX_SAFE_INTEGER }

/** The port in `Map`s, reading orders, customers and shipments through `OrderStore` (its memory twin in tests). */
export const layerMemory: Layer.Layer<RiskStore, never, OrderStore | ConfirmationStore> = Layer.effect(
  RiskStore,
  Effect.gen(function* () {
    const orders = yield* OrderStore
    const confirmations = yield* ConfirmationStore
    const bans = new Map<string, Omit<BanRecord, "customer_id"> & { readonly store_id: number }>()
    const settings = new Map<number, SettingsRecord>()
    const flags = new Map<number, Array<FlagRecord>>()
    let lastBan = 0
    const now = Effect.map(Clock.currentTimeMillis, DateTime.makeUnsafe)
    const banKey = (storeId: number, phone: string) => `${storeId}\u0000${phone}`
    /** A ban as the port answers it: the customer of its phone found, as the SQL store joins it. */
    const answered = ({ store_id, ...ban }: Omit<BanRecord, "customer_id"> & { readonly store_id: number }) =>
      Effect.map(
        orders.listCustomers(store_id as Ids.StoreId, { phone: ban.phone }, { afterId: undefined, limit: 1 }),
        ([customer]): BanRecord => ({ ...ban, customer_id: customer?.id ?? null })
      )

    return RiskStore.of({
      findBan: (storeId, phone) => {
        const ban = bans.get(banKey(storeId, phone))
        return ban === undefined ? Effect.succeed(undefined) : answered(ban)
      },
      putBan: Effect.fnUntraced(function* (storeId, phone, reason) {
        const at = yield* now
        const existing = bans.get(banKey(storeId, phone))
        const ban =
          existing === undefined
            ? { id: ++lastBan, store_id: storeId, phone, reason, created_at: at }
            : { ...existing, reason }
        bans.set(banKey(storeId, phone), ban)
        return yield* answered(ban)
      }),
      removeBan: (storeId, phone) => Effect.sync(() => bans.delete(banKey(storeId, phone))),
      listBans: (storeId, page) =>
        Effect.forEach(
          [...bans.values()]
            .filter((ban) => ban.store_id === storeId && (page.afterId === undefined || ban.id < page.afterId))
            .sort((a, b) => b.id - a.id)
            .slice(0, page.limit),
          answered
        ),
      settings: (storeId) =>
        Effect.sync(() => settings.get(storeId) ?? { banned_orders: DEFAULT_BANNED_ORDERS, updated_at: null }),
      putSettings: Effect.fnUntraced(function* (storeId, bannedOrders) {
        const record = { banned_orders: bannedOrders, updated_at: yield* now }
        settings.set(storeId, record)
        return record
      }),
      flagOrder: Effect.fnUntraced(function* (_storeId, orderId, flag) {
        const list = flags.get(orderId) ?? []
        if (!list.some((f) => f.flag === flag)) list.push({ flag, created_at: yield* now })
        flags.set(orderId, list)
      }),
      flagsOf: (storeId, orderId) =>
        Effect.map(orders.findOrder(storeId, orderId), (order) =>
          order === undefined ? [] : (flags.get(orderId) ?? [])
        ),
      customerFacts: Effect.fnUntraced(function* (storeId, customer) {
        const at = DateTime.toEpochMillis(yield* now)
        const summaries = yield* orders.listOrders(storeId, { customerId: customer.id }, ALL)
        let delivered = 0
        let returned = 0
        let ordersLast24h = 0
        // The customer's orders a confirmation call or link found fake, or the customer cancelled.
        let fakeConfirmations = 0
        let cancelledConfirmations = 0
        for (const order of summaries) {
          if (at - DateTime.toEpochMillis(order.created_at) < DAY_MS) ordersLast24h++
          if (order.shipment?.status === "delivered") delivered++
          if (order.shipment?.status === "returned" || order.shipment?.status === "returning") returned++
          const outcomes = (yield* confirmations.attempts(storeId, order.id)).map(({ outcome }) => outcome)
          if (outcomes.includes("fake")) fakeConfirmations++
          if (outcomes.includes("customer_cancelled")) cancelledConfirmations++
        }
        const address = addressKey(customer)
        const neighbours =
          address === undefined
            ? []
            : (yield* orders.listCustomers(storeId, {}, ALL)).filter(
                (other) => other.id !== customer.id && addressKey(other) === address
              )
        return {
          delivered,
          returned,
          fakeConfirmations,
          cancelledConfirmations,
          otherPhonesAtAddress: new Set(neighbours.map((other) => other.phone)).size,
          ordersLast24h
        }
      }),
      shipmentOutcomes: Effect.fnUntraced(function* (storeId, period) {
        const summaries = yield* orders.listOrders(storeId, {}, ALL)
        const outcomes: Array<CourierOutcomes.ShipmentOutcome> = []
        for (const summary of summaries) {
          if (summary.shipment === null) continue
          const order = yield* orders.findOrder(storeId, summary.id)
          const shipment = order?.shipment
          if (order === undefined || shipment == null) continue
          if (period.from !== undefined && DateTime.isLessThan(shipment.created_at, period.from)) continue
          if (period.to !== undefined && !DateTime.isLessThan(shipment.created_at, period.to)) continue
          const movements = shipment.timeline.filter((event) => event.kind === "movement")
          outcomes.push({
            courier: shipment.courier,
            wilaya_id: order.wilaya_id,
            status: shipment.status,
            first_at: movements[0]?.occurred_at ?? shipment.created_at,
            status_at: shipment.status_at
          })
        }
        return outcomes
      })
    })
  })
)
