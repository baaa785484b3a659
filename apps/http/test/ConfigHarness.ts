/**
 * What the socket suites of the configuration (the change history's) share on top of `StoreHarness`: a client bound
 * to one key, and a store with a dashboard key made by the admin CLI. The in-memory twins of these fixtures are in
 * `store/InMemory.ts`.
 */
import type { Admin } from "@tawsil/access"
import { Effect } from "effect"
import { type Answer, baseUrl, call, createStore } from "./StoreHarness.ts"

let keys = 0
/** A fresh `Idempotency-Key`. */
export const key = () => `cfg-${Date.now()}-${++keys}`

export interface Client {
  readonly token: string
  readonly get: (path: string) => Effect.Effect<Answer>
  /** A write with a fresh `Idempotency-Key` unless one is given. */
  readonly write: (method: string, path: string, body?: unknown, idempotencyKey?: string) => Effect.Effect<Answer>
}

export const client = (token: string) =>
  Effect.map(
    baseUrl,
    (base): Client => ({
      token,
      get: (path) => call(base, "GET", path, { token }),
      write: (method, path, body, idempotencyKey) =>
        call(base, method, path, { token, key: idempotencyKey ?? key(), ...(body === undefined ? {} : { body }) })
    })
  )

/** A store (Enterprise, pilot) and a client with its first key, made by the admin CLI: the dashboard scope set. */
export const dashboardStore = (input: Partial<Admin.CreateStoreInput> = {}) =>
  Effect.gen(function* () {
    const store = yield* createStore(input)
    return { id: store.id, dashboard: yield* client(store.token) }
  })

/** The error code and status of an answer. */
export const codeOf = (answer: Answer) => [answer.status, answer.body?.error?.code] as const
