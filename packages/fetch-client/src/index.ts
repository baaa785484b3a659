/**
 * The plain `fetch` client of both APIs (`@tawsil/fetch-client`), for callers that do not use Effect: no runtime
 * dependency, types generated from the OpenAPI documents (decision 0023).
 *
 * ```ts
 * const shipping = Fetch.shipping({ baseUrl: "http://127.0.0.1:8080" })
 * const answer = await shipping.call("shipping.track", { body: { courier: "sandbox", trackingNumber: "SBX1" } })
 * if (answer.ok) answer.data.status
 * ```
 */
import * as Client from "./Client.ts"
import { type Operations as ShippingOperations, operations as shippingRoutes } from "./ShippingOperations.ts"
import { type Operations as StoreOperations, operations as storeRoutes } from "./StoreOperations.ts"

export type { Answer, ClientOptions, Input } from "./Client.ts"
export { UnexpectedAnswer } from "./Client.ts"
export type * as ShippingTypes from "./ShippingOperations.ts"
export type * as StoreTypes from "./StoreOperations.ts"
export type { ShippingOperations, StoreOperations }

export type ShippingClient = Client.Client<ShippingOperations>
export type StoreClient = Client.Client<StoreOperations>

/** A client of the shipping API. Courier credentials travel in each call's body, as the API takes them. */
export const shipping = (options: Client.ClientOptions): ShippingClient =>
  Client.make<ShippingOperations>(shippingRoutes, options)

/** A client of the store API, authenticated with a key's bearer token (`<key_id>.<secret>`). */
export const store = (options: Client.ClientOptions & { readonly token?: string }): StoreClient =>
  Client.make<StoreOperations>(storeRoutes, {
    ...options,
    headers: {
      ...options.headers,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
    }
  })
