/**
 * The store API's pipeline, as the two middlewares its definition declares (`Api.ts`): `Gate` on every keyed call,
 * `Idempotent` on every write. The rules are the domain's (`Access` for keys, metering and gates, `Idempotency` for
 * keys and replays); these put them in the spec's order and speak HTTP: headers, the envelope, status codes.
 *
 * Each listener runs them in its mode: the public one (`edge`), or the origin listener (the spec's alias host), where
 * there is no idempotent replay (no `Idempotency-Key` needed), no per-minute limit and no read cache. Usage is
 * counted and the monthly quota applies on both.
 *
 * `Signed` runs the signed routes (`/v1/signups`, `/v1/events`): `PublicAccess` (`TW-Public`, `@tawsil/signing`)
 * over the raw body, then the same gates; on the origin listener they do not exist.
 */
import { Access, AccessError, PublicAccess } from "@tawsil/access"
import { Idempotency } from "@tawsil/idempotency"
import { SigningError } from "@tawsil/signing"
import { Context, Effect, Layer, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint, HttpApiError } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { pathOf, RequestId } from "../Edge.ts"
import {
  Caller,
  CallNonce,
  Gate,
  Idempotent,
  KeyManagement,
  NoAppTokens,
  ReadCached,
  RequestBody,
  RequiredScope,
  Signed,
  StoredAs
} from "./Api.ts"
import * as Errors from "./Errors.ts"
import { ReadCache } from "./ReadCache.ts"

export type Mode = "edge" | "origin"

const API_VERSION_HEADER = { "x-api-version": Errors.API_VERSION } as const

/** What an endpoint requires beyond a valid key, from its annotations. */
const requirementOf = (endpoint: HttpApiEndpoint.Top): Access.Requirement => ({
  scope: Option.getOrUndefined(Context.getOption(endpoint.annotations, RequiredScope)),
  keyManagement: Context.getOption(endpoint.annotations, KeyManagement)._tag === "Some",
  noAppTokens: Context.getOption(endpoint.annotations, NoAppTokens)._tag === "Some"
})

const textOf = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const body = response.body
  return body._tag === "Uint8Array" ? (body.text ?? new TextDecoder().decode(body.body)) : undefined
}

const json = (status: number, body: string, headers: Readonly<Record<string, string>>) =>
  HttpServerResponse.text(body, { status, contentType: "application/json", headers })

/** A failure of the call, in the envelope: the domain's, ours, or an undecodable parameter (400). */
const failureOf = (error: unknown, requestId: string): Errors.Failure | undefined => {
  if (Errors.isFailure(error)) return error
  if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
    return Errors.failure(Errors.BadRequest, `Invalid ${error.kind.toLowerCase()}: ${error.cause.message}`, requestId)
  }
  return undefined
}

export const gate = (mode: Mode) =>
  Layer.effect(
    Gate,
    Effect.gen(function* () {
      const access = yield* Access.Access
      const cache = yield* ReadCache
      return Gate.of((httpEffect, { endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const requestId = yield* RequestId
          const requirement = requirementOf(endpoint)
          const cached = mode === "edge" && Context.getOption(endpoint.annotations, ReadCached)._tag === "Some"
          // Headers every answer of the call carries, its failures included.
          const headers: Record<string, string> = {}

          const answer = Effect.gen(function* () {
            const principal = yield* access.authenticate(
              request.headers.authorization,
              Option.getOrElse(request.remoteAddress, () => ""),
              requirement
            )
            // The gates are decided before the cache is read: a key that lost its plan, pilot, status or scope is
            // refused even where another call of it cached the answer. They refuse after metering, which counts
            // every authenticated call; a cache hit is counted nowhere.
            const refusal = Access.check(principal, requirement)
            const cacheKey = `${principal.keyId} ${request.url}`
            if (cached && refusal === undefined) {
              const hit = cache.get(cacheKey)
              if (hit !== undefined) {
                return json(200, `{"data":${hit},"meta":${JSON.stringify(Errors.metaOf(requestId))}}`, {
                  "x-cache": "HIT"
                })
              }
            }
            const limits = yield* access.meter(principal).pipe(
              // The origin listener has no per-minute limit; the monthly quota still applies.
              Effect.catchReason("AccessError", "RateLimited", (error) =>
                mode === "origin" ? Effect.succeed(undefined) : Effect.fail(AccessError.fail(error))
              )
            )
            if (limits !== undefined && limits.limit >= 0 && mode === "edge") {
              headers["ratelimit-limit"] = String(limits.limit)
              headers["ratelimit-remaining"] = String(limits.remaining)
              headers["ratelimit-reset"] = String(limits.resetSeconds)
            }
            if (refusal !== undefined) return yield* AccessError.fail(refusal)
            const response = yield* Effect.provideService(httpEffect, Caller, principal)
            if (cached && response.status === 200) {
              const text = textOf(response)
              if (text !== undefined) {
                cache.set(cacheKey, JSON.stringify((JSON.parse(text) as { readonly data: unknown }).data))
                headers["x-cache"] = "MISS"
              }
            }
            return response
          })

          return yield* answer.pipe(
            Effect.map((response) =>
              HttpServerResponse.setHeaders(
                response,
                // A replay or a cache hit is an earlier answer: no `X-Api-Version` (spec "Headers").
                response.headers["idempotency-replay"] !== undefined || response.headers["x-cache"] === "HIT"
                  ? headers
                  : { ...headers, ...API_VERSION_HEADER }
              )
            ),
            Effect.catch((error: unknown) => {
              const failure =
                error instanceof AccessError.AccessError
                  ? Errors.fromDomain(error, requestId)
                  : failureOf(error, requestId)
              // Anything else is a bug: the edge logs it and answers 500.
              return failure === undefined
                ? Effect.die(error)
                : Effect.succeed(Errors.respond(failure, { ...headers, ...API_VERSION_HEADER }))
            })
          )
        })
      )
    })
  )

/** Deeper bodies are refused: no write body nests more than a few levels, and the work on a body must stay bounded. */
export const MAX_BODY_DEPTH = 32

/** Whether a parsed JSON value nests arrays and objects deeper than `limit` (iteratively: any depth is safe). */
const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth >= limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}

/** A body's text as JSON (400 when it is not, or nests too deep). */
const parseJson = (text: string, requestId: string) => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return Effect.fail(Errors.failure(Errors.BadRequest, "Body must be valid JSON", requestId))
  }
  return nestsDeeperThan(body, MAX_BODY_DEPTH)
    ? Effect.fail(Errors.failure(Errors.BadRequest, `Body nests deeper than ${MAX_BODY_DEPTH} levels`, requestId))
    : Effect.succeed(body)
}

const readJson = (request: HttpServerRequest.HttpServerRequest, requestId: string) =>
  Effect.flatMap(Effect.orDie(request.text), (text) => parseJson(text, requestId))

const isRefusal = (error: unknown): error is Idempotency.KeyReused | Idempotency.InFlight =>
  error instanceof Idempotency.KeyReused || error instanceof Idempotency.InFlight

export const idempotent = (mode: Mode) =>
  Layer.effect(
    Idempotent,
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const sql = yield* SqlClient.SqlClient
      return Idempotent.of((httpEffect, { endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const requestId = yield* RequestId
          const principal = yield* Caller
          const takesBody = endpoint.payload.size > 0
          if (mode === "origin") {
            const body = takesBody ? yield* readJson(request, requestId) : undefined
            return yield* sql
              .withTransaction(Effect.provideService(httpEffect, RequestBody, body))
              .pipe(Effect.catchTag("SqlError", Effect.die))
          }
          const key = yield* Idempotency.parseKey(request.headers["idempotency-key"]).pipe(
            Effect.mapError((error) => Errors.fromIdempotency(error, requestId))
          )
          const body = takesBody ? yield* readJson(request, requestId) : undefined
          const claim = {
            scope: idempotency.scope(["store", principal.store.id]),
            key,
            fingerprint: idempotency.fingerprint({ method: request.method, path: pathOf(request.url), body })
          }
          const stored = (status: number, text: string) =>
            new Idempotency.StoredResponse({ status, headers: {}, body: text })
          const keep = Option.getOrUndefined(Context.getOption(endpoint.annotations, StoredAs))
          // The write and its key's record commit together. A failure that is an answer (a 4xx) rolls the write's
          // partial work back, and is then recorded on its own under the same key.
          let sent: HttpServerResponse.HttpServerResponse | undefined
          const write = Effect.provideService(httpEffect, RequestBody, body).pipe(
            Effect.map((response) => {
              sent = response
              const text = textOf(response) ?? ""
              if (keep === undefined) return stored(response.status, text)
              const answer = JSON.parse(text) as { readonly data: unknown }
              return stored(response.status, JSON.stringify({ ...answer, data: keep(answer.data) }))
            })
          )
          const { response, replayed } = yield* sql.withTransaction(idempotency.run(claim, write)).pipe(
            Effect.catchIf(Errors.isFailure, (failure) => {
              const { status, body: text } = Errors.rendered(failure)
              return sql.withTransaction(idempotency.run(claim, Effect.succeed(stored(status, text))))
            }),
            Effect.catchIf(isRefusal, (error) => Effect.fail(Errors.fromIdempotency(error, requestId))),
            Effect.catchTag("SqlError", Effect.die)
          )
          if (!replayed && sent !== undefined) return sent
          // A replay is the first answer, byte for byte (its `meta.request_id` too); this call's id is in the header.
          return json(response.status, response.body, replayed ? { "idempotency-replay": "1" } : {})
        })
      )
    })
  )

/** The routes `Signed` serves, which do not exist on the origin listener. */
export const SIGNED_PATHS: ReadonlySet<string> = new Set(["/v1/signups", "/v1/events"])

export const signed = (mode: Mode) =>
  Layer.effect(
    Signed,
    Effect.gen(function* () {
      const publicAccess = yield* PublicAccess.PublicAccess
      return Signed.of((httpEffect, { endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const requestId = yield* RequestId
          const answer = Effect.gen(function* () {
            if (mode === "origin") {
              // As the edge answers an unknown route: these routes are not served here (spec, alias host).
              return yield* Effect.fail(
                Errors.failure(Errors.NotFound, `No route for ${request.method} ${pathOf(request.url)}`, requestId)
              )
            }
            // The signature covers the raw bytes: read them as sent, before anything parses them.
            const bytes = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
            const caller = yield* publicAccess.authenticate(
              {
                authorization: request.headers.authorization,
                timestamp: request.headers["x-tw-timestamp"],
                nonce: request.headers["x-tw-nonce"],
                signature: request.headers["x-tw-signature"],
                body: bytes
              },
              Option.getOrElse(request.remoteAddress, () => "")
            )
            const refusal = Access.check(caller.principal, requirementOf(endpoint))
            if (refusal !== undefined) return yield* AccessError.fail(refusal)
            const body = yield* parseJson(new TextDecoder().decode(bytes), requestId)
            return yield* httpEffect.pipe(
              Effect.provideService(Caller, caller.principal),
              Effect.provideService(RequestBody, body),
              Effect.provideService(CallNonce, caller.nonce)
            )
          })
          return yield* answer.pipe(
            Effect.map((response) => HttpServerResponse.setHeaders(response, API_VERSION_HEADER)),
            Effect.catch((error: unknown) => {
              const failure =
                error instanceof AccessError.AccessError || error instanceof SigningError.SigningError
                  ? Errors.fromDomain(error, requestId)
                  : failureOf(error, requestId)
              return failure === undefined
                ? Effect.die(error)
                : Effect.succeed(Errors.respond(failure, mode === "origin" ? {} : API_VERSION_HEADER))
            })
          )
        })
      )
    })
  )
