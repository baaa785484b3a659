/**
 * Cross-store isolation on each database (embedded always, the real server with DATABASE_URL). Two stores, each with
 * products, orders, customers, landing pages and keys, take a seeded random schedule of operations, each issued with
 * one store's key against an id of either store: reads, PATCHes, deletes, cancels and publishes of orders, products,
 * landing pages and customers, key revocations, order creates whose lines name either store's products, pages linked
 * to either store's product, and every list.
 *
 * A leak is any of: an operation on the other store's id that does not answer 404 (or, for an order line or a page's
 * product, the spec's 400 naming it); a list showing the other store's ids; a row of the store that did not call
 * changed by the call (SQL snapshots of both stores after every operation); a row of one store referring to the
 * other's (an order line's product, a page's product, an order's customer). There must be none.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect, Layer, References } from "effect"
import fc from "fast-check"
import { type Answer, backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const SEED = 20_261_205
const opsOn = (backend: string) => (backend === "embedded" ? 400 : 200)

const statuses = ["pending", "confirmed", "processing", "shipped", "delivered", "cancelled", "returned"] as const

const kinds = [
  "getOrder",
  "patchOrder",
  "patchOrder",
  "cancelOrder",
  "getProduct",
  "patchProduct",
  "deleteProduct",
  "createProduct",
  "getPage",
  "patchPage",
  "publishPage",
  "deletePage",
  "getCustomer",
  "customerOrders",
  "revokeKey",
  "createOrder",
  "createOrder",
  "createPage",
  "linkPage",
  "list",
  "list"
] as const
type Kind = (typeof kinds)[number]

const lists = [
  "/v1/orders?limit=200",
  "/v1/products?limit=200",
  "/v1/customers?limit=200",
  "/v1/landing-pages?limit=200",
  "/v1/keys"
] as const

interface Operation {
  readonly caller: 0 | 1
  readonly target: 0 | 1
  readonly kind: Kind
  readonly pick: number
  readonly status: (typeof statuses)[number]
  /** An order's lines: which store's product, and which of its products. */
  readonly lines: ReadonlyArray<readonly [0 | 1, number]>
  readonly list: (typeof lists)[number]
  readonly phone: number
}

const side = fc.constantFrom<0 | 1>(0, 1)
const operation: fc.Arbitrary<Operation> = fc.record({
  caller: side,
  target: side,
  kind: fc.constantFrom(...kinds),
  pick: fc.nat(),
  status: fc.constantFrom(...statuses),
  lines: fc.array(fc.tuple(side, fc.nat()), { minLength: 1, maxLength: 3 }),
  list: fc.constantFrom(...lists),
  phone: fc.nat(2)
})

/** What the test knows of one store: its ids, which are gone, and its key. */
interface Store {
  readonly name: "A" | "B"
  readonly id: number
  readonly token: string
  readonly keyId: string
  readonly products: Array<number>
  readonly deletedProducts: Set<number>
  readonly orders: Array<number>
  readonly customers: Array<number>
  readonly pages: Array<number>
  readonly deletedPages: Set<number>
  readonly extraKeys: Array<string>
  readonly revokedKeys: Set<string>
}

const productBody = (name: string) => ({
  name,
  price: 2500,
  stock: 40,
  variant_groups: [{ name: "Taille", type: "text", options: [{ value: "M", price_adjustment: 100, stock: 5 }] }]
})

/** The same phone in both stores makes two customers, one per store; the others are the store's own. */
const phoneOf = (store: Store, phone: number) =>
  phone === 0 ? "0555 12 34 56" : `0661 ${String(store.id).padStart(2, "0")} ${phone} 000`

const orderBody = (store: Store, phone: number, productIds: ReadonlyArray<number>) => ({
  customer: { name: `Client ${store.name}${phone}`, phone: phoneOf(store, phone), wilaya_id: 16, commune: "Hydra" },
  items: productIds.map((product_id) => ({ product_id, quantity: 1 }))
})

const at = <A>(items: ReadonlyArray<A>, pick: number): A | undefined =>
  items.length === 0 ? undefined : items[pick % items.length]

const liveProducts = (store: Store) => store.products.filter((id) => !store.deletedProducts.has(id))
const livePages = (store: Store) => store.pages.filter((id) => !store.deletedPages.has(id))

/** Every id the store ever had, by kind: what the other store must never see. */
const idsOf = (store: Store) => ({
  "/v1/orders?limit=200": new Set<unknown>(store.orders),
  "/v1/products?limit=200": new Set<unknown>(store.products),
  "/v1/customers?limit=200": new Set<unknown>(store.customers),
  "/v1/landing-pages?limit=200": new Set<unknown>(store.pages),
  "/v1/keys": new Set<unknown>([store.keyId, ...store.extraKeys])
})

/** A store's rows as text, keyed by table and id: what a call by the other store must leave alone. */
const snapshot = (storeId: number) =>
  Effect.gen(function* () {
    const db = yield* sql
    const rows = yield* db<{ k: string; v: string }>`
      SELECT 'store' AS k, concat_ws('|', name, slug, plan, pilot, language, updated_at) AS v
        FROM stores WHERE id = ${storeId}
      UNION ALL SELECT 'product:' || id,
          concat_ws('|', name, price, stock, sales_count, status, digital, deleted_at, updated_at)
        FROM products WHERE store_id = ${storeId}
      UNION ALL SELECT 'group:' || g.id, concat_ws('|', g.name, g.type, g.position)
        FROM variant_groups g JOIN products p ON p.id = g.product_id WHERE p.store_id = ${storeId}
      UNION ALL SELECT 'option:' || o.id, concat_ws('|', o.value, o.stock, o.price_adjustment)
        FROM variant_options o JOIN variant_groups g ON g.id = o.group_id JOIN products p ON p.id = g.product_id
        WHERE p.store_id = ${storeId}
      UNION ALL SELECT 'customer:' || id,
          concat_ws('|', first_name, last_name, phone, email, wilaya_id, commune, address, total_orders, total_spent,
            is_banned, updated_at)
        FROM customers WHERE store_id = ${storeId}
      UNION ALL SELECT 'order:' || id,
          concat_ws('|', status, stock_committed, payment_status, customer_id, total, updated_at)
        FROM orders WHERE store_id = ${storeId}
      UNION ALL SELECT 'item:' || i.id, concat_ws('|', i.order_id, i.product_id, i.price, i.quantity)
        FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.store_id = ${storeId}
      UNION ALL SELECT 'page:' || id,
          concat_ws('|', title, slug, status, language, product_id, meta_title, meta_description, updated_at)
        FROM landing_pages WHERE store_id = ${storeId}
      UNION ALL SELECT 'key:' || key_id, concat_ws('|', status, name, scopes, pilot, revoked_at)
        FROM api_keys WHERE store_id = ${storeId}
      UNION ALL SELECT 'usage:' || period_hour || ':' || endpoint_group, concat_ws('|', count, billable_count)
        FROM usage_hourly WHERE store_id = ${storeId}
      UNION ALL SELECT 'window:' || window_start, concat_ws('|', count)
        FROM rate_windows WHERE store_id = ${storeId}
      UNION ALL SELECT 'quota', concat_ws('|', requests_per_minute, requests_per_month, updated_at)
        FROM quota_overrides WHERE store_id = ${storeId}`
    return new Map(rows.map((row) => [row.k, row.v]))
  })

/** The rows that differ between two snapshots. */
const changes = (before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>) => {
  const changed: Array<string> = []
  for (const [key, value] of after) {
    if (!before.has(key)) changed.push(`${key} appeared (${value})`)
    else if (before.get(key) !== value) changed.push(`${key}: ${before.get(key)} -> ${value}`)
  }
  for (const key of before.keys()) if (!after.has(key)) changed.push(`${key} disappeared`)
  return changed
}

let keys = 0
const freshKey = () => `iso-${Date.now().toString(36)}-${++keys}`

for (const backend of backends) {
  const ops = opsOn(backend.name)
  // The access log of every request would cost more than the requests; failures are still logged.
  const server = storeServer(backend).pipe(Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error")))
  layer(server, { timeout: "120 seconds", excludeTestServices: true })(`store isolation (${backend.name})`, (it) => {
    it.effect(
      `${ops} random operations across two stores find 0 reads or writes of the other store's data`,
      () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const admin = yield* Admin.Admin

          const send = (store: Store, method: string, path: string, body?: unknown) =>
            call(base, method, path, {
              token: store.token,
              key: method === "GET" ? undefined : freshKey(),
              body
            })
          const ok = (answer: Answer, what: string) => {
            assert.strictEqual(answer.status, 200, `${what}: ${answer.text}`)
            return answer.body.data
          }

          // Two stores, each with products, orders (and so customers), landing pages and three keys.
          const stores: Array<Store> = []
          for (const name of ["A", "B"] as const) {
            const created = yield* createStore({ name: `Boutique ${name} ${Date.now().toString(36)}` })
            yield* admin.setQuota(created.id, { requestsPerMinute: -1 }).pipe(Effect.orDie)
            const store: Store = {
              name,
              id: created.id,
              token: created.token,
              keyId: created.token.split(".")[0]!,
              products: [],
              deletedProducts: new Set(),
              orders: [],
              customers: [],
              pages: [],
              deletedPages: new Set(),
              extraKeys: [],
              revokedKeys: new Set()
            }
            for (let i = 0; i < 3; i++) {
              store.products.push(
                ok(yield* send(store, "POST", "/v1/products", productBody(`${name}${i}`)), "product").id
              )
            }
            for (let i = 0; i < 3; i++) {
              const order = ok(
                yield* send(store, "POST", "/v1/orders", orderBody(store, i, [store.products[i]!])),
                "order"
              )
              store.orders.push(order.id)
              if (!store.customers.includes(order.customer.id)) store.customers.push(order.customer.id)
            }
            for (let i = 0; i < 2; i++) {
              const body = { title: `Page ${name}${i}`, product_id: store.products[i] }
              store.pages.push(ok(yield* send(store, "POST", "/v1/landing-pages", body), "page").id)
            }
            for (let i = 0; i < 2; i++) {
              store.extraKeys.push(ok(yield* send(store, "POST", "/v1/keys", { name: `erp ${i}` }), "key").key_id)
            }
            stores.push(store)
          }

          const leaks: Array<string> = []
          const unexpected: Array<string> = []
          let crossOperations = 0
          let listChecks = 0
          const counts = new Map<string, number>()
          const db = yield* sql
          const last = [yield* snapshot(stores[0]!.id), yield* snapshot(stores[1]!.id)]

          for (const [index, op] of fc.sample(operation, { numRuns: ops, seed: SEED }).entries()) {
            const caller = stores[op.caller]!
            const target = stores[op.target]!
            const cross = op.caller !== op.target
            const label = `#${index} ${op.kind} by ${caller.name} on ${target.name}`
            /** An answer the other store's id must get: 404 `not_found`. */
            const foreign = (answer: Answer, what: string) => {
              if (answer.status !== 404 || answer.body?.error?.code !== "not_found") {
                leaks.push(`${label} ${what}: ${answer.status} ${answer.text.slice(0, 200)}`)
              }
            }
            /** An answer the caller's own id must get. */
            const own = (answer: Answer, what: string, allowed: ReadonlyArray<number>) => {
              if (!allowed.includes(answer.status)) {
                unexpected.push(`${label} ${what}: ${answer.status}, not ${allowed} ${answer.text.slice(0, 200)}`)
              }
            }
            const check = (answer: Answer, what: string, allowed: ReadonlyArray<number>) =>
              cross ? foreign(answer, what) : own(answer, what, allowed)
            let counted = cross

            switch (op.kind) {
              case "getOrder":
              case "patchOrder":
              case "cancelOrder": {
                const id = at(target.orders, op.pick)!
                const path = `/v1/orders/${id}`
                const answer =
                  op.kind === "getOrder"
                    ? yield* send(caller, "GET", path)
                    : op.kind === "patchOrder"
                      ? yield* send(caller, "PATCH", path, { status: op.status })
                      : yield* send(caller, "POST", `${path}/cancel`)
                check(answer, path, op.kind === "getOrder" ? [200] : [200, 400])
                break
              }
              case "getProduct":
              case "patchProduct":
              case "deleteProduct": {
                const id = at(target.products, op.pick)!
                const live = !target.deletedProducts.has(id)
                const path = `/v1/products/${id}`
                const answer =
                  op.kind === "getProduct"
                    ? yield* send(caller, "GET", path)
                    : op.kind === "patchProduct"
                      ? yield* send(caller, "PATCH", path, { stock: op.pick % 50, name: `Produit ${op.pick}` })
                      : yield* send(caller, "DELETE", path)
                check(answer, path, live ? [200] : [404])
                if (!cross && op.kind === "deleteProduct" && answer.status === 200) target.deletedProducts.add(id)
                break
              }
              case "createProduct": {
                counted = false
                caller.products.push(
                  ok(yield* send(caller, "POST", "/v1/products", productBody(`${caller.name}${index}`)), label).id
                )
                break
              }
              case "getPage":
              case "patchPage":
              case "publishPage":
              case "deletePage": {
                const id = at(target.pages, op.pick)!
                const live = !target.deletedPages.has(id)
                const path = `/v1/landing-pages/${id}`
                const mine = at(liveProducts(caller), op.pick)
                const answer =
                  op.kind === "getPage"
                    ? yield* send(caller, "GET", path)
                    : op.kind === "patchPage"
                      ? yield* send(
                          caller,
                          "PATCH",
                          path,
                          mine === undefined ? { title: `Page ${op.pick}` } : { product_id: mine }
                        )
                      : op.kind === "publishPage"
                        ? yield* send(caller, "POST", `${path}/publish`)
                        : yield* send(caller, "DELETE", path)
                check(answer, path, live ? [200] : [404])
                if (!cross && op.kind === "deletePage" && answer.status === 200) target.deletedPages.add(id)
                break
              }
              case "getCustomer":
              case "customerOrders": {
                const id = at(target.customers, op.pick)!
                const path = op.kind === "getCustomer" ? `/v1/customers/${id}` : `/v1/customers/${id}/orders`
                const answer = yield* send(caller, "GET", path)
                check(answer, path, [200])
                if (!cross && op.kind === "customerOrders" && answer.status === 200) {
                  for (const item of answer.body.data.items as ReadonlyArray<{ id: number }>) {
                    if (!caller.orders.includes(item.id)) leaks.push(`${label} ${path} lists order ${item.id}`)
                  }
                }
                break
              }
              case "revokeKey": {
                if (cross) {
                  const keyId = at([target.keyId, ...target.extraKeys], op.pick)!
                  foreign(yield* send(caller, "DELETE", `/v1/keys/${keyId}`), `/v1/keys/${keyId}`)
                  break
                }
                // The caller's own key stays; an extra one is revoked (once) and replaced to keep three.
                const keyId = at(caller.extraKeys, op.pick)!
                const revoked = caller.revokedKeys.has(keyId)
                const answer = yield* send(caller, "DELETE", `/v1/keys/${keyId}`)
                own(answer, `/v1/keys/${keyId}`, revoked ? [404] : [200])
                if (answer.status === 200) {
                  caller.revokedKeys.add(keyId)
                  caller.extraKeys.push(ok(yield* send(caller, "POST", "/v1/keys", { name: "erp" }), label).key_id)
                }
                break
              }
              case "createOrder": {
                const productIds = op.lines.map(([store, pick]) => at(stores[store]!.products, pick)!)
                counted = op.lines.some(([store]) => store !== op.caller)
                const answer = yield* send(caller, "POST", "/v1/orders", orderBody(caller, op.phone, productIds))
                const refused = productIds.find((id) => !liveProducts(caller).includes(id))
                if (refused === undefined) {
                  own(answer, "/v1/orders", [200])
                  if (answer.status === 200) {
                    caller.orders.push(answer.body.data.id)
                    const customer = answer.body.data.customer.id
                    if (!caller.customers.includes(customer)) caller.customers.push(customer)
                  }
                } else if (
                  answer.status !== 400 ||
                  answer.body.error.message !== `Product ${refused} does not belong to this store`
                ) {
                  const found = `${label} /v1/orders with products ${productIds}: ${answer.status} ${answer.text.slice(0, 200)}`
                  if (stores[op.caller === 0 ? 1 : 0]!.products.includes(refused)) leaks.push(found)
                  else unexpected.push(found)
                }
                break
              }
              case "createPage":
              case "linkPage": {
                const productId = at(target.products, op.pick)!
                const page = op.kind === "linkPage" ? at(livePages(caller), op.pick) : undefined
                const answer =
                  page === undefined
                    ? yield* send(caller, "POST", "/v1/landing-pages", {
                        title: `Page ${caller.name}${index}`,
                        product_id: productId
                      })
                    : yield* send(caller, "PATCH", `/v1/landing-pages/${page}`, { product_id: productId })
                if (liveProducts(caller).includes(productId)) {
                  own(answer, `page with product ${productId}`, [200])
                  if (page === undefined && answer.status === 200) caller.pages.push(answer.body.data.id)
                } else if (
                  answer.status !== 400 ||
                  answer.body.error.message !== `product_id ${productId} does not belong to this store`
                ) {
                  const found = `${label} page with product ${productId}: ${answer.status} ${answer.text.slice(0, 200)}`
                  if (cross) leaks.push(found)
                  else unexpected.push(found)
                }
                break
              }
              case "list": {
                counted = false
                listChecks++
                const answer = yield* send(caller, "GET", op.list)
                own(answer, op.list, [200])
                const others = idsOf(stores[op.caller === 0 ? 1 : 0]!)[op.list]
                const items = (answer.body?.data?.items ?? []) as ReadonlyArray<{ id?: number; key_id?: string }>
                for (const item of items) {
                  const id = op.list === "/v1/keys" ? item.key_id : item.id
                  if (others.has(id)) leaks.push(`${label} ${op.list} lists the other store's ${id}`)
                }
                break
              }
            }
            if (counted) crossOperations++
            counts.set(op.kind, (counts.get(op.kind) ?? 0) + 1)

            // Only the caller's rows may have changed.
            const other = op.caller === 0 ? 1 : 0
            const after = [yield* snapshot(stores[0]!.id), yield* snapshot(stores[1]!.id)]
            for (const change of changes(last[other]!, after[other]!)) {
              leaks.push(`${label} changed store ${stores[other]!.name}'s ${change}`)
            }
            // Each change is counted once: the next operation compares with this state.
            last[0] = after[0]!
            last[1] = after[1]!
          }

          // No row of one store refers to the other's.
          const crossReferences = yield* db<{ what: string; n: number }>`
            SELECT 'order line -> product' AS what, count(*)::int AS n
              FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id
              WHERE o.store_id <> p.store_id
            UNION ALL SELECT 'order -> customer', count(*)::int
              FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.store_id <> c.store_id
            UNION ALL SELECT 'landing page -> product', count(*)::int
              FROM landing_pages l JOIN products p ON p.id = l.product_id WHERE l.store_id <> p.store_id`
          for (const { what, n } of crossReferences) if (n > 0) leaks.push(`${n} rows of ${what} across stores`)

          const [a, b] = stores as [Store, Store]
          console.log(
            `[isolation ${backend.name}] ${ops} operations, ${crossOperations} on the other store's data, ` +
              `${listChecks} lists checked; ${leaks.length} leaks; ` +
              `A: ${a.products.length} products, ${a.orders.length} orders, ${a.customers.length} customers, ` +
              `${a.pages.length} pages; B: ${b.products.length} products, ${b.orders.length} orders, ` +
              `${b.customers.length} customers, ${b.pages.length} pages`,
            Object.fromEntries(counts)
          )
          assert.deepStrictEqual(leaks, [], `${leaks.length} leaks`)
          assert.deepStrictEqual(unexpected, [], "the caller's own data answers as it should")
          assert.isAtLeast(crossOperations, ops / 3)
          assert.isAtLeast(listChecks, ops / 20)
        }),
      180_000
    )
  })
}
