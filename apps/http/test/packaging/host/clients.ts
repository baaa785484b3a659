/**
 * An integrator's program outside the repository, as the packaging test installs it from the tarballs: a parcel and a
 * product created with plain JSON through both Effect clients and through the fetch client — no brand, no
 * `BigDecimal` constructor — type-checked by `tsc` (it is not run: there is no app beside it; `Clients.process.test.ts` runs
 * the same calls against the running app).
 */
import * as ShippingClient from "@tawsil/client/shipping"
import * as StoreClient from "@tawsil/client/store"
import * as Fetch from "@tawsil/fetch-client"
import { BigDecimal, Effect } from "effect"
import { FetchHttpClient } from "effect/http"

const order = {
  recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
  deliveryType: "home",
  productList: "1x robe kabyle",
  codAmount: 3000
} as const

const product = { name: "Robe kabyle", price: 1500, stock: 5 }

export const withEffect = Effect.gen(function* () {
  const shipping = yield* ShippingClient.make({ baseUrl: "http://127.0.0.1:8080" })
  const parcel = yield* shipping.shipping.createOrder({ payload: { courier: "sandbox", order } })
  const store = yield* StoreClient.make({ baseUrl: "http://127.0.0.1:8081", token: "twpk_live_1.secret" })
  const made = yield* store.products.createProduct({ payload: product, headers: { "idempotency-key": "p-1" } })
  const page = yield* store.products.listProducts({ query: { limit: 10 } })
  const stock = yield* store.stock.getStock({ params: { id: made.data.id } })
  return {
    trackingNumber: parcel.trackingNumber,
    price: BigDecimal.format(made.data.price),
    listed: page.data.items.length,
    stock: stock.data.stock
  }
}).pipe(Effect.provide(FetchHttpClient.layer))

export const withFetch = async () => {
  const shipping = Fetch.shipping({ baseUrl: "http://127.0.0.1:8080" })
  const parcel = await shipping.call("shipping.createOrder", { body: { courier: "sandbox", order } })
  const store = Fetch.store({ baseUrl: "http://127.0.0.1:8081", token: "twpk_live_1.secret" })
  const made = await store.call("products.createProduct", { body: product, headers: { "idempotency-key": "p-2" } })
  const page = await store.call("products.listProducts", { query: { limit: 10 } })
  return {
    trackingNumber: parcel.ok ? parcel.data.trackingNumber : undefined,
    id: made.ok ? made.data.data.id : undefined,
    listed: page.ok ? page.data.data.items.length : undefined
  }
}
