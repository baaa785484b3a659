/**
 * Webhook subscriptions on the wire (`GET/POST /v1/webhooks`, `PATCH/DELETE /v1/webhooks/{id}`, the delivery log)
 * and the rules of their bodies. The spec shows no shapes; these are ours:
 *
 * - create `{ url, events, active?, description? }`: `url` passes `WebhookUrl`'s rules, `events` is a non-empty
 *   array of `order.created`, `order.confirmed`, `order.shipped` (repeats dropped), `active` defaults to true (an
 *   inactive subscription queues nothing), `description` is at most 255 characters or null; at most 20 per store.
 *   The answer carries `secret` (`whsec_` + 64 hex), shown this once.
 * - PATCH: any of those fields, and `rotate_secret: true`, which makes a new secret (shown in that answer) and keeps
 *   the previous one live for `ROTATION_GRACE` (24 h): deliveries meanwhile carry a signature with each.
 * - every other answer shows no secret: `previous_secret_expires_at` says when a rotation's old secret stops; nor
 *   does an idempotent replay of a create or a rotation (`replaySafe`).
 */
import { randomBytes } from "node:crypto"
import { AlgiersTime, StoreText } from "@tawsil/domain"
import { Duration, Effect, Redacted, Schema } from "effect"
import { InvalidWebhook } from "./WebhookError.ts"
import * as WebhookEvent from "./WebhookEvent.ts"
import type { DeliveryRecord, SubscriptionRecord } from "./WebhookStore.ts"

export const MAX_PER_STORE = 20
export const DESCRIPTION_MAX_LENGTH = 255
export const ROTATION_GRACE = Duration.hours(24)

export const TOO_MANY = `A store can hold at most ${MAX_PER_STORE} webhook subscriptions`
const EVENT_LIST = WebhookEvent.names.join(", ")

/** A new signing secret: `whsec_` and 64 hex characters (32 random bytes). */
export const newSecret = (): Redacted.Redacted<string> => Redacted.make(`whsec_${randomBytes(32).toString("hex")}`)

const Secret = Schema.RedactedFromValue(Schema.String)
const Event = Schema.Literals(WebhookEvent.names)

export const Webhook = Schema.Struct({
  id: Schema.Int,
  url: Schema.String,
  events: Schema.Array(Event),
  active: Schema.Boolean,
  description: Schema.NullOr(Schema.String),
  /** Set for 24 h after a rotation: until then deliveries are signed with the previous secret too. */
  previous_secret_expires_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "Webhook" })
export type Webhook = typeof Webhook.Type

/** `GET /v1/webhooks` data: every subscription of the store, with no pagination fields. */
export const WebhookList = Schema.Struct({ items: Schema.Array(Webhook) })
export type WebhookList = typeof WebhookList.Type

/** A create's or a PATCH's answer: `secret` is the new secret on create and on rotation, null otherwise. */
export const WebhookWithSecret = Schema.Struct({ ...Webhook.fields, secret: Schema.NullOr(Secret) }).annotate({
  identifier: "WebhookWithSecret"
})
export type WebhookWithSecret = typeof WebhookWithSecret.Type

/**
 * What the idempotency record of a create or a PATCH keeps of its answer, and so what a replay shows: the
 * subscription without its secret, which is shown once and must not sit in a record for 24 h. Takes the answer as
 * built or as encoded for the wire.
 */
export const replaySafe = <W extends WebhookWithSecret | typeof WebhookWithSecret.Encoded>(webhook: W): W =>
  ({ ...webhook, secret: null }) as W

export const WebhookDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: Schema.Int })
export type WebhookDeleted = typeof WebhookDeleted.Type

export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Int,
  /** When the attempt started (Algiers time). */
  at: Schema.String,
  /** `refused`: the URL failed the SSRF rules at delivery; nothing was sent. */
  outcome: Schema.Literals(["succeeded", "failed", "refused"]),
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status_code: Schema.NullOr(Schema.Int),
  latency_ms: Schema.Int,
  error: Schema.NullOr(Schema.String)
})

export const Delivery = Schema.Struct({
  id: Schema.Int,
  event_id: Schema.String,
  event: Event,
  /** `pending` until it succeeds or is given up (`failed`) after its last attempt. */
  status: Schema.Literals(["pending", "succeeded", "failed"]),
  attempts: Schema.Int,
  /** When the next attempt is due (pending deliveries only). */
  next_attempt_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
  attempt_log: Schema.Array(DeliveryAttempt)
}).annotate({ identifier: "WebhookDelivery" })
export type Delivery = typeof Delivery.Type

export const toWebhook = (record: SubscriptionRecord): Webhook => ({
  id: record.id,
  url: record.url,
  events: record.events,
  active: record.active,
  description: record.description,
  previous_secret_expires_at:
    record.previousSecretExpiresAt === null ? null : AlgiersTime.formatSql(record.previousSecretExpiresAt),
  created_at: AlgiersTime.formatSql(record.createdAt),
  updated_at: AlgiersTime.formatSql(record.updatedAt)
})

export const toDelivery = (record: DeliveryRecord): Delivery => ({
  id: record.id,
  event_id: record.eventId,
  event: record.event,
  status: record.status,
  attempts: record.attempts,
  next_attempt_at: record.status === "pending" ? AlgiersTime.formatSql(record.nextAttemptAt) : null,
  created_at: AlgiersTime.formatSql(record.createdAt),
  updated_at: AlgiersTime.formatSql(record.updatedAt),
  attempt_log: record.attemptLog.map((attempt) => ({
    attempt: attempt.attempt,
    at: AlgiersTime.formatSql(attempt.startedAt),
    outcome: attempt.outcome,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error
  }))
})

// --- bodies ---------------------------------------------------------------------------------------------------

/** The create body, as documented (`decodeCreate` checks it, with the messages callers read). */
export const CreateBody = Schema.Struct({
  /** `https://`, a public host on the default port; no IP literal, credentials or fragment. */
  url: Schema.String,
  events: Schema.Array(Event),
  /** Default true; an inactive subscription queues nothing. */
  active: Schema.optionalKey(Schema.Boolean),
  /** At most 255 characters. */
  description: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "WebhookCreate" })

/** The PATCH body, as documented: any create field, and `rotate_secret`. */
export const PatchBody = Schema.Struct({
  url: Schema.optionalKey(Schema.String),
  events: Schema.optionalKey(Schema.Array(Event)),
  active: Schema.optionalKey(Schema.Boolean),
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** A new secret, shown in this answer once; the previous one keeps signing for 24 h. */
  rotate_secret: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "WebhookPatch" })

const Body = Schema.Record(Schema.String, Schema.Unknown)
/** Kept as sent (`StoreText`: no NUL character, no lone surrogate), at most 255 characters. */
const Description = Schema.NullOr(StoreText.StoreText.check(Schema.isMaxCodePoints(DESCRIPTION_MAX_LENGTH)))

const field = <S extends Schema.Decoder<unknown>>(schema: S, value: unknown, message: string) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError(() => new InvalidWebhook({ message }))
  ) as Effect.Effect<S["Type"], InvalidWebhook>

const events = Effect.fnUntraced(function* (value: unknown) {
  const list = yield* field(
    Schema.Array(Schema.Unknown),
    value,
    `events must be a non-empty array of event names: ${EVENT_LIST}`
  )
  if (list.length === 0) {
    return yield* new InvalidWebhook({ message: `events must be a non-empty array of event names: ${EVENT_LIST}` })
  }
  for (const [index, name] of list.entries()) {
    if (!WebhookEvent.isName(name)) {
      return yield* new InvalidWebhook({ message: `events[${index}] must be one of ${EVENT_LIST}` })
    }
  }
  // Catalogue order, repeats dropped.
  return WebhookEvent.names.filter((name) => list.includes(name))
})

const URL_REQUIRED = "url is required: the https URL to deliver to"

export interface CreateInput {
  readonly url: string
  readonly events: ReadonlyArray<WebhookEvent.Name>
  readonly active: boolean
  readonly description: string | null
}

/** The create body (URL rules aside: those need DNS, `Webhooks` applies them). */
export const decodeCreate = Effect.fnUntraced(function* (body: unknown) {
  const fields = yield* field(Body, body, "Body must be a JSON object")
  if (fields.url === undefined || fields.url === null) return yield* new InvalidWebhook({ message: URL_REQUIRED })
  const url = yield* field(Schema.String, fields.url, URL_REQUIRED)
  if (fields.events === undefined) {
    return yield* new InvalidWebhook({ message: `events is required: a non-empty array of ${EVENT_LIST}` })
  }
  const input: CreateInput = {
    url,
    events: yield* events(fields.events),
    active:
      fields.active === undefined ? true : yield* field(Schema.Boolean, fields.active, "active must be true or false"),
    description:
      fields.description === undefined
        ? null
        : yield* field(
            Description,
            fields.description,
            `description must be a string of at most ${DESCRIPTION_MAX_LENGTH} characters, or null`
          )
  }
  return input
})

export interface PatchInput {
  readonly url?: string | undefined
  readonly events?: ReadonlyArray<WebhookEvent.Name> | undefined
  readonly active?: boolean | undefined
  readonly description?: string | null | undefined
  readonly rotateSecret: boolean
}

/** The PATCH body: only the fields it names change. */
export const decodePatch = Effect.fnUntraced(function* (body: unknown) {
  const fields = yield* field(Body, body ?? {}, "Body must be a JSON object")
  const input: PatchInput = {
    url:
      fields.url === undefined
        ? undefined
        : yield* field(Schema.String, fields.url, "url must be a string: the https URL to deliver to"),
    events: fields.events === undefined ? undefined : yield* events(fields.events),
    active:
      fields.active === undefined
        ? undefined
        : yield* field(Schema.Boolean, fields.active, "active must be true or false"),
    description:
      fields.description === undefined
        ? undefined
        : yield* field(
            Description,
            fields.description,
            `description must be a string of at most ${DESCRIPTION_MAX_LENGTH} characters, or null`
          ),
    rotateSecret:
      fields.rotate_secret === undefined
        ? false
        : yield* field(Schema.Boolean, fields.rotate_secret, "rotate_secret must be true or false")
  }
  return input
})
