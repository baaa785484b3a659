/**
 * The shipments services over each implementation of the ports — memory, and SQL on every database of `TestDatabase`
 * (embedded always, the real server with `DATABASE_URL`), migrated — with `Orders` over the matching order store, the
 * shipping API's gateway over the sandbox and the test couriers a suite names, and secrets under a key ring a test
 * may rotate (`Keys`). `Fixture` makes what the suites need around them: stores, orders, time passing.
 */

import type { CourierAdapter } from "@tawsil/courier"
import type { Ids } from "@tawsil/domain"
import { OrderStore, OrderStoreSql, Orders, type OrderViews } from "@tawsil/orders"
import { KeyRing, Secrets } from "@tawsil/secrets"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { BigDecimal, Clock, Context, DateTime, Duration, Effect, Layer, Ref, Result } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as CodLedger from "../src/CodLedger.ts"
import * as CodLedgerStore from "../src/CodLedgerStore.ts"
import * as CodLedgerStoreSql from "../src/CodLedgerStoreSql.ts"
import * as CourierAccountStore from "../src/CourierAccountStore.ts"
import * as CourierAccountStoreSql from "../src/CourierAccountStoreSql.ts"
import * as CourierAccounts from "../src/CourierAccounts.ts"
import * as PushApplier from "../src/PushApplier.ts"
import * as PushIntake from "../src/PushIntake.ts"
import * as PushSignal from "../src/PushSignal.ts"
import * as Shipments from "../src/Shipments.ts"
import * as TrackingStore from "../src/TrackingStore.ts"
import * as TrackingStoreSql from "../src/TrackingStoreSql.ts"
import * as TestCouriers from "./TestCouriers.ts"

export const backends = TestDatabase.backends

export interface OrderOptions {
  readonly status?: "pending" | "confirmed" | "processing"
  readonly customer?: Record<string, unknown>
  readonly delivery?: Record<string, unknown>
}

export class Fixture extends Context.Service<
  Fixture,
  {
    readonly store: Effect.Effect<Ids.StoreId>
    /** A cash-on-delivery order of two lines of one product, confirmed unless asked otherwise. */
    readonly order: (storeId: Ids.StoreId, options?: OrderOptions) => Effect.Effect<OrderViews.OrderDetail>
    /**
     * Time passes for what the stores keep (due checks, leases) and for the services' clock: memory moves the
     * `TestClock`; SQL moves the stored times back, as the database's clock cannot be moved, and the services' clock
     * (`shifted`) forward.
     */
    readonly elapse: (duration: Duration.Input) => Effect.Effect<void>
    /**
     * `count` orders shipped through the account at once, each parcel ready for pickup and due for a check in 4 hours
     * (a poller's backlog; SQL writes them in one statement, as a thousand ships would take seconds): their ids and
     * tracking numbers (`<COURIER>-B<order id>`), oldest first. The courier holds none of them: see `desk.hold`.
     */
    readonly backlog: (
      storeId: Ids.StoreId,
      account: { readonly id: number; readonly courier: string },
      count: number
    ) => Effect.Effect<ReadonlyArray<{ readonly orderId: number; readonly trackingNumber: string }>>
    /** Every stored value of the store's courier accounts, as one text (what a dump of them would show). */
    readonly storedAccounts: (storeId: Ids.StoreId) => Effect.Effect<string>
  }
>()("test/shipments/Fixture") {}

/** The key ring the services seal with, which a test may rotate. */
export class Keys extends Context.Service<Keys, Ref.Ref<KeyRing.KeyRing | undefined>>()("test/shipments/Keys") {}

const keys = Layer.effectContext(
  Effect.gen(function* () {
    const ref = yield* Ref.make<KeyRing.KeyRing | undefined>(Result.getOrThrow(KeyRing.make(KeyRing.generate())))
    const secrets = yield* Layer.build(Secrets.layerRef(ref))
    return Context.add(secrets, Keys, ref)
  })
)

const orderBody = (product: number, options: OrderOptions) => ({
  customer: {
    name: "Nadia Hamidi",
    phone: "0661 22 33 44",
    wilaya_id: 16,
    commune: "Hydra",
    address: "12 rue des Frères",
    ...options.customer
  },
  items: [{ product_id: product, quantity: 2 }],
  shipping_cost: 400,
  ...(options.delivery === undefined ? {} : { delivery: options.delivery })
})

const placeOrder = (storeId: Ids.StoreId, product: number, options: OrderOptions = {}) =>
  Effect.gen(function* () {
    const orders = yield* Orders.Orders
    const order = yield* orders.create({ id: storeId, plan: "enterprise" }, orderBody(product, options))
    const status = options.status ?? "confirmed"
    return status === "pending" ? order : yield* orders.setStatus(storeId, order.id, { status })
  }).pipe(Effect.orDie)

const fixtureMemory = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const catalogue = yield* OrderStore.MemoryCatalogue
    const accounts = yield* CourierAccountStore.CourierAccountStore
    const tracking = yield* TrackingStore.TrackingStore
    const orders = yield* Orders.Orders
    let stores = 0
    let products = 0
    return Fixture.of({
      store: Effect.sync(() => (1000 + ++stores) as Ids.StoreId),
      order: (storeId, options) =>
        Effect.gen(function* () {
          const id = ++products
          yield* catalogue.put({
            id,
            name: "Robe kabyle",
            store_id: storeId,
            price: BigDecimal.fromStringUnsafe("2500.5"),
            digital: options?.delivery?.type === "digital",
            stock: 10,
            sales_count: 0,
            deleted: false,
            groups: []
          })
          return yield* placeOrder(storeId, id, options).pipe(Effect.provideService(Orders.Orders, orders))
        }),
      elapse: (duration) => TestClock.adjust(duration),
      backlog: (storeId, account, count) =>
        Effect.gen(function* () {
          const at = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
          const parcels: Array<{ readonly orderId: number; readonly trackingNumber: string }> = []
          for (let index = 0; index < count; index++) {
            const id = ++products
            yield* catalogue.put({
              id,
              store_id: storeId,
              price: BigDecimal.fromStringUnsafe("100"),
              digital: false,
              stock: null,
              sales_count: 0,
              deleted: false,
              groups: []
            })
            const order = yield* placeOrder(storeId, id).pipe(Effect.provideService(Orders.Orders, orders))
            const trackingNumber = `${account.courier.toUpperCase()}-B${order.id}`
            yield* orders
              .attachShipment(storeId, order.id, {
                accountId: account.id,
                courier: account.courier,
                trackingNumber,
                status: "pending_pickup",
                rawStatus: "READY",
                dispatched: true,
                at
              })
              .pipe(Effect.orDie)
            yield* tracking.schedule(
              { orderId: order.id, storeId, accountId: account.id, trackingNumber, status: "pending_pickup" },
              Duration.hours(4)
            )
            parcels.push({ orderId: order.id, trackingNumber })
          }
          return parcels
        }),
      storedAccounts: (storeId) => Effect.map(accounts.list(storeId), (rows) => JSON.stringify(rows))
    })
  })
)

/**
 * The SQL suites' clock: the real one (their database and its pool run in real time), ahead by what `elapse` moved
 * (`shift`), for what the services count in time themselves (the poller's budget).
 */
const shiftedClock = (shift: { millis: number }) => {
  const real = Clock.Clock.defaultValue()
  const millis = () => real.currentTimeMillisUnsafe() + shift.millis
  const nanos = () => real.currentTimeNanosUnsafe() + BigInt(shift.millis) * 1_000_000n
  return Layer.succeed(Clock.Clock)({
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: real.monotonicTimeNanos,
    sleep: (duration) => real.sleep(duration)
  })
}

const fixtureSql = (shift: { millis: number }) =>
  Layer.effect(
    Fixture,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const orders = yield* Orders.Orders
      return Fixture.of({
        store: Effect.map(TestDatabase.newStore(), (id) => id as Ids.StoreId).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        ),
        order: (storeId, options) =>
          Effect.gen(function* () {
            const [row] = yield* sql<{ readonly id: number }>`
            INSERT INTO products (store_id, name, price, digital, stock)
            VALUES (${storeId}, 'Robe kabyle', 2500.5, ${options?.delivery?.type === "digital"}, 10) RETURNING id`
            return yield* placeOrder(storeId, row!.id, options).pipe(Effect.provideService(Orders.Orders, orders))
          }).pipe(Effect.orDie),
        elapse: (duration) => {
          const millis = Math.round(Duration.toMillis(Duration.fromInputUnsafe(duration)))
          shift.millis += millis
          const seconds = millis / 1000
          return Effect.all([
            sql`
            UPDATE shipment_checks SET due_at = due_at - make_interval(secs => ${seconds}),
              lease_until = lease_until - make_interval(secs => ${seconds})`,
            sql`
            UPDATE courier_push_events SET received_at = received_at - make_interval(secs => ${seconds}),
              tried_at = tried_at - make_interval(secs => ${seconds}),
              next_try_at = next_try_at - make_interval(secs => ${seconds})
            WHERE applied_at IS NULL`
          ]).pipe(Effect.orDie, Effect.asVoid)
        },
        backlog: (storeId, account, count) =>
          sql<{ readonly order_id: number; readonly tracking_number: string }>`
          WITH customer AS (
            INSERT INTO customers (store_id, first_name, phone, wilaya_id, commune)
            VALUES (${storeId}, 'Backlog', ${`backlog-${storeId}`}, 16, 'Hydra')
            ON CONFLICT (store_id, phone) DO UPDATE SET updated_at = now()
            RETURNING id
          ), placed AS (
            INSERT INTO orders (store_id, order_number, source, status, payment_method, customer_id, customer_name,
              customer_phone, wilaya_id, commune, delivery_type, subtotal, shipping_cost, discount, payment_fee, total)
            SELECT ${storeId}, 'BL-' || ${storeId} || '-' || g, 'api', 'shipped', 'cod', customer.id, 'Backlog',
              ${`backlog-${storeId}`}, 16, 'Hydra', 'home', 100, 0, 0, 0, 100
            FROM customer, generate_series(1, ${count}) g
            RETURNING id
          ), shipped AS (
            INSERT INTO order_shipments (order_id, store_id, account_id, courier, tracking_number, status, raw_status,
              status_at, dispatched)
            SELECT id, ${storeId}, ${account.id}, ${account.courier}, ${account.courier.toUpperCase()} || '-B' || id,
              'pending_pickup', 'READY', now(), true
            FROM placed
            RETURNING order_id, tracking_number
          ), checks AS (
            INSERT INTO shipment_checks (order_id, store_id, account_id, tracking_number, status, due_at)
            SELECT order_id, ${storeId}, ${account.id}, tracking_number, 'pending_pickup', now() + interval '4 hours'
            FROM shipped
          )
          SELECT order_id, tracking_number FROM shipped ORDER BY order_id`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.map((row) => ({ orderId: row.order_id, trackingNumber: row.tracking_number })))
          ),
        storedAccounts: (storeId) =>
          sql<{ readonly dump: string | null }>`
          SELECT string_agg(row_to_json(a)::text, '\n' ORDER BY a.id) AS dump
          FROM courier_accounts a WHERE a.store_id = ${storeId}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows[0]?.dump ?? "")
          )
      })
    })
  )

/**
 * The services over `stores`, with the gateway over the sandbox and `couriers`; the push applier without its loop
 * (a suite runs its `drain` where the applier's loop would have woken).
 */
const services = <Stores, E, R>(couriers: ReadonlyArray<CourierAdapter.Any>, stores: Layer.Layer<Stores, E, R>) =>
  Layer.mergeAll(Shipments.layer, PushApplier.layerNoLoop(), CodLedger.layer).pipe(
    Layer.provideMerge(PushIntake.layer),
    Layer.provideMerge(PushSignal.layer),
    Layer.provideMerge(CourierAccounts.layer),
    Layer.provideMerge(Orders.layer),
    Layer.provideMerge(TestCouriers.gateway(couriers)),
    Layer.provideMerge(keys),
    Layer.provideMerge(stores)
  )

/** Everything in memory, on the test clock. */
export const memory = (couriers: ReadonlyArray<CourierAdapter.Any> = []) => {
  const stores = Layer.mergeAll(
    CourierAccountStore.layerMemory,
    TrackingStore.layerMemory,
    CodLedgerStore.layerMemory
  ).pipe(Layer.provideMerge(OrderStore.layerMemory()))
  return Layer.provideMerge(fixtureMemory, services(couriers, stores))
}

/** Everything on a fresh migrated database of `backend`. */
export const sql = (backend: TestDatabase.Backend, couriers: ReadonlyArray<CourierAdapter.Any> = []) => {
  const stores = Layer.mergeAll(
    OrderStoreSql.layer,
    CourierAccountStoreSql.layer,
    TrackingStoreSql.layer,
    CodLedgerStoreSql.layer
  ).pipe(Layer.provideMerge(TestDatabase.migrated(backend)))
  const shift = { millis: 0 }
  return Layer.provideMerge(fixtureSql(shift), services(couriers, stores)).pipe(Layer.provideMerge(shiftedClock(shift)))
}
