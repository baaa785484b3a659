/**
 * Promo codes on PostgreSQL (tables `promo_codes`, `promo_confirmations_spent`, `promo_confirmation_secret` and
 * `stores.promo_codes_addon` of storage migration 0009), needing only `SqlClient`. Every statement names the store.
 *
 * A code's text is unique per store by index; a write that loses the race for a text runs in a savepoint, so the
 * caller's transaction stays usable. `claimUse` is one conditional `UPDATE … WHERE used_count < max_uses`: of
 * simultaneous claims each waits for the row lock and re-checks the condition on the committed row, so no more than
 * `max_uses` ever succeed.
 */
import { randomBytes } from "node:crypto"
import { StoreAmount } from "@tawsil/domain"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { DiscountType, PromoCode, PromoCodeId, type PromoPatch } from "./PromoCode.ts"
import { CodeTaken, PromoStore } from "./PromoStore.ts"

const PromoRow = Schema.Struct({
  id: PromoCodeId,
  code: Schema.String,
  discount_type: DiscountType,
  discount_value: StoreAmount.FromString,
  min_order_amount: Schema.NullOr(StoreAmount.FromString),
  max_uses: Schema.NullOr(Schema.Int),
  used_count: Schema.Int,
  is_active: Schema.Boolean,
  starts_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  expires_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(PromoRow))
const toPromo = (row: typeof PromoRow.Type) => new PromoCode(row)

/** A unique index refused the row: the text is another code's. */
const isUniqueViolationError = (error: unknown): error is SqlError.SqlError =>
  typeof error === "object" &&
  error !== null &&
  (error as { readonly _tag?: unknown })._tag === "SqlError" &&
  (error as SqlError.SqlError).reason._tag === "UniqueViolation"

/** The columns of a create or PATCH, from the fields present. */
const columnsOf = (values: PromoPatch) => {
  const columns: Record<string, unknown> = {}
  if (values.code !== undefined) columns.code = values.code
  if (values.discount_type !== undefined) columns.discount_type = values.discount_type
  if (values.discount_value !== undefined) columns.discount_value = StoreAmount.format(values.discount_value)
  if (values.min_order_amount !== undefined) {
    columns.min_order_amount = values.min_order_amount === null ? null : StoreAmount.format(values.min_order_amount)
  }
  if (values.max_uses !== undefined) columns.max_uses = values.max_uses
  if (values.is_active !== undefined) columns.is_active = values.is_active
  if (values.starts_at !== undefined)
    columns.starts_at = values.starts_at === null ? null : new Date(values.starts_at.epochMilliseconds)
  if (values.expires_at !== undefined) {
    columns.expires_at = values.expires_at === null ? null : new Date(values.expires_at.epochMilliseconds)
  }
  return columns
}

export const layer: Layer.Layer<PromoStore, never, SqlClient.SqlClient> = Layer.effect(
  PromoStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      "id, code, discount_type, discount_value, min_order_amount, max_uses, used_count, is_active, starts_at, " +
        "expires_at, created_at, updated_at"
    )
    const one = (rows: ReadonlyArray<typeof PromoRow.Type>) => Option.map(Option.fromNullishOr(rows[0]), toPromo)
    /** A lost race for a code's text is `CodeTaken`; any other failure of the database is a defect. */
    const orCodeTaken = (code: string) => (error: unknown) =>
      isUniqueViolationError(error) ? Effect.fail(new CodeTaken({ code })) : Effect.die(error)

    const secret = Effect.gen(function* () {
      yield* sql`
        INSERT INTO promo_confirmation_secret (id, secret) VALUES (1, ${randomBytes(32).toString("hex")})
        ON CONFLICT (id) DO NOTHING`
      const [row] = yield* sql<{ readonly secret: string }>`SELECT secret FROM promo_confirmation_secret WHERE id = 1`
      return Redacted.make(row!.secret)
    }).pipe(Effect.orDie)

    return PromoStore.of({
      list: Effect.fnUntraced(function* (storeId, query) {
        const rows = yield* sql`
          SELECT ${columns} FROM promo_codes
          WHERE store_id = ${storeId}
            ${query.active === undefined ? sql`` : sql`AND is_active = ${query.active}`}
            ${query.afterId === undefined ? sql`` : sql`AND id < ${query.afterId}`}
          ORDER BY id DESC
          LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeRows))
        return rows.map(toPromo)
      }, Effect.orDie),
      get: Effect.fnUntraced(function* (storeId, id) {
        return one(
          yield* sql`SELECT ${columns} FROM promo_codes WHERE store_id = ${storeId} AND id = ${id}`.pipe(
            Effect.flatMap(decodeRows)
          )
        )
      }, Effect.orDie),
      findByCode: Effect.fnUntraced(function* (storeId, code) {
        return one(
          yield* sql`SELECT ${columns} FROM promo_codes WHERE store_id = ${storeId} AND code = ${code}`.pipe(
            Effect.flatMap(decodeRows)
          )
        )
      }, Effect.orDie),
      insert: (storeId, values, restore) =>
        Effect.gen(function* () {
          const kept =
            restore === undefined
              ? {}
              : {
                  used_count: restore.used_count,
                  created_at: new Date(restore.created_at.epochMilliseconds),
                  ...((yield* sql`SELECT 1 FROM promo_codes WHERE id = ${restore.id}`).length === 0
                    ? { id: restore.id }
                    : {})
                }
          return yield* sql`
            INSERT INTO promo_codes ${sql.insert({ store_id: storeId, ...columnsOf(values), ...kept })}
            RETURNING ${columns}`.pipe(sql.withTransaction, Effect.flatMap(decodeRows))
        }).pipe(
          Effect.map((rows) => toPromo(rows[0]!)),
          Effect.catch(orCodeTaken(values.code))
        ),
      update: (storeId, id, patch) =>
        sql`
          UPDATE promo_codes SET ${sql.update(columnsOf(patch))}, updated_at = now()
          WHERE store_id = ${storeId} AND id = ${id}
          RETURNING ${columns}`.pipe(
          sql.withTransaction,
          Effect.flatMap(decodeRows),
          Effect.map(one),
          Effect.catch(orCodeTaken(patch.code ?? ""))
        ),
      remove: Effect.fnUntraced(function* (storeId, id) {
        return one(
          yield* sql`DELETE FROM promo_codes WHERE store_id = ${storeId} AND id = ${id} RETURNING ${columns}`.pipe(
            Effect.flatMap(decodeRows)
          )
        )
      }, Effect.orDie),
      claimUse: Effect.fnUntraced(function* (storeId, id) {
        return one(
          yield* sql`
            UPDATE promo_codes SET used_count = used_count + 1
            WHERE store_id = ${storeId} AND id = ${id} AND (max_uses IS NULL OR used_count < max_uses)
            RETURNING ${columns}`.pipe(Effect.flatMap(decodeRows))
        )
      }, Effect.orDie),
      addonActive: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql<{ readonly promo_codes_addon: boolean }>`
          SELECT promo_codes_addon FROM stores WHERE id = ${storeId}`
        return row?.promo_codes_addon ?? false
      }, Effect.orDie),
      setAddon: Effect.fnUntraced(function* (storeId, active) {
        const rows = yield* sql`
          UPDATE stores SET promo_codes_addon = ${active}, updated_at = now() WHERE id = ${storeId} RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      confirmationSecret: secret,
      spendConfirmation: Effect.fnUntraced(function* (storeId, nonce, expiresAt) {
        // Spent nonces are kept until their token would have expired anyway.
        yield* sql`DELETE FROM promo_confirmations_spent WHERE store_id = ${storeId} AND expires_at < now()`
        const rows = yield* sql`
          INSERT INTO promo_confirmations_spent (nonce, store_id, expires_at)
          VALUES (${nonce}, ${storeId}, ${new Date(expiresAt.epochMilliseconds)})
          ON CONFLICT (nonce) DO NOTHING
          RETURNING nonce`
        return rows.length > 0
      }, Effect.orDie)
    })
  })
)
