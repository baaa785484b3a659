import { assert, describe, it } from "@effect/vitest"
import { Errors as StoreErrors } from "@tawsil/api/store"
import type { WilayaCode } from "@tawsil/domain"
import { BigDecimal, Effect, Layer, Schema } from "effect"
import { HttpClient, type HttpClientRequest, HttpClientResponse } from "effect/http"
import type { Plain } from "../src/internal/JsonClient.ts"
import * as ShippingClient from "../src/ShippingClient.ts"
import * as StoreClient from "../src/StoreClient.ts"

interface Sent {
  readonly method: string
  readonly url: string
  readonly body: unknown
}

/** An `HttpClient` that records each request and answers `answer` to it. */
const recording = (answer: (request: HttpClientRequest.HttpClientRequest) => Response) => {
  const sent: Array<Sent> = []
  const layer = Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request, url) => {
      const body =
        request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : undefined
      sent.push({ method: request.method, url: url.toString(), body })
      return Effect.succeed(HttpClientResponse.fromWeb(request, answer(request)))
    })
  )
  return { sent, layer }
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const product = {
  id: 7,
  name: "Robe",
  description: null,
  sku: null,
  price: 1500,
  compare_at_price: null,
  status: "active",
  digital: false,
  stock: 5,
  sales_count: 0,
  category_ids: [],
  variant_groups: [],
  created_at: "2026-01-01 10:00:00",
  updated_at: "2026-01-01 10:00:00"
}

describe("the Effect clients take requests as their JSON", () => {
  it("a branded value is written plain", () => {
    const code: Plain<WilayaCode.WilayaCode> = 16
    const nested: Plain<{ readonly wilayas: ReadonlyArray<WilayaCode.WilayaCode> }> = { wilayas: [16, 31] }
    assert.deepStrictEqual([code, nested], [16, { wilayas: [16, 31] }])
  })

  it.effect("a product create with plain numbers and no defaulted field sends that JSON and answers decoded", () => {
    const { sent, layer } = recording(() => json(200, { data: product, meta: { request_id: "r1", api_version: "v1" } }))
    return Effect.gen(function* () {
      const store = yield* StoreClient.make({ baseUrl: "http://store.test", token: "twpk_test_1.secret" })
      const made = yield* store.products.createProduct({
        payload: { name: "Robe", price: 1500, stock: 5 },
        headers: { "idempotency-key": "p-1" }
      })
      assert.isTrue(BigDecimal.isBigDecimal(made.data.price))
      assert.strictEqual(BigDecimal.format(made.data.price), "1500")
      assert.strictEqual(sent[0]!.method, "POST")
      assert.strictEqual(sent[0]!.url, "http://store.test/v1/products")
      // The body as the server reads it: the same numbers, the defaults it would have applied written out.
      assert.deepInclude(sent[0]!.body as object, { name: "Robe", price: 1500, stock: 5, status: "active" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a body that breaks a rule fails with SchemaError before anything is sent", () => {
    const { sent, layer } = recording(() => json(500, {}))
    return Effect.gen(function* () {
      const store = yield* StoreClient.make({ baseUrl: "http://store.test" })
      const failed = yield* Effect.flip(
        store.products.createProduct({ payload: { name: "Robe", price: -1 }, headers: { "idempotency-key": "p-2" } })
      )
      assert.instanceOf(failed, Schema.SchemaError)
      assert.deepStrictEqual(sent, [])
    }).pipe(Effect.provide(layer))
  })

  it.effect("path and query values are plain: an id and a page size as numbers, on the URL as text", () => {
    const { sent, layer } = recording((request) =>
      request.url.endsWith("/stock")
        ? json(404, {
            error: { code: "not_found", message: "no product 9" },
            meta: { request_id: "r2", api_version: "v1" }
          })
        : json(200, {
            data: { items: [], next_cursor: null, has_more: false },
            meta: { request_id: "r3", api_version: "v1" }
          })
    )
    return Effect.gen(function* () {
      const store = yield* StoreClient.make({ baseUrl: "http://store.test" })
      const listed = yield* store.products.listProducts({ query: { limit: 10 } })
      assert.deepStrictEqual(listed.data.items, [])
      const missing = yield* Effect.flip(store.stock.getStock({ params: { id: 9 } }))
      assert.instanceOf(missing, StoreErrors.NotFound)
      assert.deepStrictEqual(
        sent.map(({ url }) => url),
        ["http://store.test/v1/products?limit=10", "http://store.test/v1/products/9/stock"]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("a parcel create takes the wilaya and the amount as plain numbers", () => {
    const { sent, layer } = recording(() =>
      json(200, { trackingNumber: "SBX1", status: "created", reference: "TW-1", labelUrl: "https://x.test/l.pdf" })
    )
    return Effect.gen(function* () {
      const shipping = yield* ShippingClient.make({ baseUrl: "http://ship.test" })
      const order = {
        recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
        deliveryType: "home" as const,
        productList: "1x robe",
        codAmount: 3000
      }
      const created = yield* shipping.shipping.createOrder({ payload: { courier: "sandbox", order } })
      assert.strictEqual(created.trackingNumber, "SBX1")
      assert.deepStrictEqual(sent[0]!.body, { courier: "sandbox", order })
      const algiers = yield* Effect.flip(shipping.reference.wilayas({ query: { code: 16 } }))
      assert.isDefined(algiers)
      assert.strictEqual(sent[1]!.url, "http://ship.test/v1/wilayas?code=16")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a batch create and a label sheet: the orders as JSON, the merged PDF answered as bytes", () => {
    const pdf = new TextEncoder().encode("%PDF-1.7 sheet")
    const { sent, layer } = recording((request) =>
      request.url.endsWith("/v1/labels/batch")
        ? json(200, {
            pdf: Buffer.from(pdf).toString("base64"),
            pageCount: 1,
            labels: [{ index: 0, trackingNumber: "SBX1", pages: 1 }],
            errors: [{ index: 1, trackingNumber: "SBX2", error: { code: "courier_refused", message: "unknown" } }]
          })
        : json(200, {
            results: [
              { trackingNumber: "SBX1", status: "created", reference: "cmd-1" },
              { reference: "cmd-2", error: { status: 422, code: "invalid_phone", message: "not a mobile" } }
            ],
            created: 1,
            failed: 1
          })
    )
    return Effect.gen(function* () {
      const shipping = yield* ShippingClient.make({ baseUrl: "http://ship.test" })
      const order = (reference: string) => ({
        reference,
        recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
        deliveryType: "home" as const,
        productList: "1x robe",
        codAmount: 3000
      })
      const batch = yield* shipping.shipping.createOrders({
        payload: { courier: "sandbox", orders: [order("cmd-1"), order("cmd-2")] }
      })
      assert.deepStrictEqual([batch.created, batch.failed], [1, 1])
      assert.deepStrictEqual(sent[0]!.body, { courier: "sandbox", orders: [order("cmd-1"), order("cmd-2")] })
      const sheet = yield* shipping.shipping.labels({
        payload: { courier: "sandbox", trackingNumbers: ["SBX1", "SBX2"] }
      })
      assert.deepStrictEqual(sheet.pdf, pdf)
      assert.strictEqual(sheet.errors[0]!.error.code, "courier_refused")
    }).pipe(Effect.provide(layer))
  })
})
