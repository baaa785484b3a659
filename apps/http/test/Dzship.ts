/**
 * The public dzship client, typed as it behaves. Its package types declare the static helpers inside a namespace
 * that also has an explicit `export { DzshipError }`, which hides them from TypeScript; and they describe a CommonJS
 * module whose `default` is the client (at run time the client also carries itself as `.default`).
 */
import type {
  Client,
  ClientConfig,
  Commune,
  CommuneQuery,
  CourierInfo,
  CourierQuery,
  RequestOptions,
  Wilaya,
  WilayaQuery
} from "dzship"
import dzshipModule from "dzship"
import { Effect } from "effect"

export interface Dzship {
  (config: ClientConfig): Client
  couriers(query?: CourierQuery, options?: RequestOptions): Promise<Array<CourierInfo>>
  wilayas(query?: WilayaQuery, options?: RequestOptions): Promise<Array<Wilaya> | Wilaya>
  communes(query?: CommuneQuery, options?: RequestOptions): Promise<Array<Commune>>
  health(options?: RequestOptions): Promise<{ status: string }>
}

export interface DzshipError extends Error {
  readonly status: number
  readonly code: string
  readonly fields?: Record<string, unknown>
  readonly retryAfter?: number
}

export const dzship = dzshipModule.default as unknown as Dzship

/** The error a client call fails with; the test fails if it succeeds. */
export const rejected = (promise: Promise<unknown>) =>
  Effect.promise(() =>
    promise.then(
      () => {
        throw new Error("expected the call to fail")
      },
      (error: DzshipError) => error
    )
  )
