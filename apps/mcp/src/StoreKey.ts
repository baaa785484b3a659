/**
 * The store key an MCP request acts with, and what that key may do. Over Streamable HTTP it is the request's bearer
 * token (`Authorization: Bearer <key_id>.<secret>`); over stdio it is the key the process was started with
 * (`TAWSIL_STORE_KEY`). Without one, only the shipping tools exist. A key's scopes are read from the store API
 * (`GET /v1/whoami`) and kept 30 seconds, as the store API's read cache keeps reads; the store API checks every call
 * again, so a key revoked meanwhile lists tools for at most that long but can call none.
 *
 * The key is a `Redacted` value from the moment it is read: it reaches the store client's `Authorization` header and
 * nothing else — no log line, no tool answer.
 */
import { StoreClient } from "@tawsil/client"
import { Cache, Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { McpServer } from "effect/ai"
import { Apis } from "./Apis.ts"

/** The request's store key, if any. */
export class StoreKey extends Context.Service<StoreKey, Option.Option<Redacted.Redacted<string>>>()(
  "@tawsil/mcp/StoreKey"
) {}

/** A key's store client and scopes (an unknown, revoked or unreachable key has none). */
export interface Session {
  readonly client: StoreClient.StoreClient
  readonly scopes: ReadonlySet<string>
}

export class Sessions extends Context.Service<
  Sessions,
  { readonly of: (key: Redacted.Redacted<string>) => Effect.Effect<Session> }
>()("@tawsil/mcp/Sessions") {}

/** How long a key's scopes are kept, and how long a key the store API refused is remembered as having none. */
const SCOPES_TTL = "30 seconds"
const REFUSED_TTL = "2 seconds"

export const layerSessions = Layer.effect(
  Sessions,
  Effect.gen(function* () {
    const apis = yield* Apis
    const cache = yield* Cache.makeWith(
      (key: Redacted.Redacted<string>) =>
        Effect.gen(function* () {
          const client = yield* StoreClient.make({ baseUrl: yield* apis.storeUrl, token: Redacted.value(key) })
          const scopes = yield* client.access.whoami().pipe(
            Effect.map((answer): ReadonlySet<string> => new Set(answer.data.scopes)),
            Effect.orElseSucceed((): ReadonlySet<string> => new Set())
          )
          return { client, scopes } satisfies Session
        }),
      {
        capacity: 1024,
        timeToLive: (exit) => (Exit.isSuccess(exit) && exit.value.scopes.size > 0 ? SCOPES_TTL : REFUSED_TTL)
      }
    )
    return Sessions.of({ of: (key) => Cache.get(cache, key) })
  })
)

/** `Bearer <token>` → the token. */
const bearerOf = (authorization: string | undefined): Option.Option<Redacted.Redacted<string>> => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? Option.none() : Option.some(Redacted.make(match[1]!))
}

/**
 * Provides each request's `StoreKey`: the HTTP request's bearer token, else `fallback` (the stdio process's key; none
 * over HTTP, where every request says its own).
 */
export const middleware = (fallback: Option.Option<Redacted.Redacted<string>>) =>
  McpServer.middleware<{ provides: StoreKey }>()((effect, { headers }) => {
    const bearer = bearerOf(headers.authorization)
    return Effect.provideService(effect, StoreKey, Option.isSome(bearer) ? bearer : fallback)
  })

/** The request's session (store tools are listed only to a request with a key, so there is one). */
export const sessionOf = (sessions: Sessions["Service"]) =>
  Effect.flatMap(StoreKey, (key) =>
    Option.isNone(key) ? Effect.die("a store tool was called without a store key") : sessions.of(key.value)
  )

/**
 * Hides the tools it is provided to unless the request's key holds one of `scopes`: a key without the scope sees no
 * such tool, and a call of it is answered as for a tool that does not exist.
 */
export const requiring = (scopes: ReadonlyArray<string>) =>
  McpServer.visibility(
    Effect.map(
      Sessions,
      (sessions) => () =>
        Effect.flatMap(StoreKey, (key) =>
          Option.isNone(key)
            ? Effect.succeed(false)
            : Effect.map(sessions.of(key.value), (session) => scopes.some((scope) => session.scopes.has(scope)))
        )
    )
  )
