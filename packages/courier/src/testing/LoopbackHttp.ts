/**
 * A test-only `CourierHttp` that sends an adapter's requests to a loopback fake of its courier (its origin, the
 * relative path, the query) under the rules the host's transport applies to every request: a path that could leave
 * the origin is refused (`BlockedEgress`); `accept: application/json` and `user-agent: tawsil` are sent unless the
 * adapter sets them, JSON bodies with their `content-type`, and the host and framing headers are the transport's, not
 * the adapter's; a redirect is never followed (a 3xx is an answer for the mapping); a body over 5 MiB is cut off
 * (`BadResponse`); no answer in time or a dropped connection is `Unreachable`. A document request (a link on another
 * host, `CourierHttp.documentRequest`) is sent to the same fake, its path and query kept, as a GET without the
 * adapter's headers: whether the courier declares that host is the host's check (and the conformance kit's).
 * What it leaves out is the host's own
 * business: DNS and public addresses, TLS, the circuit breaker. It connects under a permit of the process egress
 * guard (`ProcessEgress`), so tests and the conformance kit may run it with the guard installed.
 *
 * `post` and `serve` are the other direction, for fake couriers that push (`FakePusher`): raw bytes to a loopback
 * receiver's URL, and a loopback receiver that hands each request over as raw bytes.
 *
 * Production HTTP is the host's transport (`HttpTransport` of `@tawsil/shipping`).
 */
import * as Http from "node:http"
import { Egress, ProcessEgress } from "@tawsil/egress"
import { type Duration, Effect, Layer, Result, type Scope } from "effect"
import * as CourierError from "../CourierError.ts"
import * as CourierHttp from "../CourierHttp.ts"

/** The largest answer read, as the host's transport reads it. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

/** How long one request may take unless told otherwise. */
export const DEFAULT_TIMEOUT: Duration.Input = "2 seconds"

/** Headers an adapter may not set: the host and the framing headers, which belong to the transport. */
const RESERVED = new Set(["host", "connection", "content-length", "transfer-encoding", "upgrade", "te", "trailer"])

/** The origin a path is checked against before the fake's loopback origin replaces it. */
const STAND_IN = Result.getOrThrow(Egress.parseOrigin("https://courier.invalid"))

/** The fake's URL for a request: its origin, then the path (checked as the host checks it) and the query. */
const urlOf = (origin: string, request: CourierHttp.CourierRequest): Result.Result<URL, Egress.BlockedEgress> =>
  Result.map(Egress.requestUrl(STAND_IN, request.path), (checked) => {
    const url = new URL(checked.pathname, origin)
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value)
    return url
  })

const exchange = (url: URL, request: CourierHttp.CourierRequest) => {
  const encoded = CourierHttp.bodyOf(request)
  const body = encoded?.bytes
  // A document request (another host, `CourierHttp.documentRequest`) carries none of the adapter's headers.
  const headers: Record<string, string> = {
    accept: request.host === undefined ? "application/json" : "*/*",
    "user-agent": "tawsil",
    ...Object.fromEntries(
      Object.entries(request.host === undefined ? (request.headers ?? {}) : {}).filter(
        ([name]) => !RESERVED.has(name.toLowerCase())
      )
    ),
    ...(encoded === undefined
      ? {}
      : { "content-type": encoded.contentType, "content-length": String(encoded.bytes.length) })
  }
  return exchangeBytes(url, request.method, headers, body)
}

const exchangeBytes = (url: URL, method: string, headers: Readonly<Record<string, string>>, body: Buffer | undefined) =>
  Effect.callback<CourierHttp.CourierResponse, CourierError.Unreachable | CourierError.BadResponse>((resume) => {
    const respond = (incoming: Http.IncomingMessage) => {
      const chunks: Array<Buffer> = []
      let size = 0
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          incoming.destroy()
          resume(
            Effect.fail(
              new CourierError.BadResponse({ message: `the courier answered more than ${MAX_BODY_BYTES} bytes` })
            )
          )
          return
        }
        chunks.push(chunk)
      })
      incoming.on("end", () => {
        const bytes = Buffer.concat(chunks)
        resume(
          Effect.succeed({
            status: incoming.statusCode ?? 0,
            headers: Object.fromEntries(
              Object.entries(incoming.headers).flatMap(([name, value]) =>
                value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]]
              )
            ),
            text: bytes.toString("utf8"),
            bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
          })
        )
      })
      incoming.on("error", () =>
        resume(Effect.fail(new CourierError.Unreachable({ message: "the courier could not be reached" })))
      )
    }
    // One connection per request, opened inside the permit (the egress guard lets exactly this one through).
    const outgoing = ProcessEgress.permit({ host: url.hostname, port: Number(url.port) || 80 }, () =>
      Http.request(url, { method, headers, agent: false }, respond)
    )
    outgoing.on("error", () =>
      resume(Effect.fail(new CourierError.Unreachable({ message: "the courier could not be reached" })))
    )
    if (body !== undefined) outgoing.write(body)
    outgoing.end()
    return Effect.sync(() => outgoing.destroy())
  })

/**
 * One request to the fake at `origin` (`http://127.0.0.1:<port>`), given at most `timeout`. Fails `BlockedEgress`
 * without sending for a path that is not relative to the origin, as the host's transport does.
 */
export const send = (
  origin: string,
  request: CourierHttp.CourierRequest,
  timeout: Duration.Input = DEFAULT_TIMEOUT
): Effect.Effect<
  CourierHttp.CourierResponse,
  CourierError.Unreachable | CourierError.BadResponse | Egress.BlockedEgress
> =>
  Effect.flatMap(Effect.fromResult(urlOf(origin, request)), (url) =>
    Effect.timeoutOrElse(exchange(url, request), {
      duration: timeout,
      orElse: () => Effect.fail(new CourierError.Unreachable({ message: "the courier did not answer in time" }))
    })
  )

/**
 * One request with a body of raw bytes to a loopback URL (`http://127.0.0.1:<port>/…?…`), as a courier that pushes
 * sends it: its headers as given (plus `content-length`), given at most `timeout`.
 */
export const post = (
  url: string,
  request: {
    readonly method: string
    readonly headers: Readonly<Record<string, string>>
    readonly body?: Uint8Array | undefined
  },
  timeout: Duration.Input = DEFAULT_TIMEOUT
): Effect.Effect<CourierHttp.CourierResponse, CourierError.Unreachable | CourierError.BadResponse> => {
  const target = new URL(url)
  const body = request.body === undefined ? undefined : Buffer.from(request.body)
  const headers = { ...request.headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) }
  return Effect.timeoutOrElse(exchangeBytes(target, request.method, headers, body), {
    duration: timeout,
    orElse: () => Effect.fail(new CourierError.Unreachable({ message: "the receiver did not answer in time" }))
  })
}

/** The service bound to the fake at `origin`, each request given at most `timeout`. */
export const make = (origin: string, timeout: Duration.Input = DEFAULT_TIMEOUT) =>
  CourierHttp.CourierHttp.of({ request: (request) => send(origin, request, timeout) })

/** The service bound to the fake whose origin `origin` gives (read from the fake in context). */
export const layer = <R>(
  origin: Effect.Effect<string, never, R>,
  options: { readonly timeout?: Duration.Input } = {}
) =>
  Layer.effect(
    CourierHttp.CourierHttp,
    Effect.map(origin, (origin) => make(origin, options.timeout))
  )

/** A request as a loopback receiver got it: nothing parsed, the body's bytes as sent. */
export interface Received {
  readonly method: string
  /** Without the query string. */
  readonly path: string
  /** A parameter given without a value (`?subscribe`) is `""`. */
  readonly query: Readonly<Record<string, string>>
  /** Lower-case names; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** What a loopback receiver answers. */
export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/**
 * A loopback server on `127.0.0.1` (a random port) for the scope, answering each request with `handle`: the receiving
 * end for a fake courier that pushes. Its URL is `http://127.0.0.1:<port>`.
 */
export const serve = (
  handle: (request: Received) => Answer
): Effect.Effect<{ readonly url: string; readonly received: ReadonlyArray<Received> }, never, Scope.Scope> => {
  const received: Array<Received> = []
  return Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const server = Http.createServer((incoming, response) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.on("end", () => {
          const url = new URL(incoming.url ?? "/", "http://127.0.0.1")
          const bytes = Buffer.concat(chunks)
          const request: Received = {
            method: incoming.method ?? "",
            path: url.pathname,
            query: Object.fromEntries(url.searchParams),
            headers: Object.fromEntries(
              Object.entries(incoming.headers).map(([name, value]) => [
                name,
                Array.isArray(value) ? value.join(", ") : (value ?? "")
              ])
            ),
            body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
          }
          received.push(request)
          const answer = handle(request)
          response.writeHead(answer.status, { "content-type": answer.contentType })
          response.end(answer.body)
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map((server) => ({
      url: `http://127.0.0.1:${(server.address() as { readonly port: number }).port}`,
      received
    }))
  )
}
