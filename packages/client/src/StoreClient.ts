/**
 * The typed Effect client of the store API, made by effect's `HttpApiClient` from its definition
 * (`@tawsil/api/store`): one method per endpoint, grouped by resource (`orders`, `products`, `promo_codes`, …). A
 * request is its JSON — `{ payload: { name: "Robe", price: 1500, stock: 5 }, headers: { "idempotency-key": "…" } }`,
 * defaulted fields left out — and the answer is decoded; each method fails with the endpoint's declared wire errors
 * (`StoreUnauthorized`, `StoreNotFound`, … in `{ error, meta }`). Every call carries the key's bearer token.
 */
import { StoreApi } from "@tawsil/api/store"
import type { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as JsonClient from "./internal/JsonClient.ts"

export interface Options {
  /** `http://127.0.0.1:8081` for a local app. */
  readonly baseUrl: string | URL
  /** A key's `bearer_token` (`<key_id>.<secret>`); omitted, only the unauthenticated routes answer. */
  readonly token?: string
}

export const make = (options: Options) =>
  JsonClient.make(StoreApi, {
    baseUrl: options.baseUrl,
    transformClient:
      options.token === undefined ? undefined : HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token))
  })

export type StoreClient = Effect.Success<ReturnType<typeof make>>
