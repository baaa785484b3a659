/**
 * Customers through the store API in memory (`src/store/customers`): made by a store's first order from a phone,
 * matched by it afterwards, listed with their filters, read with their orders page by page; path ids and another
 * store's customers.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore } = InMemory

const customer = {
  name: "Amina Benali",
  phone: "0555 12 34 56",
  email: "Amina@Example.dz",
  wilaya_id: 16,
  commune: "Bab Ezzouar",
  address: "Cité 5"
}

layer(InMemory.layer(), { excludeTestServices: true })("customers (memory)", (it) => {
  it.effect("created by the first order, matched by phone, listed with their orders", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", { name: "Tapis", price: 9000 })).body.data
      for (const name of ["Amina", "Amina B."]) {
        const answer = yield* store.write("POST", "/v1/orders", {
          customer: { ...customer, name },
          items: [{ product_id: product.id, quantity: 1 }]
        })
        assert.strictEqual(answer.status, 200)
      }
      yield* store.write("POST", "/v1/orders", {
        customer: { ...customer, name: "Karim", phone: "0661 00 00 01", email: undefined },
        items: [{ product_id: product.id, quantity: 1 }]
      })
      const customers = yield* store.get("/v1/customers")
      assert.strictEqual(customers.status, 200)
      assert.strictEqual(customers.headers.get("x-cache"), null)
      assert.strictEqual(customers.body.data.items.length, 2)
      const one = customers.body.data.items.find((item: { phone: string }) => item.phone === "0555123456")
      assert.strictEqual(one.first_name, "Amina B.")
      assert.strictEqual(one.total_orders, 0, "API orders never move the counters")
      const detail = yield* store.get(`/v1/customers/${one.id}`)
      // Two orders in a day (velocity: 10) and Karim's phone at the same address (10): docs/risk.md.
      assert.strictEqual(detail.body.data.fraud_score, 20)
      assert.strictEqual(detail.body.data.id, one.id)
      const byPhone = yield* store.get("/v1/customers?phone=0555123456")
      assert.deepStrictEqual(
        byPhone.body.data.items.map((item: { id: number }) => item.id),
        [one.id]
      )
      const byEmail = yield* store.get("/v1/customers?email=amina@example.dz")
      assert.deepStrictEqual(
        byEmail.body.data.items.map((item: { id: number }) => item.id),
        [one.id],
        "emails match whatever their case"
      )
      assert.strictEqual((yield* store.get("/v1/customers?phone=%00")).body.data.items.length, 0)
      const page = yield* store.get("/v1/customers?limit=1")
      assert.deepStrictEqual([page.body.data.items.length, page.body.data.has_more], [1, true])

      const orders = yield* store.get(`/v1/customers/${one.id}/orders?limit=1`)
      assert.strictEqual(orders.body.data.items.length, 1)
      assert.strictEqual(orders.body.data.has_more, true)
      const next = yield* store.get(`/v1/customers/${one.id}/orders?limit=1&cursor=${orders.body.data.next_cursor}`)
      assert.strictEqual(next.body.data.items.length, 1)
      assert.strictEqual(next.body.data.has_more, false)
      assert.notStrictEqual(next.body.data.items[0].id, orders.body.data.items[0].id)
    })
  )

  it.effect("a path id is digits; an unknown, unstorable or another store's customer is 404", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", { name: "Tapis", price: 9000 })).body.data
      const order = (yield* store.write("POST", "/v1/orders", {
        customer,
        items: [{ product_id: product.id, quantity: 1 }]
      })).body.data
      for (const path of ["/v1/customers/:id", "/v1/customers/:id/orders"]) {
        const letters = yield* store.get(path.replace(":id", "abc"))
        assert.deepStrictEqual(
          [...codeOf(letters), letters.body.error.message],
          [400, "bad_request", "Invalid path.id: must be all digits"],
          path
        )
        for (const id of ["0", "999999", "2147483648"]) {
          const answer = yield* store.get(path.replace(":id", id))
          assert.deepStrictEqual(
            [...codeOf(answer), answer.body.error.message],
            [404, "not_found", `Customer ${id} not found`],
            `${path} ${id}`
          )
        }
        assert.deepStrictEqual(codeOf(yield* store.get(path.replace(":id", "99999999999999999999"))), [
          404,
          "not_found"
        ])
      }
      const other = yield* createStore()
      assert.deepStrictEqual(codeOf(yield* other.get(`/v1/customers/${order.customer.id}`)), [404, "not_found"])
      assert.strictEqual((yield* other.get("/v1/customers")).body.data.items.length, 0)
    })
  )
})
