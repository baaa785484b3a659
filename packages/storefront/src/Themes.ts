/**
 * The store API's themes (spec "Themes"): the storefront theme list, and the three switches — storefront theme,
 * fast-checkout form theme, variant picker style — each recorded in the change history (entity `store.theme`,
 * entity id `theme`) in the same transaction.
 *
 * A switch, in order: the body (`InvalidTheme` / `InvalidStyle`), the store (`StoreNotFound`), an active choice with
 * that key (`ThemeNotFound` / `StyleNotFound`, no fallback), the store's plan now (`PlanRequired`; an expired paid
 * plan is `free`); then the save. Only the choice changes — except that the `digital` theme makes the store a
 * digital-products store and swaps colours still at their stock light values for the digital palette, and leaving
 * it makes the store physical and swaps back colours still at the digital palette's.
 */
import { ChangeLog } from "@tawsil/changes"
import { type Ids, Plans, StoreText } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import type { ThemeState } from "./StoreConfig.ts"
import { StorefrontStore, type StoreSettings } from "./StorefrontStore.ts"
import * as Catalogue from "./ThemeCatalogue.ts"
import * as ThemeError from "./ThemeError.ts"

export const ENTITY = "store.theme"
export const ENTITY_ID = "theme"

export const ThemeItem = Schema.Struct({
  /** The value to send as `theme`. */
  key: Schema.String,
  /** In the store's language (Arabic, or French for a French store). */
  title: Schema.String,
  plan_required: Plans.Plan,
  /** False for a retired theme: it stays listed and cannot be chosen. */
  active: Schema.Boolean,
  color_mode: Schema.Literals(["light", "dark"]),
  digital_only: Schema.Boolean,
  /** Active, and the store's plan reaches `plan_required`. */
  can_use: Schema.Boolean,
  current: Schema.Boolean
}).annotate({ identifier: "ThemeItem" })

export const ThemeList = Schema.Struct({ current: Schema.String, items: Schema.Array(ThemeItem) }).annotate({
  identifier: "ThemeList"
})
export type ThemeList = typeof ThemeList.Type

export const ThemeSwitched = Schema.Struct({ theme: Schema.String, is_digital: Schema.Boolean }).annotate({
  identifier: "ThemeSwitched"
})
export const FastCheckoutSwitched = Schema.Struct({ fast_checkout_theme: Schema.String }).annotate({
  identifier: "FastCheckoutThemeSwitched"
})
export const VariantStyleSwitched = Schema.Struct({ variant_card_style: Schema.String }).annotate({
  identifier: "VariantStyleSwitched"
})

/**
 * What `store.theme` changes record: of the three choices, whether the store is digital and its palette colours,
 * those a switch changed (a switch to the current choice changes nothing, and is recorded all the same).
 */
export const ThemeValues = Schema.Struct({
  theme: Schema.optionalKey(Schema.String),
  fast_checkout_theme: Schema.optionalKey(Schema.String),
  variant_card_style: Schema.optionalKey(Schema.String),
  is_digital: Schema.optionalKey(Schema.Boolean),
  colors: Schema.optionalKey(
    Schema.Struct({
      primary_color: Schema.optionalKey(Schema.String),
      secondary_color: Schema.optionalKey(Schema.String),
      background_color: Schema.optionalKey(Schema.String)
    })
  )
})
export type ThemeValues = typeof ThemeValues.Type

/** How `store.theme` changes lay out their values: `colors` colour by colour. */
export const LAYOUT = { nested: ["colors"] }

/** The theme state after writing recorded values over `current`. */
export const restored = (current: ThemeState, values: ThemeValues): ThemeState => ({
  ...current,
  ...values,
  colors: { ...current.colors, ...values.colors }
})

/** Who switches: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const INVALID_THEME = "theme is required: 1 to 50 Latin letters, digits, _ or -"
export const INVALID_STYLE = "style is required: 1 to 50 characters"

/** `POST /v1/store/theme` and `/v1/store/fast-checkout-theme` body. */
export const ThemeBody = Schema.Struct({
  /** A key of the list: 1 to 50 Latin letters, digits, `_` or `-`. */
  theme: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,50}$/))
}).annotate({ identifier: "ThemeSwitch" })

/** `POST /v1/store/variant-style` body. */
export const StyleBody = Schema.Struct({
  /** A style key, 1 to 50 characters (a NUL character or a lone surrogate is refused like a missing one). */
  style: StoreText.StoreText.check(Schema.isBetweenCodePoints(1, 50))
}).annotate({ identifier: "VariantStyleSwitch" })

const refuse = (reason: ThemeError.ThemeErrorReason) => Effect.fail(ThemeError.fail(reason))

/** The active choice with `key`, or undefined. */
const activeChoice = <C extends Catalogue.Choice>(choices: ReadonlyArray<C>, key: string) =>
  choices.find((choice) => choice.key === key && choice.active)

/** Refuses a choice above the plan the store has now. */
export const checkPlan = (plan: Plans.Plan, required: Plans.Plan, what: string) =>
  Plans.reaches(plan, required)
    ? Effect.void
    : refuse(
        new ThemeError.PlanRequired({
          required,
          plan,
          message: `${what} needs the ${required} plan; this store is on the ${plan} plan`
        })
      )

/** The plan a store has the use of now. */
export const planOf = (settings: StoreSettings) =>
  Effect.map(DateTime.now, (now) => Plans.effective(settings.plan, settings.planExpiresAt, now))

/** The state after switching the storefront theme to `theme`, with the digital palette rule. */
export const withTheme = (state: ThemeState, theme: Catalogue.StorefrontTheme): ThemeState => {
  const colors =
    theme.digitalOnly && !state.is_digital
      ? Catalogue.switchColors(state.colors, Catalogue.LIGHT_PALETTE, Catalogue.DIGITAL_PALETTE)
      : !theme.digitalOnly && state.is_digital
        ? Catalogue.switchColors(state.colors, Catalogue.DIGITAL_PALETTE, Catalogue.LIGHT_PALETTE)
        : state.colors
  return { ...state, theme: theme.key, is_digital: theme.digitalOnly, colors }
}

export class Themes extends Context.Service<
  Themes,
  {
    /** `GET /v1/themes`: every storefront theme, in the store's language, with what the store may use. */
    readonly list: (storeId: Ids.StoreId) => Effect.Effect<ThemeList, ThemeError.ThemeError>
    readonly switchTheme: (
      writer: Writer,
      body: unknown
    ) => Effect.Effect<typeof ThemeSwitched.Type, ThemeError.ThemeError>
    readonly switchFastCheckoutTheme: (
      writer: Writer,
      body: unknown
    ) => Effect.Effect<typeof FastCheckoutSwitched.Type, ThemeError.ThemeError>
    readonly switchVariantStyle: (
      writer: Writer,
      body: unknown
    ) => Effect.Effect<typeof VariantStyleSwitched.Type, ThemeError.ThemeError>
  }
>()("@tawsil/storefront/Themes") {}

export const layer: Layer.Layer<Themes, never, StorefrontStore | ChangeLog.ChangeLog> = Layer.effect(
  Themes,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StorefrontStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

    const settingsOf = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      const found = yield* store.settings(storeId)
      if (Option.isNone(found)) return yield* refuse(new ThemeError.StoreNotFound({ message: "Store not found" }))
      return found.value
    })

    const decode =
      <S extends Schema.Decoder<unknown>>(schema: S, reason: () => ThemeError.ThemeErrorReason) =>
      (body: unknown) =>
        Schema.decodeUnknownEffect(schema)(body).pipe(
          Effect.mapError(() => ThemeError.fail(reason()))
        ) as Effect.Effect<S["Type"], ThemeError.ThemeError>
    const themeBody = decode(ThemeBody, () => new ThemeError.InvalidTheme({ message: INVALID_THEME }))
    const styleBody = decode(StyleBody, () => new ThemeError.InvalidStyle({ message: INVALID_STYLE }))

    /** Saves the new state and records the switch. */
    const save = Effect.fnUntraced(function* (writer: Writer, before: ThemeState, after: ThemeState, summary: string) {
      if (!(yield* store.writeTheme(writer.storeId, after))) {
        return yield* refuse(new ThemeError.StoreNotFound({ message: "Store not found" }))
      }
      yield* record(writer, "update", ENTITY_ID, summary, before, after)
    })

    return Themes.of({
      list: method("Themes.list")(function* (storeId) {
        const settings = yield* settingsOf(storeId)
        const plan = yield* planOf(settings)
        return {
          current: settings.theme.theme,
          items: Catalogue.STOREFRONT_THEMES.map((theme) => ({
            key: theme.key,
            title: theme.title[settings.language],
            plan_required: theme.plan,
            active: theme.active,
            color_mode: theme.colorMode,
            digital_only: theme.digitalOnly,
            can_use: theme.active && Plans.reaches(plan, theme.plan),
            current: theme.key === settings.theme.theme
          }))
        }
      }),
      switchTheme: method("Themes.switchTheme")(function* (writer, body) {
        const { theme: key } = yield* themeBody(body)
        const settings = yield* settingsOf(writer.storeId)
        const theme = activeChoice(Catalogue.STOREFRONT_THEMES, key)
        if (theme === undefined)
          return yield* refuse(new ThemeError.ThemeNotFound({ message: `No active theme ${key}` }))
        yield* checkPlan(yield* planOf(settings), theme.plan, `The theme ${key}`)
        const after = withTheme(settings.theme, theme)
        yield* save(writer, settings.theme, after, `Switched storefront theme to ${key}`)
        return { theme: after.theme, is_digital: after.is_digital }
      }),
      switchFastCheckoutTheme: method("Themes.switchFastCheckoutTheme")(function* (writer, body) {
        const { theme: key } = yield* themeBody(body)
        const settings = yield* settingsOf(writer.storeId)
        const choice = activeChoice(Catalogue.FAST_CHECKOUT_THEMES, key)
        if (choice === undefined) {
          return yield* refuse(new ThemeError.ThemeNotFound({ message: `No active fast-checkout theme ${key}` }))
        }
        yield* checkPlan(yield* planOf(settings), choice.plan, `The fast-checkout theme ${key}`)
        const after = { ...settings.theme, fast_checkout_theme: key }
        yield* save(writer, settings.theme, after, `Switched fast-checkout theme to ${key}`)
        return { fast_checkout_theme: key }
      }),
      switchVariantStyle: method("Themes.switchVariantStyle")(function* (writer, body) {
        const { style: key } = yield* styleBody(body)
        const settings = yield* settingsOf(writer.storeId)
        const choice = activeChoice(Catalogue.VARIANT_STYLES, key)
        if (choice === undefined) {
          return yield* refuse(new ThemeError.StyleNotFound({ message: `No active variant style ${key}` }))
        }
        yield* checkPlan(yield* planOf(settings), choice.plan, `The variant style ${key}`)
        const after = { ...settings.theme, variant_card_style: key }
        yield* save(writer, settings.theme, after, `Switched variant style to ${key}`)
        return { variant_card_style: key }
      })
    })
  })
)

/**
 * The checks an undo's values pass (spec: "through the same checks as the original write"): each choice that would
 * change must be active and within the store's plan now. Choices the undo leaves as they are are not re-checked.
 */
export const checkRestore = (settings: StoreSettings, values: ThemeState) =>
  Effect.gen(function* () {
    const plan = yield* planOf(settings)
    const current = settings.theme
    if (values.theme !== current.theme) {
      const theme = activeChoice(Catalogue.STOREFRONT_THEMES, values.theme)
      if (theme === undefined) {
        return yield* refuse(new ThemeError.ThemeNotFound({ message: `No active theme ${values.theme}` }))
      }
      yield* checkPlan(plan, theme.plan, `The theme ${values.theme}`)
    }
    if (values.fast_checkout_theme !== current.fast_checkout_theme) {
      const choice = activeChoice(Catalogue.FAST_CHECKOUT_THEMES, values.fast_checkout_theme)
      if (choice === undefined) {
        return yield* refuse(
          new ThemeError.ThemeNotFound({ message: `No active fast-checkout theme ${values.fast_checkout_theme}` })
        )
      }
      yield* checkPlan(plan, choice.plan, `The fast-checkout theme ${values.fast_checkout_theme}`)
    }
    if (values.variant_card_style !== current.variant_card_style) {
      const choice = activeChoice(Catalogue.VARIANT_STYLES, values.variant_card_style)
      if (choice === undefined) {
        return yield* refuse(
          new ThemeError.StyleNotFound({ message: `No active variant style ${values.variant_card_style}` })
        )
      }
      yield* checkPlan(plan, choice.plan, `The variant style ${values.variant_card_style}`)
    }
  })
