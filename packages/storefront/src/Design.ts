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
import { Context, Effect, Layer, Option, Schema, SchemaTransformation } from "effect"
import * as Fields from "./internal/Fields.ts"
import {
  BUTTON_STYLES,
  type DesignColors,
  DesignState,
  FONTS,
  type Font,
  IMAGE_RATIOS,
  type ThemeState
} from "./StoreConfig.ts"
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

const BODY_COLORS = [...PALETTE_COLORS, ...OTHER_COLORS] as const

const colorMessage = (name: (typeof BODY_COLORS)[number]) =>
  `must be a colour such as #1f2937 or #fff, or null for ${
    PALETTE_COLORS.includes(name as never) ? "the stock palette's" : "the theme's"
  }`

const fontMessage = `must be one of ${FONTS.join(", ")}`

/** A font by its name in any letter case; the target checks the name found is one of `FONTS`. */
const fontOf = (text: string) =>
  (FONTS.find((each) => each.toLowerCase() === text.trim().toLowerCase()) ?? text) as Font

const FontName = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(FONTS),
    SchemaTransformation.transform({ decode: fontOf, encode: (font): string => font })
  ),
  BodyFields.oneMessage(fontMessage)
)

/** A font, or null (or `""`) for none. */
const OptionalFontName = Schema.NullOr(Schema.String).pipe(
  Schema.decodeTo(
    Schema.NullOr(Schema.Literals(FONTS)),
    SchemaTransformation.transform({
      decode: (value: string | null) => (value === null || value === "" ? null : fontOf(value)),
      encode: (font): string | null => font
    })
  ),
  BodyFields.oneMessage(fontMessage)
)

/**
 * `PATCH /v1/store/design` body: any of these; only sent fields change (`colors` colour by colour). Its fields are
 * checked in this order, the first that fails answering with its message.
 */
export const DesignPatch = Schema.Struct({
  /**
   * Colour by colour, `#rgb` or `#rrggbb` (kept as `#rrggbb`, lower case). Null resets one: a palette colour
   * (primary, secondary, background) to the store's stock palette, the others to the theme's.
   */
  colors: Schema.optionalKey(
    Fields.Group(
      Object.fromEntries(
        BODY_COLORS.map((name) => [
          name,
          Schema.optionalKey(Fields.readNullableString(Fields.colorOf, () => false, colorMessage(name)))
        ])
      ) as { readonly [K in keyof DesignColors]: Schema.optionalKey<ReturnType<typeof Fields.readNullableString>> },
      "must be an object"
    )
  ),
  font_family: Schema.optionalKey(FontName),
  /** Null (or `""`): the text font. */
  heading_font: Schema.optionalKey(OptionalFontName),
  /** 0 to 24 pixels. */
  border_radius: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: RADIUS_MAX })).pipe(
      BodyFields.oneMessage(`must be a whole number of pixels from 0 to ${RADIUS_MAX}`)
    )
  ),
  /** `filled`, `outline` or `soft`. */
  button_style: Schema.optionalKey(Fields.OneOf(BUTTON_STYLES, `must be ${BUTTON_STYLES.join(", ")}`)),
  /** `square`, `portrait` or `landscape`. */
  product_image_ratio: Schema.optionalKey(Fields.OneOf(IMAGE_RATIOS, `must be ${IMAGE_RATIOS.join(", ")}`))
}).annotate({ identifier: "DesignPatch", ...BodyFields.objectMessage })

const recordedColors = Object.fromEntries(
  BODY_COLORS.map((name) => [name, Schema.optionalKey(Schema.NullOr(Schema.String))])
) as { readonly [K in keyof DesignColors]: Schema.optionalKey<Schema.NullOr<Schema.String>> }

/**
 * What `store.design` changes record: the fields a PATCH changed (in `colors`, the colours it changed), and whether
 * the store was digital then (`is_digital`: which palette the colours were written under).
 */
export const DesignValues = Schema.Struct({
  is_digital: Schema.Boolean,
  colors: Schema.optionalKey(Schema.Struct(recordedColors)),
  font_family: Schema.optionalKey(Schema.String),
  heading_font: Schema.optionalKey(Schema.NullOr(Schema.String)),
  border_radius: Schema.optionalKey(Schema.Int),
  button_style: Schema.optionalKey(Schema.String),
  product_image_ratio: Schema.optionalKey(Schema.String)
})
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

export const BODY = BodyFields.OBJECT_MESSAGE

const decodePatch = BodyFields.decode(DesignPatch, ({ text }) => text)

/**
 * The design after `body`, read over `current` on a store whose stock palette is `palette`, or the message of the
 * first field that breaks its rule. An undo passes its recorded design as the body: the same checks.
 */
export const apply = Effect.fnUntraced(function* (current: DesignState, palette: Catalogue.Colors, body: unknown) {
  const { colors: sent, ...patch } = yield* decodePatch(body)
  const colors: Record<string, string | null> = { ...current.colors }
  for (const [name, value] of Object.entries(sent ?? {})) {
    colors[name] =
      value === null && PALETTE_COLORS.includes(name as never) ? palette[name as keyof Catalogue.Colors] : value
  }
  return { ...current, ...patch, colors: colors as DesignColors } satisfies DesignState
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
