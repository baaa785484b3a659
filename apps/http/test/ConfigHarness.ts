/**
 * What the configuration suites (promo codes, themes, pixels, change history) share on top of `StoreHarness`: a
 * client bound to one key, the three kinds of caller (a dashboard key made by the admin CLI, a key minted through
 * `POST /v1/keys`, an installed-app token) and fixtures written straight to the database, as the dashboard or
 * billing would.
 */
import { Admin } from "@tawsil/access"
import { Effect, Redacted } from "effect"
import { type Answer, baseUrl, call, createStore, sql } from "./StoreHarness.ts"

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

/** A key minted through `POST /v1/keys` by `minter`: the core default scopes only. */
export const apiKey = (minter: Client) =>
  Effect.gen(function* () {
    const minted = yield* minter.write("POST", "/v1/keys", { name: "minted" })
    return yield* client(minted.body.data.bearer_token as string)
  })

/** An installed-app token of the store with these scopes. */
export const appToken = (storeId: number, scopes: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const created = yield* (yield* Admin.Admin).createAppToken(storeId, scopes).pipe(Effect.orDie)
    return yield* client(Redacted.value(created.token))
  })

/** Changes a store's plan and its expiry, as billing would. */
export const setPlan = (storeId: number, plan: string, expiresAt: Date | null = null) =>
  Effect.flatMap(sql, (client) =>
    client`UPDATE stores SET plan = ${plan}, plan_expires_at = ${expiresAt} WHERE id = ${storeId}`.pipe(
      Effect.asVoid,
      Effect.orDie
    )
  )

/** The error code and status of an answer. */
export const codeOf = (answer: Answer) => [answer.status, answer.body?.error?.code] as const
