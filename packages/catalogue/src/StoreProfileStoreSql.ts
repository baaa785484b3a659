/**
 * The store profile on PostgreSQL (table `stores` of storage migration 0003), needing only `SqlClient`. A theme
 * missing some of its keys reads with the table's default for each.
 */
import { Ids } from "@tawsil/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { StoreLanguage, StoreRecord, Theme } from "./Store.ts"
import { StoreProfileStore } from "./StoreProfileStore.ts"

const themeDefault = (value: string) => Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const StoreRow = Schema.Struct({
  id: Ids.StoreId,
  name: Schema.String,
  slug: Schema.String,
  language: StoreLanguage,
  description: Schema.NullOr(Schema.String),
  logo: Schema.NullOr(Schema.String),
  favicon: Schema.NullOr(Schema.String),
  banner: Schema.NullOr(Schema.String),
  // The migration's default theme, key by key.
  theme: Schema.Struct({
    primary_color: themeDefault("#1f2937"),
    secondary_color: themeDefault("#f59e0b"),
    background_color: themeDefault("#ffffff"),
    font_family: themeDefault("Cairo")
  }),
  subdomain: Schema.NullOr(Schema.String),
  custom_domain: Schema.NullOr(Schema.String),
  custom_domain_verified: Schema.Boolean,
  hide_branding: Schema.Boolean,
  created_at: Schema.DateTimeUtcFromDate
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(StoreRow))

export const layer: Layer.Layer<StoreProfileStore, never, SqlClient.SqlClient> = Layer.effect(
  StoreProfileStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return StoreProfileStore.of({
      get: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`
          SELECT id, name, slug, language, description, logo, favicon, banner, theme, subdomain, custom_domain,
            custom_domain_verified, hide_branding, created_at
          FROM stores WHERE id = ${storeId}`.pipe(Effect.flatMap(decodeRows))
        return Option.map(
          Option.fromNullishOr(row),
          (store) => new StoreRecord({ ...store, theme: new Theme(store.theme) })
        )
      }, Effect.orDie)
    })
  })
)
