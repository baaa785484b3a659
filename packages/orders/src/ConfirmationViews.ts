/**
 * The confirmation workflow's values (docs/confirmation.md): the outcomes a confirmation attempt records, the state
 * an order's confirmation is in, the store's timeout setting, the request bodies and the JSON views. Beside the port
 * (`ConfirmationStore`), so the port and the service (`Confirmation`) import these and not one another.
 */
import { Schema } from "effect"
import { OrderDetail } from "./OrderViews.ts"

/** What an attempt to confirm an order can record through the API (a call's outcome, or the customer's answer). */
export const AnswerOutcome = Schema.Literals([
  "no_answer",
  "busy",
  "postponed",
  "fake",
  "duplicate",
  "customer_cancelled",
  "confirmed"
]).annotate({ identifier: "ConfirmationOutcome" })
export type AnswerOutcome = typeof AnswerOutcome.Type

/** Every outcome a history holds: the API's, and `timed_out`, which only the store's timeout records. */
export const Outcome = Schema.Literals([...AnswerOutcome.literals, "timed_out"])
export type Outcome = typeof Outcome.Type

/** Who recorded an attempt: the store through the API, the customer through a link, or the store's timeout. */
export const Source = Schema.Literals(["api", "link", "timeout"])
export type Source = typeof Source.Type

/** The outcomes that end a pending order's confirmation, and the status each moves the order to. */
export const closing: Partial<Record<Outcome, "confirmed" | "cancelled">> = {
  confirmed: "confirmed",
  customer_cancelled: "cancelled",
  fake: "cancelled",
  duplicate: "cancelled"
}

/** What the store's timeout does to a pending order left unanswered: cancel it, or flag it and leave it pending. */
export const TimeoutAction = Schema.Literals(["cancel", "flag"])
export type TimeoutAction = typeof TimeoutAction.Type

/** How long a confirmation link lives when the request names no expiry, and the bounds of one it names (seconds). */
export const LINK_DEFAULT_SECONDS = 86_400
export const LINK_MIN_SECONDS = 60
export const LINK_MAX_SECONDS = 30 * 86_400

/** The bounds of the store's timeout, in minutes (one minute to thirty days). */
export const TIMEOUT_MAX_MINUTES = 43_200

export const NOTE_MAX = 500

const Timestamp = Schema.String.annotate({ description: "YYYY-MM-DD HH:MM:SS, Algiers time (UTC+01:00)" })

/** `POST /v1/orders/{id}/confirmation-attempts`. */
export const AttemptBody = Schema.Struct({
  outcome: AnswerOutcome,
  /** What the caller noted (up to 500 characters); shown in the history. */
  note: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Required with `postponed` and only with it: when to call again (ISO 8601, in the future). */
  postponed_until: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ConfirmationAttemptCreate" })
export type AttemptBody = typeof AttemptBody.Type

/** `POST /v1/orders/{id}/confirmation-link`. */
export const LinkBody = Schema.Struct({
  /** Seconds the link stays usable: 60 to 2 592 000 (30 days), 86 400 when omitted. */
  expires_in: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "ConfirmationLinkCreate" })
export type LinkBody = typeof LinkBody.Type

/** `PATCH /v1/confirmation/settings`: either field, or both. */
export const SettingsBody = Schema.Struct({
  /** Minutes after an order's creation before the timeout acts (1 to 43 200); null turns the timeout off. */
  timeout_minutes: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  timeout_action: Schema.optionalKey(TimeoutAction)
}).annotate({ identifier: "ConfirmationSettingsUpdate" })
export type SettingsBody = typeof SettingsBody.Type

export const Attempt = Schema.Struct({
  outcome: Outcome,
  source: Source,
  note: Schema.NullOr(Schema.String),
  postponed_until: Schema.NullOr(Timestamp),
  created_at: Timestamp
}).annotate({ identifier: "ConfirmationAttempt" })
export type Attempt = typeof Attempt.Type

/** An order's confirmation, as `GET /v1/orders/{id}` shows it beside the order's fields. */
export const View = Schema.Struct({
  /** The latest outcome; null before any. */
  state: Schema.NullOr(Outcome),
  /** Attempts recorded through the API and the link (the timeout's record is not an attempt). */
  attempts: Schema.Int,
  /** When to call again, while the latest outcome is `postponed`. */
  postponed_until: Schema.NullOr(Timestamp),
  /** When the store's timeout found the order unanswered; null until then. */
  timed_out_at: Schema.NullOr(Timestamp),
  /** Every attempt, oldest first. */
  history: Schema.Array(Attempt)
}).annotate({ identifier: "OrderConfirmation" })
export type View = typeof View.Type

/** The order detail with its confirmation: every field of `OrderDetail` in its place, then `confirmation`. */
export const OrderWithConfirmation = Schema.Struct({ ...OrderDetail.fields, confirmation: View }).annotate({
  identifier: "OrderDetailWithConfirmation"
})
export type OrderWithConfirmation = typeof OrderWithConfirmation.Type

/** A link made: its URL is the app's (the public listener's origin), the rest is this. */
export const Link = Schema.Struct({
  order_id: Schema.Int,
  /** The signed token: the last segment of `url`. Single use; give it only to the order's customer. */
  token: Schema.String,
  url: Schema.String,
  expires_at: Timestamp
}).annotate({ identifier: "ConfirmationLink" })
export type Link = typeof Link.Type

export const Settings = Schema.Struct({
  timeout_minutes: Schema.NullOr(Schema.Int),
  timeout_action: TimeoutAction,
  /** When the timeout was last turned on: only orders created since are swept. */
  timeout_since: Schema.NullOr(Timestamp)
}).annotate({ identifier: "ConfirmationSettings" })
export type Settings = typeof Settings.Type
