/**
 * Maystro as it pushes to a merchant's webhook (research: couriers.md §1.5, peer-landscape §3), written from the
 * research without the adapter's code, so that each checks the other:
 *
 * - A webhook is created through Maystro's API (`stores/hooks/costume/`, sic) for a URL; the merchant configures the
 *   `X-Webhook-Secret` header on it, which Maystro sends with every push. No challenge; no signature.
 * - A push is one `POST` whose body is the order's JSON base64-encoded twice — as is (`raw`), as a JSON string
 *   (`json-string`), or as the `data` or `payload` member of a JSON object — the forms receivers have met.
 * - Maystro documents neither what counts as received nor any retry: any 2xx is taken as received, and a failure is
 *   tried again after {@link RETRY_DELAYS} (an assumption; injectable), then given up.
 *
 * Every delivery is recorded: what was sent, what came back.
 */
import { FakePusher } from "@tawsil/courier/testing"
import { Data, type Duration, Effect } from "effect"

/** Assumed waits before the 2nd … 4th attempt: Maystro documents none. */
export const RETRY_DELAYS: ReadonlyArray<Duration.Input> = ["1 minute", "5 minutes", "30 minutes"]

/** Assumed: Maystro documents no timeout. */
export const TIMEOUT: Duration.Input = "10 seconds"

export type Wrapping = "raw" | "json-string" | "data" | "payload"

/** An order as Maystro pushes it: its UUID, display id, the merchant's id, its numeric status. */
export interface Order {
  readonly id: string
  readonly display_id_order: number
  readonly external_order_id?: string | undefined
  readonly status: number
  /** Algiers wall-clock time, as Django prints it without time zones. */
  readonly updated_at?: string | undefined
}

/** A push to a webhook that was never created. */
export class NotSubscribed extends Data.TaggedError("NotSubscribed")<{ readonly reason: string }> {}

export interface Options {
  /** The secret the merchant configured as the webhook's `X-Webhook-Secret`. */
  readonly secret: string
  readonly wrapping?: Wrapping | undefined
  readonly retryDelays?: ReadonlyArray<Duration.Input> | undefined
  readonly timeout?: Duration.Input | undefined
  readonly now?: (() => number) | undefined
}

export interface Pusher {
  readonly secret: string
  readonly url: () => string | undefined
  readonly deliveries: ReadonlyArray<FakePusher.Delivery>
  readonly subscribe: (url: string) => Effect.Effect<void>
  /** Pushes one order (or a list of them), retrying on the schedule. */
  readonly push: (
    orders: Order | ReadonlyArray<Order>,
    wrapping?: Wrapping
  ) => Effect.Effect<FakePusher.Delivery, NotSubscribed>
}

/** JSON, base64-encoded twice. */
export const encode = (value: unknown): string =>
  Buffer.from(Buffer.from(JSON.stringify(value), "utf8").toString("base64"), "utf8").toString("base64")

/** The body Maystro sends for a payload, in one of the forms receivers have met. */
export const bodyOf = (payload: unknown, wrapping: Wrapping = "raw"): Uint8Array => {
  const encoded = encode(payload)
  const text =
    wrapping === "raw"
      ? encoded
      : wrapping === "json-string"
        ? JSON.stringify(encoded)
        : JSON.stringify({ [wrapping]: encoded })
  return new Uint8Array(Buffer.from(text, "utf8"))
}

/** The header Maystro sends: the secret as configured. */
export const sign = (_body: Uint8Array, secret: string): Record<string, string> => ({ "x-webhook-secret": secret })

/** An Algiers wall-clock time of an epoch, as Django prints it (`2026-04-18 19:45:06`). */
export const algiersTime = (epochMillis: number): string =>
  new Date(epochMillis + 3_600_000).toISOString().slice(0, 19).replace("T", " ")

export const make = (options: Options): Pusher => {
  const sender = FakePusher.make({
    retryDelays: options.retryDelays ?? RETRY_DELAYS,
    accepted: (status) => status >= 200 && status < 300,
    timeout: options.timeout ?? TIMEOUT,
    now: options.now
  })
  let url: string | undefined
  return {
    secret: options.secret,
    url: () => url,
    deliveries: sender.deliveries,
    subscribe: (target) =>
      Effect.sync(() => {
        url = target
      }),
    push: (orders, wrapping) =>
      Effect.suspend(() => {
        if (url === undefined) return Effect.fail(new NotSubscribed({ reason: "no webhook was created" }))
        const body = bodyOf(orders, wrapping ?? options.wrapping)
        return sender.deliver({
          url,
          method: "POST",
          headers: {
            "content-type": (wrapping ?? options.wrapping ?? "raw") === "raw" ? "text/plain" : "application/json",
            ...sign(body, options.secret)
          },
          body
        })
      })
  }
}
