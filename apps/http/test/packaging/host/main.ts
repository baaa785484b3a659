/**
 * A host program outside the repository, as the embedding test installs it: only the packed tarballs of the domain
 * packages (plus `effect`), type-checked by `tsc` and run by plain `node`. It prices an order, walks the order state
 * machine, creates an order through `Orders` on the memory store and replays that create through `Idempotency`,
 * then prints what it saw as one JSON line for the test to check.
 */

import { CanonicalStatus } from "@tawsil/courier"
import { Ids, StoreAmount } from "@tawsil/domain"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { OrderStatus, OrderStore, Orders } from "@tawsil/orders"
import { Pricing } from "@tawsil/pricing"
import { BigDecimal, Effect, Layer, Result } from "effect"

const dzd = (text: string): StoreAmount.StoreAmount => BigDecimal.fromStringUnsafe(text)

// Pricing: pure functions over exact amounts.
const priced = Pricing.priceOrder({
  lines: [
    {
      product: {
        price: dzd("1250.50"),
        options: [{ group_name: "Size", option_name: "XL", price_adjustment: dzd("100") }]
      },
      quantity: 2,
      variants: [{ group_name: "Size", option_name: "XL", color_code: null, price_adjustment: dzd("0") }]
    }
  ],
  shipping_cost: dzd("400"),
  discount: dzd("0.5"),
  payment_fee: dzd("0")
})

// The order state machine: a table and a decision, no storage.
const walk: Array<string> = ["pending"]
let current: OrderStatus.OrderStatus = "pending"
for (const next of ["confirmed", "processing", "shipped", "delivered"] as const) {
  const decision = OrderStatus.decide({ status: current, stock_committed: current !== "pending" }, next)
  if (Result.isFailure(decision)) throw new Error(`unexpected refusal ${current} -> ${next}`)
  current = next
  walk.push(current)
}
const backwards = OrderStatus.decide({ status: "delivered", stock_committed: true }, "pending")

const store = { id: Ids.StoreId.make(1), plan: "pro" }
const body = {
  customer: { name: "Amine", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" },
  items: [{ product_id: 7, quantity: 2 }]
}

// The host provides the ports: here the memory stores, seeded with one catalogue product.
const ports = Layer.mergeAll(
  Orders.layer.pipe(
    Layer.provide(
      OrderStore.layerMemory({
        products: [
          {
            id: 7,
            store_id: 1,
            price: dzd("990"),
            digital: false,
            stock: 10,
            sales_count: 0,
            deleted: false,
            groups: []
          }
        ]
      })
    )
  ),
  Idempotency.layer().pipe(Layer.provide(IdempotencyStore.layerMemory))
)

const program = Effect.gen(function* () {
  const orders = yield* Orders.Orders
  const idempotency = yield* Idempotency.Idempotency
  const request: Idempotency.Request = {
    scope: idempotency.scope(["store", store.id]),
    key: Idempotency.IdempotencyKey.make("create-order-1"),
    fingerprint: idempotency.fingerprint({ method: "POST", path: "/v1/orders", body })
  }
  const create = orders.create(store, body).pipe(
    Effect.map(
      (order) =>
        new Idempotency.StoredResponse({
          status: 201,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(order)
        })
    )
  )
  const first = yield* idempotency.run(request, create)
  const second = yield* idempotency.run(request, create)
  const page = yield* orders.list(store.id, {})
  const created = JSON.parse(first.response.body) as {
    readonly id: number
    readonly amounts: { readonly total: number }
  }
  const confirmed = yield* orders.setStatus(store.id, created.id, { status: "confirmed" })
  return {
    subtotal: StoreAmount.format(priced.subtotal),
    total: StoreAmount.format(priced.total),
    walk,
    backwards: Result.isFailure(backwards) ? backwards.failure._tag : "allowed",
    orderTotal: created.amounts.total,
    replayed: [first.replayed, second.replayed],
    sameAnswer: first.response.body === second.response.body,
    ordersStored: page.items.length,
    confirmed: confirmed.status,
    courierTerminal: [...CanonicalStatus.terminal].sort()
  }
})

Effect.runPromise(program.pipe(Effect.provide(ports))).then(
  (result) => console.log(JSON.stringify(result)),
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
