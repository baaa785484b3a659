/**
 * The typed Effect client of the shipping API, made by effect's `HttpApiClient` from its definition
 * (`@tawsil/api/shipping`): one method per endpoint, grouped as the API is (`shipping`, `reference`, and `health` at
 * the top). A request is its JSON — `{ payload: { courier: "sandbox", order: { …, wilayaCode: 16, codAmount: 3000 } } }`
 * — and the answer is decoded; each method fails with the endpoint's declared wire errors (`InvalidInput`,
 * `Unprocessable`, `RateLimited`, …). Needs an `HttpClient` (`FetchHttpClient.layer` from `effect/http`, or Node's).
 */
import { ShippingApi } from "@tawsil/api/shipping"
import type { Effect } from "effect"
import * as JsonClient from "./internal/JsonClient.ts"

export interface Options {
  /** `http://127.0.0.1:8080` for a local app. */
  readonly baseUrl: string | URL
}

export const make = (options: Options) => JsonClient.make(ShippingApi, { baseUrl: options.baseUrl })

export type ShippingClient = Effect.Success<ReturnType<typeof make>>
