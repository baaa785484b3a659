/**
 * A store's shipping configuration on PostgreSQL (tables `shipping_settings` and `shipping_rates` of storage
 * migration 0013), needing only `SqlClient`. Every statement names the store. (The table
 * `shipping_rate_sync_undos` and the column `rates_revision` of that migration are no longer read or written: the
 * change history tells an undo of a sync's undo by itself since migration 0015.)
 *
 * `lock` upserts the store's `shipping_settings` row and keeps its lock for the caller's transaction (the
 * store API runs each write in one), so the rate writes of a store run one at a time. Amounts travel as decimal
 * text, never as floating point.
 */
import { StoreAmount, WilayaCode } from "@tawsil/domain"
import { Array as Arr, Data, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { hasPrice, type StoredRate } from "./Rate.ts"
import { CodFeePayer, DEFAULTS, DeliveryType, type StoredSettings } from "./Settings.ts"
import { ShippingStore } from "./ShippingStore.ts"

const RateRow = Schema.Struct({
  wilaya_id: WilayaCode.WilayaCode,
  home_price: Schema.NullOr(StoreAmount.FromString),
  desk_price: Schema.NullOr(StoreAmount.FromString),
  updated_at: Schema.DateTimeUtcFromDate
})
const decodeRates = Schema.decodeUnknownEffect(Schema.Array(RateRow))

const SettingsRow = Schema.Struct({
  origin_wilaya: Schema.NullOr(WilayaCode.WilayaCode),
  default_courier: Schema.NullOr(Schema.String),
  free_shipping_threshold: Schema.NullOr(StoreAmount.FromString),
  default_delivery_type: DeliveryType,
  cod_fee_payer: CodFeePayer,
  cod_fee_percent: StoreAmount.FromString,
  updated_at: Schema.NullOr(Schema.DateTimeUtcFromDate)
})
const decodeSettings = Schema.decodeUnknownEffect(Schema.Array(SettingsRow))

const amountText = (amount: StoreAmount.StoreAmount | null) => (amount === null ? null : StoreAmount.format(amount))

/** The write's own failure, carried through the transaction apart from the database's (a defect). */
class Inner extends Data.Class<{ readonly error: unknown }> {}

export const layer: Layer.Layer<ShippingStore, never, SqlClient.SqlClient> = Layer.effect(
  ShippingStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const settingsColumns = sql.literal(
      "origin_wilaya, default_courier, free_shipping_threshold::text, default_delivery_type, cod_fee_payer, " +
        "cod_fee_percent::text, updated_at"
    )

    return ShippingStore.of({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql
          .withTransaction(Effect.mapError(effect, (error) => new Inner({ error })))
          .pipe(
            Effect.catch((failure) =>
              failure instanceof Inner ? Effect.fail(failure.error as E) : Effect.die(failure)
            )
          ),
      rates: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`
          SELECT wilaya_id, home_price::text, desk_price::text, updated_at FROM shipping_rates
          WHERE store_id = ${storeId} ORDER BY wilaya_id`.pipe(Effect.flatMap(decodeRates))
        return rows as ReadonlyArray<StoredRate>
      }, Effect.orDie),
      lock: Effect.fnUntraced(function* (storeId) {
        // A no-op update of an existing row still takes its lock, held until the caller's transaction ends.
        yield* sql`
          INSERT INTO shipping_settings (store_id) VALUES (${storeId})
          ON CONFLICT (store_id) DO UPDATE SET updated_at = shipping_settings.updated_at`
      }, Effect.orDie),
      putRates: Effect.fnUntraced(function* (storeId, prices) {
        const kept: Array<Record<string, unknown>> = prices.filter(hasPrice).map((price) => ({
          store_id: storeId,
          wilaya_id: price.wilaya_id,
          home_price: amountText(price.home_price),
          desk_price: amountText(price.desk_price)
        }))
        const removed = prices.filter((price) => !hasPrice(price)).map((price) => price.wilaya_id)
        if (Arr.isReadonlyArrayNonEmpty(kept)) {
          yield* sql`
            INSERT INTO shipping_rates ${sql.insert(kept)}
            ON CONFLICT (store_id, wilaya_id) DO UPDATE SET
              home_price = excluded.home_price, desk_price = excluded.desk_price, updated_at = now()`
        }
        if (removed.length > 0) {
          yield* sql`
            DELETE FROM shipping_rates
            WHERE store_id = ${storeId} AND wilaya_id = ANY(${`{${removed.join(",")}}`}::smallint[])`
        }
      }, Effect.orDie),
      settings: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`SELECT ${settingsColumns} FROM shipping_settings WHERE store_id = ${storeId}`.pipe(
          Effect.flatMap(decodeSettings)
        )
        return (row ?? { ...DEFAULTS, updated_at: null }) as StoredSettings
      }, Effect.orDie),
      putSettings: Effect.fnUntraced(function* (storeId, settings) {
        const [row] = yield* sql`
          INSERT INTO shipping_settings (store_id, origin_wilaya, default_courier, free_shipping_threshold,
            default_delivery_type, cod_fee_payer, cod_fee_percent, updated_at)
          VALUES (${storeId}, ${settings.origin_wilaya}, ${settings.default_courier},
            ${amountText(settings.free_shipping_threshold)}, ${settings.default_delivery_type},
            ${settings.cod_fee_payer}, ${StoreAmount.format(settings.cod_fee_percent)}, now())
          ON CONFLICT (store_id) DO UPDATE SET
            origin_wilaya = excluded.origin_wilaya,
            default_courier = excluded.default_courier,
            free_shipping_threshold = excluded.free_shipping_threshold,
            default_delivery_type = excluded.default_delivery_type,
            cod_fee_payer = excluded.cod_fee_payer,
            cod_fee_percent = excluded.cod_fee_percent,
            updated_at = now()
          RETURNING ${settingsColumns}`.pipe(Effect.flatMap(decodeSettings))
        return row as StoredSettings
      }, Effect.orDie)
    })
  })
)
