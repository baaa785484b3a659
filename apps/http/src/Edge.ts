/**
 * The outermost layer of each server, around every route: it gives each request an id (the caller's valid
 * `X-Request-Id`, else a new one) echoed in `X-Request-Id`, writes one JSON access-log line per request, and makes
 * sure that every error leaves in the server's envelope — including the ones no handler produced: unknown routes
 * (404), bodies over the limit (413), unsupported media types (415) and defects (500, logged with the request id,
 * never sent). The access log carries method, path without the query string, status and duration: query strings
 * and bodies may hold personal data or credentials and are never logged.
 */

import { randomUUID } from "node:crypto"
import { Cause, Clock, Context, Effect } from "effect"
import { Headers, HttpRouter, HttpServerRequest, HttpServerRespondable, HttpServerResponse } from "effect/http"

/** How one API writes an error body. */
export interface Envelope {
  /** The wire code of an error the HTTP layer itself produced, by status; others fall back to a generic code. */
  readonly codes: Readonly<Record<number, string>>
  readonly render: (error: { readonly code: string; readonly message: string }, requestId: string) => unknown
}

const codeOf = (envelope: Envelope, status: number) =>
  envelope.codes[status] ?? (status >= 500 ? "internal_error" : "bad_request")

/** The id of the request being handled, as echoed in `X-Request-Id`. */
export class RequestId extends Context.Service<RequestId, string>()("@tawsil/http/Edge/RequestId") {}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const sent = request.headers["x-request-id"]
  // randomUUID draws from a cached entropy pool; randomBytes asked the kernel on every request (3 % of a create).
  return sent !== undefined && REQUEST_ID.test(sent) ? sent : `req_${randomUUID().replaceAll("-", "").slice(0, 24)}`
}

const pathOf = (url: string) => {
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

export interface EdgeOptions {
  readonly envelope: Envelope
  readonly maxBodyBytes: number
  /** The methods the API answers on a path; a known path asked with another method answers 405 with `Allow`. */
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
}

export const layer = (options: EdgeOptions) =>
  HttpRouter.middleware(
    (httpEffect) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = requestIdOf(request)
        const started = yield* Clock.currentTimeMillis
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

        const response = yield* httpEffect.pipe(
          Effect.provideService(RequestId, requestId),
          Effect.annotateLogs({ requestId }),
          Effect.catchCause((cause) => {
            // The client went away: nothing to answer.
            if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
            // Failures that know their response (unknown route, body too large, undecodable request) keep their
            // status and get the envelope below; anything else is a bug.
            const error = Cause.squash(cause)
            if (HttpServerRespondable.isRespondable(error)) return HttpServerRespondable.toResponse(error)
            return Effect.as(Effect.logError("unhandled failure", cause), envelope(500))
          }),
          Effect.map((response) => {
            if (response.status === 404 && response.body._tag === "Empty") {
              const allowed = options.allowedMethods(path)
              if (allowed.length > 0) {
                return HttpServerResponse.setHeader(
                  envelope(405, `Method ${request.method} not allowed on ${path}; use ${allowed.join(", ")}`),
                  "allow",
                  allowed.join(", ")
                )
              }
            }
            return response.status >= 400 && !isJson(response)
              ? HttpServerResponse.setHeaders(
                  envelope(response.status),
                  Headers.removeMany(response.headers, ["content-type", "content-length"])
                )
              : response
          })
        )

        const finished = yield* Clock.currentTimeMillis
        yield* Effect.logInfo("request").pipe(
          Effect.annotateLogs({
            method: request.method,
            path,
            status: response.status,
            durationMs: finished - started,
            requestId
          })
        )
        return HttpServerResponse.setHeader(response, "x-request-id", requestId)
      }),
    { global: true }
  )
