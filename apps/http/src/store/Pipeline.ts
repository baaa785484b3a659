/**
 * The store API's pipeline, as the middlewares its endpoints declare (`Endpoint.ts`): `Gate` on every keyed call,
 * `Idempotent` on every write, `Signed` on the signed calls. Every rule is a package's — `Access.admit` (the order
 * of authentication, read cache, metering and gates, and the origin listener's exemptions), `PublicAccess.admit`,
 * `ReadCache`, `Idempotency.transact` (a write, its key's record and the recording of its refusal) — and these only
 * speak HTTP: headers, bodies, the envelope.
 *
 * Each listener runs them in its mode: the public one (`edge`), or the origin listener (the spec's alias host), where
 * there is no idempotent replay (no `Idempotency-Key` needed), no per-minute limit, no read cache and no signed route.
 */
import { Access, AccessError, type Principal, PublicAccess, ReadCache } from "@tawsil/access"
import * as AccessApi from "@tawsil/api/store/access/Api"
import {
  Caller,
  CallNonce,
  CallsOut,
  CarriesClaim,
  Gate,
  Idempotent,
  KeyManagement,
  NoAppTokens,
  ReadCached,
  RequestBody,
  RequiredScope,
  Signed,
  StoredAs,
  TextBody
} from "@tawsil/api/store/Endpoint"
import * as TrackerApi from "@tawsil/api/store/tracker/Api"
import { FieldIssues } from "@tawsil/domain"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { SigningError } from "@tawsil/signing"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint, HttpApiError } from "effect/http-api"
import { pathOf, RequestId } from "../Edge.ts"
import * as Errors from "./Errors.ts"

export type Mode = Access.Listener

const API_VERSION_HEADER = { "x-api-version": Errors.API_VERSION } as const

/** What an endpoint requires beyond a valid key, from its annotations. */
const requirementOf = (endpoint: HttpApiEndpoint.Top): Access.Requirement => ({
  scope: Option.getOrUndefined(Context.getOption(endpoint.annotations, RequiredScope)),
  keyManagement: Option.isSome(Context.getOption(endpoint.annotations, KeyManagement)),
  noAppTokens: Option.isSome(Context.getOption(endpoint.annotations, NoAppTokens))
})

const textOf = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const body = response.body
  return body._tag === "Uint8Array" ? (body.text ?? new TextDecoder().decode(body.body)) : undefined
}

const json = (status: number, body: string, headers: Readonly<Record<string, string>>) =>
  HttpServerResponse.text(body, { status, contentType: "application/json", headers })

/** `RateLimit-*` of an admitted or counted call, where the store has a per-minute budget to report. */
const rateLimitHeaders = (limits: Principal.RateLimitState | undefined): Record<string, string> =>
  limits === undefined
    ? {}
    : {
        "ratelimit-limit": String(limits.limit),
        "ratelimit-remaining": String(limits.remaining),
        "ratelimit-reset": String(limits.resetSeconds)
      }

/** A failure of the call, in the envelope: the access rules', ours, or an undecodable parameter (400). */
const failureOf = (error: unknown, requestId: string): Errors.Failure | undefined => {
  if (Errors.isFailure(error)) return error
  if (error instanceof AccessError.AccessError) return AccessApi.reasons.answer(error.reason, requestId)
  if (error instanceof SigningError.SigningError) return TrackerApi.signingReasons.answer(error.reason, requestId)
  if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
    const issues = FieldIssues.fromIssue(error.cause.issue, {
      prefix: error.kind === "Params" ? "path" : error.kind.toLowerCase()
    })
    const message = Object.entries(issues)
      .map(([path, message]) => `${path}: ${message}`)
      .join("; ")
    return Errors.make("bad_request", requestId, `Invalid ${message}`)
  }
  return undefined
}

/** The budget a 429 was refused by, as `RateLimit-Limit` (its `-Remaining` and `-Reset` are the failure's). */
const budgetOf = (error: unknown): Record<string, string> =>
  error instanceof AccessError.AccessError && error.reason._tag === "RateLimited"
    ? { "ratelimit-limit": String(error.reason.limit) }
    : {}

/** Answers the call's failure in the envelope with `headers`; anything else is a bug: the edge logs it, 500. */
const renderFailures =
  (requestId: string, headers: () => Readonly<Record<string, string>>) =>
  <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
    Effect.catch(effect, (error: unknown) => {
      const failure = failureOf(error, requestId)
      return failure === undefined
        ? Effect.die(error)
        : Effect.succeed(Errors.respond(failure, { ...headers(), ...budgetOf(error) }))
    })

export const gate = (mode: Mode) =>
  Layer.effect(
    Gate,
    Effect.gen(function* () {
      const access = yield* Access.Access
      const cache = yield* ReadCache.ReadCache
      return Gate.of((httpEffect, { endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const requestId = yield* RequestId
          const cached = mode === "edge" && Option.isSome(Context.getOption(endpoint.annotations, ReadCached))
          // Headers every answer of the call carries, its failures included.
          let headers: Record<string, string> = {}

          const answer = Effect.gen(function* () {
            const admission = yield* access.admit({
              authorization: request.headers.authorization,
              address: Option.getOrElse(request.remoteAddress, () => ""),
              requirement: requirementOf(endpoint),
              listener: mode,
              cachedRead: cached ? (principal) => cache.get(ReadCache.keyOf(principal, request.url)) : undefined
            })
            if (admission._tag === "Cached") {
              return json(200, `{"data":${admission.value},"meta":${JSON.stringify(Errors.metaOf(requestId))}}`, {
                "x-cache": "HIT"
              })
            }
            headers = rateLimitHeaders(admission.limits)
            if (admission._tag === "Refused") return yield* Effect.fail(admission.error)
            const response = yield* Effect.provideService(httpEffect, Caller, admission.principal)
            const text = cached && response.status === 200 ? textOf(response) : undefined
            if (text !== undefined) {
              const data = JSON.stringify((JSON.parse(text) as { readonly data: unknown }).data)
              yield* cache.set(ReadCache.keyOf(admission.principal, request.url), data)
              headers["x-cache"] = "MISS"
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
            renderFailures(requestId, () => ({ ...headers, ...API_VERSION_HEADER }))
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

/** A body's text as JSON, or why it cannot be read as one. */
const readJson = (text: string): { readonly body: unknown } | { readonly refusal: string } => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { refusal: "Body must be valid JSON" }
  }
  return nestsDeeperThan(body, MAX_BODY_DEPTH)
    ? { refusal: `Body nests deeper than ${MAX_BODY_DEPTH} levels` }
    : { body }
}

const parseJson = (text: string, requestId: string) => {
  const read = readJson(text)
  return "refusal" in read
    ? Effect.fail(Errors.make("bad_request", requestId, read.refusal))
    : Effect.succeed(read.body)
}

/** The idempotency rules' refusals, as the store API answers them. */
const idempotencyFailure = (
  error: Idempotency.KeyReused | Idempotency.InFlight | Idempotency.InvalidKey,
  requestId: string
): Errors.BadRequest | Errors.Conflict | Errors.Unprocessable => {
  switch (error._tag) {
    case "KeyReused":
      return Errors.make("idempotency_key_reuse", requestId, error.message)
    case "InFlight":
      return Errors.make("idempotency_in_flight", requestId, error.message, { retry_after: error.retryAfterSeconds })
    case "InvalidKey":
      return Errors.make(
        "bad_request",
        requestId,
        error.reason === "missing"
          ? "Idempotency-Key header is required on POST, PATCH and DELETE"
          : "Idempotency-Key must be 1 to 64 characters among A-Z a-z 0-9 _ - : ."
      )
  }
}

const stored = (status: number, body: string) => new Idempotency.StoredResponse({ status, headers: {}, body })

const decodeMeta = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Struct({ meta: Schema.Struct({ request_id: Schema.String }) }))
)

/** The `meta.request_id` of a stored envelope. */
const requestIdOf = (body: string): string | undefined =>
  Option.getOrUndefined(Option.map(decodeMeta(body), (envelope) => envelope.meta.request_id))

/**
 * A replay: the first answer byte for byte, with `Idempotency-Replay: 1` and the first answer's request id (its
 * `meta.request_id`) in `X-Request-Id` too (spec: it "equals `meta.request_id`"). The edge logs and traces this
 * request under its own id, naming the one it answered as.
 */
const replay = (response: Idempotency.StoredResponse) => {
  const first = requestIdOf(response.body)
  return json(response.status, response.body, {
    "idempotency-replay": "1",
    ...(first === undefined ? {} : { "x-request-id": first })
  })
}

export const idempotent = (mode: Mode) =>
  Layer.effect(
    Idempotent,
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const store = yield* IdempotencyStore.IdempotencyStore
      // A store's scope is the same on every call: its HMAC is computed once (bounded, cleared when full).
      const scopes = new Map<number, Idempotency.Scope>()
      const scopeOf = (storeId: number) => {
        let scope = scopes.get(storeId)
        if (scope === undefined) {
          if (scopes.size >= 100_000) scopes.clear()
          scope = idempotency.scope(["store", storeId])
          scopes.set(storeId, scope)
        }
        return scope
      }
      return Idempotent.of((httpEffect, { endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const requestId = yield* RequestId
          const text = endpoint.payload.size > 0 ? yield* Effect.orDie(request.text) : undefined
          // Read once: the fingerprint below and the write take the same parsed body.
          const textBody = Option.isSome(Context.getOption(endpoint.annotations, TextBody))
          const read = text === undefined ? { body: undefined } : textBody ? { body: text } : readJson(text)
          const write = Effect.flatMap(
            "body" in read
              ? Effect.succeed(read.body)
              : Effect.fail(Errors.make("bad_request", requestId, read.refusal)),
            (body) => Effect.provideService(httpEffect, RequestBody, body)
          )
          const callsOut = Option.isSome(Context.getOption(endpoint.annotations, CallsOut))
          if (mode === "origin") return yield* callsOut ? write : store.transaction(write)

          const key = yield* Idempotency.parseKey(request.headers["idempotency-key"]).pipe(
            Effect.mapError((error) => idempotencyFailure(error, requestId))
          )
          const principal = yield* Caller
          const claim = {
            scope: scopeOf(principal.store.id),
            key,
            fingerprint: idempotency.fingerprint({
              method: request.method,
              path: pathOf(request.url),
              ...("body" in read ? { body: read.body } : { unreadable: text ?? "" })
            })
          }
          const keep = Option.getOrUndefined(Context.getOption(endpoint.annotations, StoredAs))
          const storedOf = (response: HttpServerResponse.HttpServerResponse) => {
            const sent = textOf(response) ?? ""
            if (keep === undefined) return stored(response.status, sent)
            const answer = JSON.parse(sent) as { readonly data: unknown }
            return stored(response.status, JSON.stringify({ ...answer, data: keep(answer.data as never) }))
          }
          const refusals = <E>(
            error: E | Idempotency.KeyReused | Idempotency.InFlight
          ): Effect.Effect<never, E | ReturnType<typeof idempotencyFailure>> =>
            error instanceof Idempotency.KeyReused || error instanceof Idempotency.InFlight
              ? Effect.fail(idempotencyFailure(error, requestId))
              : Effect.fail(error as E)
          const answers: Idempotency.Answers<HttpServerResponse.HttpServerResponse, Effect.Error<typeof write>> = {
            stored: storedOf,
            refused: (error) => {
              if (!Errors.isFailure(error) || !Errors.kept(error)) return undefined
              const { status, body } = Errors.rendered(error)
              return stored(status, body)
            }
          }
          // The write and its key's record commit together; a refusal (a 4xx) rolls the write back and is recorded
          // on its own under the same key — an unreadable body's 400 too. A write that calls out (a courier) runs
          // outside the transaction, under a lease of its key committed at once, and opens its own when it writes.
          const outcome = yield* (
            callsOut
              ? idempotency.leased(claim, write, answers)
              : idempotency.transact(claim, write, answers, {
                  claimCarried: Option.isSome(Context.getOption(endpoint.annotations, CarriesClaim))
                })
          ).pipe(Effect.catch(refusals))
          switch (outcome._tag) {
            case "Fresh":
              return outcome.value
            case "Refused":
              return yield* Effect.fail(outcome.error)
            case "Replay":
              return replay(outcome.response)
          }
        })
      )
    })
  )

const utf8 = new TextDecoder()

/** The routes `Signed` serves, which do not exist on the origin listener. */
export const SIGNED_PATHS: ReadonlySet<string> = new Set([
  "/v1/signups",
  "/v1/events",
  "/v1/signups/batch",
  "/v1/events/batch"
])

export const signed = (mode: Mode) =>
  Layer.effect(
    Signed,
    Effect.gen(function* () {
      const publicAccess = yield* PublicAccess.PublicAccess
      return Signed.of((httpEffect, { endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const requestId = yield* RequestId
          let headers: Record<string, string> = mode === "origin" ? {} : { ...API_VERSION_HEADER }
          const answer = Effect.gen(function* () {
            if (mode === "origin") {
              // As the edge answers an unknown route: these routes are not served here (spec, alias host).
              return yield* Effect.fail(
                Errors.make("not_found", requestId, `No route for ${request.method} ${pathOf(request.url)}`)
              )
            }
            // The signature covers the raw bytes: read them as sent, before anything parses them.
            const bytes = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
            const admission = yield* publicAccess.admit(
              {
                authorization: request.headers.authorization,
                timestamp: request.headers["x-tw-timestamp"],
                nonce: request.headers["x-tw-nonce"],
                signature: request.headers["x-tw-signature"],
                body: bytes
              },
              Option.getOrElse(request.remoteAddress, () => ""),
              requirementOf(endpoint)
            )
            headers = { ...headers, ...rateLimitHeaders(admission.limits) }
            if (admission._tag === "Refused") return yield* Effect.fail(admission.error)
            const body = yield* parseJson(utf8.decode(bytes), requestId)
            // The three services the handler reads, added to its context in one step.
            const { principal, nonce } = admission.caller
            return yield* Effect.updateContext(httpEffect, (context: Context.Context<never>) =>
              Context.add(Context.add(Context.add(context, Caller, principal), RequestBody, body), CallNonce, nonce)
            )
          })
          return yield* answer.pipe(
            Effect.map((response) => HttpServerResponse.setHeaders(response, headers)),
            renderFailures(requestId, () => headers)
          )
        })
      )
    })
  )
