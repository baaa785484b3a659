/**
 * The delivery worker: claims due deliveries, checks each URL again, signs and sends, records the attempt and what
 * comes next. Runs in every app process; on one database several of them share the work, each delivery claimed by
 * one at a time (`WebhookStore.claim`, `FOR UPDATE SKIP LOCKED` under a lease).
 *
 * For each attempt:
 * 1. the URL passes `WebhookUrl.resolve` again (DNS may have changed since the subscription): a refusal is an
 *    attempt with outcome `refused` and its reason, and nothing is sent;
 * 2. the body is the event's stored payload, signed now twice over, one signature per live secret in each:
 *    `X-TW-Signature: t=<now>,v1=…` and the Standard Webhooks headers (`webhook-id`: the event id, the same on every
 *    attempt; `webhook-timestamp`: the same `<now>`; `webhook-signature: v1,…`);
 * 3. the POST goes to the checked address with the connect and total timeouts; a 2xx is a success, anything else
 *    (a 3xx: redirects are never followed) or no answer is a failure;
 * 4. `RetryPolicy.next` decides: succeeded, given up after the last attempt, or due again after the backoff.
 *
 * Deliveries are not metered. An endpoint is never paused: its failures delay its own deliveries, and new events
 * keep queueing for it. Up to `concurrency` attempts run at once; the claim asks for as many as there are free
 * slots. The worker sleeps until `DeliverySignal` wakes it (a commit of this process queued a delivery, a slot freed)
 * or `pollInterval` passes. A dispatcher that dies mid-attempt leaves its claim to expire after `lease`; the
 * delivery is then claimed again — at least once, with the same event id.
 *
 * Observability (`WebhookMetrics`): each attempt is counted by outcome and timed, and every `backlogInterval` the
 * outbox's pending deliveries and the lateness of its oldest due one are read into gauges. Where a tracer is
 * installed, each POST is a client span (event name, attempt, status; never the URL's path or query) and carries
 * its W3C `traceparent`, so a receiver that traces continues the delivery's trace.
 */
import { randomBytes } from "node:crypto"
import * as Egress from "@tawsil/egress/Egress"
import { StandardWebhookSignature, WebhookSignature } from "@tawsil/signing"
import { Cause, Clock, DateTime, Duration, Effect, FiberSet, Layer, Random, Schedule, Tracer } from "effect"
import { DeliverySignal } from "./DeliverySignal.ts"
import * as RetryPolicy from "./RetryPolicy.ts"
import { WebhookHttp } from "./WebhookHttp.ts"
import * as WebhookMetrics from "./WebhookMetrics.ts"
import { type AttemptRecord, type Claimed, WebhookStore } from "./WebhookStore.ts"
import * as WebhookUrl from "./WebhookUrl.ts"

export const USER_AGENT = "Tawsil-Webhooks/1"

export interface Options {
  /** `WEBHOOK_ALLOW_HOSTS`. */
  readonly allowHosts: WebhookUrl.AllowList
  /** `WEBHOOK_RETRY_DELAYS`, parsed: the delays after attempts 1 to 4. */
  readonly retryDelays?: ReadonlyArray<Duration.Duration> | undefined
  /** Until the receiver's socket is connected; default 5 s. */
  readonly connectTimeout?: Duration.Input | undefined
  /** Until the receiver's whole answer; default 15 s. */
  readonly timeout?: Duration.Input | undefined
  /** Attempts in flight at once in this process; default 8. */
  readonly concurrency?: number | undefined
  /** How often due work is looked for without a wake-up; default 1 s. */
  readonly pollInterval?: Duration.Input | undefined
  /** How often the outbox's depth and lag are read for the metrics; default 5 s. */
  readonly backlogInterval?: Duration.Input | undefined
}

/** A span's W3C trace context header. */
export const traceparentOf = (span: Tracer.Span) => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

export const DEFAULT_CONNECT_TIMEOUT = Duration.seconds(5)
export const DEFAULT_TIMEOUT = Duration.seconds(15)

/** How long a claim is held: twice the total timeout and 5 s, so only a dead dispatcher's claims run out. */
export const leaseFor = (timeout: Duration.Duration) => Duration.sum(Duration.times(timeout, 2), Duration.seconds(5))

/** The headers of one attempt: both signatures share its timestamp. */
export const headersOf = (delivery: Claimed, nowSeconds: number): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": USER_AGENT,
  [WebhookSignature.HEADER]: WebhookSignature.header(delivery.secrets, nowSeconds, delivery.payload),
  ...StandardWebhookSignature.headers({
    id: delivery.eventId,
    timestamp: nowSeconds,
    body: delivery.payload,
    secrets: delivery.secrets
  }),
  "x-tw-event": delivery.event,
  "x-tw-event-id": delivery.eventId,
  "x-tw-delivery-id": String(delivery.id),
  "x-tw-attempt": String(delivery.attempt)
})

/** What the attempt came to, before the policy decides what follows. */
const attemptOutcome = (status: number): Pick<AttemptRecord, "outcome" | "statusCode" | "error"> =>
  status >= 200 && status < 300
    ? { outcome: "succeeded", statusCode: status, error: null }
    : {
        outcome: "failed",
        statusCode: status,
        error:
          status >= 300 && status < 400
            ? `HTTP ${status}: redirects are never followed; point the subscription at the final URL`
            : `HTTP ${status}`
      }

export const layer = (
  options: Options
): Layer.Layer<never, never, WebhookStore | WebhookHttp | DeliverySignal | Egress.Resolver> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const http = yield* WebhookHttp
      const signal = yield* DeliverySignal
      const resolver = yield* Egress.Resolver
      const delays = options.retryDelays ?? RetryPolicy.defaultDelays
      const connectTimeout = Duration.fromInputUnsafe(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT)
      const timeout = Duration.fromInputUnsafe(options.timeout ?? DEFAULT_TIMEOUT)
      const lease = leaseFor(timeout)
      const concurrency = options.concurrency ?? 8
      const pollInterval = options.pollInterval ?? Duration.seconds(1)
      const fibers = yield* FiberSet.make<void, never>()
      let inFlight = 0
      // Spans only where a tracer listens: the native one records nothing, and a header naming its span would lie.
      const traced = (yield* Tracer.Tracer) !== Tracer.nativeTracer

      const post = (request: Parameters<WebhookHttp["Service"]["post"]>[0], delivery: Claimed) =>
        traced
          ? Effect.useSpan(
              "webhook POST",
              {
                kind: "client",
                attributes: {
                  "tawsil.webhook.event": delivery.event,
                  "tawsil.webhook.attempt": delivery.attempt,
                  "http.request.method": "POST"
                }
              },
              (span) =>
                http
                  .post({ ...request, headers: { ...request.headers, traceparent: traceparentOf(span) } })
                  .pipe(Effect.tap((status) => Effect.sync(() => span.attribute("http.response.status_code", status))))
            )
          : http.post(request)

      const attempt = Effect.fnUntraced(function* (delivery: Claimed) {
        const startedMillis = yield* Clock.currentTimeMillis
        const target = yield* WebhookUrl.resolve(delivery.url, options.allowHosts).pipe(
          Effect.provideService(Egress.Resolver, resolver),
          Effect.result
        )
        const sent =
          target._tag === "Failure"
            ? ({ outcome: "refused", statusCode: null, error: target.failure } as const)
            : yield* post(
                {
                  target: target.success,
                  headers: headersOf(delivery, Math.floor(startedMillis / 1000)),
                  body: delivery.payload,
                  connectTimeout,
                  timeout
                },
                delivery
              ).pipe(
                Effect.map(attemptOutcome),
                Effect.catchTag("SendFailed", (error) =>
                  Effect.succeed({ outcome: "failed", statusCode: null, error: error.message } as const)
                )
              )
        const latencyMs = (yield* Clock.currentTimeMillis) - startedMillis
        yield* WebhookMetrics.recordAttempt(sent.outcome, latencyMs / 1000)
        const next = RetryPolicy.next({
          succeeded: sent.outcome === "succeeded",
          attempt: delivery.attempt,
          maxAttempts: delivery.maxAttempts,
          delays,
          random: yield* Random.next
        })
        const recorded = yield* store.finishAttempt({
          deliveryId: delivery.id,
          token: delivery.token,
          attempt: { ...sent, attempt: delivery.attempt, startedAt: DateTime.makeUnsafe(startedMillis), latencyMs },
          status: next.status,
          retryInMillis: next.status === "pending" ? next.retryInMillis : null
        })
        const log = sent.outcome === "succeeded" ? Effect.logDebug : Effect.logInfo
        yield* log(recorded ? "webhook attempt" : "webhook attempt not recorded: its claim had run out").pipe(
          Effect.annotateLogs({
            delivery: delivery.id,
            event: delivery.eventId,
            attempt: delivery.attempt,
            outcome: sent.outcome,
            status: sent.statusCode ?? "none",
            latencyMs,
            next: next.status
          })
        )
      })

      const run = (delivery: Claimed) =>
        attempt(delivery).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logWarning("webhook attempt failed unexpectedly", cause).pipe(
                  Effect.annotateLogs({ delivery: delivery.id })
                )
          ),
          Effect.ensuring(
            Effect.suspend(() => {
              inFlight--
              return signal.notify
            })
          )
        )

      const round = Effect.gen(function* () {
        const free = concurrency - inFlight
        if (free <= 0) return false
        const token = randomBytes(12).toString("hex")
        const claimed = yield* store.claim(free, lease, token)
        for (const delivery of claimed) {
          inFlight++
          yield* FiberSet.run(fibers, run(delivery))
        }
        return claimed.length === free
      }).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("webhook claim failed; trying again", cause), false))
      )

      // The outbox's depth and lag, read on their own schedule (one statement on the pending deliveries' index).
      yield* store.backlog.pipe(
        Effect.flatMap(WebhookMetrics.recordBacklog),
        Effect.catchCause((cause) => Effect.logDebug("webhook backlog not read", cause)),
        Effect.repeat(Schedule.spaced(options.backlogInterval ?? Duration.seconds(5))),
        Effect.forkScoped
      )

      yield* Effect.gen(function* () {
        for (;;) {
          // A full claim means more may be due now; otherwise sleep until woken or the poll interval.
          if (!(yield* round)) yield* signal.wait(pollInterval)
        }
      }).pipe(Effect.forkScoped)
    })
  )
