/**
 * The egress-guarded HTTP transport: the `Shipping.Transport` that binds each courier call to its pinned origin
 * (or its checked tenant) and sends the adapter's relative requests there.
 *
 * Every request: the URL is built from the origin and a relative path (`Egress.requestUrl`), checked against the
 * courier's allowance (https, port 443, the exact host or a tenant of its domain, no userinfo, no IP literal), the
 * host is resolved and every address must be public (`Egress.resolvePublic`), and the connection goes to the
 * checked addresses only, each in turn until one connects, with TLS verified against the host name. Redirects are never followed: a 3xx reaches the
 * adapter as a response. Each request gets what is left of its operation's deadline (`Shipping.Transport`): when
 * that runs out the socket is closed, and a request made after it is refused unsent. Bodies above MAX_BODY_BYTES
 * are cut off as a bad response.
 *
 * A circuit breaker per origin stops hammering a courier that is down: after BREAKER_FAILURES consecutive failed
 * calls (unreachable, silent for 30 s, or a 5xx answer — a caller's shorter timeout never counts) its circuit opens and calls fail at once as unreachable for
 * BREAKER_OPEN (doubling while it keeps failing, at most BREAKER_MAX_OPEN); then one probe call decides.
 *
 * The courier's declared rate limits (`CourierAdapter.define({ rateLimits })`) pace every request of an account
 * (the courier key and `Shipping.accountKey`) before it is sent, through the `CourierPacer` the layer is given (in
 * process, or shared by every instance through Redis): a request waits for its account's next slot when that slot
 * comes before its deadline, and otherwise fails as `CourierRateLimited` without being sent.
 *
 * A document request (`CourierHttp.documentRequest`: a label on a storage host, linked from the courier's answer)
 * goes to its host only when the courier's manifest declares it (`documents`), as a GET without the adapter's
 * headers or a body, checked, resolved and bounded like any other request, and unpaced (the limits are the API's).
 *
 * Loopback overrides (`TAWSIL_COURIER_ORIGINS`, process configuration only) send an origin's requests to a local
 * fake over plain HTTP, skipping DNS: that is how tests and local runs reach fake couriers.
 *
 * Observability: every request is counted and timed (`ShippingMetrics`: courier key, platform, outcome) and each
 * origin's circuit state is a gauge. With `ServiceSpans` on, a request is a client span naming the courier key,
 * the platform, the method, the host and the answer's status — never the path, query, headers or body, which
 * carry credentials, tracking numbers and customers' data.
 */

import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import type { CourierManifest, RateLimit } from "@tawsil/courier/CourierAdapter"
import { BadResponse, type CourierRateLimited, Unreachable } from "@tawsil/courier/CourierError"
import {
  bodyOf,
  CourierHttp,
  type CourierRequest,
  type CourierResponse,
  declaresDocumentHost
} from "@tawsil/courier/CourierHttp"
import { Egress, ProcessEgress } from "@tawsil/egress"
import { ServiceSpans } from "@tawsil/tracing"
import { Clock, Duration, Effect, Exit, Layer, Metric, Option, Schedule, Stream } from "effect"
import { CircuitBreaker } from "effect/persistence"
import * as CourierPacer from "./CourierPacer.ts"
import { Transport } from "./Shipping.ts"
import * as ShippingMetrics from "./ShippingMetrics.ts"

export const MAX_BODY_BYTES = 5 * 1024 * 1024
export const BREAKER_FAILURES = 5
export const BREAKER_OPEN = Duration.seconds(30)
export const BREAKER_MAX_OPEN = Duration.minutes(5)
/** Only a courier silent this long (the longest `options.timeoutMs` a caller may ask) counts against its circuit. */
export const BREAKER_TIMEOUT = Duration.seconds(30)
const BREAKER_TIMEOUT_MILLIS = Duration.toMillis(BREAKER_TIMEOUT)
interface Target {
  readonly url: URL
  /** The checked addresses to connect to, in the resolver's order, or undefined for a loopback override (no DNS). */
  readonly addresses: ReadonlyArray<string> | undefined
}

/**
 * A DNS lookup that answers only the addresses already checked, so the connection cannot go elsewhere. Asked for
 * all of them (`autoSelectFamily`), it gives every one, and Node tries each in turn until one connects; nothing is
 * sent before a connection is made, so trying the next address never repeats a request.
 */
export const pinnedLookup =
  (addresses: ReadonlyArray<string>): Net.LookupFunction =>
  (_host, options, callback) => {
    if ((options as { all?: boolean }).all) {
      ;(callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(
        null,
        addresses.map((address) => ({ address, family: Net.isIP(address) }))
      )
    } else callback(null, addresses[0]!, Net.isIP(addresses[0]!))
  }

/**
 * Connections to couriers are kept alive and reused: a parcel create makes several calls to one origin. An idle one is
 * closed after `IDLE_MS`, before the servers close theirs (Node's servers after 5 s, most proxies later): a request
 * sent on a connection the server is closing at that moment is reset, and since the courier may have read it (a create
 * is not sent twice), it would fail as unreachable. Node 22's agent keeps an idle socket until the server closes it
 * whatever the server's `Keep-Alive: timeout` says; `timeout` is the agent's idle limit (an answer taking longer is
 * not cut by it: the operation's deadline decides).
 */
export const IDLE_MS = 4_000
const agents = {
  "http:": new Http.Agent({ keepAlive: true, keepAliveMsecs: 15_000, timeout: IDLE_MS }),
  "https:": new Https.Agent({ keepAlive: true, keepAliveMsecs: 15_000, timeout: IDLE_MS })
}

/**
 * Headers an adapter may not set: the host (on a multi-tenant platform a spoofed `Host` could reach another tenant
 * while the connection stays pinned) and the framing headers the transport owns.
 */
const RESERVED = new Set(["host", "connection", "content-length", "transfer-encoding", "upgrade", "te", "trailer"])

const adapterHeaders = (headers: Readonly<Record<string, string>> | undefined) =>
  Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !RESERVED.has(name.toLowerCase())))

const send = (request: CourierRequest, target: Target, courier: string) =>
  Effect.callback<CourierResponse, Unreachable | BadResponse>((resume) => {
    const encoded = bodyOf(request)
    const body = encoded?.bytes
    // A document host gets none of the adapter's headers: they carry the courier's credentials.
    const headers: Record<string, string> = {
      accept: request.host === undefined ? "application/json" : "*/*",
      "user-agent": "tawsil",
      ...(request.host === undefined ? adapterHeaders(request.headers) : {}),
      ...(encoded ? { "content-type": encoded.contentType, "content-length": String(encoded.bytes.length) } : {})
    }
    const options: Https.RequestOptions = {
      method: request.method,
      headers,
      agent: agents[target.url.protocol as keyof typeof agents],
      ...(target.addresses === undefined
        ? {}
        : {
            servername: target.url.hostname,
            lookup: pinnedLookup(target.addresses),
            autoSelectFamily: true
          })
    }
    const client = target.url.protocol === "https:" ? Https : Http
    const respond = (incoming: Http.IncomingMessage) => {
      const chunks: Array<Buffer> = []
      let size = 0
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          incoming.destroy()
          resume(Effect.fail(new BadResponse({ message: `${courier} answered more than ${MAX_BODY_BYTES} bytes` })))
          return
        }
        chunks.push(chunk)
      })
      incoming.on("end", () => {
        const responseHeaders: Record<string, string> = {}
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(", ") : value
        }
        const bytes = Buffer.concat(chunks)
        const answered = Effect.succeed({
          status: incoming.statusCode ?? 0,
          headers: responseHeaders,
          text: bytes.toString("utf8"),
          bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        })
        // The agent takes the connection back on the next tick after the answer ends: resumed then, the operation's
        // next call to the courier (a login then a create, a commune list then a create) reuses it.
        process.nextTick(() => resume(answered))
      })
      incoming.on("error", () => resume(Effect.fail(new Unreachable({ message: `${courier}: the connection broke` }))))
    }
    // The process egress guard (ProcessEgress) lets exactly this connection through: the checked host, or its
    // loopback stand-in. The socket is opened inside `request`, so the permit ends when it returns.
    const port = Number(target.url.port) || (target.url.protocol === "https:" ? 443 : 80)
    const outgoing = ProcessEgress.permit({ host: target.url.hostname, port }, () =>
      client.request(target.url, options, respond)
    )
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      resume(
        Effect.fail(
          new Unreachable({ message: `${courier} could not be reached (${error.code ?? "connection error"})` })
        )
      )
    )
    if (body) outgoing.write(body)
    outgoing.end()
    // Interruption (the operation's deadline) reaches the socket.
    return Effect.sync(() => outgoing.destroy())
  })

/** A loopback override's URL for a checked request: its origin, the request's path and query, nothing else. */
const overrideUrl = (override: string, url: URL) => {
  const target = new URL(override)
  target.pathname = url.pathname
  target.search = url.search
  return target
}

/** What the breaker counts: no answer, or a 5xx answer. A 4xx is the courier working as documented. */
const outcomeOf = (
  exit: Exit.Exit<CourierResponse, Unreachable | BadResponse | Egress.BlockedEgress>
): CircuitBreaker.Outcome =>
  Exit.isSuccess(exit)
    ? exit.value.status >= 500
      ? CircuitBreaker.failure()
      : CircuitBreaker.success
    : Exit.hasInterrupts(exit) ||
        Exit.findErrorOption(exit).pipe(Option.exists((error) => error._tag === "BlockedEgress"))
      ? CircuitBreaker.ignored
      : CircuitBreaker.failure()

/** A request's outcome for the metrics: its answer's status class, or why it had none. */
const outcomeLabel = (
  exit: Exit.Exit<CourierResponse, Unreachable | BadResponse | Egress.BlockedEgress | CourierRateLimited>,
  missed: "timeout" | "circuit_open" | undefined
): ShippingMetrics.Outcome => {
  if (Exit.isSuccess(exit)) return ShippingMetrics.statusClass(exit.value.status)
  if (missed !== undefined) return missed
  const error = Exit.findErrorOption(exit)
  if (Option.isNone(error)) return "interrupted"
  switch (error.value._tag) {
    case "CourierRateLimited":
      return "rate_limited"
    case "BadResponse":
      return "bad_response"
    case "BlockedEgress":
      return "blocked"
    default:
      return "unreachable"
  }
}

/** The transport, with loopback overrides parsed from process configuration. */
export const layer = (options: { readonly overrides: Egress.Overrides }) =>
  Layer.effect(
    Transport,
    Effect.gen(function* () {
      const resolver = yield* Egress.Resolver
      const pacer = yield* CourierPacer.CourierPacer
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(BREAKER_FAILURES),
        openDuration: Schedule.exponential(BREAKER_OPEN),
        maxOpenDuration: BREAKER_MAX_OPEN
      }).pipe(Effect.provide(CircuitBreaker.layerStoreMemory()))
      const spans = yield* ServiceSpans.ServiceSpans
      // Each origin's circuit as a gauge, from this breaker's transitions (it reports no metrics of its own).
      yield* breaker.transitions.pipe(
        Stream.runForEach((transition) =>
          Metric.update(
            Metric.withAttributes(ShippingMetrics.circuitState, { origin: transition.key }),
            ShippingMetrics.circuitValue(transition.to)
          )
        ),
        Effect.forkScoped
      )

      const bind = ({
        courier,
        platform,
        tenantOrigin,
        timeout,
        deadline,
        rateLimits,
        account
      }: {
        readonly courier: CourierManifest
        readonly platform?: string | undefined
        readonly tenantOrigin: Egress.Origin | undefined
        readonly timeout: Duration.Duration
        readonly deadline: number
        readonly rateLimits: ReadonlyArray<RateLimit>
        readonly account: string | undefined
      }) => {
        const pinned = "origin" in courier.endpoint ? (courier.endpoint.origin as Egress.Origin) : undefined
        const origin = pinned ?? tenantOrigin
        const allowance: Egress.Allowance =
          "origin" in courier.endpoint
            ? { kind: "exact", origin: courier.endpoint.origin as Egress.Origin }
            : { kind: "tenant", domain: courier.endpoint.tenantDomain }
        // The caller's tenant host that does not resolve (or not to public addresses) is the caller's to fix: refused
        // egress, a 400. The pinned host of a courier that does not, or a document host its answer named, is the
        // courier being out of reach: a 502, counted by the breaker like any other failure to reach it.
        const resolve = (host: string, document: boolean) =>
          pinned === undefined && !document
            ? Egress.resolvePublic(host)
            : Egress.resolvePublic(host).pipe(
                Effect.catchTag("BlockedEgress", (error) => Effect.fail(new Unreachable({ message: error.reason })))
              )
        /**
         * Where a request goes: the courier's origin, or a document host its manifest declares, reached by a bare GET
         * (`CourierHttp.documentRequest`).
         */
        const destinationOf = (
          request: CourierRequest
        ): Effect.Effect<
          { readonly origin: Egress.Origin; readonly allowance: Egress.Allowance },
          Egress.BlockedEgress
        > => {
          if (request.host === undefined) {
            return origin === undefined
              ? Effect.fail(new Egress.BlockedEgress({ reason: `${courier.key} needs options.baseUrl` }))
              : Effect.succeed({ origin, allowance })
          }
          if (!declaresDocumentHost(courier.documents, request.host)) {
            return Effect.fail(
              new Egress.BlockedEgress({ reason: `${request.host} is not a document host of ${courier.key}` })
            )
          }
          if (request.method !== "GET" || bodyOf(request) !== undefined) {
            return Effect.fail(new Egress.BlockedEgress({ reason: "a document host is only read, by a bare GET" }))
          }
          return Effect.map(Effect.fromResult(Egress.parseOrigin(`https://${request.host}`)), (document) => ({
            origin: document,
            allowance: { kind: "exact", origin: document } as const
          }))
        }
        const timedOut = () =>
          new Unreachable({ message: `${courier.name} did not answer within ${Duration.format(timeout)}` })
        const limited = account !== undefined && rateLimits.length > 0
        const labels = { courier: courier.key, platform: platform ?? "unknown" }
        const request = (
          request: CourierRequest
        ): Effect.Effect<CourierResponse, Unreachable | BadResponse | Egress.BlockedEgress | CourierRateLimited> => {
          // Why a request got no answer, where the failure alone does not tell (all three are `Unreachable`).
          let missed: "timeout" | "circuit_open" | undefined
          const document = request.host !== undefined
          const call = Effect.gen(function* () {
            const destination = yield* destinationOf(request)
            const url = yield* Effect.fromResult(Egress.requestUrl(destination.origin, request.path))
            for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value)
            yield* Effect.fromResult(Egress.checkRequestUrl(url, destination.allowance))
            // The operation's budget is shared by its requests: this one gets what the earlier ones left. Once it
            // is spent nothing more is sent, and the breaker, which judges the courier, never hears of it.
            if (deadline - (yield* Clock.currentTimeMillis) <= 0) return yield* timedOut()
            // The account's pace, before anything leaves: a refusal sends nothing and the breaker never hears of
            // it. The wait for a slot comes out of the request's budget.
            if (limited && !document) {
              yield* pacer.take({ key: CourierPacer.keyOf(courier.key, account), limits: rateLimits, deadline })
            }
            const left = deadline - (yield* Clock.currentTimeMillis)
            const override = Egress.overrideFor(options.overrides, destination.origin)
            // One timer per call. A call given the longest timeout a caller may ask is judged by the breaker: a
            // courier silent that long counts as failing. A call with less left ends at the caller's deadline
            // instead, an interruption the breaker ignores (it judges the courier, not the caller's patience).
            const judgedBySilence = left >= BREAKER_TIMEOUT_MILLIS
            const exchange = Effect.gen(function* () {
              const target: Target =
                override === undefined
                  ? { url, addresses: yield* resolve(url.hostname, document) }
                  : { url: overrideUrl(override, url), addresses: undefined }
              return yield* send(request, target, courier.name)
            }).pipe(
              Effect.catchTag("ResolutionFailed", (error) => Effect.fail(new Unreachable({ message: error.message }))),
              (call) =>
                judgedBySilence
                  ? Effect.timeoutOrElse(call, {
                      duration: BREAKER_TIMEOUT,
                      orElse: () => {
                        missed = "timeout"
                        return Effect.fail(new Unreachable({ message: `${courier.name} did not answer` }))
                      }
                    })
                  : call,
              breaker.execute({ key: destination.origin, classify: outcomeOf }),
              Effect.catchTag("CircuitBreakerError", (error) => {
                missed = "circuit_open"
                return Effect.fail(
                  new Unreachable({
                    message:
                      error.reason._tag === "CircuitOpen"
                        ? `${courier.name} is failing; not called again for ${Duration.format(error.reason.retryAfter)}`
                        : `${courier.name} is failing; a probe call is under way`
                  })
                )
              })
            )
            return yield* judgedBySilence
              ? exchange
              : Effect.timeoutOrElse(exchange, {
                  duration: Duration.millis(left),
                  orElse: () => {
                    missed = "timeout"
                    return Effect.fail(timedOut())
                  }
                })
          }).pipe(Effect.provideService(Egress.Resolver, resolver))
          const measured = Effect.flatMap(Clock.currentTimeMillis, (started) =>
            Effect.onExit(call, (exit) =>
              Effect.flatMap(Clock.currentTimeMillis, (ended) => {
                const outcome = outcomeLabel(exit, missed)
                const recorded = ShippingMetrics.recordRequest(labels, outcome, (ended - started) / 1000)
                return spans && Exit.isSuccess(exit)
                  ? Effect.andThen(
                      Effect.annotateCurrentSpan({
                        "http.response.status_code": exit.value.status,
                        "tawsil.courier.outcome": outcome
                      }),
                      recorded
                    )
                  : spans
                    ? Effect.andThen(Effect.annotateCurrentSpan("tawsil.courier.outcome", outcome), recorded)
                    : recorded
              })
            )
          )
          return spans
            ? Effect.withSpan(measured, `courier ${request.method}`, {
                kind: "client",
                attributes: {
                  "tawsil.courier": labels.courier,
                  "tawsil.courier.platform": labels.platform,
                  "http.request.method": request.method,
                  ...(document
                    ? { "server.address": request.host }
                    : origin === undefined
                      ? {}
                      : { "server.address": new URL(origin).hostname })
                }
              })
            : measured
        }
        return CourierHttp.of({ request })
      }
      return Transport.of({ bind })
    })
  )
