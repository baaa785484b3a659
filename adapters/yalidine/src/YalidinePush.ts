/**
 * What the Yalidine engine pushes to a merchant's webhook (research: peer-landscape §3, Yalidine's webhook guide as
 * integrators transcribed it), read as the SDK's `Push`. The same on all six networks:
 *
 * - The CRC challenge: `GET ?subscribe&crc_token=X`, at subscription, on every edit and periodically, answered 200
 *   `{"crc_token":"X"}` within 10 s (else the webhook is not created, or disabled). Unsigned; a token that is not 1 to
 *   {@link MAX_CRC_TOKEN} letters, digits or `-_.~+/=` is refused, so nothing else is echoed.
 * - Events: `POST` JSON `{ type, events: [{ event_id, occurred_at, data }] }`, one type per request, several events,
 *   signed with `X-YALIDINE-SIGNATURE`: the hex HMAC-SHA256 of the raw body under the webhook's secret key.
 *   `occurred_at` is Algiers wall-clock time (`2026-05-09 14:55:00`).
 *
 * How each type reads:
 * - `parcel_status_updated` (`data: { tracking, status, reason }`): a movement, `status` mapped by the status table.
 * - `parcel_payment_updated` (`data: { tracking, status, payment_id }`): cash, `status` one of `not-ready`, `ready`,
 *   `receivable`, `payed`, mapped by the cash table; `payment_id`, the payout it was paid in, as the event's payment
 *   `statement` (the COD ledger's).
 * - `parcel_deleted` (`data: { tracking }`): the parcel is gone — deleted in the dashboard or through the API, which
 *   Yalidine allows only while it is "En préparation" — reported as the raw status `parcel_deleted` (cancelled).
 *   Tracking cannot say it: a deleted parcel has no history left to read.
 * - `parcel_created`, `parcel_edited`: nothing moved (the host made the parcel; an edit changes its details, never
 *   its status), so no event; nor for a type Yalidine may add later, as its guide says to log and ignore those.
 *
 * A request whose signature does not match is refused before its body is read; a body that is not that JSON is
 * malformed. An event without a tracking number, a status or a readable time is left out and counted (`unread`)
 * rather than the batch refused: Yalidine retries a refused batch for about 40 hours and then disables the webhook.
 */
import { Push } from "@tawsil/courier"
import { AlgiersTime } from "@tawsil/domain"
import { Option, Redacted, Result, Schema } from "effect"
import * as Status from "./YalidineStatus.ts"

export const SIGNATURE_HEADER = "x-yalidine-signature"

/** The longest challenge token echoed. */
export const MAX_CRC_TOKEN = 256

const CRC_TOKEN = /^[A-Za-z0-9\-_.~+/=]+$/

/**
 * The webhook's secret key, from the Yalidine Webhooks Dashboard. Its form is not documented: 8–256 visible ASCII
 * characters, as the API token.
 */
export const Secret = Schema.RedactedFromValue(
  Schema.String.check(
    Schema.isBetweenLength(8, 256, { message: "Expected a Yalidine webhook secret of 8 to 256 characters" }),
    Schema.isPattern(/^[\x21-\x7e]+$/, {
      message: "Expected a Yalidine webhook secret without spaces or control characters"
    })
  )
)

/** How the engine signs a body: the lower-case hex HMAC-SHA256 of its bytes under the secret. */
export const signatureOf = (body: Uint8Array, secret: string): string => Push.hmacSha256(secret, body).toString("hex")

/** The event types that report something, and the table each one's `status` is read with. */
const reads: Readonly<Record<string, "movement" | "cash" | "deleted">> = {
  parcel_status_updated: "movement",
  parcel_payment_updated: "cash",
  parcel_deleted: "deleted"
}

const challenge = (request: Push.PushRequest): Result.Result<Push.PushAnswer, Push.PushRejected> => {
  const token = Push.parameter(request, "crc_token")
  if (Push.parameter(request, "subscribe") === undefined || token === undefined) {
    return Result.fail(Push.malformed("Yalidine's challenge is a GET with subscribe and crc_token"))
  }
  if (token.length === 0 || token.length > MAX_CRC_TOKEN || !CRC_TOKEN.test(token)) {
    return Result.fail(Push.malformed(`crc_token must be 1 to ${MAX_CRC_TOKEN} letters, digits or -_.~+/=`))
  }
  return Result.succeed(Push.challenge("application/json", JSON.stringify({ crc_token: token })))
}

const verify = (request: Push.PushRequest, secret: Redacted.Redacted<string>): Push.PushRejected | undefined => {
  const presented = Push.header(request, SIGNATURE_HEADER)
  if (presented === undefined || presented.trim() === "") {
    return Push.signature("the request has no X-YALIDINE-SIGNATURE")
  }
  const bytes = Push.hex(presented.trim(), 32)
  if (bytes === undefined) return Push.signature("X-YALIDINE-SIGNATURE is not a hex HMAC-SHA256")
  return Push.sameBytes(Push.hmacSha256(Redacted.value(secret), request.body), bytes)
    ? undefined
    : Push.signature("X-YALIDINE-SIGNATURE does not match the body under the webhook's secret")
}

/** One event of the batch, or undefined when it cannot be read. */
const eventOf = (kind: "movement" | "cash" | "deleted", event: unknown): Push.PushedEvent | undefined => {
  const data = Push.member(event, "data")
  const tracking = Push.idText(Push.member(data, "tracking"))
  const occurred = Push.member(event, "occurred_at")
  const occurredAt = typeof occurred === "string" ? AlgiersTime.fromCourierText(occurred) : undefined
  const rawStatus = kind === "deleted" ? Status.deleted : Push.idText(Push.member(data, "status"))
  if (tracking === undefined || occurredAt === undefined || rawStatus === undefined) return undefined
  const eventId = Push.idText(Push.member(event, "event_id"))
  const reason = kind === "movement" ? Push.firstText(data, ["reason"]) : undefined
  // A payment's `payment_id` names the payout it was paid in: the COD ledger's statement.
  const paymentId = kind === "cash" ? Push.idText(Push.member(data, "payment_id")) : undefined
  return {
    ...Push.optional("eventId", eventId),
    parcel: { trackingNumber: tracking },
    rawStatus,
    occurredAt,
    ...Push.optional("reason", reason),
    ...(paymentId === undefined ? {} : { payment: { statement: paymentId } })
  }
}

export const receive = (
  request: Push.PushRequest,
  secret: Redacted.Redacted<string>,
  _now: number
): Result.Result<Push.PushAnswer, Push.PushRejected> => {
  if (request.method === "GET") return challenge(request)
  if (request.method !== "POST") return Result.fail(Push.malformed("Yalidine pushes events with POST"))
  const refused = verify(request, secret)
  if (refused !== undefined) return Result.fail(refused)
  const body = Push.json(request.body)
  const type = Option.isSome(body) ? Push.member(body.value, "type") : undefined
  const events = Option.isSome(body) ? Push.member(body.value, "events") : undefined
  if (typeof type !== "string" || !Array.isArray(events)) {
    return Result.fail(Push.malformed("the body is not Yalidine's { type, events } JSON"))
  }
  const kind = Object.hasOwn(reads, type) ? reads[type] : undefined
  if (kind === undefined) return Result.succeed(Push.events([]))
  const read = events.map((event) => eventOf(kind, event))
  const known = read.filter((event) => event !== undefined)
  return Result.succeed(Push.events(known, read.length - known.length))
}

export const push: Push.Push = { secret: Secret, receive }
