/**
 * The typed Effect client of the store API, made by effect's `HttpApiClient` from its definition
 * (`@tawsil/api/store`): one method per endpoint, grouped by resource (`orders`, `products`, `promo_codes`, …), each
 * failing with the endpoint's declared wire errors (`StoreUnauthorized`, `StoreNotFound`, … in `{ error, meta }`).
 * Every call carries the key's bearer token; writes take their `Idempotency-Key` as a header.
 */
import { StoreApi } from "@tawsil/api/store"
import type { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

export interface Options {
  /** `http://127.0.0.1:8081` for a local app. */
  readonly baseUrl: string | URL
  /** A key's `bearer_token` (`<key_id>.<secret>`); omitted, only the unauthenticated routes answer. */
  readonly token?: string
}

export const make = (options: Options) =>
  HttpApiClient.make(StoreApi, {
    baseUrl: options.baseUrl,
    ...(options.token === undefined
      ? {}
      : { transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token)) })
  })

export type StoreClient = Effect.Success<ReturnType<typeof make>>
