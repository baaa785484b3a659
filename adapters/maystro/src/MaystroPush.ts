/**
 * What Maystro pushes to a merchant's webhook (research: couriers.md §1.5, peer-landscape §3), read as the SDK's
 * `Push`. Maystro documents no signature. The receiver is authenticated by a secret the merchant chooses and
 * configures on the webhook as the `X-Webhook-Secret` header (the name one public receiver uses), compared in
 * constant time (its SHA-256 digests, so not even its length shows): missing or different is `signature`. That proves
 * who sent the request, not that its body is intact — the scheme signs nothing.
 *
 * The body is the order's JSON base64-encoded twice (liberta's guide, courier-dz): sent as is, as a JSON string, or
 * as the `data` or `payload` member of a JSON object; an unencoded body, or one encoded once, is read too (courier-dz
 * decodes progressively). Base64 is decoded strictly. The decoded JSON is an order, a list of them, or an object
 * holding them under `orders`, `data`, `order` or `payload`; anything else is `malformed`. For each order:
 *
 * - the status, a number (`41`, or `"41"`), through the status table, as tracking keys it;
 * - the parcel: `id` (the order's UUID, lower-cased: the tracking number `create` answers), `display_id_order` (the
 *   number merchants read, `courierReference`), `external_order_id` (the merchant's reference) — receivers look an
 *   order up by the display id, then the UUID, then the external id;
 * - the time: `occurred_at`, `updated_at`, `last_update` or `status_date` (Algiers wall-clock time without an offset),
 *   else the host's clock when it received the request, since Maystro documents none;
 * - `event_id`, when the body has one; `reason` or `status_reason`, when a string.
 *
 * An order without a status or any name is left out and counted (`unread`).
 */
import { Push } from "@tawsil/courier"
import { AlgiersTime } from "@tawsil/domain"
import { DateTime, Option, Redacted, Result, Schema } from "effect"
import * as Wire from "./MaystroWire.ts"

/** The header the merchant configures Maystro's webhook to send, holding the shared secret. */
export const SECRET_HEADER = "x-webhook-secret"

/**
 * The shared secret the merchant chooses: 16 to 256 visible ASCII characters — long enough not to be guessed, one
 * header value.
 */
export const Secret = Schema.RedactedFromValue(
  Schema.String.check(
    Schema.isBetweenLength(16, 256, { message: "Expected a webhook secret of 16 to 256 characters" }),
    Schema.isPattern(/^[\x21-\x7e]+$/, { message: "Expected a webhook secret without spaces or control characters" })
  )
)

/** How many times a body may be base64-decoded before it must be JSON. */
const MAX_DECODES = 2

/** Strict base64 of a text, its line breaks (MIME wraps at 76) ignored. */
const unbase64 = (text: string): string | undefined => {
  const bytes = Push.base64(text.replace(/[\r\n]/g, "").trim())
  return bytes === undefined ? undefined : Push.text(bytes)
}

/** A text as the JSON it holds, once base64 is peeled off, up to {@link MAX_DECODES} times. */
const peel = (text: string): unknown => {
  let current = text
  for (let decodes = 0; decodes <= MAX_DECODES; decodes++) {
    const parsed = Option.getOrUndefined(Push.json(Buffer.from(current, "utf8")))
    if (typeof parsed === "object" && parsed !== null) return parsed
    if (decodes === MAX_DECODES) return undefined
    // A JSON string is the encoded text itself.
    const next = unbase64(typeof parsed === "string" ? parsed : current)
    if (next === undefined) return undefined
    current = next
  }
  return undefined
}

/** The payload a body carries: peeled from the body, or from its `data` or `payload` member when it holds a string. */
const payloadOf = (body: Uint8Array): unknown => {
  const text = Push.text(body)
  if (text === undefined) return undefined
  const outer = peel(text)
  for (const name of ["data", "payload"]) {
    const inner = Push.member(outer, name)
    if (typeof inner === "string") return peel(inner)
  }
  return outer
}

const isOrder = (value: unknown) =>
  Push.isRecord(value) &&
  ["status", "id", "display_id_order", "external_order_id"].some((name) => Object.hasOwn(value, name))

/** The orders of a payload, or undefined when it is not Maystro's. */
const ordersOf = (payload: unknown, depth = 0): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(payload)) return payload.every(Push.isRecord) ? payload : undefined
  if (isOrder(payload)) return [payload]
  if (depth > 0 || !Push.isRecord(payload)) return undefined
  for (const name of ["orders", "data", "order", "payload"]) {
    const inner = Push.member(payload, name)
    if (typeof inner === "object" && inner !== null) return ordersOf(inner, depth + 1)
  }
  return undefined
}

/** A status as the status table keys it: the number's decimal text. */
const statusOf = (value: unknown): string | undefined => {
  const text = Push.idText(value, 6)
  return text !== undefined && /^\d{1,6}$/.test(text) ? String(Number(text)) : undefined
}

const eventOf = (
  order: unknown,
  eventId: string | undefined,
  received: string | undefined
): Push.PushedEvent | undefined => {
  const rawStatus = statusOf(Push.member(order, "status"))
  const uuid = Push.firstId(order, ["id"])
  const parcel = {
    ...Push.optional(
      "trackingNumber",
      uuid !== undefined && Wire.orderIdPattern.test(uuid) ? uuid.toLowerCase() : undefined
    ),
    ...Push.optional("courierReference", Push.firstId(order, ["display_id_order", "display_id"])),
    ...Push.optional("reference", Push.firstId(order, ["external_order_id"]))
  }
  if (rawStatus === undefined || !Push.namesParcel(parcel)) return undefined
  const when = Push.firstText(order, ["occurred_at", "updated_at", "last_update", "status_date"], 64)
  const occurredAt = (when === undefined ? undefined : AlgiersTime.fromCourierText(when)) ?? received
  if (occurredAt === undefined) return undefined
  const reason = Push.firstText(order, ["reason", "status_reason"])
  return { ...Push.optional("eventId", eventId), parcel, rawStatus, occurredAt, ...Push.optional("reason", reason) }
}

export const receive = (
  request: Push.PushRequest,
  secret: Redacted.Redacted<string>,
  now: number
): Result.Result<Push.PushAnswer, Push.PushRejected> => {
  if (request.method !== "POST") return Result.fail(Push.malformed("Maystro pushes with POST"))
  const presented = Push.header(request, SECRET_HEADER)
  if (presented === undefined || !Push.sameText(presented, Redacted.value(secret))) {
    return Result.fail(Push.signature("X-Webhook-Secret is missing or is not the account's webhook secret"))
  }
  const payload = payloadOf(request.body)
  const orders = ordersOf(payload)
  if (orders === undefined) {
    return Result.fail(Push.malformed("the body is not Maystro's order JSON, base64-encoded up to twice"))
  }
  const eventId = Push.firstId(payload, ["event_id"])
  const received = Option.getOrUndefined(Option.map(DateTime.make(now), AlgiersTime.formatIso))
  const read = orders.map((order) => eventOf(order, orders.length === 1 ? eventId : undefined, received))
  const known = read.filter((event) => event !== undefined)
  return Result.succeed(Push.events(known, read.length - known.length))
}

export const push: Push.Push = { secret: Secret, receive }
