/**
 * The contract of the `Orders` service, written from the spec, run over every `OrderStore`: memory, and SQL on the
 * embedded database and (with `DATABASE_URL`) the real server.
 */
import { assert, type Vitest } from "@effect/vitest"
import { AlgiersTime, Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer, Random } from "effect"
import * as FraudScore from "../src/FraudScore.ts"
import * as OrderError from "../src/OrderError.ts"
import * as OrderNumber from "../src/OrderNumber.ts"
import * as OrderStatus from "../src/OrderStatus.ts"
import { OrderStore } from "../src/OrderStore.ts"
import * as OrdersModule from "../src/Orders.ts"
import { Orders } from "../src/Orders.ts"
import type { OrderDetail } from "../src/OrderViews.ts"
import { Fixture } from "./Fixture.ts"

type Body = Record<string, unknown>

const customer = (overrides: Body = {}) => ({
  name: "Amine Bensaïd — أمين",
  phone: "0555 12 34 56",
  wilaya_id: 16,
  commune: "Bab Ezzouar",
  address: "Cité 5 Juillet, bât. 3",
  ...overrides
})

const bodyOf = (items: ReadonlyArray<Body>, overrides: Body = {}): Body => ({
  customer: customer(),
  items,
  ...overrides
})

const invalid = (message: string) => OrderError.fail(new OrderError.InvalidOrder({ message }))

/** Fails the test unless `effect` fails with exactly `expected`. */
const assertFails = <A, E>(effect: Effect.Effect<A, E, Orders | Fixture>, expected: E) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(effect)
    assert.deepStrictEqual(error, expected)
  })

export const OrdersSuite = <R>(
  it: Vitest.MethodsNonLive<Orders | Fixture | OrderStore | R>,
  options: {
    /** The store's clock: `Clock` for memory, the database's for SQL. */
    readonly now: Effect.Effect<DateTime.Utc, never, Orders | Fixture | OrderStore | R>
  }
) => {
  /** A store with a physical t-shirt (stock tracked per size), a digital e-book, and an untracked poster. */
  const shop = (plan?: string) =>
    Effect.gen(function* () {
      const fixture = yield* Fixture
      const store = yield* fixture.store(plan)
      const tshirt = yield* fixture.product(store.id, {
        price: "1250.50",
        stock: 10,
        groups: [
          {
            name: "Taille",
            options: [
              { value: "M", stock: 5 },
              { value: "XL", price_adjustment: "150", stock: 2 }
            ]
          },
          { name: "Couleur", options: [{ value: "Rouge", price_adjustment: "-50.25", stock: null }] }
        ]
      })
      const ebook = yield* fixture.product(store.id, { price: "0.1", digital: true })
      const poster = yield* fixture.product(store.id, { price: "300" })
      return { store, tshirt, ebook, poster }
    })

  const place = (store: { readonly id: Ids.StoreId; readonly plan: string }, body: Body) =>
    Effect.flatMap(Orders, (orders) => orders.create(store, body))

  it.effect("creates an order priced from the catalogue, pending, with the spec's detail shape", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, tshirt } = yield* shop()
      const detail = yield* orders.create(
        store,
        bodyOf(
          [
            {
              product_id: tshirt,
              quantity: 2,
              price: 1,
              variants: [
                { group_name: "Taille", option_name: "XL", color_code: null, price_adjustment: 9999 },
                { group_name: "Couleur", option_name: "Rouge", color_code: "#ff0000", price_adjustment: 0 },
                { group_name: "Gravure", option_name: "Prénom", color_code: null, price_adjustment: 100.5 }
              ]
            }
          ],
          { shipping_cost: 350.125, discount: 100, payment_fee: 0.2, notes: "Appeler avant 18h", unknown: true }
        )
      )
      // 2 × (1250.50 + 150 − 50.25 + 100.5) = 2901.5; + 350.125 − 100 + 0.2
      assert.deepStrictEqual(detail.amounts, {
        subtotal: 2901.5,
        shipping_cost: 350.125,
        discount: 100,
        payment_fee: 0.2,
        total: 3151.825
      })
      assert.strictEqual(detail.status, "pending")
      assert.strictEqual(detail.payment_status, "pending")
      assert.strictEqual(detail.payment_method, "cod")
      assert.deepStrictEqual(detail.delivery, { type: "home", desk_id: null, desk_name: null })
      assert.deepStrictEqual(detail.customer, {
        id: detail.customer.id,
        name: "Amine Bensaïd — أمين",
        phone: "0555123456",
        email: null,
        wilaya_id: 16,
        commune: "Bab Ezzouar",
        address: "Cité 5 Juillet, bât. 3"
      })
      assert.strictEqual(detail.items.length, 1)
      const [item] = detail.items
      assert.strictEqual(item!.product_id, tshirt)
      assert.strictEqual(item!.price, 1250.5)
      assert.strictEqual(item!.quantity, 2)
      assert.deepStrictEqual(item!.variants, [
        {
          order_item_id: item!.id,
          group_name: "Taille",
          option_name: "XL",
          color_code: null,
          price_adjustment: "150.00"
        },
        {
          order_item_id: item!.id,
          group_name: "Couleur",
          option_name: "Rouge",
          color_code: "#ff0000",
          price_adjustment: "-50.25"
        },
        {
          order_item_id: item!.id,
          group_name: "Gravure",
          option_name: "Prénom",
          color_code: null,
          price_adjustment: "100.50"
        }
      ])
      assert.notProperty(detail, "notes")
      assert.match(detail.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      assert.strictEqual(detail.updated_at, detail.created_at)
      const parsed = OrderNumber.parse(detail.order_number)
      assert.strictEqual(parsed?._tag, "Api")
      if (parsed?._tag === "Api") {
        assert.strictEqual(parsed.storeId, store.id)
        assert.strictEqual(parsed.suffix.length, 8)
        assert.strictEqual(parsed.day, detail.created_at.slice(0, 10).replaceAll("-", ""))
      }
      assert.deepStrictEqual(yield* orders.get(store.id, detail.id), detail)
    })
  )

  it.effect("adds exactly: 0.1 + 0.2 is 0.3", () =>
    Effect.gen(function* () {
      const { store, ebook } = yield* shop()
      const detail = yield* place(store, bodyOf([{ product_id: ebook, quantity: 1 }], { shipping_cost: 0.2 }))
      assert.strictEqual(detail.amounts.total, 0.3)
      assert.strictEqual(JSON.stringify(detail.amounts.total), "0.3")
    })
  )

  it.effect("clamps the total at 0 when the discount is larger", () =>
    Effect.gen(function* () {
      const { store, poster } = yield* shop()
      const detail = yield* place(store, bodyOf([{ product_id: poster, quantity: 1 }], { discount: 5000 }))
      assert.deepStrictEqual(detail.amounts, {
        subtotal: 300,
        shipping_cost: 0,
        discount: 5000,
        payment_fee: 0,
        total: 0
      })
    })
  )

  it.effect(
    "defaults payment_method to free_digital for all-digital orders and allows digital delivery only then",
    () =>
      Effect.gen(function* () {
        const { store, ebook, poster } = yield* shop()
        const digital = yield* place(
          store,
          bodyOf([{ product_id: ebook, quantity: 3 }], { delivery: { type: "digital" } })
        )
        assert.strictEqual(digital.payment_method, "free_digital")
        assert.strictEqual(digital.delivery.type, "digital")
        const mixed = bodyOf([
          { product_id: ebook, quantity: 1 },
          { product_id: poster, quantity: 1 }
        ])
        assert.strictEqual((yield* place(store, mixed)).payment_method, "cod")
        yield* assertFails(
          place(store, { ...mixed, delivery: { type: "digital" } }),
          invalid("delivery.type digital is only for orders whose products are all digital")
        )
        const paid = yield* place(
          store,
          bodyOf([{ product_id: ebook, quantity: 1 }], {
            payment_method: "digital_payment",
            delivery: { type: "desk", desk_id: 12, desk_name: "Agence Hydra" }
          })
        )
        assert.strictEqual(paid.payment_method, "digital_payment")
        assert.deepStrictEqual(paid.delivery, { type: "desk", desk_id: 12, desk_name: "Agence Hydra" })
      })
  )

  it.effect("refuses products that are unknown, deleted or another store's, naming the product", () =>
    Effect.gen(function* () {
      const fixture = yield* Fixture
      const { store, poster } = yield* shop()
      const other = yield* shop()
      const gone = yield* fixture.product(store.id, { price: "10" })
      yield* fixture.deleteProduct(gone)
      for (const productId of [other.poster, gone, 999_999, 0, -4, 9_000_000_000]) {
        yield* assertFails(
          place(
            store,
            bodyOf([
              { product_id: poster, quantity: 1 },
              { product_id: productId, quantity: 1 }
            ])
          ),
          invalid(`Product ${productId} does not belong to this store`)
        )
      }
    })
  )

  it.effect("checks line by line: a product rule wins over a later line's quantity and over the delivery", () =>
    Effect.gen(function* () {
      const { store, poster } = yield* shop()
      const other = yield* shop()
      yield* assertFails(
        place(
          store,
          bodyOf(
            [
              { product_id: other.poster, quantity: 1 },
              { product_id: poster, quantity: 0 }
            ],
            {
              delivery: { type: "drone" }
            }
          )
        ),
        invalid(`Product ${other.poster} does not belong to this store`)
      )
      yield* assertFails(
        place(
          store,
          bodyOf([
            { product_id: poster, quantity: 0 },
            { product_id: other.poster, quantity: 1 }
          ])
        ),
        invalid("items[0].quantity must be 1-9999")
      )
      yield* assertFails(
        place(store, bodyOf([{ product_id: poster, quantity: 1 }, { quantity: 1 }, { product_id: other.poster }])),
        invalid("items[1].product_id is required")
      )
      yield* assertFails(
        place(store, bodyOf([{ product_id: poster, quantity: 1 }], { delivery: { type: "drone" }, discount: -1 })),
        invalid("delivery.type must be home, desk, or digital")
      )
    })
  )

  it.effect("makes a customer per store and phone, and updates it on the next order", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const line = [{ product_id: poster, quantity: 1 }]
      const first = yield* orders.create(store, bodyOf(line, { customer: customer({ email: "Amine@Example.dz" }) }))
      const created = yield* orders.getCustomer(store.id, first.customer.id)
      assert.deepStrictEqual(
        { ...created, created_at: "", updated_at: "" },
        {
          id: first.customer.id,
          first_name: "Amine Bensaïd — أمين",
          last_name: "",
          phone: "0555123456",
          wilaya_id: 16,
          commune: "Bab Ezzouar",
          address: "Cité 5 Juillet, bât. 3",
          notes: null,
          total_orders: 0,
          total_spent: 0,
          fraud_score: 0,
          is_banned: false,
          created_at: "",
          updated_at: "",
          fraud_level: "safe",
          fraud_factors: FraudScore.none.factors
        }
      )
      // The same phone written otherwise, no address and no email: matched; address and email are kept.
      const second = yield* orders.create(
        store,
        bodyOf(line, { customer: { name: "Amine B.", phone: "05551 23456", wilaya_id: 31, commune: "Oran" } })
      )
      assert.strictEqual(second.customer.id, first.customer.id)
      assert.strictEqual(second.customer.email, null)
      const [matched] = (yield* orders.listCustomers(store.id, { phone: "0555123456" })).items
      assert.deepStrictEqual(
        { ...matched!, created_at: "", updated_at: "" },
        {
          id: first.customer.id,
          first_name: "Amine B.",
          last_name: "",
          phone: "0555123456",
          email: "Amine@Example.dz",
          wilaya_id: 31,
          commune: "Oran",
          total_orders: 0,
          total_spent: 0,
          is_banned: false,
          created_at: "",
          updated_at: ""
        }
      )
      assert.strictEqual((yield* orders.getCustomer(store.id, first.customer.id)).address, "Cité 5 Juillet, bât. 3")
      // A sent address and email replace the stored ones.
      yield* orders.create(
        store,
        bodyOf(line, { customer: customer({ address: "", email: "new@example.dz", name: "Amine" }) })
      )
      const replaced = yield* orders.getCustomer(store.id, first.customer.id)
      assert.strictEqual(replaced.address, "")
      assert.strictEqual(replaced.first_name, "Amine")
      const [listed] = (yield* orders.listCustomers(store.id, { email: "NEW@example.dz" })).items
      assert.strictEqual(listed?.id, first.customer.id)
      // Another phone is another customer; the same phone in another store too.
      const third = yield* orders.create(store, bodyOf(line, { customer: customer({ phone: "+213 555 12 34 56" }) }))
      assert.notStrictEqual(third.customer.id, first.customer.id)
      const elsewhere = yield* shop()
      const fourth = yield* orders.create(
        elsewhere.store,
        bodyOf([{ product_id: elsewhere.poster, quantity: 1 }], { customer: customer() })
      )
      assert.notStrictEqual(fourth.customer.id, first.customer.id)
      const page = yield* orders.listCustomers(store.id, {})
      assert.deepStrictEqual(
        page.items.map((c) => c.id),
        [third.customer.id, first.customer.id]
      )
    })
  )

  it.effect("moves through the transition table, answers a same-state move as a no-op, and refuses the rest", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const line = bodyOf([{ product_id: poster, quantity: 1 }])
      for (const from of OrderStatus.statuses) {
        for (const to of OrderStatus.statuses) {
          const order = yield* orders.create(store, line)
          // Reach `from` along legal moves.
          const path: Record<OrderStatus.OrderStatus, ReadonlyArray<OrderStatus.OrderStatus>> = {
            pending: [],
            confirmed: ["confirmed"],
            processing: ["processing"],
            shipped: ["processing", "shipped"],
            delivered: ["processing", "shipped", "delivered"],
            cancelled: ["cancelled"],
            returned: ["processing", "shipped", "returned"]
          }
          let current: OrderDetail = order
          for (const step of path[from]) current = yield* orders.setStatus(store.id, order.id, { status: step })
          assert.strictEqual(current.status, from)
          const outcome = yield* Effect.result(orders.setStatus(store.id, order.id, { status: to }))
          if (from === to) {
            assert.strictEqual(outcome._tag, "Success", `${from} -> ${to}`)
            if (outcome._tag === "Success") assert.deepStrictEqual(outcome.success, current)
          } else if (OrderStatus.transitions[from].includes(to)) {
            assert.strictEqual(outcome._tag, "Success", `${from} -> ${to}`)
            if (outcome._tag === "Success") assert.strictEqual(outcome.success.status, to)
          } else {
            assert.strictEqual(outcome._tag, "Failure", `${from} -> ${to}`)
            if (outcome._tag === "Failure") {
              const allowed = OrderStatus.transitions[from]
              const expected = `Transition ${from} -> ${to} not allowed; allowed: ${allowed.length === 0 ? "none" : allowed.join(", ")}`
              assert.deepStrictEqual(
                outcome.failure,
                OrderError.fail(new OrderError.IllegalTransition({ message: expected }))
              )
            }
          }
          assert.strictEqual(
            (yield* orders.get(store.id, order.id)).status,
            from === to || OrderStatus.transitions[from].includes(to) ? to : from
          )
        }
      }
    })
  )

  it.effect("cancels only from pending, confirmed and processing", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const line = bodyOf([{ product_id: poster, quantity: 1 }])
      for (const before of [[], ["confirmed"], ["processing"]] as const) {
        const order = yield* orders.create(store, line)
        for (const status of before) yield* orders.setStatus(store.id, order.id, { status })
        assert.strictEqual((yield* orders.cancel(store.id, order.id)).status, "cancelled")
        // Cancelling again is the same-state no-op.
        assert.strictEqual((yield* orders.cancel(store.id, order.id)).status, "cancelled")
      }
      const shipped = yield* orders.create(store, line)
      yield* orders.setStatus(store.id, shipped.id, { status: "processing" })
      yield* orders.setStatus(store.id, shipped.id, { status: "shipped" })
      yield* assertFails(
        orders.cancel(store.id, shipped.id),
        OrderError.fail(
          new OrderError.IllegalTransition({
            message: "Transition shipped -> cancelled not allowed; allowed: delivered, returned"
          })
        )
      )
    })
  )

  it.effect("reads the PATCH body: status required, one of the 7 names", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const order = yield* orders.create(store, bodyOf([{ product_id: poster, quantity: 1 }]))
      for (const body of [{}, { status: null }, { status: "" }, null, [], "confirmed", { state: "confirmed" }]) {
        yield* assertFails(
          orders.setStatus(store.id, order.id, body),
          OrderError.fail(new OrderError.InvalidStatusChange({ message: "Field status is required" }))
        )
      }
      for (const status of ["Confirmed", "paid", 3, true, ["confirmed"]]) {
        yield* assertFails(
          orders.setStatus(store.id, order.id, { status }),
          OrderError.fail(
            new OrderError.InvalidStatusChange({
              message: "status must be one of: pending, confirmed, processing, shipped, delivered, cancelled, returned"
            })
          )
        )
      }
      // The body is checked before the order is looked up.
      yield* assertFails(
        orders.setStatus(store.id, 987_654, {}),
        OrderError.fail(new OrderError.InvalidStatusChange({ message: "Field status is required" }))
      )
    })
  )

  it.effect("answers 404 for unknown orders and customers, and for another store's", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const mine = yield* shop()
      const theirs = yield* shop()
      const order = yield* orders.create(theirs.store, bodyOf([{ product_id: theirs.poster, quantity: 1 }]))
      const notFound = (kind: "Order" | "Customer", id: number) =>
        OrderError.fail(
          kind === "Order"
            ? new OrderError.OrderNotFound({ message: `Order ${id} not found` })
            : new OrderError.CustomerNotFound({ message: `Customer ${id} not found` })
        )
      yield* assertFails(orders.get(mine.store.id, order.id), notFound("Order", order.id))
      yield* assertFails(
        orders.setStatus(mine.store.id, order.id, { status: "confirmed" }),
        notFound("Order", order.id)
      )
      yield* assertFails(orders.cancel(mine.store.id, order.id), notFound("Order", order.id))
      yield* assertFails(orders.get(mine.store.id, 99_999_999_999), notFound("Order", 99_999_999_999))
      yield* assertFails(orders.getCustomer(mine.store.id, order.customer.id), notFound("Customer", order.customer.id))
      yield* assertFails(
        orders.customerOrders(mine.store.id, order.customer.id, {}),
        notFound("Customer", order.customer.id)
      )
      yield* assertFails(orders.customerOrders(mine.store.id, 0, {}), notFound("Customer", 0))
      // An id no row can have (past PostgreSQL's integer) is not found, never a database error.
      for (const id of [0, -1, 1.5, Ids.MAX_ID + 1]) {
        yield* assertFails(orders.get(mine.store.id, id), notFound("Order", id))
        yield* assertFails(orders.cancel(mine.store.id, id), notFound("Order", id))
        yield* assertFails(orders.getCustomer(mine.store.id, id), notFound("Customer", id))
        yield* assertFails(orders.customerOrders(mine.store.id, id, {}), notFound("Customer", id))
      }
      assert.deepStrictEqual((yield* orders.list(mine.store.id, {})).items, [])
      assert.deepStrictEqual((yield* orders.listCustomers(mine.store.id, {})).items, [])
      // The other store's order is untouched.
      assert.strictEqual((yield* orders.get(theirs.store.id, order.id)).status, "pending")
    })
  )

  it.effect("takes stock on the first committed state, and gives it back on cancel or return", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, tshirt, poster } = yield* shop()
      const body = bodyOf([
        {
          product_id: tshirt,
          quantity: 3,
          variants: [
            { group_name: "Taille", option_name: "XL" },
            { group_name: "Couleur", option_name: "Rouge" },
            { group_name: "Gravure", option_name: "Oui" }
          ]
        },
        { product_id: tshirt, quantity: 1, variants: [{ group_name: "Taille", option_name: "M" }] },
        { product_id: poster, quantity: 2 }
      ])
      const before = yield* fixture.stock(tshirt)
      assert.deepStrictEqual(before, {
        stock: 10,
        sales_count: 0,
        options: { "Taille/M": 5, "Taille/XL": 2, "Couleur/Rouge": null }
      })

      const order = yield* orders.create(store, body)
      assert.deepStrictEqual(yield* fixture.stock(tshirt), before, "creation does not touch stock")

      yield* orders.setStatus(store.id, order.id, { status: "confirmed" })
      // 4 t-shirts; XL clamps at 0 (2 − 3); untracked stays untracked.
      const committed = { stock: 6, sales_count: 4, options: { "Taille/M": 4, "Taille/XL": 0, "Couleur/Rouge": null } }
      assert.deepStrictEqual(yield* fixture.stock(tshirt), committed)
      assert.deepStrictEqual(yield* fixture.stock(poster), { stock: null, sales_count: 2, options: {} })

      yield* orders.setStatus(store.id, order.id, { status: "processing" })
      yield* orders.setStatus(store.id, order.id, { status: "processing" })
      assert.deepStrictEqual(yield* fixture.stock(tshirt), committed, "committed to committed does not touch stock")

      yield* orders.cancel(store.id, order.id)
      // Restored by the ordered quantities (XL gets 3 back although only 2 were taken).
      assert.deepStrictEqual(yield* fixture.stock(tshirt), {
        stock: 10,
        sales_count: 0,
        options: { "Taille/M": 5, "Taille/XL": 3, "Couleur/Rouge": null }
      })
      assert.deepStrictEqual(yield* fixture.stock(poster), { stock: null, sales_count: 0, options: {} })
    })
  )

  it.effect(
    "commits from pending straight to processing, restores on return, and never from pending to cancelled",
    () =>
      Effect.gen(function* () {
        const orders = yield* Orders
        const fixture = yield* Fixture
        const { store, tshirt } = yield* shop()
        const line = bodyOf([
          { product_id: tshirt, quantity: 2, variants: [{ group_name: "Taille", option_name: "M" }] }
        ])

        const cancelled = yield* orders.create(store, line)
        yield* orders.cancel(store.id, cancelled.id)
        assert.deepStrictEqual((yield* fixture.stock(tshirt)).stock, 10)

        const returned = yield* orders.create(store, line)
        for (const status of ["processing", "shipped", "delivered"]) {
          yield* orders.setStatus(store.id, returned.id, { status })
        }
        assert.deepStrictEqual(yield* fixture.stock(tshirt), {
          stock: 8,
          sales_count: 2,
          options: { "Taille/M": 3, "Taille/XL": 2, "Couleur/Rouge": null }
        })
        yield* orders.setStatus(store.id, returned.id, { status: "returned" })
        assert.deepStrictEqual(yield* fixture.stock(tshirt), {
          stock: 10,
          sales_count: 0,
          options: { "Taille/M": 5, "Taille/XL": 2, "Couleur/Rouge": null }
        })
      })
  )

  it.effect("never lets a sales count go below 0 when restoring", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, poster } = yield* shop()
      const order = yield* orders.create(store, bodyOf([{ product_id: poster, quantity: 5 }]))
      yield* orders.setStatus(store.id, order.id, { status: "confirmed" })
      assert.strictEqual((yield* fixture.stock(poster)).sales_count, 5)
      // Another order of the same product, committed, then both cancelled: back to 0, not below.
      const other = yield* orders.create(store, bodyOf([{ product_id: poster, quantity: 1 }]))
      yield* orders.setStatus(store.id, other.id, { status: "confirmed" })
      yield* orders.cancel(store.id, order.id)
      yield* orders.cancel(store.id, other.id)
      assert.strictEqual((yield* fixture.stock(poster)).sales_count, 0)
    })
  )

  it.effect("serialises concurrent moves of one order: one wins, the others are told why", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, tshirt } = yield* shop()
      const order = yield* orders.create(store, bodyOf([{ product_id: tshirt, quantity: 4 }]))
      yield* orders.setStatus(store.id, order.id, { status: "processing" })
      assert.strictEqual((yield* fixture.stock(tshirt)).stock, 6)
      // From processing, shipped and cancelled exclude each other: only one of them can ever happen.
      const targets = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? "shipped" : "cancelled"))
      const outcomes = yield* Effect.all(
        targets.map((status) => Effect.result(orders.setStatus(store.id, order.id, { status }))),
        { concurrency: "unbounded" }
      )
      const final = (yield* orders.get(store.id, order.id)).status
      assert.include(["shipped", "cancelled"], final)
      const loser = final === "shipped" ? "cancelled" : "shipped"
      for (const [index, outcome] of outcomes.entries()) {
        if (outcome._tag === "Success") {
          assert.strictEqual(targets[index], final)
          assert.strictEqual(outcome.success.status, final)
        } else {
          assert.include(
            [OrderStatus.messages.concurrent, OrderStatus.messages.transition(final, loser as OrderStatus.OrderStatus)],
            outcome.failure.message
          )
        }
      }
      assert.isAtLeast(outcomes.filter((o) => o._tag === "Success").length, 1)
      // Stock was restored once if the cancel won, never twice.
      assert.strictEqual((yield* fixture.stock(tshirt)).stock, final === "cancelled" ? 10 : 6)
      assert.strictEqual((yield* fixture.stock(tshirt)).sales_count, final === "cancelled" ? 0 : 4)
    })
  )

  it.effect("fails a move whose order changed after it was read, with the concurrency message; a retry works", () =>
    Effect.gen(function* () {
      const real = yield* OrderStore
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, tshirt } = yield* shop()
      const order = yield* orders.create(store, bodyOf([{ product_id: tshirt, quantity: 2 }]))
      // Another request confirms the order between this request's read and its compare-and-set.
      let raced = false
      const racing = OrderStore.of({
        ...real,
        findOrder: (storeId, id) =>
          Effect.tap(real.findOrder(storeId, id), () => {
            if (raced) return Effect.void
            raced = true
            return real.moveOrder(storeId, id, { from: "pending", to: "confirmed", stock: "commit" })
          })
      })
      const loser = yield* Effect.flip(
        Effect.flatMap(Orders, (o) => o.setStatus(store.id, order.id, { status: "processing" })).pipe(
          Effect.provide(Layer.fresh(OrdersModule.layer).pipe(Layer.provide(Layer.succeed(OrderStore, racing))))
        )
      )
      assert.deepStrictEqual(
        loser,
        OrderError.fail(new OrderError.ConcurrentChange({ message: "order status changed concurrently; retry" }))
      )
      assert.strictEqual((yield* orders.get(store.id, order.id)).status, "confirmed")
      assert.strictEqual((yield* fixture.stock(tshirt)).stock, 8)
      const retried = yield* orders.setStatus(store.id, order.id, { status: "processing" })
      assert.strictEqual(retried.status, "processing")
      assert.deepStrictEqual(yield* fixture.stock(tshirt), {
        stock: 8,
        sales_count: 2,
        options: { "Taille/M": 5, "Taille/XL": 2, "Couleur/Rouge": null }
      })
    })
  )

  it.effect("caps Free (and unknown) plans at 30 orders per Algiers month, over every source", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const line = (product: number) => bodyOf([{ product_id: product, quantity: 1 }])
      const capped = OrderError.fail(
        new OrderError.MonthlyCapReached({ message: "Monthly order limit reached for this store plan" })
      )

      const free = yield* shop("free")
      yield* fixture.otherSourceOrders(free.store.id, 5)
      for (let i = 0; i < 25; i++) yield* orders.create(free.store, line(free.poster))
      yield* assertFails(orders.create(free.store, line(free.poster)), capped)
      // A refused body is refused for its own reason first.
      yield* assertFails(
        orders.create(free.store, line(999_999)),
        invalid("Product 999999 does not belong to this store")
      )
      // Next month, the count starts again.
      yield* fixture.ageOrders(free.store.id, 40)
      yield* orders.create(free.store, line(free.poster))

      const unknownPlan = yield* shop("gold")
      for (let i = 0; i < 30; i++) yield* orders.create(unknownPlan.store, line(unknownPlan.poster))
      yield* assertFails(orders.create(unknownPlan.store, line(unknownPlan.poster)), capped)

      for (const plan of ["pro", "unlimited", "enterprise"]) {
        const uncapped = yield* shop(plan)
        for (let i = 0; i < 31; i++) yield* orders.create(uncapped.store, line(uncapped.poster))
      }
    })
  )

  it.effect("lets exactly 30 of 40 concurrent creates through on the Free plan", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop("free")
      const outcomes = yield* Effect.all(
        Array.from({ length: 40 }, (_, i) =>
          Effect.result(
            orders.create(
              store,
              bodyOf([{ product_id: poster, quantity: 1 }], {
                customer: customer({ phone: `0550 00 00 ${String(i).padStart(2, "0")}` })
              })
            )
          )
        ),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(outcomes.filter((o) => o._tag === "Success").length, 30)
      for (const outcome of outcomes) {
        if (outcome._tag === "Failure") {
          assert.deepStrictEqual(
            outcome.failure,
            OrderError.fail(
              new OrderError.MonthlyCapReached({ message: "Monthly order limit reached for this store plan" })
            )
          )
        }
      }
      assert.strictEqual((yield* orders.list(store.id, { limit: "200" })).items.length, 30)
    })
  )

  it.effect("numbers orders ORD-{store}-{Algiers day}-{8 hex} and draws again when a number is taken", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const line = bodyOf([{ product_id: poster, quantity: 1 }])
      // The same seed draws the same suffixes: the second order's first draw is the first order's number.
      const first = yield* orders.create(store, line).pipe(Random.withSeed("collide"))
      const second = yield* orders.create(store, line).pipe(Random.withSeed("collide"))
      const [draw1, draw2] = yield* Effect.all([OrderNumber.suffix, OrderNumber.suffix]).pipe(
        Random.withSeed("collide")
      )
      assert.strictEqual(first.order_number.slice(-8), draw1)
      const sameDay = first.created_at.slice(0, 10) === second.created_at.slice(0, 10)
      assert.strictEqual(second.order_number.slice(-8), sameDay ? draw2 : draw1)
      assert.notStrictEqual(first.order_number, second.order_number)
      const day = first.created_at.slice(0, 10).replaceAll("-", "")
      assert.strictEqual(first.order_number, `ORD-${store.id}-${day}-${draw1}`)
    })
  )

  it.effect("lists orders newest first in pages, filtered by status, since and customer phone", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, poster } = yield* shop()
      const placed: Array<OrderDetail> = []
      for (let i = 0; i < 5; i++) {
        const phone = i % 2 === 0 ? "0661 00 00 01" : "0661000002"
        placed.push(
          yield* orders.create(
            store,
            bodyOf([{ product_id: poster, quantity: i + 1 }], { customer: customer({ phone }) })
          )
        )
      }
      yield* fixture.ageOrders(store.id, 10)
      const recent = yield* orders.create(store, bodyOf([{ product_id: poster, quantity: 1 }]))
      yield* orders.setStatus(store.id, placed[1]!.id, { status: "confirmed" })

      const all = yield* orders.list(store.id, {})
      assert.deepStrictEqual(
        all.items.map((o) => o.id),
        [recent.id, ...placed.map((o) => o.id).reverse()]
      )
      assert.deepStrictEqual(
        { next_cursor: all.next_cursor, has_more: all.has_more },
        { next_cursor: null, has_more: false }
      )
      const summary = all.items.find((o) => o.id === placed[0]!.id)!
      assert.deepStrictEqual(Object.keys(summary).sort(), [
        "commune",
        "created_at",
        "customer_name",
        "customer_phone",
        "delivery_type",
        "id",
        "order_number",
        "payment_method",
        "payment_status",
        "shipment",
        "status",
        "total",
        "wilaya_id"
      ])
      assert.strictEqual(summary.shipment, null)
      assert.strictEqual(summary.total, 300)
      assert.strictEqual(summary.customer_phone, "0661000001")

      // Pages of 2, then 2, then the rest.
      const seen: Array<number> = []
      let cursor: string | undefined
      for (const expected of [true, true, false]) {
        const page = yield* orders.list(store.id, { limit: "2", cursor })
        seen.push(...page.items.map((o) => o.id))
        assert.strictEqual(page.has_more, expected)
        cursor = page.next_cursor ?? undefined
      }
      assert.deepStrictEqual(
        seen,
        all.items.map((o) => o.id)
      )
      // A malformed cursor restarts at the newest; limits are clamped.
      assert.deepStrictEqual(
        (yield* orders.list(store.id, { cursor: "@@", limit: "0" })).items.map((o) => o.id),
        [recent.id]
      )

      const confirmed = yield* orders.list(store.id, { status: "confirmed" })
      assert.deepStrictEqual(
        confirmed.items.map((o) => o.id),
        [placed[1]!.id]
      )
      assert.strictEqual((yield* orders.list(store.id, { status: "nonsense" })).items.length, 6)

      const since = yield* orders.list(store.id, { since: recent.created_at.replace(" ", "T") })
      assert.deepStrictEqual(
        since.items.map((o) => o.id),
        [recent.id]
      )
      const sinceDay = yield* orders.list(store.id, { since: recent.created_at.slice(0, 10) })
      assert.include(
        sinceDay.items.map((o) => o.id),
        recent.id
      )
      assert.notInclude(
        sinceDay.items.map((o) => o.id),
        placed[0]!.id
      )
      assert.strictEqual((yield* orders.list(store.id, { since: "yesterday" })).items.length, 6)
      assert.strictEqual((yield* orders.list(store.id, { since: "2026-02-30" })).items.length, 6)

      const byPhone = yield* orders.list(store.id, { customer_phone: "0661 000 002" })
      assert.deepStrictEqual(
        byPhone.items.map((o) => o.id),
        [placed[3]!.id, placed[1]!.id]
      )
      assert.deepStrictEqual((yield* orders.list(store.id, { customer_phone: "0661" })).items, [])
    })
  )

  it.effect(
    "matches nothing for a filter no stored text can hold (NUL, a lone surrogate); other filters keep their rule",
    () =>
      Effect.gen(function* () {
        const orders = yield* Orders
        const { store, poster } = yield* shop()
        const placed = yield* orders.create(
          store,
          bodyOf([{ product_id: poster, quantity: 1 }], { customer: customer({ email: "amina@example.dz" }) })
        )
        const empty = { items: [], next_cursor: null, has_more: false }
        for (const bad of ["\u0000", "0555 12 34 56\u0000", "\ud800", "amina@example.dz\u0000"]) {
          assert.deepStrictEqual(yield* orders.list(store.id, { customer_phone: bad }), empty, JSON.stringify(bad))
          assert.deepStrictEqual(yield* orders.listCustomers(store.id, { phone: bad }), empty, JSON.stringify(bad))
          assert.deepStrictEqual(yield* orders.listCustomers(store.id, { email: bad }), empty, JSON.stringify(bad))
          // An invalid status or since, a malformed cursor, a non-numeric limit: ignored, as the spec says.
          const ignored = yield* orders.list(store.id, { status: bad, since: bad, cursor: bad, limit: bad })
          assert.deepStrictEqual(
            ignored.items.map((o) => o.id),
            [placed.id]
          )
          assert.strictEqual(
            (yield* orders.customerOrders(store.id, placed.customer.id, { cursor: bad })).items.length,
            1
          )
        }
        assert.strictEqual((yield* orders.listCustomers(store.id, { email: "AMINA@example.dz" })).items.length, 1)
      })
  )

  it.effect("refuses an order whose amounts would leave the bounds: a product priced above the maximum before it", () =>
    Effect.gen(function* () {
      const fixture = yield* Fixture
      const store = yield* fixture.store()
      const legacy = yield* fixture.product(store.id, { price: "1e308" })
      yield* assertFails(
        place(store, bodyOf([{ product_id: legacy, quantity: 2 }])),
        invalid("the order's subtotal and total must be at most 1049895200000000")
      )
      assert.deepStrictEqual((yield* Effect.flatMap(Orders, (orders) => orders.list(store.id, {}))).items, [])
    })
  )

  it.effect("lists a customer's orders, newest first, with the short summary", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const mine = [] as Array<OrderDetail>
      for (let i = 0; i < 3; i++) mine.push(yield* orders.create(store, bodyOf([{ product_id: poster, quantity: 1 }])))
      yield* orders.create(
        store,
        bodyOf([{ product_id: poster, quantity: 1 }], { customer: customer({ phone: "0770000000" }) })
      )
      yield* orders.setStatus(store.id, mine[0]!.id, { status: "confirmed" })
      const customerId = mine[0]!.customer.id
      const page = yield* orders.customerOrders(store.id, customerId, { limit: "2" })
      assert.deepStrictEqual(page.items, [
        {
          id: mine[2]!.id,
          order_number: mine[2]!.order_number,
          status: "pending",
          payment_status: "pending",
          total: 300,
          created_at: mine[2]!.created_at
        },
        {
          id: mine[1]!.id,
          order_number: mine[1]!.order_number,
          status: "pending",
          payment_status: "pending",
          total: 300,
          created_at: mine[1]!.created_at
        }
      ])
      assert.isTrue(page.has_more)
      const rest = yield* orders.customerOrders(store.id, customerId, { cursor: page.next_cursor!, limit: "2" })
      assert.deepStrictEqual(
        rest.items.map((o) => [o.id, o.status]),
        [[mine[0]!.id, "confirmed"]]
      )
      assert.isFalse(rest.has_more)
    })
  )

  it.effect("prints times in Algiers time", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, poster } = yield* shop()
      const order = yield* orders.create(store, bodyOf([{ product_id: poster, quantity: 1 }]))
      const now = yield* options.now
      // The store's clock and `now` agree to within a minute (exactly, for memory).
      const earliest = AlgiersTime.formatSql(DateTime.subtract(now, { minutes: 1 }))
      const latest = AlgiersTime.formatSql(DateTime.add(now, { minutes: 1 }))
      assert.isTrue(earliest <= order.created_at && order.created_at <= latest, `${order.created_at} ~ ${latest}`)
    })
  )
}
