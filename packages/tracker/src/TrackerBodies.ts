/**
 * The bodies of `POST /v1/signups` and `POST /v1/events`, for a platform that embeds the store service and reports
 * who signed up and what its users did (the spec shows no shapes; these are ours), and the rows they become.
 *
 * ```json
 * POST /v1/signups  { "user": { "id": "u_1001", "email": "amina@example.dz", "phone": "0555 12 34 56", "name": "Amina" },
 *                     "signed_up_at": "2026-11-21T12:30:00+01:00", "source": "landing-page-7",
 *                     "properties": { "plan": "trial" } }
 * POST /v1/events   { "event": "add_to_cart", "user_id": "u_1001", "occurred_at": "2026-11-21T12:31:05+01:00",
 *                     "properties": { "product_id": 7, "quantity": 2 } }
 * ```
 *
 * - `user.id` (required, 1 to 128 characters) is the platform's own id of the user: a second signup of one id in a
 *   store is a duplicate (counted in `total`, not `billable`). `email` (≤ 254), `phone` (≤ 32), `name` (≤ 255) and
 *   `source` (≤ 100) are optional strings or null.
 * - `event` (required) is 1 to 64 of `A-Z a-z 0-9 _ . : -`; `user_id` is optional (anonymous events).
 * - `signed_up_at` / `occurred_at`: an ISO 8601 date-time with an offset, not more than 5 minutes after the call is
 *   received (default: when it is received), not before 2000.
 * - `properties`: a flat object of at most 50 keys (1 to 64 characters) whose values are strings (≤ 1 000
 *   characters), numbers, booleans or null.
 *
 * Unknown fields are ignored. Strings must be storable as sent (no NUL, no lone surrogate).
 *
 * The batch forms carry 1 to 500 of these under one signature and one nonce, each checked by the same rules:
 *
 * ```json
 * POST /v1/signups/batch  { "signups": [ { "user": { "id": "u_1001" } }, { "user": { "id": "u_1002" }, "source": "ad" } ] }
 * POST /v1/events/batch   { "events": [ { "event": "page_view" }, { "event": "add_to_cart", "user_id": "u_1001" } ] }
 * ```
 *
 * A body that is not such an object, or holds no items or more than 500, refuses the whole call (`InvalidBatch`);
 * an item that breaks a rule is refused alone, by its index, and the others are accepted. Each item is recorded under
 * its own nonce, `<call nonce>:<index>` (`itemNonce`): a batch's events are distinct events, and a batch sent again
 * after its nonce's hour is deduplicated item by item, as single calls are.
 */
import { type Ids, StoreText } from "@tawsil/domain"
import { DateTime, Effect, Result, Schema } from "effect"
import { InvalidBatch, InvalidEvent, InvalidSignup } from "./TrackerError.ts"

export const MAX_PROPERTIES = 50
/** Items in one batch call, at most. */
export const MAX_BATCH = 500
export const FUTURE_TOLERANCE_MILLIS = 5 * 60 * 1000
const EARLIEST = Date.parse("2000-01-01T00:00:00Z")

/** Who made the call: the key's store and id, and the call's nonce. */
export interface Caller {
  readonly storeId: Ids.StoreId
  readonly keyId: string
  readonly nonce: string
}

export type Properties = Readonly<Record<string, string | number | boolean | null>>

export interface SignupRow {
  readonly storeId: Ids.StoreId
  readonly keyId: string
  readonly nonce: string
  readonly userId: string
  readonly email: string | null
  readonly phone: string | null
  readonly name: string | null
  readonly source: string | null
  readonly properties: Properties
  readonly signedUpAt: DateTime.Utc
  readonly receivedAt: DateTime.Utc
}

export interface EventRow {
  readonly storeId: Ids.StoreId
  readonly keyId: string
  readonly nonce: string
  readonly event: string
  readonly userId: string | null
  readonly properties: Properties
  readonly occurredAt: DateTime.Utc
  readonly receivedAt: DateTime.Utc
}

/** A string PostgreSQL keeps as sent (`StoreText`, also inside `jsonb`), of `min` to `max` characters (code points). */
const Text = (min: number, max: number) => StoreText.StoreText.check(Schema.isBetweenCodePoints(min, max))

const OptionalText = (max: number) => Schema.NullOr(Text(0, max))
const Body = Schema.Record(Schema.String, Schema.Unknown)
const User = Schema.Record(Schema.String, Schema.Unknown)
const isPropertyKey = Schema.is(Text(1, 64))
// Keys are checked by a filter, not by the record's key schema, which would drop a key it refuses without a word.
const PropertiesSchema = Schema.NullOr(
  Schema.Record(Schema.String, Schema.Union([Text(0, 1000), Schema.Finite, Schema.Boolean, Schema.Null])).check(
    Schema.isMaxProperties(MAX_PROPERTIES),
    Schema.makeFilter((properties) => Object.keys(properties).every(isPropertyKey))
  )
)
const Instant = Schema.NullOr(
  Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/))
)
const Items = Schema.Array(Schema.Unknown).check(Schema.isBetweenLength(1, MAX_BATCH))
const EventName = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_.:-]{1,64}$/))

const PROPERTIES_MESSAGE =
  `properties must be an object of at most ${MAX_PROPERTIES} keys (1-64 characters each) whose values are strings ` +
  "(at most 1000 characters), numbers, booleans or null"

/**
 * A field's check, compiled once: `value` decoded, or the caller's `error`. Built at module level, never per call
 * (building a schema and its decoder costs more than a body's whole check).
 */
const fieldOf = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema)
  return <E>(value: unknown, error: () => E) => Result.mapError(decode(value), error) as Result.Result<S["Type"], E>
}

const bodyField = fieldOf(Body)
const userField = fieldOf(User)
const propertiesField = fieldOf(PropertiesSchema)
const instantField = fieldOf(Instant)
const eventNameField = fieldOf(EventName)
const userIdField = fieldOf(Text(1, 128))
const eventUserIdField = fieldOf(Schema.NullOr(Text(1, 128)))
const emailField = fieldOf(OptionalText(254))
const phoneField = fieldOf(OptionalText(32))
const nameField = fieldOf(OptionalText(255))
const sourceField = fieldOf(OptionalText(100))
const itemsField = fieldOf(Items)

/** A date-time field as an instant: absent or null is `receivedAt`; not before 2000, not 5 minutes ahead. */
const instant = <E>(value: unknown, receivedAt: DateTime.Utc, error: () => E) =>
  Result.flatMap(instantField(value ?? null, error), (text) => {
    if (text === null) return Result.succeed(receivedAt)
    const millis = Date.parse(text)
    return Number.isFinite(millis) &&
      millis >= EARLIEST &&
      millis <= DateTime.toEpochMillis(receivedAt) + FUTURE_TOLERANCE_MILLIS
      ? Result.succeed(DateTime.makeUnsafe(millis))
      : Result.fail(error())
  })

/**
 * A signup body, received at `receivedAt`, as its row; `subject` names the body in the message refusing one that is
 * not an object (a batch's items are "A signup").
 */
export const signup = (caller: Caller, body: unknown, receivedAt: DateTime.Utc, subject = "Body") =>
  Effect.fromResult(signupResult(caller, body, receivedAt, subject))

const signupResult = (caller: Caller, body: unknown, receivedAt: DateTime.Utc, subject: string) =>
  Result.gen(function* () {
    const invalid = (message: string) => () => new InvalidSignup({ message })
    const fields = yield* bodyField(body, invalid(`${subject} must be a JSON object`))
    const user = yield* userField(
      fields.user,
      invalid("user is required: an object with the platform's id of the user")
    )
    const row: SignupRow = {
      storeId: caller.storeId,
      keyId: caller.keyId,
      nonce: caller.nonce,
      userId: yield* userIdField(user.id, invalid("user.id is required (1-128 characters)")),
      email: yield* emailField(
        user.email ?? null,
        invalid("user.email must be a string of at most 254 characters, or null")
      ),
      phone: yield* phoneField(
        user.phone ?? null,
        invalid("user.phone must be a string of at most 32 characters, or null")
      ),
      name: yield* nameField(
        user.name ?? null,
        invalid("user.name must be a string of at most 255 characters, or null")
      ),
      source: yield* sourceField(
        fields.source ?? null,
        invalid("source must be a string of at most 100 characters, or null")
      ),
      properties: (yield* propertiesField(fields.properties ?? null, invalid(PROPERTIES_MESSAGE))) ?? {},
      signedUpAt: yield* instant(
        fields.signed_up_at,
        receivedAt,
        invalid("signed_up_at must be an ISO 8601 date-time with an offset, not in the future")
      ),
      receivedAt
    }
    return row
  })

/** An event body, received at `receivedAt`, as its row; `subject` as `signup`'s ("An event" in a batch). */
export const event = (caller: Caller, body: unknown, receivedAt: DateTime.Utc, subject = "Body") =>
  Effect.fromResult(eventResult(caller, body, receivedAt, subject))

const eventResult = (caller: Caller, body: unknown, receivedAt: DateTime.Utc, subject: string) =>
  Result.gen(function* () {
    const invalid = (message: string) => () => new InvalidEvent({ message })
    const fields = yield* bodyField(body, invalid(`${subject} must be a JSON object`))
    const row: EventRow = {
      storeId: caller.storeId,
      keyId: caller.keyId,
      nonce: caller.nonce,
      event: yield* eventNameField(
        fields.event,
        invalid("event is required: 1 to 64 characters among letters, digits and _ . : -")
      ),
      userId: yield* eventUserIdField(
        fields.user_id ?? null,
        invalid("user_id must be a string of 1 to 128 characters, or null")
      ),
      properties: (yield* propertiesField(fields.properties ?? null, invalid(PROPERTIES_MESSAGE))) ?? {},
      occurredAt: yield* instant(
        fields.occurred_at,
        receivedAt,
        invalid("occurred_at must be an ISO 8601 date-time with an offset, not in the future")
      ),
      receivedAt
    }
    return row
  })

// --- batches ----------------------------------------------------------------------------------------------------

/** The nonce an item of a batch is recorded under: a call's nonce is 32 hex digits, so never one of these. */
export const itemNonce = (nonce: string, index: number) => `${nonce}:${index}`

/** An item a batch refused: its index in the array, and the refusal its single call would have answered. */
export interface Rejected<E> {
  readonly index: number
  readonly reason: E
}

/** A batch body checked: the rows of the items that pass, and the others by index. */
export interface Checked<Row, E> {
  readonly rows: ReadonlyArray<Row>
  readonly rejected: ReadonlyArray<Rejected<E>>
}

/**
 * `{ "<key>": [ … ] }` checked: the whole body refused (`InvalidBatch`) when it is not an object holding 1 to
 * `MAX_BATCH` items, else each item by `check` (with its own nonce), the refused ones by index.
 */
const batch =
  <Row, E>(
    key: "signups" | "events",
    noun: string,
    check: (caller: Caller, item: unknown, receivedAt: DateTime.Utc, subject: string) => Result.Result<Row, E>
  ) =>
  (caller: Caller, body: unknown, receivedAt: DateTime.Utc): Effect.Effect<Checked<Row, E>, InvalidBatch> =>
    Effect.fromResult(
      Result.gen(function* () {
        const shape = `{ "${key}": [ … ] } holding 1 to ${MAX_BATCH} ${key}`
        const fields = yield* bodyField(
          body,
          () => new InvalidBatch({ message: `Body must be a JSON object ${shape}` })
        )
        const items = yield* itemsField(
          fields[key],
          () => new InvalidBatch({ message: `${key} must be an array of 1 to ${MAX_BATCH} ${key}` })
        )
        const rows: Array<Row> = []
        const rejected: Array<Rejected<E>> = []
        items.forEach((item, index) => {
          const checked = check({ ...caller, nonce: itemNonce(caller.nonce, index) }, item, receivedAt, noun)
          if (Result.isSuccess(checked)) rows.push(checked.success)
          else rejected.push({ index, reason: checked.failure })
        })
        return { rows, rejected } satisfies Checked<Row, E>
      })
    )

/** A `POST /v1/signups/batch` body, received at `receivedAt`: its signups' rows, and the refused ones by index. */
export const signups = batch("signups", "A signup", signupResult)

/** A `POST /v1/events/batch` body, received at `receivedAt`: its events' rows, and the refused ones by index. */
export const events = batch("events", "An event", eventResult)

const Properties = Schema.Record(
  Schema.String,
  Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Null])
)

/** The signup body, as documented (`signup` checks it, with the messages callers read). */
export const SignupBody = Schema.Struct({
  user: Schema.Struct({
    /** The platform's own id of the user (1-128 characters): a second signup of one id is a repeat. */
    id: Schema.String,
    email: Schema.optionalKey(Schema.NullOr(Schema.String)),
    phone: Schema.optionalKey(Schema.NullOr(Schema.String)),
    name: Schema.optionalKey(Schema.NullOr(Schema.String))
  }),
  /** ISO 8601 with an offset; default: when received. */
  signed_up_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  source: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** A flat object: at most 50 keys; strings, numbers, booleans or null. */
  properties: Schema.optionalKey(Schema.NullOr(Properties))
}).annotate({ identifier: "Signup" })

/** The event body, as documented (`event` checks it, with the messages callers read). */
export const EventBody = Schema.Struct({
  /** 1-64 characters among letters, digits and _ . : - */
  event: Schema.String,
  user_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** ISO 8601 with an offset; default: when received. */
  occurred_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** A flat object: at most 50 keys; strings, numbers, booleans or null. */
  properties: Schema.optionalKey(Schema.NullOr(Properties))
}).annotate({ identifier: "TrackedEvent" })

/** The 202 answer of both routes. */
export const Accepted = Schema.Struct({ accepted: Schema.Literal(true) })
export type Accepted = typeof Accepted.Type

/** The batch of signups, as documented (`signups` checks it). */
export const SignupBatchBody = Schema.Struct({
  /** 1 to 500 signups, each as `POST /v1/signups` takes it. */
  signups: Schema.Array(SignupBody).check(Schema.isBetweenLength(1, MAX_BATCH))
}).annotate({ identifier: "SignupBatch" })

/** The batch of events, as documented (`events` checks it). */
export const EventBatchBody = Schema.Struct({
  /** 1 to 500 events, each as `POST /v1/events` takes it. */
  events: Schema.Array(EventBody).check(Schema.isBetweenLength(1, MAX_BATCH))
}).annotate({ identifier: "TrackedEventBatch" })
