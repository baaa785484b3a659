/**
 * The storefront's configuration on PostgreSQL (the theme columns and `plan_expires_at` of `stores`, tables `pixels`
 * and `pixel_assignments` of storage migration 0010; the profile columns of 0003 and the configuration columns of
 * 0011), needing only `SqlClient`. Every statement names the store.
 *
 * The design lives in `stores.theme`, one key per value (the theme switch merges its three colours into it); every
 * `jsonb` of the store's configuration reads a missing key as its default, so rows written before a key existed read
 * as the stores made since start.
 *
 * A pixel create first locks the store's row (`FOR NO KEY UPDATE`), so concurrent creates of one store count each
 * other's pixels against the plan; the unique index on (store, type, `pixel_id`) refuses duplicates and a partial
 * unique index keeps one default per type. Writes run in savepoints: a refused one leaves the caller's transaction
 * usable. The access token is written and never selected: rows say only whether one is stored.
 */
import { Ids } from "@tawsil/domain"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as HomeSection from "./HomeSection.ts"
import { type Counts, emptyCounts, PixelId, PixelType, pixelOf } from "./Pixel.ts"
import { defaultCurrency, emptyContact, emptySocialLinks, StoreLanguage, StoreRecord, Theme } from "./Store.ts"
import type { DesignState, LayoutSection } from "./StoreConfig.ts"
import {
  homeSectionsOf,
  initialDesign,
  PixelDuplicate,
  PixelLimitHit,
  PixelRefused,
  StorefrontStore,
  type StoreSettings
} from "./StorefrontStore.ts"
import { LIGHT_PALETTE } from "./ThemeCatalogue.ts"

const colorDefault = (value: string) => Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const SettingsRow = Schema.Struct({
  plan: Schema.String,
  plan_expires_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  language: Schema.Literals(["ar", "fr"]),
  storefront_theme: Schema.String,
  fast_checkout_theme: Schema.String,
  variant_card_style: Schema.String,
  is_digital: Schema.Boolean,
  theme: Schema.Struct({
    primary_color: colorDefault(LIGHT_PALETTE.primary_color),
    secondary_color: colorDefault(LIGHT_PALETTE.secondary_color),
    background_color: colorDefault(LIGHT_PALETTE.background_color)
  })
})
const decodeSettings = Schema.decodeUnknownEffect(Schema.Array(SettingsRow))

/** `value` when a key is missing. */
const orDefault = <S extends Schema.Top>(schema: S, value: S["Type"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value as S["Encoded"])))

const orDefaults = <F extends Schema.Struct.Fields>(fields: F, defaults: { readonly [K in keyof F]: F[K]["Type"] }) =>
  Schema.Struct(
    Object.fromEntries(
      Object.entries(fields).map(([name, schema]) => [name, orDefault(schema as Schema.Top, defaults[name])])
    ) as unknown as F
  )

const text = Schema.NullOr(Schema.String)
const integer = Schema.NullOr(Schema.Number)
const { colors: initialColors, ...initialRest } = initialDesign

const ProfileRow = Schema.Struct({
  id: Ids.StoreId,
  name: Schema.String,
  slug: Schema.String,
  language: StoreLanguage,
  description: text,
  logo: text,
  favicon: text,
  banner: text,
  theme: orDefaults(
    {
      primary_color: Schema.String,
      secondary_color: Schema.String,
      background_color: Schema.String,
      font_family: Schema.String
    },
    { ...LIGHT_PALETTE, font_family: initialDesign.font_family }
  ),
  contact: orDefaults({ phone: text, whatsapp: text, email: text, address: text, wilaya_id: integer }, emptyContact),
  social_links: orDefaults({ facebook: text, instagram: text, tiktok: text, youtube: text }, emptySocialLinks),
  currency_display: orDefaults(
    {
      symbol: Schema.Literals(["DA", "DZD", "د.ج"]),
      position: Schema.Literals(["before", "after"]),
      decimals: Schema.Literals([0, 2])
    },
    defaultCurrency
  ),
  subdomain: text,
  custom_domain: text,
  custom_domain_verified: Schema.Boolean,
  hide_branding: Schema.Boolean,
  created_at: Schema.DateTimeUtcFromDate
})
const decodeProfiles = Schema.decodeUnknownEffect(Schema.Array(ProfileRow))

/** The design as `stores.theme` keeps it, flat; a missing key reads as its default. */
const DesignRow = Schema.Struct({
  theme: Schema.Struct({
    ...orDefaults(
      {
        primary_color: Schema.String,
        secondary_color: Schema.String,
        background_color: Schema.String,
        text_color: text,
        button_color: text,
        button_text_color: text,
        header_color: text,
        footer_color: text
      },
      initialColors
    ).fields,
    ...orDefaults(
      {
        font_family: Schema.String,
        heading_font: text,
        border_radius: Schema.Number,
        button_style: Schema.String,
        product_image_ratio: Schema.String
      },
      initialRest
    ).fields
  })
})
const decodeDesigns = Schema.decodeUnknownEffect(Schema.Array(DesignRow))

const LayoutRow = Schema.Struct({
  home_layout: Schema.Struct({
    sections: orDefault(Schema.Array(Schema.Unknown), []),
    last_section_id: orDefault(Schema.Number, 0)
  })
})
const decodeLayouts = Schema.decodeUnknownEffect(Schema.Array(LayoutRow))

const PixelRow = Schema.Struct({
  id: PixelId,
  pixel_type: PixelType,
  pixel_id: Schema.String,
  pixel_name: Schema.NullOr(Schema.String),
  has_token: Schema.Boolean,
  test_event_code: Schema.NullOr(Schema.String),
  ad_account_id: Schema.NullOr(Schema.String),
  conversion_label: Schema.NullOr(Schema.String),
  is_active: Schema.Boolean,
  is_default: Schema.Boolean,
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
const decodePixels = Schema.decodeUnknownEffect(Schema.Array(PixelRow))

const sqlErrorOf = (error: unknown): SqlError.SqlError | undefined =>
  typeof error === "object" && error !== null && (error as { readonly _tag?: unknown })._tag === "SqlError"
    ? (error as SqlError.SqlError)
    : undefined

export const layer: Layer.Layer<StorefrontStore, never, SqlClient.SqlClient> = Layer.effect(
  StorefrontStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      "id, pixel_type, pixel_id, pixel_name, access_token IS NOT NULL AS has_token, test_event_code, ad_account_id, " +
        "conversion_label, is_active, is_default, created_at, updated_at"
    )
    const one = (rows: ReadonlyArray<typeof PixelRow.Type>) =>
      Option.map(Option.fromNullishOr(rows[0]), (row) => pixelOf(row))

    const countsOf = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      const rows = yield* sql<{ readonly pixel_type: PixelType; readonly count: number }>`
        SELECT pixel_type, count(*)::int AS count FROM pixels WHERE store_id = ${storeId} GROUP BY pixel_type`
      const counts: Record<PixelType, number> = { ...emptyCounts }
      for (const row of rows) counts[row.pixel_type] = row.count
      return counts as Counts
    })

    const takeDefault = (storeId: Ids.StoreId, type: PixelType, id: number) =>
      sql`
        UPDATE pixels SET is_default = false, updated_at = now()
        WHERE store_id = ${storeId} AND pixel_type = ${type} AND is_default AND id <> ${id}`

    return StorefrontStore.of({
      settings: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`
          SELECT plan, plan_expires_at, language, storefront_theme, fast_checkout_theme, variant_card_style,
            is_digital, theme
          FROM stores WHERE id = ${storeId}`.pipe(Effect.flatMap(decodeSettings))
        return Option.map(
          Option.fromNullishOr(row),
          (store): StoreSettings => ({
            plan: store.plan,
            planExpiresAt: store.plan_expires_at,
            language: store.language,
            theme: {
              theme: store.storefront_theme,
              fast_checkout_theme: store.fast_checkout_theme,
              variant_card_style: store.variant_card_style,
              is_digital: store.is_digital,
              colors: store.theme
            }
          })
        )
      }, Effect.orDie),
      writeTheme: Effect.fnUntraced(function* (storeId, state) {
        const rows = yield* sql`
          UPDATE stores SET
            storefront_theme = ${state.theme},
            fast_checkout_theme = ${state.fast_checkout_theme},
            variant_card_style = ${state.variant_card_style},
            is_digital = ${state.is_digital},
            theme = theme || ${JSON.stringify(state.colors)}::jsonb,
            updated_at = now()
          WHERE id = ${storeId}
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      lock: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`SELECT id FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE`
        return rows.length > 0
      }, Effect.orDie),
      profile: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`
          SELECT id, name, slug, language, description, logo, favicon, banner, theme, contact, social_links,
            currency_display, subdomain, custom_domain, custom_domain_verified, hide_branding, created_at
          FROM stores WHERE id = ${storeId}`.pipe(Effect.flatMap(decodeProfiles))
        return Option.map(Option.fromNullishOr(row), ({ currency_display, theme, ...store }) => {
          return new StoreRecord({ ...store, theme: new Theme(theme), currency: currency_display })
        })
      }, Effect.orDie),
      writeSettings: Effect.fnUntraced(function* (storeId, values) {
        const rows = yield* sql`
          UPDATE stores SET
            name = ${values.name},
            description = ${values.description},
            language = ${values.language},
            logo = ${values.logo},
            favicon = ${values.favicon},
            banner = ${values.banner},
            contact = ${JSON.stringify(values.contact)}::jsonb,
            social_links = ${JSON.stringify(values.social_links)}::jsonb,
            currency_display = ${JSON.stringify(values.currency)}::jsonb,
            updated_at = now()
          WHERE id = ${storeId}
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      design: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`SELECT theme FROM stores WHERE id = ${storeId}`.pipe(Effect.flatMap(decodeDesigns))
        return Option.map(Option.fromNullishOr(row), ({ theme }): DesignState => {
          const { primary_color, secondary_color, background_color, text_color, button_color } = theme
          const { button_text_color, header_color, footer_color } = theme
          return {
            colors: {
              primary_color,
              secondary_color,
              background_color,
              text_color,
              button_color,
              button_text_color,
              header_color,
              footer_color
            },
            font_family: theme.font_family as DesignState["font_family"],
            heading_font: theme.heading_font as DesignState["heading_font"],
            border_radius: theme.border_radius,
            button_style: theme.button_style as DesignState["button_style"],
            product_image_ratio: theme.product_image_ratio as DesignState["product_image_ratio"]
          }
        })
      }, Effect.orDie),
      writeDesign: Effect.fnUntraced(function* (storeId, { colors, ...rest }) {
        const rows = yield* sql`
          UPDATE stores SET theme = theme || ${JSON.stringify({ ...colors, ...rest })}::jsonb, updated_at = now()
          WHERE id = ${storeId}
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      homeSections: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql<{ readonly home_sections: Readonly<Record<string, unknown>> }>`
          SELECT home_sections FROM stores WHERE id = ${storeId}`
        return Option.map(Option.fromNullishOr(row), (found) => homeSectionsOf(found.home_sections))
      }, Effect.orDie),
      writeHomeSections: Effect.fnUntraced(function* (storeId, values) {
        const rows = yield* sql`
          UPDATE stores SET home_sections = ${JSON.stringify(values)}::jsonb, updated_at = now()
          WHERE id = ${storeId}
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      homeLayout: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`SELECT home_layout FROM stores WHERE id = ${storeId}`.pipe(
          Effect.flatMap(decodeLayouts)
        )
        return Option.map(Option.fromNullishOr(row), ({ home_layout }) => ({
          // `jsonb` keeps keys in its own order: each section in the order the API shows it.
          sections: (home_layout.sections as ReadonlyArray<LayoutSection>).map(
            (section): LayoutSection => ({
              id: section.id,
              type: section.type,
              enabled: section.enabled,
              settings: HomeSection.ordered(section.type, section.settings)
            })
          ),
          last_section_id: home_layout.last_section_id
        }))
      }, Effect.orDie),
      writeHomeLayout: Effect.fnUntraced(function* (storeId, layout) {
        const rows = yield* sql`
          UPDATE stores SET home_layout = ${JSON.stringify(layout)}::jsonb, updated_at = now()
          WHERE id = ${storeId}
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      listPixels: Effect.fnUntraced(function* (storeId, query) {
        const rows = yield* sql`
          SELECT ${columns} FROM pixels
          WHERE store_id = ${storeId}
            ${query.type === undefined ? sql`` : sql`AND pixel_type = ${query.type}`}
            ${query.afterId === undefined ? sql`` : sql`AND id < ${query.afterId}`}
          ORDER BY id DESC
          LIMIT ${query.limit}`.pipe(Effect.flatMap(decodePixels))
        return rows.map((row) => pixelOf(row))
      }, Effect.orDie),
      getPixel: Effect.fnUntraced(function* (storeId, id) {
        return one(
          yield* sql`SELECT ${columns} FROM pixels WHERE store_id = ${storeId} AND id = ${id}`.pipe(
            Effect.flatMap(decodePixels)
          )
        )
      }, Effect.orDie),
      findPixel: Effect.fnUntraced(function* (storeId, type, pixelId) {
        return one(
          yield* sql`
            SELECT ${columns} FROM pixels
            WHERE store_id = ${storeId} AND pixel_type = ${type} AND pixel_id = ${pixelId}`.pipe(
            Effect.flatMap(decodePixels)
          )
        )
      }, Effect.orDie),
      defaultPixel: Effect.fnUntraced(function* (storeId, type) {
        const [row] = yield* sql<{ readonly id: number }>`
          SELECT id FROM pixels WHERE store_id = ${storeId} AND pixel_type = ${type} AND is_default`
        return Option.map(Option.fromNullishOr(row), (found) => PixelId.make(found.id))
      }, Effect.orDie),
      counts: (storeId) => countsOf(storeId).pipe(Effect.orDie),
      insertPixel: (storeId, input, fits, restore) =>
        Effect.gen(function* () {
          const locked = yield* sql`SELECT id FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE`
          if (locked.length === 0) return yield* new PixelRefused({ message: "the store no longer exists" })
          if (!fits(yield* countsOf(storeId))) return yield* new PixelLimitHit()
          const id =
            restore !== undefined && (yield* sql`SELECT 1 FROM pixels WHERE id = ${restore.id}`).length === 0
              ? { id: restore.id }
              : {}
          const rows = yield* sql`
            INSERT INTO pixels ${sql.insert({
              store_id: storeId,
              pixel_type: input.pixel_type,
              pixel_id: input.pixel_id,
              pixel_name: input.pixel_name,
              access_token: input.access_token === null ? null : Redacted.value(input.access_token),
              ad_account_id: input.ad_account_id,
              conversion_label: input.conversion_label,
              is_active: input.is_active,
              // Made default below, once the others gave it up.
              is_default: false,
              ...(restore === undefined ? {} : { created_at: new Date(restore.created_at.epochMilliseconds) }),
              ...id
            })}
            RETURNING ${columns}`.pipe(Effect.flatMap(decodePixels))
          const inserted = rows[0]!
          if (!input.is_default) return pixelOf(inserted)
          yield* takeDefault(storeId, input.pixel_type, inserted.id)
          return Option.getOrThrow(
            one(
              yield* sql`
                UPDATE pixels SET is_default = true WHERE id = ${inserted.id} RETURNING ${columns}`.pipe(
                Effect.flatMap(decodePixels)
              )
            )
          )
        }).pipe(
          sql.withTransaction,
          Effect.catch((error): Effect.Effect<never, PixelLimitHit | PixelDuplicate | PixelRefused> => {
            if (error._tag === "PixelLimitHit" || error._tag === "PixelRefused") return Effect.fail(error)
            const failure = sqlErrorOf(error)
            if (failure?.reason._tag === "UniqueViolation") return Effect.fail(new PixelDuplicate())
            if (failure?.reason._tag === "ConstraintError") {
              // The database's own words (a trigger's message, a constraint's name), not the driver's summary.
              const cause = failure.reason.cause as { readonly message?: unknown } | undefined
              const message = typeof cause?.message === "string" ? cause.message : failure.reason.message
              return Effect.fail(new PixelRefused({ message: message ?? "constraint violated" }))
            }
            return Effect.die(error)
          })
        ),
      updatePixel: (storeId, id, patch) =>
        Effect.gen(function* () {
          const columnsToSet: Record<string, unknown> = {}
          if (patch.pixel_name !== undefined) columnsToSet.pixel_name = patch.pixel_name
          if (patch.access_token !== undefined) columnsToSet.access_token = Redacted.value(patch.access_token)
          if (patch.ad_account_id !== undefined) columnsToSet.ad_account_id = patch.ad_account_id
          if (patch.conversion_label !== undefined) columnsToSet.conversion_label = patch.conversion_label
          if (patch.is_active !== undefined) columnsToSet.is_active = patch.is_active
          if (patch.clearTestEventCode === true) columnsToSet.test_event_code = null
          if (patch.is_default === false) columnsToSet.is_default = false
          const assignments =
            Object.keys(columnsToSet).length === 0
              ? sql`updated_at = now()`
              : sql`${sql.update(columnsToSet)}, updated_at = now()`
          const updated = one(
            yield* sql`
              UPDATE pixels SET ${assignments} WHERE store_id = ${storeId} AND id = ${id}
              RETURNING ${columns}`.pipe(Effect.flatMap(decodePixels))
          )
          if (Option.isNone(updated) || patch.is_default !== true) return updated
          yield* takeDefault(storeId, updated.value.pixel_type, id)
          return one(
            yield* sql`UPDATE pixels SET is_default = true WHERE id = ${id} RETURNING ${columns}`.pipe(
              Effect.flatMap(decodePixels)
            )
          )
        }).pipe(sql.withTransaction, Effect.orDie),
      removePixel: Effect.fnUntraced(function* (storeId, id) {
        return one(
          yield* sql`DELETE FROM pixels WHERE store_id = ${storeId} AND id = ${id} RETURNING ${columns}`.pipe(
            Effect.flatMap(decodePixels)
          )
        )
      }, Effect.orDie)
    })
  })
)
