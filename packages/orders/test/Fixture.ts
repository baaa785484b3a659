/**
 * What the orders suite needs around the `Orders` service: stores and catalogue products to order, the stock to
 * read back, and a way to make a store's orders older. For memory it drives `OrderStore.layerMemory`'s catalogue
 * and `TestClock`; for SQL it writes the catalogue's tables directly, as the catalogue package would.
 */

import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { BigDecimal, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { type OrderEvent, OrderEvents } from "../src/OrderEvents.ts"
import * as OrderStore from "../src/OrderStore.ts"
import * as OrderStoreSql from "../src/OrderStoreSql.ts"
import * as Orders from "../src/Orders.ts"

export interface ProductSpec {
  /** What a parcel's product list shows; `Product` when absent. */
  readonly name?: string
  readonly price: string
  readonly digital?: boolean
  readonly stock?: number | null
  readonly groups?: ReadonlyArray<{
    readonly name: string
    readonly options: ReadonlyArray<{
      readonly value: string
      readonly price_adjustment?: string
      readonly stock?: number | null
    }>
  }>
}

export interface Stock {
  readonly stock: number | null
  readonly sales_count: number
  /** By `group/value`. */
  readonly options: { readonly [option: string]: number | null }
}

export class Fixture extends Context.Service<
  Fixture,
  {
    /** A new store on `plan` (default `enterprise`). */
    readonly store: (plan?: string) => Effect.Effect<Orders.Store>
    readonly product: (store: Ids.StoreId, spec: ProductSpec) => Effect.Effect<number>
    readonly deleteProduct: (id: number) => Effect.Effect<void>
    readonly stock: (id: number) => Effect.Effect<Stock>
    /** Makes the store's existing orders `days` older (memory: every order, by moving the clock). */
    readonly ageOrders: (store: Ids.StoreId, days: number) => Effect.Effect<void>
    /** Orders of the store made elsewhere (storefront, landing pages), which the monthly cap counts too. */
    readonly otherSourceOrders: (store: Ids.StoreId, count: number) => Effect.Effect<void>
  }
>()("test/orders/Fixture") {}

let nextStore = 0

const memoryFixture = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const catalogue = yield* OrderStore.MemoryCatalogue
    const store = yield* OrderStore.OrderStore
    let nextProduct = 0
    return Fixture.of({
      store: (plan = "enterprise") => Effect.sync(() => ({ id: Ids.StoreId.make(++nextStore), plan })),
      product: (storeId, spec) =>
        Effect.gen(function* () {
          const id = ++nextProduct
          yield* catalogue.put({
            id,
            name: spec.name ?? "Product",
            store_id: storeId,
            price: BigDecimal.fromStringUnsafe(spec.price),
            digital: spec.digital ?? false,
            stock: spec.stock ?? null,
            sales_count: 0,
            deleted: false,
            groups: (spec.groups ?? []).map((group) => ({
              name: group.name,
              options: group.options.map((option) => ({
                value: option.value,
                price_adjustment: BigDecimal.fromStringUnsafe(option.price_adjustment ?? "0"),
                stock: option.stock ?? null
              }))
            }))
          })
          return id
        }),
      deleteProduct: (id) =>
        Effect.gen(function* () {
          const product = yield* catalogue.get(id)
          if (product !== undefined) yield* catalogue.put({ ...product, deleted: true })
        }),
      stock: (id) =>
        Effect.gen(function* () {
          const product = (yield* catalogue.get(id))!
          const options: Record<string, number | null> = {}
          for (const group of product.groups) {
            for (const option of group.options) options[`${group.name}/${option.value}`] = option.stock
          }
          return { stock: product.stock, sales_count: product.sales_count, options }
        }),
      ageOrders: (_store, days) => TestClock.adjust(`${days} days`),
      otherSourceOrders: (storeId, count) =>
        Effect.gen(function* () {
          for (let i = 0; i < count; i++) {
            yield* store.insertOrder(storeId, {
              order_number: `LP-${(0x10000000 + storeId * 1000 + i).toString(16).toUpperCase()}`,
              payment_method: "cod",
              customer: {
                name: "Storefront",
                phone: "0550000000",
                email: null,
                wilaya_id: 16,
                commune: "Alger",
                address: ""
              },
              delivery: { type: "home", desk_id: null, desk_name: null },
              subtotal: BigDecimal.fromStringUnsafe("0"),
              shipping_cost: BigDecimal.fromStringUnsafe("0"),
              discount: BigDecimal.fromStringUnsafe("0"),
              payment_fee: BigDecimal.fromStringUnsafe("0"),
              total: BigDecimal.fromStringUnsafe("0"),
              notes: null,
              items: []
            })
          }
        })
    })
  })
)

/**
 * The service over the memory store, with the fixture; `rules` (over the same store) is given to the service and
 * kept in the answer (the risk rules and their store: `RiskSuite`).
 */
export const memory = <R = never>(
  rules: Layer.Layer<R, never, OrderStore.OrderStore> = Layer.empty as Layer.Layer<R>
): Layer.Layer<Orders.Orders | Fixture | OrderStore.OrderStore | OrderStore.MemoryCatalogue | R> =>
  Layer.mergeAll(Orders.layer.pipe(Layer.provide(rules)), memoryFixture, rules).pipe(
    Layer.provideMerge(OrderStore.layerMemory())
  )

const sqlFixture = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.orDie(effect)
    return Fixture.of({
      store: (plan = "enterprise") =>
        TestDatabase.newStore({ plan }).pipe(
          Effect.map((id) => ({ id: Ids.StoreId.make(id), plan })),
          Effect.provideService(SqlClient.SqlClient, sql)
        ),
      product: (storeId, spec) =>
        run(
          Effect.gen(function* () {
            const [row] = yield* sql<{ readonly id: number }>`
              INSERT INTO products (store_id, name, price, digital, stock)
              VALUES (${storeId}, ${spec.name ?? "Product"}, ${spec.price}::numeric, ${spec.digital ?? false}, ${spec.stock ?? null}::int)
              RETURNING id`
            const productId = row!.id
            for (const [position, group] of (spec.groups ?? []).entries()) {
              const [groupRow] = yield* sql<{ readonly id: number }>`
                INSERT INTO variant_groups (product_id, name, type, position)
                VALUES (${productId}, ${group.name}, 'text', ${position}) RETURNING id`
              for (const [optionPosition, option] of group.options.entries()) {
                yield* sql`
                  INSERT INTO variant_options (group_id, value, price_adjustment, stock, position)
                  VALUES (${groupRow!.id}, ${option.value}, ${option.price_adjustment ?? "0"}::numeric,
                    ${option.stock ?? null}::int, ${optionPosition})`
              }
            }
            return productId
          })
        ),
      deleteProduct: (id) => run(sql`UPDATE products SET deleted_at = now() WHERE id = ${id}`.pipe(Effect.asVoid)),
      stock: (id) =>
        run(
          Effect.gen(function* () {
            const [product] = yield* sql<{ readonly stock: number | null; readonly sales_count: number }>`
              SELECT stock, sales_count FROM products WHERE id = ${id}`
            const rows = yield* sql<{ readonly name: string; readonly value: string; readonly stock: number | null }>`
              SELECT g.name, o.value, o.stock FROM variant_groups g JOIN variant_options o ON o.group_id = g.id
              WHERE g.product_id = ${id}`
            const options: Record<string, number | null> = {}
            for (const row of rows) options[`${row.name}/${row.value}`] = row.stock
            return { stock: product!.stock, sales_count: product!.sales_count, options }
          })
        ),
      ageOrders: (storeId, days) =>
        run(
          sql`
            UPDATE orders SET created_at = created_at - make_interval(days => ${days}),
              updated_at = updated_at - make_interval(days => ${days})
            WHERE store_id = ${storeId}`.pipe(Effect.asVoid)
        ),
      otherSourceOrders: (storeId, count) =>
        run(
          sql`
            WITH customer AS (
              INSERT INTO customers (store_id, first_name, phone, wilaya_id, commune)
              VALUES (${storeId}, 'Storefront', ${`storefront-${storeId}`}, 16, 'Alger')
              ON CONFLICT (store_id, phone) DO UPDATE SET updated_at = now()
              RETURNING id
            )
            INSERT INTO orders (store_id, order_number, source, status, payment_method, customer_id, customer_name,
              customer_phone, wilaya_id, commune, delivery_type, subtotal, shipping_cost, discount, payment_fee, total)
            SELECT ${storeId}, 'LP-' || upper(substr(md5(random()::text), 1, 8)), 'landing_page', 'pending', 'cod',
              customer.id, 'Storefront', 'storefront', 16, 'Alger', 'home', 0, 0, 0, 0, 0
            FROM customer, generate_series(1, ${count})`.pipe(Effect.asVoid)
        )
    })
  })
)

/**
 * The service over the SQL store on a fresh migrated database of `backend`, with the fixture; `listener` provides
 * the service's `OrderEvents` (none by default).
 */
export const sql = (
  backend: TestDatabase.Backend,
  listener: Layer.Layer<never, never, SqlClient.SqlClient> = Layer.empty
) => {
  const database = TestDatabase.migrated(backend)
  const store = OrderStoreSql.layer.pipe(Layer.provideMerge(database))
  return Layer.mergeAll(Orders.layer.pipe(Layer.provide(listener)), sqlFixture).pipe(Layer.provideMerge(store))
}

/** What `Orders` told its listener, by order: the suites read (and forget) what one order's calls told. */
export class Heard extends Context.Service<
  Heard,
  {
    /** The events told about order `orderId` since the last call, oldest first; forgets them. */
    readonly take: (orderId: number) => Effect.Effect<ReadonlyArray<OrderEvent>>
  }
>()("test/orders/Heard") {}

/** A listener that keeps what it hears in memory, and `Heard` to read it: provide it around `memory()` or `sql()`. */
export const heard: Layer.Layer<Heard> = Layer.effectContext(
  Effect.sync(() => {
    const events: Array<OrderEvent> = []
    return Context.make(
      Heard,
      Heard.of({
        take: (orderId) =>
          Effect.sync(() => {
            const taken = events.filter((event) => event.order.id === orderId)
            for (const event of taken) events.splice(events.indexOf(event), 1)
            return taken
          })
      })
    ).pipe(Context.add(OrderEvents, { record: (event) => Effect.sync(() => void events.push(event)) }))
  })
)
