import { assert, describe, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { ShippingApi } from "../src/shipping/index.ts"
import { StoreApi } from "../src/store/index.ts"

describe("Definitions", () => {
  it("describe both APIs without a server: their OpenAPI documents name their routes", () => {
    const shipping = OpenApi.fromApi(ShippingApi)
    const store = OpenApi.fromApi(StoreApi)
    assert.deepStrictEqual(Object.keys(shipping.paths["/v1/orders"] ?? {}), ["post"])
    assert.includeMembers(Object.keys(store.paths["/v1/orders"] ?? {}), ["get", "post"])
    assert.strictEqual(shipping.info.title, "Tawsil shipping API")
    assert.strictEqual(store.info.title, "Tawsil store API")
  })
})
