/**
 * The typed Effect client of the shipping API, made by effect's `HttpApiClient` from its definition
 * (`@tawsil/api/shipping`): one method per endpoint, grouped as the API is (`shipping`, `reference`, `health`), each
 * failing with the endpoint's declared wire errors (`InvalidInput`, `Unprocessable`, `RateLimited`, …). Needs an
 * `HttpClient` (`FetchHttpClient.layer` from `effect/http`, or Node's).
 */
import { ShippingApi } from "@tawsil/api/shipping"
import type { Effect } from "effect"
import { HttpApiClient } from "effect/http-api"

export interface Options {
  /** `http://127.0.0.1:8080` for a local app. */
  readonly baseUrl: string | URL
}

export const make = (options: Options) => HttpApiClient.make(ShippingApi, { baseUrl: options.baseUrl })

export type ShippingClient = Effect.Success<ReturnType<typeof make>>
