/**
 * Orders through the store API in memory (`src/store/orders`): a create priced from the catalogue, the state
 * machine's moves and refusals (all 400, as the spec answers them), lists with their paging and filters, the Free
 * plan's monthly cap for an installed app, another store's ids, the `orders:write` scope, path ids and the replay of
 * a create. The stock an order commits in the database is `../StoreApi.db.test.ts`'s.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

const customer = {
  name: "Amina Benali",
  phone: "0555 12 34 56",
  wilaya_id: 16,
  commune: "Bab Ezzouar",
  address: "Cité 5"
}

const productBody = {
  name: "Robe kabyle",
  price: 4500,
  stock: 10,
  variant_groups: [
    {
      name: "Taille",
      type: "text",
      options: [
        { value: "M", price_adjustment: 0, stock: 4 },
        { value: "XL", price_adjustment: 500, stock: 2 }
      ]
    }
  ]
}

const productOf = (store: InMemory.Caller) =>
  Effect.map(store.write("POST", "/v1/products", productBody), (answer) => answer.body.data as { id: number })

layer(InMemory.layer(), { excludeTestServices: true })("orders (memory)", (it) => {
  it.effect("a create is priced from the catalogue, numbered, and moved through the state machine", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const created = yield* store.write("POST", "/v1/orders", {
        customer,
        items: [
          {
            product_id: product.id,
            quantity: 2,
            price: 1,
            variants: [
              { group_name: "Taille", option_name: "XL", price_adjustment: 0 },
              { group_name: "Emballage", option_name: "Cadeau", price_adjustment: 150.5 }
            ]
          }
        ],
        shipping_cost: 400,
        discount: 100,
        notes: "sonner deux fois"
      })
      assert.strictEqual(created.status, 200, created.text)
      const order = created.body.data
      assert.match(order.order_number, new RegExp(`^ORD-${store.id}-\\d{8}-[0-9A-F]{8}$`))
      assert.strictEqual(order.status, "pending")
      // 2 × (4500 + 500 catalogue + 150.5 sent) = 10301; + 400 − 100 = 10601
      assert.deepStrictEqual(order.amounts, {
        subtotal: 10301,
        shipping_cost: 400,
        discount: 100,
        payment_fee: 0,
        total: 10601
      })
      assert.deepStrictEqual(
        order.items[0].variants.map((v: { price_adjustment: string }) => v.price_adjustment),
        ["500.00", "150.50"]
      )
      assert.notProperty(order, "notes")
      assert.deepInclude(order.customer, { name: "Amina Benali", phone: "0555123456", wilaya_id: 16 })

      const confirm = yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
      assert.strictEqual(confirm.body.data.status, "confirmed")
      const illegal = yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "delivered" })
      assert.deepStrictEqual(
        [...codeOf(illegal), illegal.body.error.message],
        [400, "bad_request", "Transition confirmed -> delivered not allowed; allowed: processing, shipped, cancelled"]
      )
      const unknownStatus = yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "lost" })
      assert.deepStrictEqual(codeOf(unknownStatus), [400, "bad_request"])
      const cancelled = yield* store.write("POST", `/v1/orders/${order.id}/cancel`)
      assert.strictEqual(cancelled.body.data.status, "cancelled")
      const twice = yield* store.write("POST", `/v1/orders/${order.id}/cancel`)
      assert.deepStrictEqual([twice.status, twice.body.data.status], [200, "cancelled"], "a move to the same status")
      const reopen = yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "pending" })
      assert.deepStrictEqual(codeOf(reopen), [400, "bad_request"])

      const detail = yield* store.get(`/v1/orders/${order.id}`)
      assert.strictEqual(detail.body.data.status, "cancelled")
      assert.strictEqual(detail.headers.get("x-cache"), null, "orders are never cached")
      const listed = yield* store.get(`/v1/orders?customer_phone=${encodeURIComponent(customer.phone)}`)
      assert.strictEqual(listed.body.data.items.length, 1)
      assert.strictEqual(listed.body.data.has_more, false)
    })
  )

  it.effect("refuses a body, a product or a path id with the spec's codes", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const invalid = yield* store.write("POST", "/v1/orders", {
        customer: { ...customer, wilaya_id: 59 },
        items: [{ product_id: product.id, quantity: 1 }]
      })
      assert.deepStrictEqual(
        [...codeOf(invalid), invalid.body.error.message],
        [400, "bad_request", "customer.wilaya_id must be 1-58"]
      )
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/orders", {})), [400, "bad_request"])
      const unknownProduct = yield* store.write("POST", "/v1/orders", {
        customer,
        items: [{ product_id: 999_999, quantity: 1 }]
      })
      assert.deepStrictEqual(codeOf(unknownProduct), [400, "bad_request"])
      for (const [method, path] of [
        ["GET", "/v1/orders/:id"],
        ["PATCH", "/v1/orders/:id"],
        ["POST", "/v1/orders/:id/cancel"]
      ] as const) {
        const at = (id: string) =>
          method === "GET"
            ? store.get(path.replace(":id", id))
            : store.write(method, path.replace(":id", id), method === "PATCH" ? { status: "confirmed" } : undefined)
        const letters = yield* at("12a")
        assert.deepStrictEqual(
          [...codeOf(letters), letters.body.error.message],
          [400, "bad_request", "Invalid path.id: must be all digits"],
          `${method} 12a`
        )
        for (const id of ["0", "999999", "2147483648", "99999999999999999999"]) {
          const answer = yield* at(id)
          assert.deepStrictEqual(codeOf(answer), [404, "not_found"], `${method} ${id}`)
          assert.strictEqual(answer.body.meta.request_id, answer.headers.get("x-request-id"))
        }
      }
    })
  )

  it.effect("writes need orders:write; a create's replay is the same order, byte for byte", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const app = yield* InMemory.appToken(store.id, ["orders:read"])
      const body = { customer, items: [{ product_id: product.id, quantity: 1 }] }
      for (const [method, path] of [
        ["POST", "/v1/orders"],
        ["PATCH", "/v1/orders/1"],
        ["POST", "/v1/orders/1/cancel"]
      ] as const) {
        const refused = yield* app.write(method, path, body)
        assert.deepStrictEqual(
          [...codeOf(refused), refused.body.error.message],
          [403, "forbidden", "Missing scope: orders:write"],
          `${method} ${path}`
        )
      }
      assert.strictEqual((yield* app.get("/v1/orders")).status, 200, "reads need no scope")
      const k = key()
      const first = yield* store.write("POST", "/v1/orders", body, k)
      const again = yield* store.write("POST", "/v1/orders", body, k)
      assert.deepStrictEqual([again.status, again.headers.get("idempotency-replay")], [200, "1"])
      assert.strictEqual(again.text, first.text)
      assert.strictEqual((yield* store.get("/v1/orders")).body.data.items.length, 1, "one order")
      const move = key()
      const moved = yield* store.write("PATCH", `/v1/orders/${first.body.data.id}`, { status: "confirmed" }, move)
      const movedAgain = yield* store.write("PATCH", `/v1/orders/${first.body.data.id}`, { status: "confirmed" }, move)
      assert.deepStrictEqual([movedAgain.headers.get("idempotency-replay"), movedAgain.text], ["1", moved.text])
    })
  )

  it.effect("lists: limit clamped, malformed cursor dropped, invalid filters ignored, newest first", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const ids: Array<number> = []
      for (let i = 0; i < 3; i++) {
        const created = yield* store.write("POST", "/v1/orders", {
          customer: { ...customer, phone: `055500000${i}` },
          items: [{ product_id: product.id, quantity: 1 }]
        })
        ids.push(created.body.data.id)
      }
      const newestFirst = [...ids].reverse()
      const page = (query: string) => Effect.map(store.get(`/v1/orders${query}`), (answer) => answer.body.data)
      const first = yield* page("?limit=0")
      assert.deepStrictEqual(
        first.items.map((o: { id: number }) => o.id),
        [newestFirst[0]],
        "limit 0 is clamped to 1"
      )
      assert.isTrue(first.has_more)
      const rest = yield* page(`?limit=1&cursor=${first.next_cursor}`)
      assert.deepStrictEqual(
        rest.items.map((o: { id: number }) => o.id),
        [newestFirst[1]]
      )
      const all = yield* page("?limit=abc")
      assert.deepStrictEqual(
        all.items.map((o: { id: number }) => o.id),
        newestFirst,
        "a non-numeric limit is the default"
      )
      assert.strictEqual(all.next_cursor, null)
      const restarted = yield* page("?limit=500&cursor=%%%garbage")
      assert.deepStrictEqual(
        restarted.items.map((o: { id: number }) => o.id),
        newestFirst,
        "a malformed cursor restarts at the newest"
      )
      const ignored = yield* page("?status=lost&since=yesterday-ish")
      assert.strictEqual(ignored.items.length, 3, "invalid status and since are ignored")
      const pending = yield* page("?status=pending&since=2020-01-01T00:00:00Z")
      assert.strictEqual(pending.items.length, 3)
      const none = yield* page("?status=shipped")
      assert.strictEqual(none.items.length, 0)
      const byPhone = yield* page("?customer_phone=0555000001")
      assert.deepStrictEqual(
        byPhone.items.map((o: { id: number }) => o.id),
        [ids[1]]
      )
      assert.strictEqual((yield* page("?customer_phone=%00")).items.length, 0, "text no phone can hold")
    })
  )

  it.effect("the Free plan's 30 orders a month hold for an installed app's orders", () =>
    Effect.gen(function* () {
      const store = yield* createStore({ plan: "free" })
      const app = yield* InMemory.appToken(store.id, ["products:write", "orders:write"])
      const product = (yield* app.write("POST", "/v1/products", productBody)).body.data
      const body = { customer, items: [{ product_id: product.id, quantity: 1 }] }
      const statuses: Array<number> = []
      for (let i = 0; i < 30; i++) statuses.push((yield* app.write("POST", "/v1/orders", body)).status)
      assert.deepStrictEqual(
        statuses,
        Array.from({ length: 30 }, () => 200)
      )
      const refused = yield* app.write("POST", "/v1/orders", body)
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [400, "bad_request", "Monthly order limit reached for this store plan"]
      )
    })
  )

  it.effect("another store's order, product or customer is never reachable (404)", () =>
    Effect.gen(function* () {
      const a = yield* createStore()
      const b = yield* createStore()
      const product = yield* productOf(a)
      const order = (yield* a.write("POST", "/v1/orders", {
        customer,
        items: [{ product_id: product.id, quantity: 1 }]
      })).body.data
      for (const path of [
        `/v1/orders/${order.id}`,
        `/v1/products/${product.id}`,
        `/v1/customers/${order.customer.id}`,
        `/v1/customers/${order.customer.id}/orders`
      ]) {
        assert.deepStrictEqual(codeOf(yield* b.get(path)), [404, "not_found"], path)
      }
      const foreignProduct = yield* b.write("POST", "/v1/orders", {
        customer,
        items: [{ product_id: product.id, quantity: 1 }]
      })
      assert.deepStrictEqual(
        [...codeOf(foreignProduct), foreignProduct.body.error.message],
        [400, "bad_request", `Product ${product.id} does not belong to this store`]
      )
      const move = yield* b.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
      assert.deepStrictEqual(codeOf(move), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* b.write("POST", `/v1/orders/${order.id}/cancel`)), [404, "not_found"])
      assert.strictEqual((yield* b.get("/v1/orders")).body.data.items.length, 0)
      assert.strictEqual((yield* a.get(`/v1/orders/${order.id}`)).body.data.status, "pending", "left alone")
    })
  )
})
