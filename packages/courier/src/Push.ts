/**
 * Courier push: what an adapter declares as `push` when its courier sends tracking events to a merchant's receiver
 * (a webhook). The host receives the request (its size limit, its route, the account whose secret it checks with)
 * and hands it over as bytes; the adapter verifies it with that secret, answers the courier's subscription
 * challenge when it is one, and reads the body into events the host maps through the adapter's tables (`statuses`
 * for movement, `codStatuses` for cash). `receive` is pure — no I/O, no clock: the host gives the time — and must
 * never throw, whatever the bytes: a request it cannot accept is a `PushRejected` with the rule that refused it.
 *
 * The helpers below are what every push scheme needs: headers by name, the body as strict UTF-8 text or JSON, an
 * HMAC-SHA256, and comparisons whose time does not depend on where two secrets differ.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Option, type Redacted, type Result, Schema } from "effect"
import * as CourierAnswer from "./CourierAnswer.ts"
import type { PaymentReport } from "./Shipment.ts"

/** A request as the courier sent it to the merchant's receiver. */
export interface PushRequest {
  /** `GET` (a challenge, for couriers that send one) or `POST`. */
  readonly method: string
  /** The query string's parameters; a parameter given without a value (`?subscribe`) is `""`. */
  readonly query: Readonly<Record<string, string>>
  /** Names lower-cased; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The raw body, exactly as received: signatures are computed over these bytes, never over re-serialised JSON. */
  readonly body: Uint8Array
}

/**
 * How the courier names the parcel an event is about; at least one is present. The host finds its shipment by the
 * first that matches, in this order: `trackingNumber` (what `create` answered), `courierReference` (the courier's
 * own id for the parcel, when `create` gave one), `reference` (the merchant's reference sent with the order).
 */
export interface PushedParcel {
  readonly trackingNumber?: string | undefined
  readonly courierReference?: string | undefined
  readonly reference?: string | undefined
}

/** One thing that happened to a parcel, as the courier pushed it. */
export interface PushedEvent {
  /** The courier's id of the event, when it gives one: the host's key to drop a repeated delivery. */
  readonly eventId?: string | undefined
  readonly parcel: PushedParcel
  /** Mapped by the adapter's `statuses` (movement) or `codStatuses` (cash), as tracking's raw statuses are. */
  readonly rawStatus: string
  /** ISO 8601 with an offset: when it happened at the courier (the host orders events by it). */
  readonly occurredAt: string
  /** The courier's words about it (a failed attempt's reason, a return's), when it gives some. */
  readonly reason?: string | undefined
  /** What it says of the cash with a cash event (an amount, a fee, a payout id), as tracking's `RawEvent.payment`. */
  readonly payment?: PaymentReport | undefined
}

/** The courier's subscription challenge, answered with HTTP 200 and this body as is. */
export interface Challenge {
  readonly _tag: "Challenge"
  readonly contentType: string
  readonly body: string
}

/** The events of a verified request; empty when it reports nothing the host records (a type the adapter ignores). */
export interface Events {
  readonly _tag: "Events"
  readonly events: ReadonlyArray<PushedEvent>
  /**
   * How many events of the body the adapter could not read (no parcel, no status, no time) and left out. The rest
   * are accepted rather than the whole request refused: a courier retries a refused request, and some disable the
   * webhook after a few failures, so one bad event would cost every later one. The host logs them; its polling
   * catches the parcel up.
   */
  readonly unread: number
}

export type PushAnswer = Challenge | Events

export const challenge = (contentType: string, body: string): Challenge => ({ _tag: "Challenge", contentType, body })

export const events = (events: ReadonlyArray<PushedEvent>, unread = 0): Events => ({ _tag: "Events", events, unread })

/**
 * Why a pushed request is refused: its signature (missing, malformed, not made with the secret), its age (a
 * timestamped scheme's request outside its window: a replay, or a clock far off), or its content (not what the
 * courier sends: a body that is not its JSON, a challenge with no usable token). Messages name the rule, never the
 * secret, a signature or the body.
 */
export class PushRejected extends Schema.TaggedError<PushRejected>()("PushRejected", {
  reason: Schema.Literals(["signature", "stale", "malformed"]),
  message: Schema.String
}) {}

export const signature = (message: string): PushRejected => new PushRejected({ reason: "signature", message })
export const stale = (message: string): PushRejected => new PushRejected({ reason: "stale", message })
export const malformed = (message: string): PushRejected => new PushRejected({ reason: "malformed", message })

/** What an adapter declares as `push`. */
export interface Push {
  /**
   * The webhook secret the merchant copies from the courier (its dashboard, its API), in the form the courier gives
   * it (`whsec_…` for a Standard Webhooks courier): decoded into a `Redacted` value when the merchant saves it.
   */
  readonly secret: Schema.Codec<Redacted.Redacted<string>, string>
  /**
   * Verifies one request with the account's secret (comparing in constant time) and reads it. Pure: `now` is the
   * host's clock, in epoch milliseconds. Never throws.
   */
  readonly receive: (
    request: PushRequest,
    secret: Redacted.Redacted<string>,
    now: number
  ) => Result.Result<PushAnswer, PushRejected>
}

// --- Helpers -----------------------------------------------------------------------------------------------------

/** A header by name (any letter case), if the request has it. */
export const header = (request: PushRequest, name: string): string | undefined => {
  const wanted = name.toLowerCase()
  return Object.hasOwn(request.headers, wanted) ? request.headers[wanted] : undefined
}

/** A query parameter by name, if the request has it. */
export const parameter = (request: PushRequest, name: string): string | undefined =>
  Object.hasOwn(request.query, name) ? request.query[name] : undefined

/** The body as text when it is valid UTF-8 (a byte-order mark is kept, as JSON parsers refuse it); else undefined. */
export const text = (body: Uint8Array): string | undefined => {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  const decoded = bytes.toString("utf8")
  // Node replaces an invalid sequence with U+FFFD: a text that does not encode back to the same bytes was not UTF-8.
  return Buffer.from(decoded, "utf8").equals(bytes) ? decoded : undefined
}

/** The body as JSON when it is UTF-8 JSON; else none. */
export const json = (body: Uint8Array): Option.Option<unknown> => {
  const decoded = text(body)
  return decoded === undefined ? Option.none() : CourierAnswer.json(decoded)
}

/** HMAC-SHA256 of the parts, one after the other, under `key` (its UTF-8 bytes when it is text). */
export const hmacSha256 = (key: string | Uint8Array, ...parts: ReadonlyArray<string | Uint8Array>): Buffer => {
  const mac = createHmac("sha256", key)
  for (const part of parts) mac.update(part)
  return mac.digest()
}

/** Whether two byte strings are equal, in a time that depends on their lengths only. */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)

/**
 * Whether two texts are equal (a shared secret and the one presented), in a time that depends on neither: their
 * SHA-256 digests are compared, so not even the length of the secret shows.
 */
export const sameText = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a, "utf8").digest(), createHash("sha256").update(b, "utf8").digest())

/** Standard base64 strictly (canonical padding and trailing bits), or undefined. */
export const base64 = (encoded: string): Buffer | undefined => {
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined
  const bytes = Buffer.from(encoded, "base64")
  return bytes.toString("base64") === encoded ? bytes : undefined
}

/** Lower-case hexadecimal of 2 × `bytes` digits (upper case accepted), or undefined. */
export const hex = (encoded: string, bytes: number): Buffer | undefined =>
  encoded.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(encoded) ? Buffer.from(encoded, "hex") : undefined

/** The longest id, tracking number or raw status an event may carry. */
export const MAX_ID = 128

/**
 * A value's text when it is a string of 1 to `max` characters once trimmed, without control characters, or a safe
 * integer (how couriers send ids and statuses); else undefined. What the host stores is never a courier's garbage.
 */
export const idText = (value: unknown, max = MAX_ID): string | undefined => {
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : undefined
  if (typeof value !== "string") return undefined
  const trimmed = value.trim()
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  return trimmed !== "" && trimmed.length <= max && !/[\u0000-\u001f\u007f]/.test(trimmed) ? trimmed : undefined
}

/** Whether a value is a JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A member of a JSON object, own members only (`constructor`, `__proto__` are never read from the prototype). */
export const member = (value: unknown, name: string): unknown =>
  isRecord(value) && Object.hasOwn(value, name) ? value[name] : undefined

/** The first of `names` that `value` holds a non-blank string or a finite number under, as text. */
export const firstId = (value: unknown, names: ReadonlyArray<string>): string | undefined => {
  for (const name of names) {
    const found = idText(member(value, name))
    if (found !== undefined) return found
  }
  return undefined
}

/** The first of `names` that `value` holds a non-blank string under, trimmed and cut to `max` characters. */
export const firstText = (value: unknown, names: ReadonlyArray<string>, max = 300): string | undefined => {
  for (const name of names) {
    const found = member(value, name)
    if (typeof found === "string" && found.trim() !== "") return CourierAnswer.clean(found, max)
  }
  return undefined
}

/** Whether a pushed parcel names the parcel at all. */
export const namesParcel = (parcel: PushedParcel): boolean =>
  parcel.trackingNumber !== undefined || parcel.courierReference !== undefined || parcel.reference !== undefined

/** An optional member, present only when defined (for `exactOptionalPropertyTypes` objects). */
export const optional = <K extends string, V>(key: K, value: V | undefined): { readonly [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: V }
