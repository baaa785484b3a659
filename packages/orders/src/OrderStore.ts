/**
 * Where orders and customers live: the port `Orders` works through, and its in-memory implementation (tests,
 * one-process development). The SQL implementation is `OrderStoreSql`.
 *
 * A store applies no business rule of its own beyond three it must make atomic: the customer match on
 * insert (`CustomerMatch`), the compare-and-set of a status move together with its stock effect, and the order
 * number's uniqueness. Every method is scoped by store id; another store's rows are never found.
 * Infrastructure failures are defects.
 */
import { AlgiersTime, type Ids, StoreAmount } from "@tawsil/domain"
import { Idempotency } from "@tawsil/idempotency"
import type { Pricing } from "@tawsil/pricing"
import { Clock, Context, DateTime, Effect, Layer, Schema, Semaphore } from "effect"
import * as CustomerMatch from "./CustomerMatch.ts"
import type * as OrderCreate from "./OrderCreate.ts"
import * as OrderShipment from "./OrderShipment.ts"
import type { OrderStatus, StockMove } from "./OrderStatus.ts"

export const PaymentStatus = Schema.Literals(["pending", "paid", "refunded"])
export type PaymentStatus = typeof PaymentStatus.Type

export interface ItemRecord {
  readonly id: number
  readonly product_id: number
  readonly price: StoreAmount.StoreAmount
  readonly quantity: number
  readonly variants: ReadonlyArray<Pricing.ChosenVariant>
}

/** The fields of an order a list shows. */
export interface OrderSummaryRecord {
  readonly id: number
  readonly order_number: string
  readonly status: OrderStatus
  readonly payment_status: PaymentStatus
  readonly payment_method: OrderCreate.PaymentMethod
  readonly total: StoreAmount.StoreAmount
  readonly customer_name: string
  readonly customer_phone: string
  readonly wilaya_id: number
  readonly commune: string
  readonly delivery_type: OrderCreate.DeliveryType
  readonly created_at: DateTime.Utc
  /** Who carries its parcel and where it is, once shipped. */
  readonly shipment: ShipmentSummaryRecord | null
}

export interface ShipmentSummaryRecord {
  readonly courier: string
  readonly tracking_number: string
  readonly status: OrderShipment.ShipmentRecord["status"]
}

/** An order with its customer snapshot, amounts and lines (`notes` is write-only and never read back). */
export interface OrderRecord extends OrderSummaryRecord {
  readonly stock_committed: boolean
  readonly customer_id: number
  readonly customer_email: string | null
  readonly address: string
  readonly desk_id: number | null
  readonly desk_name: string | null
  readonly subtotal: StoreAmount.StoreAmount
  readonly shipping_cost: StoreAmount.StoreAmount
  readonly discount: StoreAmount.StoreAmount
  readonly payment_fee: StoreAmount.StoreAmount
  readonly updated_at: DateTime.Utc
  readonly items: ReadonlyArray<ItemRecord>
  /** Its parcel, once shipped (`OrderShipment`), with its timeline. */
  readonly shipment: OrderShipment.ShipmentRecord | null
}

export interface CustomerRecord {
  readonly id: number
  readonly first_name: string
  readonly last_name: string
  readonly phone: string
  readonly email: string | null
  readonly wilaya_id: number
  readonly commune: string
  readonly address: string
  readonly notes: string | null
  readonly total_orders: number
  readonly total_spent: StoreAmount.StoreAmount
  readonly is_banned: boolean
  readonly created_at: DateTime.Utc
  readonly updated_at: DateTime.Utc
}

/** An order to insert, priced and numbered. Its customer is matched (or made) by store and phone in the insert. */
export interface NewOrder {
  readonly order_number: string
  readonly payment_method: OrderCreate.PaymentMethod
  readonly customer: CustomerMatch.Sent
  readonly delivery: OrderCreate.Delivery
  readonly subtotal: StoreAmount.StoreAmount
  readonly shipping_cost: StoreAmount.StoreAmount
  readonly discount: StoreAmount.StoreAmount
  readonly payment_fee: StoreAmount.StoreAmount
  readonly total: StoreAmount.StoreAmount
  readonly notes: string | null
  readonly items: ReadonlyArray<Omit<ItemRecord, "id">>
}

/** What an order create reads before deciding. */
export interface CreateSnapshot {
  /** The time the order is made at (the database's transaction time for SQL, `Clock` for memory). */
  readonly now: DateTime.Utc
  /** The store's live products among those asked for, by id. */
  readonly products: ReadonlyMap<number, OrderCreate.Product>
  /** The store's orders of every source in the Algiers month of `now`; 0 unless asked for. */
  readonly ordersThisMonth: number
}

export interface OrderFilter {
  readonly status?: OrderStatus | undefined
  readonly since?: DateTime.Utc | undefined
  readonly customerPhone?: string | undefined
  readonly customerId?: number | undefined
  /** Orders whose shipment this courier carries (its key). */
  readonly courier?: string | undefined
  /** Orders whose shipment is in this canonical status. */
  readonly shipmentStatus?: string | undefined
}

/** How a courier names a parcel in what it pushes: at least one of these. */
export interface ParcelName {
  readonly trackingNumber?: string | undefined
  readonly courierReference?: string | undefined
  /** Our reference: the order number. */
  readonly reference?: string | undefined
}

/** An order's shipment as a follow-up reads it under its lock: the shipment without its timeline. */
export type LockedShipment = Omit<OrderShipment.ShipmentRecord, "timeline"> & { readonly orderStatus: OrderStatus }

export interface CustomerFilter {
  /** Compared case-insensitively. */
  readonly phone?: string | undefined
  /** Compared case-insensitively. */
  readonly email?: string | undefined
}

/** A page request: newest first, ids below `afterId` when set, at most `limit` rows. */
export interface PageRequest {
  readonly afterId: number | undefined
  readonly limit: number
}

export class OrderStore extends Context.Service<
  OrderStore,
  {
    /**
     * Runs `effect` as one unit: the reads and writes inside see no other unit's in between (SQL: one database
     * transaction, joining the caller's when there is one).
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Reads what an order create decides on. With `countThisMonth`, also counts the store's orders of the month and
     * holds the count true until the unit ends (SQL: locks the store row), so concurrent creates queue on the cap.
     * Takes the create's pending Idempotency-Key claim first (`Idempotency.PendingClaim`; SQL: carried by the read,
     * decision 0027), and goes no further unless the key is the create's.
     */
    readonly prepareCreate: (
      storeId: Ids.StoreId,
      productIds: ReadonlyArray<number>,
      options: { readonly countThisMonth: boolean }
    ) => Effect.Effect<CreateSnapshot>
    /** Inserts an order with its customer match; `undefined` when its number is taken (retry with another). */
    readonly insertOrder: (storeId: Ids.StoreId, order: NewOrder) => Effect.Effect<OrderRecord | undefined>
    readonly findOrder: (storeId: Ids.StoreId, id: number) => Effect.Effect<OrderRecord | undefined>
    /**
     * Moves an order from `from` to `to` only if it is still in `from` (compare-and-set), applying `stock` to the
     * catalogue in the same step: `commit` takes each line's quantity from the product's stock and each chosen
     * option's stock (by group name and option value; untracked stock stays untracked, a decrement stops at 0) and
     * adds it to the product's sales count; `restore` gives it back (sales count not below 0). Returns the new
     * `updated_at`, or `undefined` when the order was no longer in `from`.
     */
    readonly moveOrder: (
      storeId: Ids.StoreId,
      id: number,
      move: { readonly from: OrderStatus; readonly to: OrderStatus; readonly stock: StockMove }
    ) => Effect.Effect<DateTime.Utc | undefined>
    readonly listOrders: (
      storeId: Ids.StoreId,
      filter: OrderFilter,
      page: PageRequest
    ) => Effect.Effect<ReadonlyArray<OrderSummaryRecord>>
    readonly findCustomer: (storeId: Ids.StoreId, id: number) => Effect.Effect<CustomerRecord | undefined>
    readonly listCustomers: (
      storeId: Ids.StoreId,
      filter: CustomerFilter,
      page: PageRequest
    ) => Effect.Effect<ReadonlyArray<CustomerRecord>>
    /** Marks the customer of a phone (as stored, `CustomerMatch.phoneKey`) banned or not; answers its id, if any. */
    readonly setBanned: (storeId: Ids.StoreId, phone: string, banned: boolean) => Effect.Effect<number | undefined>
    /** The names of the store's products among `ids` (deleted ones too: an order keeps its lines). */
    readonly productNames: (
      storeId: Ids.StoreId,
      ids: ReadonlyArray<number>
    ) => Effect.Effect<ReadonlyMap<number, string>>
    /**
     * Adds an order's shipment with its first event; `false` when the order has one already (one per order). The
     * caller holds the order (its status was just compare-and-set in the same unit).
     */
    readonly insertShipment: (
      storeId: Ids.StoreId,
      orderId: number,
      shipment: OrderShipment.NewShipment,
      first: OrderShipment.ShipmentEvent
    ) => Effect.Effect<boolean>
    /** An order's shipment and the order's status, locked until the unit ends (SQL: `FOR UPDATE`); undefined: none. */
    readonly lockShipment: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<LockedShipment | undefined>
    /** Adds events to a shipment's timeline, each once (`OrderShipment.dedupeKey`); answers the ones that were new. */
    readonly recordEvents: (
      storeId: Ids.StoreId,
      orderId: number,
      events: ReadonlyArray<OrderShipment.ShipmentEvent>
    ) => Effect.Effect<ReadonlyArray<OrderShipment.ShipmentEvent>>
    /** Writes a shipment's state (and, when given, that it was dispatched); answers the new `updated_at`. */
    readonly updateShipment: (
      storeId: Ids.StoreId,
      orderId: number,
      state: OrderShipment.State & { readonly dispatched?: boolean | undefined }
    ) => Effect.Effect<DateTime.Utc>
    /** The order a courier account's parcel belongs to, by any of the names the courier uses for it. */
    readonly findByParcel: (
      accountId: number,
      parcel: ParcelName
    ) => Effect.Effect<{ readonly storeId: Ids.StoreId; readonly orderId: number } | undefined>
  }
>()("@tawsil/orders/OrderStore") {}

// ---------------------------------------------------------------------------------------------------------------
// In memory

/** A catalogue product as the memory store keeps it (the SQL store reads the catalogue's tables instead). */
export interface MemoryProduct {
  readonly id: number
  /** Its name (what a parcel's product list shows); `Product <id>` when absent. */
  readonly name?: string | undefined
  readonly store_id: number
  readonly price: StoreAmount.StoreAmount
  readonly digital: boolean
  readonly stock: number | null
  readonly sales_count: number
  readonly deleted: boolean
  readonly groups: ReadonlyArray<{
    readonly name: string
    readonly options: ReadonlyArray<{
      readonly value: string
      readonly price_adjustment: StoreAmount.StoreAmount
      readonly stock: number | null
    }>
  }>
}

/** The memory store's catalogue, for seeding products and reading their stock back. */
export class MemoryCatalogue extends Context.Service<
  MemoryCatalogue,
  {
    readonly put: (product: MemoryProduct) => Effect.Effect<void>
    readonly get: (id: number) => Effect.Effect<MemoryProduct | undefined>
  }
>()("@tawsil/orders/OrderStore/MemoryCatalogue") {}

interface StoredOrder extends OrderRecord {
  readonly store_id: number
}

interface StoredCustomer extends CustomerRecord {
  readonly store_id: number
}

const pageOf = <A extends { readonly id: number }>(rows: Iterable<A>, page: PageRequest): ReadonlyArray<A> =>
  [...rows]
    .filter((row) => page.afterId === undefined || row.id < page.afterId)
    .sort((a, b) => b.id - a.id)
    .slice(0, page.limit)

const byId = <A extends { readonly store_id: number }>(rows: Map<number, A>, storeId: number, id: number) => {
  const row = rows.get(id)
  return row !== undefined && row.store_id === storeId ? row : undefined
}

const withoutStore = <A extends { readonly store_id: number }>({ store_id: _, ...rest }: A) => rest

/** An order as a list shows it: its shipment summed up. */
const summaryOf = (order: StoredOrder): OrderSummaryRecord => {
  const { store_id: _, shipment, ...rest } = order
  return {
    ...rest,
    shipment:
      shipment === null
        ? null
        : { courier: shipment.courier, tracking_number: shipment.tracking_number, status: shipment.status }
  }
}

const eventRecord = (event: OrderShipment.ShipmentEvent): OrderShipment.EventRecord => ({
  kind: event.kind,
  status: event.status,
  raw_status: event.rawStatus,
  reason: event.reason ?? null,
  occurred_at: event.occurredAt,
  source: event.source,
  amount: event.payment?.amount ?? null,
  fee: event.payment?.fee ?? null,
  statement: event.payment?.statement ?? null
})

/** Events of one report and one time: movement before cash, then by raw status. */
const byKindAndRaw = (a: OrderShipment.EventRecord, b: OrderShipment.EventRecord) =>
  a.kind === b.kind
    ? a.raw_status < b.raw_status
      ? -1
      : a.raw_status > b.raw_status
        ? 1
        : 0
    : a.kind === "movement"
      ? -1
      : 1

/** Marks fibers inside a memory transaction, so a nested one does not wait on itself. */
const InTransaction = Context.Reference<boolean>("@tawsil/orders/OrderStore/InTransaction", {
  defaultValue: () => false
})

/** A store in `Map`s on `Clock` time, seeded with catalogue products. One transaction runs at a time. */
export const layerMemory = (
  seed: { readonly products?: ReadonlyArray<MemoryProduct> } = {}
): Layer.Layer<OrderStore | MemoryCatalogue> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const products = new Map((seed.products ?? []).map((p) => [p.id, p]))
      const customers = new Map<number, StoredCustomer>()
      const orders = new Map<number, StoredOrder>()
      const numbers = new Set<string>()
      /** Each shipment's deduplication keys, by order id. */
      const eventKeys = new Map<number, Set<string>>()
      let lastCustomer = 0
      let lastOrder = 0
      let lastItem = 0
      const lock = yield* Semaphore.make(1)
      const now = Effect.map(Clock.currentTimeMillis, DateTime.makeUnsafe)

      const moveStock = (order: StoredOrder, stock: StockMove) => {
        if (stock === "none") return
        const sign = stock === "commit" ? -1 : 1
        const adjust = (count: number | null, by: number) => (count === null ? null : Math.max(0, count + sign * by))
        for (const item of order.items) {
          const product = products.get(item.product_id)
          if (product === undefined || product.store_id !== order.store_id) continue
          products.set(product.id, {
            ...product,
            stock: adjust(product.stock, item.quantity),
            sales_count: Math.max(0, product.sales_count - sign * item.quantity),
            groups: product.groups.map((group) => ({
              ...group,
              options: group.options.map((option) =>
                item.variants.some((v) => v.group_name === group.name && v.option_name === option.value)
                  ? { ...option, stock: adjust(option.stock, item.quantity) }
                  : option
              )
            }))
          })
        }
      }

      const store = OrderStore.of({
        transaction: (effect) =>
          Effect.flatMap(InTransaction, (inside) =>
            inside ? effect : lock.withPermits(1)(Effect.provideService(effect, InTransaction, true))
          ),
        prepareCreate: Effect.fnUntraced(function* (storeId, productIds, options) {
          yield* Idempotency.claimPending
          const at = yield* now
          const found = new Map<number, OrderCreate.Product>()
          for (const id of productIds) {
            const product = products.get(id)
            if (product === undefined || product.store_id !== storeId || product.deleted) continue
            found.set(id, {
              id: product.id as Ids.ProductId,
              digital: product.digital,
              price: product.price,
              options: product.groups.flatMap((group) =>
                group.options.map((option) => ({
                  group_name: group.name,
                  option_name: option.value,
                  price_adjustment: option.price_adjustment
                }))
              )
            })
          }
          let ordersThisMonth = 0
          if (options.countThisMonth) {
            const month = AlgiersTime.month(at)
            for (const order of orders.values()) {
              if (order.store_id === storeId && AlgiersTime.month(order.created_at) === month) ordersThisMonth++
            }
          }
          return { now: at, products: found, ordersThisMonth }
        }),
        insertOrder: Effect.fnUntraced(function* (storeId, order) {
          if (numbers.has(order.order_number)) return undefined
          const at = yield* now
          const phone = CustomerMatch.phoneKey(order.customer.phone)
          const existing = [...customers.values()].find((c) => c.store_id === storeId && c.phone === phone)
          const customer: StoredCustomer =
            existing === undefined
              ? {
                  ...CustomerMatch.created(order.customer),
                  id: ++lastCustomer,
                  store_id: storeId,
                  notes: null,
                  total_orders: 0,
                  total_spent: StoreAmount.zero,
                  is_banned: false,
                  created_at: at,
                  updated_at: at
                }
              : { ...CustomerMatch.matched(existing, order.customer), updated_at: at }
          customers.set(customer.id, customer)
          numbers.add(order.order_number)
          const stored: StoredOrder = {
            id: ++lastOrder,
            store_id: storeId,
            order_number: order.order_number,
            status: "pending",
            stock_committed: false,
            payment_status: "pending",
            payment_method: order.payment_method,
            customer_id: customer.id,
            customer_name: order.customer.name,
            customer_phone: phone,
            customer_email: order.customer.email,
            wilaya_id: order.customer.wilaya_id,
            commune: order.customer.commune,
            address: order.customer.address ?? "",
            delivery_type: order.delivery.type,
            desk_id: order.delivery.desk_id,
            desk_name: order.delivery.desk_name,
            subtotal: order.subtotal,
            shipping_cost: order.shipping_cost,
            discount: order.discount,
            payment_fee: order.payment_fee,
            total: order.total,
            created_at: at,
            updated_at: at,
            items: order.items.map((item) => ({ ...item, id: ++lastItem })),
            shipment: null
          }
          orders.set(stored.id, stored)
          return withoutStore(stored)
        }),
        findOrder: (storeId, id) =>
          Effect.sync(() => {
            const order = byId(orders, storeId, id)
            return order === undefined ? undefined : withoutStore(order)
          }),
        moveOrder: Effect.fnUntraced(function* (storeId, id, move) {
          const order = byId(orders, storeId, id)
          if (order === undefined || order.status !== move.from) return undefined
          const at = yield* now
          moveStock(order, move.stock)
          const committed = move.stock === "commit" ? true : move.stock === "restore" ? false : order.stock_committed
          orders.set(id, { ...order, status: move.to, stock_committed: committed, updated_at: at })
          return at
        }),
        productNames: (storeId, ids) =>
          Effect.sync(() => {
            const names = new Map<number, string>()
            for (const id of ids) {
              const product = products.get(id)
              if (product !== undefined && product.store_id === storeId) names.set(id, product.name ?? `Product ${id}`)
            }
            return names
          }),
        insertShipment: Effect.fnUntraced(function* (storeId, orderId, shipment, first) {
          const order = byId(orders, storeId, orderId)
          if (order === undefined || order.shipment !== null) return false
          const at = yield* now
          eventKeys.set(orderId, new Set([OrderShipment.dedupeKey(first), OrderShipment.sameAs(first)]))
          orders.set(orderId, {
            ...order,
            shipment: {
              account_id: shipment.accountId,
              courier: shipment.courier,
              tracking_number: shipment.trackingNumber,
              courier_reference: shipment.courierReference ?? null,
              status: shipment.status,
              raw_status: shipment.rawStatus,
              reason: null,
              status_at: shipment.at,
              cod_status: null,
              cod_at: null,
              dispatched: shipment.dispatched,
              created_at: at,
              updated_at: at,
              timeline: [eventRecord(first)]
            }
          })
          return true
        }),
        lockShipment: (storeId, orderId) =>
          Effect.sync(() => {
            const order = byId(orders, storeId, orderId)
            if (order?.shipment == null) return undefined
            const { timeline: _, ...shipment } = order.shipment
            return { ...shipment, orderStatus: order.status }
          }),
        recordEvents: (storeId, orderId, events) =>
          Effect.sync(() => {
            const order = byId(orders, storeId, orderId)
            if (order?.shipment == null) return []
            const keys = eventKeys.get(orderId) ?? new Set<string>()
            eventKeys.set(orderId, keys)
            const fresh = events.filter((event) => {
              const key = OrderShipment.dedupeKey(event)
              const same = OrderShipment.sameAs(event)
              if (keys.has(key) || keys.has(same)) return false
              keys.add(key).add(same)
              return true
            })
            // Oldest first; of one time, as they came, and within one report movement before cash (as SQL orders them).
            const timeline = [...order.shipment.timeline, ...fresh.map(eventRecord).sort(byKindAndRaw)].sort(
              (a, b) => DateTime.toEpochMillis(a.occurred_at) - DateTime.toEpochMillis(b.occurred_at)
            )
            orders.set(orderId, { ...order, shipment: { ...order.shipment, timeline } })
            return fresh
          }),
        updateShipment: Effect.fnUntraced(function* (storeId, orderId, state) {
          const at = yield* now
          const order = byId(orders, storeId, orderId)
          if (order?.shipment == null) return at
          const { dispatched, ...moved } = state
          orders.set(orderId, {
            ...order,
            shipment: {
              ...order.shipment,
              ...moved,
              dispatched: dispatched ?? order.shipment.dispatched,
              updated_at: at
            }
          })
          return at
        }),
        findByParcel: (accountId, parcel) =>
          Effect.sync(() => {
            const candidates = [...orders.values()].filter((order) => order.shipment?.account_id === accountId)
            const found =
              (parcel.trackingNumber !== undefined &&
                candidates.find((order) => order.shipment!.tracking_number === parcel.trackingNumber)) ||
              (parcel.courierReference !== undefined &&
                candidates.find((order) => order.shipment!.courier_reference === parcel.courierReference)) ||
              (parcel.reference !== undefined && candidates.find((order) => order.order_number === parcel.reference)) ||
              undefined
            return found === undefined ? undefined : { storeId: found.store_id as Ids.StoreId, orderId: found.id }
          }),
        listOrders: (storeId, filter, page) =>
          Effect.sync(() =>
            pageOf(
              [...orders.values()].filter(
                (order) =>
                  order.store_id === storeId &&
                  (filter.status === undefined || order.status === filter.status) &&
                  (filter.since === undefined || DateTime.isGreaterThanOrEqualTo(order.created_at, filter.since)) &&
                  (filter.customerPhone === undefined || order.customer_phone === filter.customerPhone) &&
                  (filter.customerId === undefined || order.customer_id === filter.customerId) &&
                  (filter.courier === undefined || order.shipment?.courier === filter.courier) &&
                  (filter.shipmentStatus === undefined || order.shipment?.status === filter.shipmentStatus)
              ),
              page
            ).map(summaryOf)
          ),
        findCustomer: (storeId, id) =>
          Effect.sync(() => {
            const customer = byId(customers, storeId, id)
            return customer === undefined ? undefined : withoutStore(customer)
          }),
        listCustomers: (storeId, filter, page) =>
          Effect.sync(() => {
            const phone = filter.phone?.toLowerCase()
            const email = filter.email?.toLowerCase()
            return pageOf(
              [...customers.values()].filter(
                (customer) =>
                  customer.store_id === storeId &&
                  (phone === undefined || customer.phone.toLowerCase() === phone) &&
                  (email === undefined || customer.email?.toLowerCase() === email)
              ),
              page
            ).map(withoutStore)
          }),
        setBanned: (storeId, phone, banned) =>
          Effect.sync(() => {
            const found = [...customers.values()].find((c) => c.store_id === storeId && c.phone === phone)
            if (found === undefined) return undefined
            customers.set(found.id, { ...found, is_banned: banned })
            return found.id
          })
      })

      const catalogue = MemoryCatalogue.of({
        put: (product) => Effect.sync(() => void products.set(product.id, product)),
        get: (id) => Effect.sync(() => products.get(id))
      })

      return Context.make(OrderStore, store).pipe(Context.add(MemoryCatalogue, catalogue))
    })
  )
