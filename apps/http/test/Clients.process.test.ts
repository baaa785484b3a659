/**
 * The typed clients of `@tawsil/client` against the running app (`npm start`, a real process): the Effect clients
 * made from the HttpApi definitions and the plain `fetch` client each call every endpoint group of both APIs, and
 * get the declared failures as typed values (an Effect error of the endpoint's wire class; `{ ok: false, status,
 * error }` narrowed by status).
 */
import { assert, describe, it } from "@effect/vitest"
import { Errors as ShippingErrors } from "@tawsil/api/shipping"
import { Errors as StoreErrors } from "@tawsil/api/store"
import { ShippingClient, StoreClient } from "@tawsil/client"
import * as Fetch from "@tawsil/fetch-client"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { BigDecimal, Effect, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { runAdmin, startApp } from "./AppProcess.ts"

const parcel = (reference: string) => ({
  courier: "sandbox",
  order: {
    reference,
    recipient: {
      fullName: "Amina Benali",
      phone: "0555 12 34 56",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 5 juillet, bât. 3"
    },
    deliveryType: "home" as const,
    productList: "1x robe kabyle",
    codAmount: 4500
  }
})

const product = { name: "Robe kabyle", price: 4500, stock: 10 }

/** One app for the file, and a store on the Enterprise plan with its platform key. */
const app = Effect.gen(function* () {
  const env = { DATA_DIR: yield* TestDatabase.migratedDataDir }
  const running = yield* startApp(env, { within: 90_000 })
  const created = yield* runAdmin(env, "store", "create", "--name", "Clients")
  assert.strictEqual(created.code, 0, created.stderr)
  return { ...running, token: created.json.platform_key.bearer_token as string }
})

describe("typed clients against the running app", () => {
  it.live(
    "the Effect clients and the fetch client call every group of both APIs; declared failures arrive typed",
    () =>
      Effect.gen(function* () {
        const { shippingUrl, storeUrl, token } = yield* app

        const shipping = yield* ShippingClient.make({ baseUrl: shippingUrl })
        // Requests are their JSON: plain numbers for the wilaya and the amount, no brand or constructor.
        const created = yield* shipping.shipping.createOrder({
          payload: parcel("clients-1"),
          headers: { "idempotency-key": "clients-1" }
        })
        assert.strictEqual(created.status, "created")
        const tracked = yield* shipping.shipping.track({
          payload: { courier: "sandbox", trackingNumber: created.trackingNumber }
        })
        assert.isTrue("trackingNumber" in tracked && tracked.trackingNumber === created.trackingNumber)
        const unknown = yield* Effect.flip(
          shipping.shipping.track({ payload: { courier: "no-such-courier", trackingNumber: created.trackingNumber } })
        )
        assert.instanceOf(unknown, ShippingErrors.InvalidInput)
        assert.strictEqual(unknown instanceof ShippingErrors.InvalidInput && unknown.error.code, "unknown_courier")
        const algiers = yield* shipping.reference.wilayas({ query: { code: 16 } })
        assert.deepInclude(algiers, { code: 16, nameFr: "Alger" })
        const missing = yield* Effect.flip(shipping.reference.wilayas({ query: { code: 99 } }))
        assert.instanceOf(missing, ShippingErrors.NotFound)
        const health = yield* shipping.health()
        assert.strictEqual(health.service, "shipping")

        const store = yield* StoreClient.make({ baseUrl: storeUrl, token })
        const key = (name: string) => ({ headers: { "idempotency-key": `clients-${name}` } })
        assert.isTrue((yield* store.ping.ping()).data.pong)
        assert.strictEqual((yield* store.access.whoami()).data.auth, "platform_key")
        const made = yield* store.products.createProduct({
          payload: product,
          ...key("product")
        })
        const id = made.data.id
        // A plain number, decoded on the way back: the price is a BigDecimal, the defaulted fields filled in.
        assert.strictEqual(BigDecimal.format(made.data.price), "4500")
        assert.strictEqual(made.data.status, "active")
        const badBody = yield* Effect.flip(
          store.products.createProduct({ payload: { ...product, price: -1 }, ...key("bad") })
        )
        assert.instanceOf(badBody, Schema.SchemaError)
        assert.strictEqual((yield* store.products.listProducts({ query: { limit: 10 } })).data.items.length, 1)
        assert.strictEqual((yield* store.stock.getStock({ params: { id } })).data.stock, 10)
        assert.deepStrictEqual((yield* store.orders.listOrders({ query: {} })).data.items, [])
        assert.deepStrictEqual((yield* store.customers.listCustomers({ query: {} })).data.items, [])
        assert.deepStrictEqual((yield* store.categories.listCategories({ query: {} })).data.items, [])
        assert.deepStrictEqual((yield* store.landingPages.listLandingPages({ query: {} })).data.items, [])
        const noPage = yield* Effect.flip(store.landingPageSections.listLandingPageSections({ params: { id: 999999 } }))
        assert.instanceOf(noPage, StoreErrors.NotFound)
        assert.strictEqual((yield* store.store.getStore()).data.name, "Clients")
        yield* store.design.getDesign()
        yield* store.homeSections.getHomeSections()
        yield* store.homeLayout.getHomeLayout()
        assert.deepStrictEqual((yield* store.webhooks.listWebhooks({})).data.items, [])
        const unsigned = yield* Effect.flip(
          store.tracker.trackEvent({ headers: {}, payload: { event: "add_to_cart" } })
        )
        assert.instanceOf(unsigned, StoreErrors.Unauthorized)
        yield* store.promoCodes.listPromoCodes({ query: {} })
        yield* store.themes.listThemes()
        assert.deepStrictEqual((yield* store.pixels.listPixels({ query: {} })).data.items, [])
        yield* store.shipping.getShippingSettings()
        yield* store.changes.listChanges({ query: {} })
        assert.strictEqual((yield* store.health()).service, "store")

        const anonymous = yield* StoreClient.make({ baseUrl: storeUrl })
        const refused = yield* Effect.flip(anonymous.access.whoami())
        assert.instanceOf(refused, StoreErrors.Unauthorized)
        assert.strictEqual(refused instanceof StoreErrors.Unauthorized && refused.error.code, "unauthorized")

        // The plain client, against the same app: every group again, failures as answers narrowed by status.
        yield* Effect.promise(async () => {
          const shipping = Fetch.shipping({ baseUrl: shippingUrl })
          const created = await shipping.call("shipping.createOrder", {
            body: parcel("clients-2"),
            headers: { "idempotency-key": "clients-2" }
          })
          assert.isTrue(created.ok)
          if (!created.ok) return
          assert.strictEqual(created.data.status, "created")
          const tracked = await shipping.call("shipping.track", {
            body: { courier: "sandbox", trackingNumber: created.data.trackingNumber }
          })
          assert.isTrue(
            tracked.ok &&
              "trackingNumber" in tracked.data &&
              tracked.data.trackingNumber === created.data.trackingNumber
          )
          const unknown = await shipping.call("shipping.track", {
            body: { courier: "no-such-courier", trackingNumber: created.data.trackingNumber }
          })
          assert.deepStrictEqual(
            [unknown.ok, !unknown.ok && unknown.status === 400 && unknown.error.error.code],
            [false, "unknown_courier"]
          )
          const label = await shipping.call("shipping.label", {
            body: { courier: "sandbox", trackingNumber: created.data.trackingNumber }
          })
          assert.isTrue(label.ok && new TextDecoder().decode(label.data.slice(0, 5)) === "%PDF-")
          const algiers = await shipping.call("reference.wilayas", { query: { code: 16 } })
          assert.deepInclude(algiers.ok ? algiers.data : {}, { code: 16, nameFr: "Alger" })
          const health = await shipping.call("health")
          assert.isTrue(health.ok && health.data.service === "shipping")

          const store = Fetch.store({ baseUrl: storeUrl, token })
          const data = async <A>(
            answer: Promise<
              | { readonly ok: true; readonly data: A }
              | { readonly ok: false; readonly status: number; readonly error: unknown }
            >
          ) => {
            const settled = await answer
            if (!settled.ok) throw new Error(`${settled.status}: ${JSON.stringify(settled.error)}`)
            return settled.data
          }
          assert.isTrue((await data(store.call("ping.ping"))).data.pong)
          assert.strictEqual((await data(store.call("access.whoami"))).data.auth, "platform_key")
          const made = await data(
            store.call("products.createProduct", { body: product, headers: { "idempotency-key": "fetch-product" } })
          )
          const id = made.data.id
          // The product list is served through the 30-second read cache, which the Effect client's call filled.
          await data(store.call("products.listProducts", { query: { limit: 10 } }))
          assert.strictEqual(
            (await data(store.call("products.getProduct", { params: { id } }))).data.name,
            product.name
          )
          assert.strictEqual((await data(store.call("stock.getStock", { params: { id } }))).data.stock, 10)
          await data(store.call("orders.listOrders"))
          await data(store.call("customers.listCustomers"))
          await data(store.call("categories.listCategories"))
          await data(store.call("landingPages.listLandingPages"))
          const noPage = await store.call("landingPageSections.listLandingPageSections", { params: { id: 999999 } })
          assert.deepStrictEqual(
            [noPage.ok, !noPage.ok && noPage.status === 404 && noPage.error.error.code],
            [false, "not_found"]
          )
          assert.strictEqual((await data(store.call("store.getStore"))).data.name, "Clients")
          await data(store.call("design.getDesign"))
          await data(store.call("homeSections.getHomeSections"))
          await data(store.call("homeLayout.getHomeLayout"))
          await data(store.call("webhooks.listWebhooks"))
          const unsigned = await store.call("tracker.trackEvent", { body: {} as never })
          assert.deepStrictEqual([unsigned.ok, !unsigned.ok && unsigned.status], [false, 401])
          await data(store.call("promoCodes.listPromoCodes"))
          await data(store.call("themes.listThemes"))
          await data(store.call("pixels.listPixels"))
          await data(store.call("shipping.getShippingSettings"))
          await data(store.call("changes.listChanges"))
          assert.isTrue(((await data(store.call("health"))) as { service: string }).service === "store")

          const refused = await Fetch.store({ baseUrl: storeUrl }).call("access.whoami")
          assert.deepStrictEqual(
            [refused.ok, !refused.ok && refused.status === 401 && refused.error.error.code],
            [false, "unauthorized"]
          )
        })
      }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped),
    240_000
  )
})
