/**
 * The key store on PostgreSQL (tables `stores`, `api_keys`, `app_tokens` of storage migration 0003), needing only
 * `SqlClient`. Statements on a store's rows filter on `store_id`; the authentication lookups go by the credential's
 * own global key (key id, token hash) and return the store it is bound to.
 *
 * The key limit is race-free across instances: `insertKey` first locks the store's row (`FOR NO KEY UPDATE`, which
 * serialises key inserts of one store without blocking the foreign-key checks of its other tables), then counts and
 * inserts in a new statement, whose READ COMMITTED snapshot sees every key committed before the lock was granted.
 * Inside a caller's transaction the lock is held until that transaction ends.
 */
import { Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  type AppTokenRecord,
  freeSlug,
  KeyLimitReached,
  type KeyRecord,
  KeyStore,
  type NewKey,
  StoreNotFound,
  type StoreRecord
} from "./KeyStore.ts"

const StoreRow = Schema.Struct({
  id: Ids.StoreId,
  name: Schema.String,
  slug: Schema.String,
  plan: Schema.String,
  pilot: Schema.Boolean,
  language: Schema.Literals(["ar", "fr"]),
  created_at: Schema.Date
})

const KeyRow = Schema.Struct({
  key_id: Schema.String,
  store_id: Ids.StoreId,
  type: Schema.Literals(["platform", "public"]),
  name: Schema.String,
  scopes: Schema.Array(Schema.String),
  rate_limit_tier: Schema.String,
  pilot: Schema.Boolean,
  status: Schema.Literals(["active", "suspended", "revoked"]),
  secret_sha256: Schema.NullOr(Schema.String),
  signing_secret: Schema.NullOr(Schema.String),
  last_used_at: Schema.NullOr(Schema.Date),
  last_used_ip: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  created_via: Schema.Literals(["dashboard", "api"])
})

const TokenRow = Schema.Struct({
  token_sha256: Schema.String,
  store_id: Ids.StoreId,
  scopes: Schema.Array(Schema.String),
  created_at: Schema.Date
})

/** A row joined with its store, whose columns are prefixed `s_`. */
const JoinedStore = {
  s_id: Ids.StoreId,
  s_name: Schema.String,
  s_slug: Schema.String,
  s_plan: Schema.String,
  s_pilot: Schema.Boolean,
  s_language: Schema.Literals(["ar", "fr"]),
  s_created_at: Schema.Date
}
const KeyWithStoreRow = Schema.Struct({ ...KeyRow.fields, ...JoinedStore })
const TokenWithStoreRow = Schema.Struct({ ...TokenRow.fields, ...JoinedStore })

const toStore = (row: typeof StoreRow.Type): StoreRecord => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  plan: row.plan,
  pilot: row.pilot,
  language: row.language,
  createdAt: DateTime.fromDateUnsafe(row.created_at)
})

const storeOf = (row: Schema.Struct.Type<typeof JoinedStore>): StoreRecord =>
  toStore({
    id: row.s_id,
    name: row.s_name,
    slug: row.s_slug,
    plan: row.s_plan,
    pilot: row.s_pilot,
    language: row.s_language,
    created_at: row.s_created_at
  })

const toKey = (row: typeof KeyRow.Type): KeyRecord => ({
  keyId: row.key_id,
  storeId: row.store_id,
  type: row.type,
  name: row.name,
  scopes: row.scopes,
  rateLimitTier: row.rate_limit_tier,
  pilot: row.pilot,
  status: row.status,
  secretSha256: row.secret_sha256,
  signingSecret: row.signing_secret === null ? null : Redacted.make(row.signing_secret),
  lastUsedAt: row.last_used_at === null ? null : DateTime.fromDateUnsafe(row.last_used_at),
  lastUsedIp: row.last_used_ip,
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  createdVia: row.created_via
})

const toToken = (row: typeof TokenRow.Type): AppTokenRecord => ({
  tokenSha256: row.token_sha256,
  storeId: row.store_id,
  scopes: row.scopes,
  createdAt: DateTime.fromDateUnsafe(row.created_at)
})

const KEY_COLUMNS = Object.keys(KeyRow.fields)

const decodeRows = <S extends Schema.Top>(schema: S) =>
  Schema.decodeUnknownEffect(Schema.Array(schema)) as (
    rows: unknown
  ) => Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError, S["DecodingServices"]>

export const layer: Layer.Layer<KeyStore, never, SqlClient.SqlClient> = Layer.effect(
  KeyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const keyColumns = sql.literal(KEY_COLUMNS.join(", "))
    const qualifiedKeyColumns = sql.literal(KEY_COLUMNS.map((column) => `k.${column}`).join(", "))
    const storeColumns = sql.literal("id, name, slug, plan, pilot, language, created_at")
    const joinedStore = sql.literal(
      "s.id AS s_id, s.name AS s_name, s.slug AS s_slug, s.plan AS s_plan, s.pilot AS s_pilot, " +
        "s.language AS s_language, s.created_at AS s_created_at"
    )

    const insertKeyRow = (storeId: Ids.StoreId, key: NewKey, maxActive: number) =>
      sql`
        INSERT INTO api_keys (key_id, store_id, type, name, scopes, rate_limit_tier, pilot, status, secret_sha256,
          signing_secret, created_via)
        SELECT ${key.keyId}, ${storeId}, ${key.type}, ${key.name}, ${key.scopes}::text[], ${key.rateLimitTier},
          ${key.pilot}, ${key.status}, ${key.secretSha256}, ${key.signingSecret === null ? null : Redacted.value(key.signingSecret)},
          ${key.createdVia ?? "api"}
        WHERE (SELECT count(*) FROM api_keys WHERE store_id = ${storeId} AND status <> 'revoked') < ${maxActive}
        RETURNING ${keyColumns}`.pipe(Effect.flatMap(decodeRows(KeyRow)))

    const lockStore = (storeId: Ids.StoreId) =>
      sql`SELECT id FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE`.pipe(Effect.map((rows) => rows.length > 0))

    const insertKey = (storeId: Ids.StoreId, key: NewKey, maxActive: number) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            if (!(yield* lockStore(storeId).pipe(Effect.orDie))) return yield* new StoreNotFound({ storeId })
            const [row] = yield* insertKeyRow(storeId, key, maxActive).pipe(Effect.orDie)
            if (row === undefined) return yield* new KeyLimitReached({ maxActive })
            return toKey(row)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return KeyStore.of({
      findKey: Effect.fnUntraced(function* (keyId) {
        const rows = yield* sql`
          SELECT ${qualifiedKeyColumns}, ${joinedStore}
          FROM api_keys k JOIN stores s ON s.id = k.store_id
          WHERE k.key_id = ${keyId}`.pipe(Effect.flatMap(decodeRows(KeyWithStoreRow)), Effect.orDie)
        return Option.map(Option.fromNullishOr(rows[0]), (row) => ({ key: toKey(row), store: storeOf(row) }))
      }),
      findAppToken: Effect.fnUntraced(function* (tokenSha256) {
        const rows = yield* sql`
          SELECT t.token_sha256, t.store_id, t.scopes, t.created_at, ${joinedStore}
          FROM app_tokens t JOIN stores s ON s.id = t.store_id
          WHERE t.token_sha256 = ${tokenSha256} AND t.revoked_at IS NULL`.pipe(
          Effect.flatMap(decodeRows(TokenWithStoreRow)),
          Effect.orDie
        )
        return Option.map(Option.fromNullishOr(rows[0]), (row) => ({ token: toToken(row), store: storeOf(row) }))
      }),
      findStore: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`SELECT ${storeColumns} FROM stores WHERE id = ${storeId}`.pipe(
          Effect.flatMap(decodeRows(StoreRow)),
          Effect.orDie
        )
        return Option.map(Option.fromNullishOr(rows[0]), toStore)
      }),
      listKeys: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`
          SELECT ${keyColumns} FROM api_keys
          WHERE store_id = ${storeId} AND status <> 'revoked'
          ORDER BY created_at, key_id`.pipe(Effect.flatMap(decodeRows(KeyRow)), Effect.orDie)
        return rows.map(toKey)
      }),
      insertKey,
      revokeKey: Effect.fnUntraced(function* (storeId, keyId) {
        const rows = yield* sql`
          UPDATE api_keys SET status = 'revoked', revoked_at = now()
          WHERE store_id = ${storeId} AND key_id = ${keyId} AND status <> 'revoked'
          RETURNING key_id`.pipe(Effect.orDie)
        return rows.length > 0
      }),
      updateKey: Effect.fnUntraced(function* (keyId, change) {
        const rows = yield* sql`
          UPDATE api_keys SET
            status = coalesce(${change.status ?? null}::text, status),
            pilot = coalesce(${change.pilot ?? null}::boolean, pilot),
            revoked_at = CASE WHEN ${change.status ?? null}::text = 'revoked' THEN now() ELSE revoked_at END
          WHERE key_id = ${keyId} AND status <> 'revoked'
          RETURNING ${keyColumns}`.pipe(Effect.flatMap(decodeRows(KeyRow)), Effect.orDie)
        return Option.map(Option.fromNullishOr(rows[0]), toKey)
      }),
      touchKey: Effect.fnUntraced(function* (storeId, keyId, ip) {
        yield* sql`
          UPDATE api_keys SET last_used_at = now(), last_used_ip = ${ip}
          WHERE store_id = ${storeId} AND key_id = ${keyId}`.pipe(Effect.orDie)
      }),
      createStore: Effect.fnUntraced(function* (input, firstKey) {
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              // Take the first free slug; a concurrent creator may take it first, then the next one is tried.
              for (;;) {
                const taken = yield* sql<{ readonly slug: string }>`
                  SELECT slug FROM stores WHERE slug = ${input.slugBase} OR slug LIKE ${`${input.slugBase}-%`}`
                const slugs = new Set(taken.map((row) => row.slug))
                const slug = freeSlug(input.slugBase, (candidate) => slugs.has(candidate))
                const [row] = yield* sql`
                  INSERT INTO stores (name, slug, plan, pilot, language)
                  VALUES (${input.name}, ${slug}, ${input.plan}, ${input.pilot}, ${input.language})
                  ON CONFLICT (slug) DO NOTHING
                  RETURNING ${storeColumns}`.pipe(Effect.flatMap(decodeRows(StoreRow)))
                if (row === undefined) continue
                const store = toStore(row)
                const [key] = yield* insertKeyRow(store.id, firstKey, Number.MAX_SAFE_INTEGER)
                return { store, key: toKey(key!) }
              }
            })
          )
          .pipe(Effect.orDie)
      }),
      setPlan: Effect.fnUntraced(function* (storeId, plan) {
        const rows = yield* sql`
          UPDATE stores SET plan = ${plan}, updated_at = now() WHERE id = ${storeId}
          RETURNING ${storeColumns}`.pipe(Effect.flatMap(decodeRows(StoreRow)), Effect.orDie)
        return Option.map(Option.fromNullishOr(rows[0]), toStore)
      }),
      insertAppToken: Effect.fnUntraced(function* (storeId, tokenSha256, scopes) {
        const rows = yield* sql`
          INSERT INTO app_tokens (token_sha256, store_id, scopes)
          SELECT ${tokenSha256}, id, ${scopes}::text[] FROM stores WHERE id = ${storeId}
          RETURNING token_sha256, store_id, scopes, created_at`.pipe(Effect.flatMap(decodeRows(TokenRow)), Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* new StoreNotFound({ storeId })
        return toToken(row)
      })
    })
  })
)
