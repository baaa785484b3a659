/**
 * The Yalidine engine as it pushes to a merchant's webhook (research: peer-landscape §3, Yalidine's webhook guide as
 * integrators transcribed it) — its own implementation of the scheme, never the adapter's, so that each checks the
 * other:
 *
 * - Subscribing a URL (creating or editing the webhook) first validates it: `GET <url>?subscribe&crc_token=<token>`,
 *   which must answer 200 with JSON `{"crc_token": <token>}` within 10 s, or the webhook is not created. Yalidine
 *   validates it again periodically (`revalidate`); a failure then disables the webhook.
 * - A push is one `POST` of `{ type, events: [{ event_id, occurred_at, data }] }` (one type, several events) with
 *   `X-YALIDINE-SIGNATURE`, the hex HMAC-SHA256 of the body's bytes under the webhook's secret key.
 * - Only HTTP 200 within 10 s counts as received; anything else is tried again 5 min, 15 min, 1 h, 3 h, 12 h and
 *   1 day after the previous attempt (7 attempts, about 40 hours), then the webhook is disabled.
 *
 * The retry schedule and the clock are injectable, so tests need not wait hours. Every challenge and delivery is
 * recorded: what was sent, what came back.
 */
import { createHmac, randomBytes } from "node:crypto"
import { FakePusher } from "@tawsil/courier/testing"
import { Data, type Duration, Effect } from "effect"

/** The documented waits before the 2nd … 7th attempt. */
export const RETRY_DELAYS: ReadonlyArray<Duration.Input> = [
  "5 minutes",
  "15 minutes",
  "1 hour",
  "3 hours",
  "12 hours",
  "1 day"
]

/** How long Yalidine waits for an answer, to a challenge or a push. */
export const TIMEOUT: Duration.Input = "10 seconds"

export type EventType =
  | "parcel_created"
  | "parcel_edited"
  | "parcel_deleted"
  | "parcel_status_updated"
  | "parcel_payment_updated"

/** One event of a push, as Yalidine writes it. */
export interface Event {
  readonly event_id: string
  /** Algiers wall-clock time, `YYYY-MM-DD HH:MM:SS`. */
  readonly occurred_at: string
  readonly data: Readonly<Record<string, unknown>>
}

/** The webhook could not be created: the receiver did not echo the challenge. */
export class SubscriptionRefused extends Data.TaggedError("SubscriptionRefused")<{ readonly reason: string }> {}

/** A push to a webhook that was never created, or that Yalidine disabled. */
export class NotSubscribed extends Data.TaggedError("NotSubscribed")<{ readonly reason: string }> {}

/** One challenge sent, and whether the receiver passed it. */
export interface Challenge {
  readonly token: string
  readonly attempt: FakePusher.Attempt
  readonly passed: boolean
}

export interface Options {
  /** The webhook's secret key, as the Webhooks Dashboard shows it. */
  readonly secret: string
  /** The waits between attempts; {@link RETRY_DELAYS} by default. */
  readonly retryDelays?: ReadonlyArray<Duration.Input> | undefined
  /** How long to wait for an answer; {@link TIMEOUT} by default. */
  readonly timeout?: Duration.Input | undefined
  /** The wall clock (epoch ms) events and attempts are stamped with; `Date.now` by default. */
  readonly now?: (() => number) | undefined
}

export interface Pusher {
  readonly secret: string
  /** The URL of the webhook once subscribed. */
  readonly url: () => string | undefined
  /** Whether Yalidine has disabled the webhook (a failed revalidation, or a delivery given up). */
  readonly disabled: () => boolean
  readonly challenges: ReadonlyArray<Challenge>
  readonly deliveries: ReadonlyArray<FakePusher.Delivery>
  /** Creates the webhook for `url`, after its challenge; fails when the receiver does not pass it. */
  readonly subscribe: (url: string) => Effect.Effect<void, SubscriptionRefused>
  /** Validates the webhook again, as Yalidine does now and then: a failure disables it. */
  readonly revalidate: Effect.Effect<boolean, NotSubscribed>
  /** Pushes a batch of one type, retrying on the schedule; a delivery given up disables the webhook. */
  readonly push: (type: EventType, events: ReadonlyArray<Event>) => Effect.Effect<FakePusher.Delivery, NotSubscribed>
}

/** The bytes Yalidine sends for a batch. */
export const bodyOf = (type: EventType, events: ReadonlyArray<Event>): Uint8Array =>
  new Uint8Array(Buffer.from(JSON.stringify({ type, events }), "utf8"))

/** The headers Yalidine signs a body with. */
export const sign = (body: Uint8Array, secret: string): Record<string, string> => ({
  "x-yalidine-signature": createHmac("sha256", secret).update(body).digest("hex")
})

/** An epoch time as Yalidine prints it: Algiers wall-clock time (UTC+01:00 all year). */
export const algiersTime = (epochMillis: number): string =>
  new Date(epochMillis + 3_600_000).toISOString().slice(0, 19).replace("T", " ")

const eventId = () => randomBytes(16).toString("base64url").slice(0, 32)

/** `parcel_status_updated`'s event: the parcel's new status, and Yalidine's reason (failed attempts, holds). */
export const statusUpdated = (
  tracking: string,
  status: string,
  options: { readonly reason?: string; readonly at?: number; readonly eventId?: string } = {}
): Event => ({
  event_id: options.eventId ?? eventId(),
  occurred_at: algiersTime(options.at ?? Date.now()),
  data: { tracking, status, reason: options.reason ?? "" }
})

/** `parcel_payment_updated`'s event: `not-ready`, `ready`, `receivable` or `payed`. */
export const paymentUpdated = (
  tracking: string,
  status: "not-ready" | "ready" | "receivable" | "payed",
  options: { readonly paymentId?: string; readonly at?: number; readonly eventId?: string } = {}
): Event => ({
  event_id: options.eventId ?? eventId(),
  occurred_at: algiersTime(options.at ?? Date.now()),
  data: { tracking, status, payment_id: options.paymentId ?? null }
})

/** `parcel_deleted`'s event. */
export const deleted = (
  tracking: string,
  options: { readonly at?: number; readonly eventId?: string } = {}
): Event => ({
  event_id: options.eventId ?? eventId(),
  occurred_at: algiersTime(options.at ?? Date.now()),
  data: { tracking }
})

/** Whether an answer echoes the token as Yalidine asks: 200, JSON `{ "crc_token": token }`. */
const echoes = (attempt: FakePusher.Attempt, token: string) => {
  if (attempt.status !== 200 || attempt.answer === undefined) return false
  try {
    const body = JSON.parse(attempt.answer) as unknown
    return typeof body === "object" && body !== null && (body as { crc_token?: unknown }).crc_token === token
  } catch {
    return false
  }
}

export const make = (options: Options): Pusher => {
  const timeout = options.timeout ?? TIMEOUT
  const sender = FakePusher.make({
    retryDelays: options.retryDelays ?? RETRY_DELAYS,
    accepted: (status) => status === 200,
    timeout,
    now: options.now
  })
  const challenges: Array<Challenge> = []
  let url: string | undefined
  let disabled = false

  const challenge = (target: string) =>
    Effect.gen(function* () {
      const token = randomBytes(24).toString("hex")
      const attempt = yield* sender.once({
        url: `${target}${target.includes("?") ? "&" : "?"}subscribe&crc_token=${token}`,
        method: "GET",
        headers: { accept: "application/json", "user-agent": "Yalidine-Webhooks" },
        body: new Uint8Array()
      })
      const passed = echoes(attempt, token)
      challenges.push({ token, attempt, passed })
      return passed
    })

  const subscribed = Effect.suspend(() =>
    url === undefined
      ? Effect.fail(new NotSubscribed({ reason: "no webhook was created" }))
      : disabled
        ? Effect.fail(new NotSubscribed({ reason: "the webhook is disabled" }))
        : Effect.succeed(url)
  )

  return {
    secret: options.secret,
    url: () => url,
    disabled: () => disabled,
    challenges,
    deliveries: sender.deliveries,
    subscribe: (target) =>
      Effect.flatMap(challenge(target), (passed) => {
        if (!passed) return Effect.fail(new SubscriptionRefused({ reason: "the receiver did not echo crc_token" }))
        url = target
        disabled = false
        return Effect.void
      }),
    revalidate: Effect.flatMap(subscribed, (target) =>
      Effect.map(challenge(target), (passed) => {
        if (!passed) disabled = true
        return passed
      })
    ),
    push: (type, events) =>
      Effect.flatMap(subscribed, (target) => {
        const body = bodyOf(type, events)
        return Effect.tap(
          sender.deliver({
            url: target,
            method: "POST",
            headers: {
              "content-type": "application/json",
              "user-agent": "Yalidine-Webhooks",
              ...sign(body, options.secret)
            },
            body
          }),
          (delivery) =>
            Effect.sync(() => {
              if (!delivery.delivered) disabled = true
            })
        )
      })
  }
}
