/**
 * The store API's request pipeline (docs/store-api.md "How a request flows"): authenticate the key, meter the
 * call (usage, per-minute budget, monthly quota), check plan, pilot and scope, then serve a read (through the
 * 30-second read cache where the spec names the route) or a write (under its `Idempotency-Key`, in one
 * transaction with the claim), and answer in the envelope with the spec's headers.
 *
 * Handlers return the payload (`data`) or fail with a `StoreErrors` failure; everything about the wire is here.
 * Answers are serialised once: the read cache and the idempotency record keep the `{"data":…}` or `{"error":…}`
 * text, and `meta` (this request's id) is added when the answer is sent, so every answer's `meta.request_id`
 * equals its `X-Request-Id`, replays and cache hits included.
 */
import { Access, type Principal } from "@tawsil/access"
import { StoreErrors } from "@tawsil/domain"
import { Idempotency } from "@tawsil/idempotency"
import { Context, Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { pathOf, RequestId } from "../Edge.ts"
import { ReadCache } from "./ReadCache.ts"

/**
 * Which listener serves the request: the public one (`edge`), or the origin listener (the spec's alias host), where
 * there is no idempotent replay (no `Idempotency-Key` needed), no per-minute limit and no read cache. Usage is
 * counted and the monthly quota applies on both.
 */
export const Listener = Context.Reference<"edge" | "origin">("@tawsil/http/store/Listener", {
  defaultValue: () => "edge"
})

/** What a handler sees of its request. */
export interface Call {
  readonly principal: Principal.Principal
  readonly params: Readonly<Record<string, string | undefined>>
  readonly query: Readonly<Record<string, string | undefined>>
  /** The parsed JSON body of a write that takes one; `undefined` otherwise. */
  readonly body: unknown
}

export type Handler<A, R> = (call: Call) => Effect.Effect<A, StoreErrors.StoreError, R>

/** How an endpoint is guarded and served. */
export interface Policy<A = unknown> {
  /** Encodes the handler's value to its JSON form (exact amounts, Algiers times); absent: already JSON. */
  readonly success?: Schema.Codec<A, unknown> | undefined
  /** The scope checked (`Missing scope: …`); reads of store, products, orders, customers, pages check none. */
  readonly scope?: string | undefined
  /** Key management: platform keys only. */
  readonly keyManagement?: boolean | undefined
  /** Served through the 30-second read cache (GET only). */
  readonly cached?: boolean | undefined
  /** A write that reads a JSON body (other writes ignore any body). */
  readonly body?: boolean | undefined
  /**
   * What the idempotency record keeps of a successful answer, when it must differ from what is sent: a minted
   * key's secret is shown once and never stored, so its replay carries none.
   */
  readonly stored?: ((encoded: unknown) => unknown) | undefined
}

const API_VERSION = { "x-api-version": "v1" } as const

/** A payload `{"data":…}` / `{"error":…}` with this request's `meta` added. */
const withMeta = (payload: string, requestId: string) =>
  `${payload.slice(0, -1)},"meta":{"request_id":${JSON.stringify(requestId)},"api_version":"v1"}}`

const dataPayload = (data: unknown) => `{"data":${JSON.stringify(data)}}`

const errorPayload = (error: StoreErrors.StoreError) =>
  JSON.stringify({
    error: {
      code: error.code,
      message: error.message,
      ...(error._tag === "RateLimited" ? { retry_after: error.retryAfterSeconds } : {})
    }
  })

const respond = (status: number, payload: string, requestId: string, headers: Readonly<Record<string, string>>) =>
  HttpServerResponse.text(withMeta(payload, requestId), { status, contentType: "application/json", headers })

const retryAfterOf = (error: StoreErrors.StoreError) =>
  error._tag === "RateLimited" || error._tag === "IdempotencyInFlight" ? error.retryAfterSeconds : undefined

const failure = (error: StoreErrors.StoreError, requestId: string, headers: Readonly<Record<string, string>>) => {
  const retryAfter = retryAfterOf(error)
  return respond(error.status, errorPayload(error), requestId, {
    ...headers,
    ...API_VERSION,
    ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
    ...(error._tag === "RateLimited" ? { "ratelimit-remaining": "0", "ratelimit-reset": String(retryAfter) } : {})
  })
}

/** The first value of each query parameter. */
const queryOf = (url: string): Record<string, string> => {
  const at = url.indexOf("?")
  const query: Record<string, string> = {}
  if (at === -1) return query
  for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
    if (!(name in query)) query[name] = value
  }
  return query
}

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

const readJson = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(request.text, (text) => {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return Effect.fail(new StoreErrors.BadRequest({ message: "Body must be valid JSON" }))
    }
    return nestsDeeperThan(body, MAX_BODY_DEPTH)
      ? Effect.fail(new StoreErrors.BadRequest({ message: `Body nests deeper than ${MAX_BODY_DEPTH} levels` }))
      : Effect.succeed(body)
  })

const idempotencyKeyOf = (request: HttpServerRequest.HttpServerRequest) =>
  Idempotency.parseKey(request.headers["idempotency-key"]).pipe(
    Effect.mapError(
      (error) =>
        new StoreErrors.BadRequest({
          message:
            error.reason === "missing"
              ? "Idempotency-Key header is required on POST, PATCH and DELETE"
              : "Idempotency-Key must be 1 to 64 characters among A-Z a-z 0-9 _ - : ."
        })
    )
  )

/** A store failure of a write as the answer to keep: every 4xx the write can produce is stored and replayed. */
const storedFailure = (error: StoreErrors.StoreError) =>
  new Idempotency.StoredResponse({ status: error.status, headers: {}, body: errorPayload(error) })

/** `GET /v1/ping`: no key, not metered. */
export const ping = Effect.gen(function* () {
  const requestId = yield* RequestId
  return respond(200, dataPayload({ pong: true, time: new Date().toISOString(), edge: true }), requestId, API_VERSION)
})

/** An endpoint behind a key: every step of the pipeline, then `handler`. */
export const endpoint = <A, R>(policy: Policy<A>, handler: Handler<A, R>) =>
  Effect.gen(function* () {
    const encode = policy.success === undefined ? Effect.succeed : Schema.encodeEffect(policy.success)
    const run = (call: Call) => Effect.flatMap(handler(call), (value) => Effect.orDie(encode(value)))
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = yield* RequestId
    const access = yield* Access.Access
    const origin = (yield* Listener) === "origin"
    const headers: Record<string, string> = {}

    const answer = Effect.gen(function* () {
      const principal = yield* access.authenticate(
        request.headers.authorization,
        Option.getOrElse(request.remoteAddress, () => "")
      )
      const cache = policy.cached === true && !origin ? yield* ReadCache : undefined
      const cacheKey = `${principal.keyId} ${request.url}`
      const hit = cache?.get(cacheKey)
      if (hit !== undefined) return respond(200, hit, requestId, { "x-cache": "HIT" })

      const limits = yield* access
        .meter(principal)
        .pipe(Effect.catchTag("RateLimited", (error) => (origin ? Effect.succeed(undefined) : Effect.fail(error))))
      if (limits !== undefined && limits.limit >= 0 && !origin) {
        headers["ratelimit-limit"] = String(limits.limit)
        headers["ratelimit-remaining"] = String(limits.remaining)
        headers["ratelimit-reset"] = String(limits.resetSeconds)
      }
      yield* access.authorize(principal, { scope: policy.scope, keyManagement: policy.keyManagement })
      const params = yield* HttpRouter.params
      const query = queryOf(request.url)

      if (request.method === "GET") {
        const payload = dataPayload(yield* run({ principal, params, query, body: undefined }))
        if (cache !== undefined) {
          cache.set(cacheKey, payload)
          headers["x-cache"] = "MISS"
        }
        return respond(200, payload, requestId, { ...headers, ...API_VERSION })
      }

      const sql = yield* SqlClient.SqlClient
      if (origin) {
        const body = policy.body === true ? yield* readJson(request) : undefined
        const data = yield* sql.withTransaction(run({ principal, params, query, body }))
        return respond(200, dataPayload(data), requestId, { ...headers, ...API_VERSION })
      }
      const key = yield* idempotencyKeyOf(request)
      const body = policy.body === true ? yield* readJson(request) : undefined
      const idempotency = yield* Idempotency.Idempotency
      // A write and its key's record commit together. A store failure (a 4xx) rolls the whole transaction back,
      // the write's partial work with it, and its answer is then recorded on its own under the same key.
      let sent: string | undefined
      const write = run({ principal, params, query, body }).pipe(
        Effect.map((data) => {
          sent = dataPayload(data)
          const kept = policy.stored === undefined ? sent : dataPayload(policy.stored(data))
          return new Idempotency.StoredResponse({ status: 200, headers: {}, body: kept })
        })
      )
      const claim = {
        scope: Idempotency.scope(["store", principal.store.id]),
        key,
        fingerprint: Idempotency.fingerprint({ method: request.method, path: pathOf(request.url), body })
      }
      const { response, replayed } = yield* sql.withTransaction(idempotency.run(claim, write)).pipe(
        Effect.catchIf(StoreErrors.isStoreError, (error) =>
          sql.withTransaction(idempotency.run(claim, Effect.succeed(storedFailure(error))))
        ),
        Effect.catchTags({
          KeyReused: (error) => Effect.fail(new StoreErrors.IdempotencyKeyReuse({ message: error.message })),
          InFlight: (error) =>
            Effect.fail(
              new StoreErrors.IdempotencyInFlight({
                message: error.message,
                retryAfterSeconds: error.retryAfterSeconds
              })
            )
        })
      )
      return respond(
        response.status,
        !replayed && sent !== undefined ? sent : response.body,
        requestId,
        replayed ? { ...headers, "idempotency-replay": "1" } : { ...headers, ...API_VERSION }
      )
    })

    return yield* answer.pipe(
      Effect.catchIf(StoreErrors.isStoreError, (error) => Effect.succeed(failure(error, requestId, headers)))
    )
  })
