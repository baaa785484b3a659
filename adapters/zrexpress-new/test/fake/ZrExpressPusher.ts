/**
 * The new ZR Express platform as it pushes to a merchant's webhook endpoint, through Svix (research: peer-landscape
 * §3) — signed as the Standard Webhooks specification says, never by the adapter's code (and checked against the
 * scheme's reference library, `standardwebhooks`, in ZrExpressPush.test.ts), so that each checks the other:
 *
 * - An endpoint is created through ZR's API (`POST webhooks/endpoints { url, events }`); its signing secret, `whsec_`
 *   and the base64 of 24 random bytes, is read from `webhooks/endpoints/{id}/secret`. Svix sends no challenge.
 * - Each event is one `POST` of `{ eventType, occurredAt, data }` with `svix-id` (the message id, the same on every
 *   attempt), `svix-timestamp` (this attempt's unix seconds) and `svix-signature` (`v1,<base64>` per live secret).
 * - Any 2xx within 15 s counts as received; anything else is tried again on Svix's schedule: 5 s, 5 min, 30 min,
 *   2 h, 5 h, 10 h, 10 h after the previous attempt, then given up (ZR documents no schedule of its own).
 *
 * The schedule and the clock are injectable, so tests need not wait hours. Every delivery is recorded.
 */
import { createHmac, randomBytes } from "node:crypto"
import { FakePusher } from "@tawsil/courier/testing"
import { Data, type Duration, Effect } from "effect"

/** Svix's documented waits before the 2nd … 8th attempt. */
export const RETRY_DELAYS: ReadonlyArray<Duration.Input> = [
  "5 seconds",
  "5 minutes",
  "30 minutes",
  "2 hours",
  "5 hours",
  "10 hours",
  "10 hours"
]

/** How long Svix waits for an answer. */
export const TIMEOUT: Duration.Input = "15 seconds"

export type EventType = "parcel.state.updated" | "parcel.state.situation.created" | "parcel.isReturn.updated"

/** The parcel an event is about, as ZR names it. */
export interface Parcel {
  /** Its UUID. */
  readonly id: string
  readonly trackingNumber: string
  /** The merchant's reference, sent at creation. */
  readonly externalId?: string | undefined
}

/** One event, as ZR writes it. */
export interface Event {
  readonly eventType: EventType
  /** ISO 8601 in UTC, as ASP.NET writes it (`2026-04-18T09:02:11.000Z`). */
  readonly occurredAt: string
  readonly data: Readonly<Record<string, unknown>>
}

/** A push to an endpoint that was never created. */
export class NotSubscribed extends Data.TaggedError("NotSubscribed")<{ readonly reason: string }> {}

export interface Options {
  /** The endpoint's secret; a fresh `whsec_` one by default, as Svix makes it. */
  readonly secret?: string | undefined
  /** The waits between attempts; {@link RETRY_DELAYS} by default. */
  readonly retryDelays?: ReadonlyArray<Duration.Input> | undefined
  readonly timeout?: Duration.Input | undefined
  /** The wall clock (epoch ms) requests are signed at; `Date.now` by default. */
  readonly now?: (() => number) | undefined
}

export interface Pusher {
  /** The endpoint's signing secret, as the merchant reads it from ZR. */
  readonly secret: string
  readonly url: () => string | undefined
  readonly deliveries: ReadonlyArray<FakePusher.Delivery>
  /** Creates the endpoint for `url` (ZR's API; no challenge). */
  readonly subscribe: (url: string) => Effect.Effect<void>
  /** Pushes one event, retrying on the schedule; resolves delivered or given up. */
  readonly push: (event: Event) => Effect.Effect<FakePusher.Delivery, NotSubscribed>
}

/** A fresh secret, as Svix makes one. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`

/** A message id, as Svix makes one. */
export const newMessageId = (): string => `msg_${randomBytes(18).toString("base64url")}`

/**
 * The Svix headers of one attempt of message `id` at `now`: `v1,` and the base64 HMAC-SHA256 of `<id>.<unix
 * seconds>.<body bytes>`, keyed by the base64 after `whsec_`.
 */
export const sign = (body: Uint8Array, secret: string, now: number, id = newMessageId()): Record<string, string> => {
  const timestamp = String(Math.floor(now / 1000))
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64")
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64")
  return { "svix-id": id, "svix-timestamp": timestamp, "svix-signature": `v1,${signature}` }
}

const data = (parcel: Parcel, more: Readonly<Record<string, unknown>>) => ({
  id: parcel.id,
  trackingNumber: parcel.trackingNumber,
  ...(parcel.externalId === undefined ? {} : { externalId: parcel.externalId }),
  ...more
})

const stateOf = (name: string) => ({ id: randomBytes(16).toString("hex"), name })

/** `parcel.state.updated`: the parcel's new workflow state. */
export const stateUpdated = (parcel: Parcel, stateName: string, at = Date.now()): Event => ({
  eventType: "parcel.state.updated",
  occurredAt: new Date(at).toISOString(),
  data: data(parcel, { state: stateOf(stateName) })
})

/** `parcel.state.situation.created`: a sub-status of the state the parcel is in (a call attempt, …). */
export const situationCreated = (
  parcel: Parcel,
  stateName: string,
  situation: { readonly name: string; readonly description?: string },
  at = Date.now()
): Event => ({
  eventType: "parcel.state.situation.created",
  occurredAt: new Date(at).toISOString(),
  data: data(parcel, { state: stateOf(stateName), situation })
})

/** `parcel.isReturn.updated`: the parcel became a return (or stopped being one). */
export const isReturnUpdated = (parcel: Parcel, isReturn: boolean, stateName: string, at = Date.now()): Event => ({
  eventType: "parcel.isReturn.updated",
  occurredAt: new Date(at).toISOString(),
  data: data(parcel, { isReturn, state: stateOf(stateName) })
})

export const make = (options: Options = {}): Pusher => {
  const secret = options.secret ?? newSecret()
  const now = options.now ?? Date.now
  const sender = FakePusher.make({
    retryDelays: options.retryDelays ?? RETRY_DELAYS,
    accepted: (status) => status >= 200 && status < 300,
    timeout: options.timeout ?? TIMEOUT,
    now
  })
  let url: string | undefined
  return {
    secret,
    url: () => url,
    deliveries: sender.deliveries,
    subscribe: (target) =>
      Effect.sync(() => {
        url = target
      }),
    push: (event) =>
      Effect.suspend(() => {
        if (url === undefined) return Effect.fail(new NotSubscribed({ reason: "no endpoint was created" }))
        const body = new Uint8Array(Buffer.from(JSON.stringify(event), "utf8"))
        // One message id for every attempt, as Svix keeps it; each attempt is signed at its own time.
        const id = newMessageId()
        return sender.deliver(
          { url, method: "POST", headers: { "content-type": "application/json", "user-agent": "Svix-Webhooks" }, body },
          (at) => sign(body, secret, at, id)
        )
      })
  }
}
