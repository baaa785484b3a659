/**
 * Keys on the wire (spec "Key", `GET/POST/DELETE /v1/keys`) and the rules of minting one: the body's `type`
 * (`platform` or `public`, default `platform`) and `name` (default `default`, cut to 100 characters), at most 3
 * keys per store. Secrets appear only in `CreatedKey`, as `Redacted` values that its schema encodes to text, and
 * only in the first answer: `replaySafe` is what an idempotent replay of it may show.
 */
import { AlgiersTime, StoreText } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import { InvalidKeyRequest } from "./AccessError.ts"
import type { KeyType } from "./Credentials.ts"
import type { KeyRecord } from "./KeyStore.ts"

/** Keys of a store that are not revoked (active or suspended), across all mint paths. */
export const MAX_ACTIVE_KEYS = 3
export const NAME_MAX_LENGTH = 100
export const DEFAULT_NAME = "default"

export const TOO_MANY_KEYS = "A store can hold at most 3 active keys"
export const PLATFORM_NOTE = "Store the bearer token now: its secret is shown only once and cannot be recovered."
export const PUBLIC_NOTE =
  "Public keys are created suspended: support must activate this key before it can sign requests. " +
  "Store the signing secret now: it is shown only once."

export const Key = Schema.Struct({
  key_id: Schema.String,
  type: Schema.Literals(["platform", "public"]),
  name: Schema.String,
  scopes: Schema.Array(Schema.String),
  rate_limit_tier: Schema.String,
  pilot: Schema.Boolean,
  status: Schema.Literals(["active", "suspended", "revoked"]),
  /** Algiers time `YYYY-MM-DD HH:MM:SS`; best effort, may lag seconds. */
  last_used_at: Schema.NullOr(Schema.String),
  last_used_ip: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  /** Keys do not expire. */
  expires_at: Schema.Null
})
export type Key = typeof Key.Type

/** `GET /v1/keys` data: every key that is not revoked, with no pagination fields. */
export const KeyList = Schema.Struct({ items: Schema.Array(Key) })
export type KeyList = typeof KeyList.Type

const Secret = Schema.RedactedFromValue(Schema.String)

/**
 * `POST /v1/keys` data. A platform key gets `bearer_token` (`<key_id>.<secret>`) and no signing secret (it signs
 * nothing); a public key gets its `signing_secret` and no bearer token (it authenticates by signature).
 */
export const CreatedKey = Schema.Struct({
  key_id: Schema.String,
  bearer_token: Schema.NullOr(Secret),
  signing_secret: Schema.NullOr(Secret),
  note: Schema.String
})
export type CreatedKey = typeof CreatedKey.Type

/** What a replay of `POST /v1/keys` says in place of the first answer's note. */
export const REPLAY_NOTE = "Replayed answer: the key's secret was shown only in the first answer and is not kept."

/**
 * What the idempotency record of `POST /v1/keys` keeps of its answer, and so what a replay shows: the key without
 * its secrets, which are shown once and must not sit in a record for 24 h. Takes the answer as built or as encoded
 * for the wire.
 */
export const replaySafe = <K extends CreatedKey | typeof CreatedKey.Encoded>(key: K): K =>
  ({ ...key, bearer_token: null, signing_secret: null, note: REPLAY_NOTE }) as K

/** `DELETE /v1/keys/{key_id}` data. */
export const RevokedKey = Schema.Struct({ revoked: Schema.Literal(true), key_id: Schema.String })
export type RevokedKey = typeof RevokedKey.Type

export const toKey = (record: KeyRecord): Key => ({
  key_id: record.keyId,
  type: record.type,
  name: record.name,
  scopes: record.scopes,
  rate_limit_tier: record.rateLimitTier,
  pilot: record.pilot,
  status: record.status,
  last_used_at: record.lastUsedAt === null ? null : AlgiersTime.formatSql(record.lastUsedAt),
  last_used_ip: record.lastUsedIp,
  created_at: AlgiersTime.formatSql(record.createdAt),
  expires_at: null
})

/** A key's name: trimmed, `default` when absent or blank, silently cut to 100 characters. */
export const keyName = (name: string | undefined): string => {
  const trimmed = name?.trim() ?? ""
  return trimmed === "" ? DEFAULT_NAME : Array.from(trimmed).slice(0, NAME_MAX_LENGTH).join("")
}

const Body = Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))
const TypeField = Schema.NullOr(Schema.Literals(["platform", "public"]))
// A name PostgreSQL keeps as sent (`StoreText`): no NUL character, no lone surrogate.
const NameField = Schema.NullOr(StoreText.StoreText)

const field = <S extends Schema.Decoder<unknown>>(schema: S, value: unknown, message: string) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError(() => new InvalidKeyRequest({ message }))
  ) as Effect.Effect<S["Type"], InvalidKeyRequest>

/** The `POST /v1/keys` body (absent, `null` or `{}` mean all defaults). */
export const decodeCreateBody = Effect.fnUntraced(function* (body: unknown) {
  const fields = (yield* field(Body, body ?? null, "Body must be a JSON object")) ?? {}
  const type = (yield* field(TypeField, fields.type ?? null, "type must be platform or public")) ?? "platform"
  const name = yield* field(NameField, fields.name ?? null, "name must be a string")
  return { type, name: keyName(name ?? undefined) } as { readonly type: KeyType; readonly name: string }
})
