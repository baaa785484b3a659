/**
 * The store's design (`GET /v1/store/design`, `PATCH /v1/store/design`): its colours, fonts, corners, buttons and
 * product images, beside the theme choices it is read with (switched with `POST /v1/store/theme` and its siblings,
 * `Themes`). A PATCH is recorded in the change history (entity `store.design`, entity id `design`) in the same
 * transaction.
 *
 * The digital palette rule of the theme switch (`ThemeCatalogue.switchColors`) holds here too. The primary,
 * secondary and background colours are the palette: a theme switch swaps those still at the stock values of the
 * palette it leaves for the stock values of the one it enters, and keeps the merchant's. So a palette colour sent as
 * null here is reset to the stock value of the store's palette now (the dark digital one on a digital-products
 * store, else the light one), and an undo that writes back colours recorded under the other palette (the store was
 * switched between) swaps those still at that palette's stock values, as the switch would have. The other colours
 * are the theme's own when null.
 *
 * Only sent fields change (`colors` colour by colour); the first field that breaks its rule refuses the whole body.
 * The theme choices, `is_digital` and `color_mode` are shown, never written here: sent, they are ignored, like
 * unknown fields. A PATCH that changes nothing records nothing; one that does records the fields it changed.
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, type Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema } from "effect"
import * as Fields from "./internal/Fields.ts"
import { BUTTON_STYLES, type DesignColors, DesignState, FONTS, IMAGE_RATIOS, type ThemeState } from "./StoreConfig.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"
import * as Catalogue from "./ThemeCatalogue.ts"

export const ENTITY = "store.design"
export const ENTITY_ID = "design"

/** The design's values and what a design holds: defined beside the port (`StoreConfig`). */
export { BUTTON_STYLES, DesignColors, DesignState, FONTS, type Font, IMAGE_RATIOS } from "./StoreConfig.ts"

export const RADIUS_MAX = 24

/** The palette colours (never null) and the others (null: the theme's own). */
export const PALETTE_COLORS = ["primary_color", "secondary_color", "background_color"] as const
export const OTHER_COLORS = ["text_color", "button_color", "button_text_color", "header_color", "footer_color"] as const

/** `GET /v1/store/design`: the theme choices (read only) and the design. */
export const DesignView = Schema.Struct({
  theme: Schema.String,
  fast_checkout_theme: Schema.String,
  variant_card_style: Schema.String,
  /** A digital-products store (the `digital` theme): its stock palette is the dark digital one. */
  is_digital: Schema.Boolean,
  /** The storefront theme's: `light` or `dark`. */
  color_mode: Schema.Literals(["light", "dark"]),
  ...DesignState.fields
}).annotate({ identifier: "Design" })
export type DesignView = typeof DesignView.Type

const colorPatch = Object.fromEntries(
  [...PALETTE_COLORS, ...OTHER_COLORS].map((name) => [name, Schema.optionalKey(Schema.NullOr(Schema.String))])
) as { readonly [K in keyof DesignColors]: Schema.optionalKey<Schema.NullOr<Schema.String>> }

/** `PATCH /v1/store/design` body, as documented: any of these; only sent fields change. */
export const DesignPatch = Schema.Struct({
  /**
   * Colour by colour, `#rgb` or `#rrggbb` (kept as `#rrggbb`, lower case). Null resets one: a palette colour
   * (primary, secondary, background) to the store's stock palette, the others to the theme's.
   */
  colors: Schema.optionalKey(Schema.Struct(colorPatch)),
  font_family: Schema.optionalKey(Schema.String),
  /** Null: the text font. */
  heading_font: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** 0 to 24 pixels. */
  border_radius: Schema.optionalKey(Schema.Int),
  /** `filled`, `outline` or `soft`. */
  button_style: Schema.optionalKey(Schema.String),
  /** `square`, `portrait` or `landscape`. */
  product_image_ratio: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "DesignPatch" })

/**
 * What `store.design` changes record: the fields a PATCH changed (in `colors`, the colours it changed), and whether
 * the store was digital then (`is_digital`: which palette the colours were written under).
 */
export const DesignValues = Schema.Struct({ is_digital: Schema.Boolean, ...DesignPatch.fields })
export type DesignValues = typeof DesignValues.Type

/** How `store.design` changes lay out their values: `is_digital` always, `colors` colour by colour. */
export const LAYOUT = { kept: ["is_digital"], nested: ["colors"] }

/** The stock palette of a store, digital or not. */
export const paletteOf = (isDigital: boolean): Catalogue.Colors =>
  isDigital ? Catalogue.DIGITAL_PALETTE : Catalogue.LIGHT_PALETTE

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const BODY = "Body must be a JSON object"

const fontOf = (value: unknown, name: string) => {
  const font =
    typeof value === "string" ? FONTS.find((each) => each.toLowerCase() === value.trim().toLowerCase()) : undefined
  return font === undefined ? Effect.fail(`${name} must be one of ${FONTS.join(", ")}`) : Effect.succeed(font)
}

/**
 * The design after `body`, read over `current` on a store whose stock palette is `palette`, or the message of the
 * first field that breaks its rule. An undo passes its recorded design as the body: the same checks.
 */
export const apply = Effect.fnUntraced(function* (current: DesignState, palette: Catalogue.Colors, raw: unknown) {
  const body = yield* Fields.object(raw, BODY)
  const colors: Record<string, string | null> = { ...current.colors }
  const next = { ...current, colors: colors as DesignColors }
  if (BodyFields.sent(body, "colors")) {
    const sent = yield* Fields.object(body.colors, "colors must be an object")
    for (const name of [...PALETTE_COLORS, ...OTHER_COLORS]) {
      if (!BodyFields.sent(sent, name)) continue
      const value = sent[name]
      if (value === null) {
        colors[name] = PALETTE_COLORS.includes(name as never) ? palette[name as keyof Catalogue.Colors] : null
        continue
      }
      const color = Fields.colorOf(value)
      if (color === undefined) {
        const reset = PALETTE_COLORS.includes(name as never) ? "the stock palette's" : "the theme's"
        return yield* Effect.fail(`colors.${name} must be a colour such as #1f2937 or #fff, or null for ${reset}`)
      }
      colors[name] = color
    }
  }
  if (BodyFields.sent(body, "font_family")) next.font_family = yield* fontOf(body.font_family, "font_family")
  if (BodyFields.sent(body, "heading_font")) {
    next.heading_font =
      body.heading_font === null || body.heading_font === "" ? null : yield* fontOf(body.heading_font, "heading_font")
  }
  if (BodyFields.sent(body, "border_radius")) {
    next.border_radius = yield* Fields.integer(
      body.border_radius,
      0,
      RADIUS_MAX,
      `border_radius must be a whole number of pixels from 0 to ${RADIUS_MAX}`
    )
  }
  if (BodyFields.sent(body, "button_style")) {
    next.button_style = yield* Fields.oneOf(
      body.button_style,
      BUTTON_STYLES,
      `button_style must be ${BUTTON_STYLES.join(", ")}`
    )
  }
  if (BodyFields.sent(body, "product_image_ratio")) {
    next.product_image_ratio = yield* Fields.oneOf(
      body.product_image_ratio,
      IMAGE_RATIOS,
      `product_image_ratio must be ${IMAGE_RATIOS.join(", ")}`
    )
  }
  return next
})

/** The design fields whose values differ, colours by name (`colors.primary_color`). */
export const changedFields = (before: DesignState, after: DesignState): ReadonlyArray<string> => [
  ...[...PALETTE_COLORS, ...OTHER_COLORS]
    .filter((name) => before.colors[name] !== after.colors[name])
    .map((name) => `colors.${name}`),
  ...(["font_family", "heading_font", "border_radius", "button_style", "product_image_ratio"] as const).filter(
    (name) => before[name] !== after[name]
  )
]

/** The design as `GET /v1/store/design` shows it, with the theme choices it goes with. */
export const viewOf = (theme: ThemeState, design: DesignState): DesignView => ({
  theme: theme.theme,
  fast_checkout_theme: theme.fast_checkout_theme,
  variant_card_style: theme.variant_card_style,
  is_digital: theme.is_digital,
  color_mode: Catalogue.STOREFRONT_THEMES.find((each) => each.key === theme.theme)?.colorMode ?? "light",
  ...design
})

/**
 * The recorded design to write back on a store that is digital or not now: palette colours recorded at the stock
 * values of the palette then are swapped for the stock values of the palette now (the switch's rule).
 */
export const restoredBody = (values: DesignValues, isDigitalNow: boolean) => {
  const { is_digital, ...design } = values
  if (is_digital === isDigitalNow || design.colors === undefined) return design
  return { ...design, colors: Catalogue.switchColors(design.colors, paletteOf(is_digital), paletteOf(isDigitalNow)) }
}

export class Design extends Context.Service<
  Design,
  {
    /** `GET /v1/store/design`. */
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<DesignView, StoreConfigError.StoreConfigError>
    /** `PATCH /v1/store/design`: only sent fields change; answers the design as `get` does. */
    readonly update: (writer: Writer, body: unknown) => Effect.Effect<DesignView, StoreConfigError.StoreConfigError>
  }
>()("@tawsil/storefront/Design") {}

/** The store's theme choices and design, or `StoreNotFound`. */
export const current = Effect.fnUntraced(function* (store: StorefrontStore["Service"], storeId: Ids.StoreId) {
  const settings = yield* store.settings(storeId)
  const design = yield* store.design(storeId)
  if (Option.isNone(settings) || Option.isNone(design)) return yield* StoreConfigError.storeNotFound()
  return { theme: settings.value.theme, design: design.value }
})

export const layer: Layer.Layer<Design, never, StorefrontStore | ChangeLog.ChangeLog> = Layer.effect(
  Design,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StorefrontStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

    return Design.of({
      get: method("Design.get")(function* (storeId) {
        const { theme, design } = yield* current(store, storeId)
        return viewOf(theme, design)
      }),
      update: method("Design.update")(function* (writer, body) {
        if (!(yield* store.lock(writer.storeId))) return yield* StoreConfigError.storeNotFound()
        const { theme, design: before } = yield* current(store, writer.storeId)
        const after = yield* apply(before, paletteOf(theme.is_digital), body).pipe(
          Effect.mapError(StoreConfigError.invalid)
        )
        const changed = changedFields(before, after)
        if (changed.length === 0) return viewOf(theme, before)
        if (!(yield* store.writeDesign(writer.storeId, after))) return yield* StoreConfigError.storeNotFound()
        yield* record(
          writer,
          "update",
          ENTITY_ID,
          `Updated design (${changed.join(", ")})`,
          { is_digital: theme.is_digital, ...before },
          { is_digital: theme.is_digital, ...after }
        )
        return viewOf(theme, after)
      })
    })
  })
)
