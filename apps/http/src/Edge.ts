/**
 * The outermost layer of each server, around every request: it gives each request an id (the caller's valid
 * `X-Request-Id`, else a new one) echoed in `X-Request-Id` — except on an idempotent replay, whose answer carries the
 * id of the request it first answered (`replayOf` in the access line, `tawsil.replay_of` on the span, beside this
 * request's own id) — writes one JSON access-log line per request, and makes
 * sure that every error leaves in the server's envelope — including the ones no handler produced: unknown routes
 * (404), bodies over the limit (413), unsupported media types (415), a database that cannot be reached (503 with
 * `Retry-After`: infrastructure failures are defects, and this one is not a bug) and other defects (500, logged with
 * the request id, never sent). The access log carries method, path without the query string, status and duration: query strings
 * and bodies may hold personal data or credentials and are never logged. Each answer is counted and timed by route
 * template (`HttpMetrics`), and where a tracer opened the request's server span, the span gets the request id.
 */

import { randomBytes } from "node:crypto"
import { Database } from "@tawsil/storage"
import { Cause, Clock, Context, Effect, References, Tracer } from "effect"
import { Headers, HttpRouter, HttpServerRequest, HttpServerRespondable, HttpServerResponse } from "effect/http"
import * as HttpMetrics from "./HttpMetrics.ts"
import * as JsonLogger from "./JsonLogger.ts"

/** How one API writes an error body. */
export interface Envelope {
  /** The wire code of an error the HTTP layer itself produced, by status; others fall back to a generic code. */
  readonly codes: Readonly<Record<number, string>>
  /** The body; `retryAfter` (seconds, also sent as `Retry-After`) where the answer says when to try again. */
  readonly render: (
    error: { readonly code: string; readonly message: string; readonly retryAfter?: number | undefined },
    requestId: string
  ) => unknown
}

/** Seconds a request refused because the database cannot be reached is told to wait (`Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 5

/** The wire code of an error the HTTP layer itself produced. */
export const codeOf = (envelope: Envelope, status: number) =>
  envelope.codes[status] ?? (status >= 500 ? "internal_error" : "bad_request")

/**
 * The id of the request being handled, as echoed in `X-Request-Id`: set by the edge around every request (empty
 * outside one), so reading it requires nothing.
 */
export const RequestId = Context.Reference<string>("@tawsil/http/Edge/RequestId", { defaultValue: () => "" })

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

// New ids are 12 random bytes in hex, read from a pool the kernel refills 4 KiB at a time: asking it on every request
// cost 3 % of a create, and slicing randomUUID's text 1 %.
const POOL_BYTES = 4096
const ID_BYTES = 12
let pool = Buffer.alloc(0)
let poolOffset = 0

/** The caller's `X-Request-Id` when it is valid, else a new id. */
export const requestIdOf = (sent: string | undefined) => {
  if (sent !== undefined && REQUEST_ID.test(sent)) return sent
  if (poolOffset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES)
    poolOffset = 0
  }
  poolOffset += ID_BYTES
  return `req_${pool.toString("hex", poolOffset - ID_BYTES, poolOffset)}`
}

/** The path of a request URL, without its query string. */
export const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Messages for statuses whose text needs nothing from the request (404, 405, 413 and 500 do). */
const defaultMessages: Record<number, string> = {
  400: "The request could not be read",
  415: "Expected a JSON body (Content-Type: application/json)",
  503: "Service unavailable"
}

const isJson = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag !== "Empty" && (response.body.contentType ?? "").startsWith("application/json")

/** A page a handler rendered for a person (the confirmation page's "link expired"): it keeps its own body. */
const isPage = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag !== "Empty" && (response.body.contentType ?? "").startsWith("text/html")

export interface EdgeOptions {
  readonly envelope: Envelope
  readonly maxBodyBytes: number
  /** The methods the API answers on a path; a known path asked with another method answers 405 with `Allow`. */
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
  /** The API's name in the metrics (`shipping`, `store`); default `http`. */
  readonly api?: string | undefined
  /** The route template answering a method and path, for the metrics; undefined: unmatched. */
  readonly routeOf?: ((method: string, path: string) => string | undefined) | undefined
}

/** What the edge reads from a request. */
export interface Incoming {
  readonly method: string
  readonly url: string
  /** The caller's `X-Request-Id` header, if any. */
  readonly requestId: string | undefined
}

/**
 * What the Node listener in front of effect's server (`Server.ts`) works out for a request before effect sees it:
 * its id, its route template and when it arrived. The edge, the request metrics and the span names read it instead of
 * working it out again: one route lookup and one id per request (issue 22). A request that did not come through
 * that listener (a server run as a web handler, in tests) has none, and the edge works them out itself.
 */
export interface Arrival {
  readonly requestId: string
  readonly route: string | undefined
  readonly startedAt: number
}

const arrivals = new WeakMap<object, Arrival>()

/** Records what the listener worked out for a Node request (`IncomingMessage`). */
export const arrive = (request: object, arrival: Arrival) => {
  arrivals.set(request, arrival)
}

/** What the listener worked out for a Node request, if it came through it. */
export const arrivalOf = (request: object): Arrival | undefined => arrivals.get(request)

/** The context a request's effect runs with: its id as `RequestId` and as the `requestId` log annotation. */
const withRequestId = <R>(context: Context.Context<R>, requestId: string): Context.Context<R> =>
  Context.add(Context.add(context, RequestId, requestId), References.CurrentLogAnnotations, {
    ...Context.get(context, References.CurrentLogAnnotations),
    requestId
  })

/**
 * What the edge uses on every request and reads once per server, from the context the server runs in: its clock,
 * the access line's writer (`JsonLogger.infoIn`) and the context the request metrics are recorded in.
 */
interface Served {
  readonly clock: Clock.Clock
  readonly logInfo: ReturnType<typeof JsonLogger.infoIn>
  readonly context: Context.Context<never>
}

const served = (context: Context.Context<never>): Served => ({
  clock: Context.get(context, Clock.Clock),
  logInfo: JsonLogger.infoIn(context),
  context
})

/** The edge around one request's effect; the result carries `X-Request-Id`, and the access line is written. */
const around =
  (options: EdgeOptions, server: Served, request: Incoming, arrival: Arrival | undefined) =>
  <E, R>(
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
    const requestId = arrival?.requestId ?? requestIdOf(request.requestId)
    const traced: { span?: Tracer.Span } = {}
    return Effect.updateContext(
      withEnvelope(options, server, request, requestId, arrival, traced)(httpEffect),
      (context: Context.Context<R>) => {
        // The request's server span, opened by effect's HTTP server where a tracer is installed (none otherwise).
        const span = Context.getOrUndefined(context, Tracer.ParentSpan)
        if (span !== undefined && span._tag === "Span" && span.sampled) {
          span.attribute("tawsil.request_id", requestId)
          traced.span = span
        }
        return withRequestId(context, requestId)
      }
    )
  }

/** The envelope for the errors no handler produced, the `X-Request-Id` header and the access line. */
const withEnvelope =
  (
    options: EdgeOptions,
    server: Served,
    request: Pick<Incoming, "method" | "url">,
    requestId: string,
    arrival: Arrival | undefined,
    traced: { readonly span?: Tracer.Span }
  ) =>
  <E, R>(
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
    // Written without generators: this runs on every request (docs/benchmarks.md).
    const started = arrival?.startedAt ?? server.clock.currentTimeMillisUnsafe()
    const path = pathOf(request.url)
    const messageFor = (status: number) =>
      status === 404
        ? `No route for ${request.method} ${path}`
        : status === 413
          ? `Request body is larger than ${options.maxBodyBytes} bytes`
          : status === 500
            ? `Internal error; quote request id ${requestId} when reporting it`
            : (defaultMessages[status] ?? "Request failed")
    const envelope = (status: number, message = messageFor(status)) =>
      HttpServerResponse.jsonUnsafe(
        options.envelope.render({ code: codeOf(options.envelope, status), message }, requestId),
        { status }
      )
    const unavailable = () =>
      HttpServerResponse.jsonUnsafe(
        options.envelope.render(
          {
            code: codeOf(options.envelope, 503),
            message: `The service's database cannot be reached; retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds`,
            retryAfter: DATABASE_RETRY_AFTER_SECONDS
          },
          requestId
        ),
        { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) } }
      )
    const finish = (response: HttpServerResponse.HttpServerResponse) => {
      let answer = response
      const allowed = response.status === 404 && response.body._tag === "Empty" ? options.allowedMethods(path) : []
      if (allowed.length > 0) {
        answer = HttpServerResponse.setHeader(
          envelope(405, `Method ${request.method} not allowed on ${path}; use ${allowed.join(", ")}`),
          "allow",
          allowed.join(", ")
        )
      } else if (response.status >= 400 && !isJson(response) && !isPage(response)) {
        answer = HttpServerResponse.setHeaders(
          envelope(response.status),
          Headers.removeMany(response.headers, ["content-type", "content-length"])
        )
      }
      const durationMs = server.clock.currentTimeMillisUnsafe() - started
      const route = arrival === undefined ? options.routeOf?.(request.method, path) : arrival.route
      recordMetrics(server.context, options, request.method, route, answer.status, durationMs)
      // A replay is an earlier request's answer and carries that request's id (its `meta.request_id`) already: the
      // access line and the span keep this request's own id, and name the one it answered as.
      const replayOf = answer.headers["x-request-id"]
      if (replayOf !== undefined) {
        traced.span?.attribute("tawsil.replay_of", replayOf)
        server.logInfo("request", {
          requestId,
          method: request.method,
          path,
          status: answer.status,
          durationMs,
          replayOf
        })
        return Effect.succeed(answer)
      }
      server.logInfo("request", { requestId, method: request.method, path, status: answer.status, durationMs })
      return Effect.succeed(HttpServerResponse.setHeader(answer, "x-request-id", requestId))
    }
    return httpEffect.pipe(
      Effect.matchCauseEffect({
        onSuccess: finish,
        onFailure: (cause) => {
          // The client went away: nothing to answer.
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
          // Failures that know their response (unknown route, body too large, undecodable request) keep their
          // status and get the envelope; anything else is a bug.
          const error = Cause.squash(cause)
          if (HttpServerRespondable.isRespondable(error)) {
            return Effect.flatMap(HttpServerRespondable.toResponse(error), finish)
          }
          // The database is down or unreachable for a moment: the same request succeeds once it is back.
          if (Database.isUnreachable(error)) {
            return Effect.flatMap(
              Effect.logWarning("database unavailable").pipe(
                Effect.annotateLogs({ error: error instanceof Error ? error.message : String(error) })
              ),
              () => finish(unavailable())
            )
          }
          return Effect.flatMap(Effect.logError("unhandled failure", cause), () => finish(envelope(500)))
        }
      })
    )
  }

/** One answered request in the request metrics, under its route template (the router's and the door's answers). */
const recordMetrics = (
  context: Context.Context<never>,
  options: EdgeOptions,
  method: string,
  route: string | undefined,
  status: number,
  durationMs: number
) => HttpMetrics.record(context, { api: options.api ?? "http", method, route }, status, durationMs)

/** An answer decided before the router: status, headers besides the JSON content type, and the JSON body. */
export interface DoorAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/**
 * How the listener writes an answer decided before the router (`NodeListener.Door`), with what the edge gives every answer
 * — the request's id in `X-Request-Id`, the JSON access line with that id, the request metrics — straight to Node's
 * response: the same answer as the router's, as plain code outside any fiber. Made once per server, from the context
 * the door's checks run in (its clock, loggers, log level and metrics).
 */
export const doorAnswers = (options: EdgeOptions, context: Context.Context<never>) => {
  const { clock, logInfo } = served(context)
  return (
    request: Pick<Incoming, "method" | "url">,
    arrival: Arrival,
    answer: DoorAnswer,
    response: { writeHead(status: number, headers: Record<string, string | number>): { end(body: string): unknown } }
  ) => {
    const body = JSON.stringify(answer.body)
    response
      .writeHead(answer.status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        ...answer.headers,
        "x-request-id": arrival.requestId
      })
      .end(body)
    const durationMs = clock.currentTimeMillisUnsafe() - arrival.startedAt
    recordMetrics(context, options, request.method, arrival.route, answer.status, durationMs)
    logInfo("request", {
      requestId: arrival.requestId,
      method: request.method,
      path: pathOf(request.url),
      status: answer.status,
      durationMs
    })
  }
}

/** The requests this process's servers are answering right now: what a stop waits for, and reports. */
export class InFlight extends Context.Service<InFlight, { count: number }>()("@tawsil/http/Edge/InFlight") {}

export const layer = (options: EdgeOptions) =>
  HttpRouter.middleware(
    Effect.map(Effect.context<never>(), (context) => {
      const counter = Context.getOrUndefined(context, InFlight) ?? { count: 0 }
      const server = served(context)
      return <E, R>(httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          counter.count++
          return around(
            options,
            server,
            { method: request.method, url: request.url, requestId: request.headers["x-request-id"] },
            arrivals.get(request.source as object)
          )(httpEffect).pipe(
            Effect.ensuring(
              Effect.sync(() => {
                counter.count--
              })
            )
          )
        })
    }),
    { global: true }
  )
