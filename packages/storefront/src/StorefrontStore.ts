/**
 * Where the storefront's configuration lives: a store's plan, language and theme choices, and its pixels. The port,
 * and its in-memory implementation (tests, one-process runs), whose stores are added through `MemoryStores`.
 *
 * The port keeps records and the invariants that need the storage's atomicity: a pixel's plan limit and its
 * uniqueness (type and `pixel_id`) hold against concurrent creates, and at most one pixel per type is the default;
 * `lock` serialises the read-modify-write of the store's own configuration (settings, design, home page). Everything
 * else (formats, token rules, plan ranking, messages, the change history) is the services'.
 */
import type { Ids } from "@tawsil/domain"
import { Clock, Context, Data, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import * as HomeSection from "./HomeSection.ts"
import { type Counts, emptyCounts, type Pixel, PixelId, type PixelType, pixelOf } from "./Pixel.ts"
import { defaultCurrency, emptyContact, emptySocialLinks, StoreRecord, Theme } from "./Store.ts"
import type { DesignState, HomeSectionsValues, LayoutState, SettingsState, ThemeState } from "./StoreConfig.ts"
import { DEFAULTS, LIGHT_PALETTE } from "./ThemeCatalogue.ts"

/** A store's theme choices and colours: defined beside the port (`StoreConfig`). */
export type { ThemeState } from "./StoreConfig.ts"

export interface StoreSettings {
  readonly plan: string
  /** When a paid plan runs out; null when it does not (or the plan is free). */
  readonly planExpiresAt: DateTime.Utc | null
  readonly language: "ar" | "fr"
  readonly theme: ThemeState
}

export interface NewPixel {
  readonly pixel_type: PixelType
  readonly pixel_id: string
  readonly pixel_name: string | null
  readonly access_token: Redacted.Redacted<string> | null
  readonly ad_account_id: string | null
  readonly conversion_label: string | null
  readonly is_active: boolean
  readonly is_default: boolean
}

export interface PixelPatch {
  readonly pixel_name?: string | null
  /** A new token (a kept one is simply not in the patch). */
  readonly access_token?: Redacted.Redacted<string>
  readonly ad_account_id?: string | null
  readonly conversion_label?: string | null
  readonly is_active?: boolean
  readonly is_default?: boolean
  /** A PATCH that writes a field clears the dashboard's `test_event_code`. */
  readonly clearTestEventCode?: boolean
}

export interface ListQuery {
  readonly limit: number
  readonly afterId: number | undefined
  readonly type: PixelType | undefined
}

/** Bringing a deleted pixel back: its id when no pixel holds it, and its creation time. */
export interface PixelRestore {
  readonly id: PixelId
  readonly created_at: DateTime.Utc
}

/** The plan allows no more pixels of this type (checked again under the store's lock). */
export class PixelLimitHit extends Data.TaggedError("PixelLimitHit") {}
/** A pixel of this type and `pixel_id` exists (checked again by the unique index). */
export class PixelDuplicate extends Data.TaggedError("PixelDuplicate") {}
/** The database refused the write for another reason, given in `message`. */
export class PixelRefused extends Data.TaggedError("PixelRefused")<{ readonly message: string }> {}

export class StorefrontStore extends Context.Service<
  StorefrontStore,
  {
    readonly settings: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<StoreSettings>>
    /** Saves the theme choices and colours; false when the store is gone. */
    readonly writeTheme: (storeId: Ids.StoreId, state: ThemeState) => Effect.Effect<boolean>
    /**
     * Takes the store's lock until the caller's transaction ends, so that concurrent writes of its configuration
     * read what the one before wrote; false when the store is gone.
     */
    readonly lock: (storeId: Ids.StoreId) => Effect.Effect<boolean>
    /** The store as `GET /v1/store` shows it (but `public_url`). */
    readonly profile: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<StoreRecord>>
    /** Saves the settings; false when the store is gone. */
    readonly writeSettings: (storeId: Ids.StoreId, values: SettingsState) => Effect.Effect<boolean>
    readonly design: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<DesignState>>
    /** Saves the design (its palette colours are the theme's colours); false when the store is gone. */
    readonly writeDesign: (storeId: Ids.StoreId, design: DesignState) => Effect.Effect<boolean>
    readonly homeSections: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<HomeSectionsValues>>
    readonly writeHomeSections: (storeId: Ids.StoreId, values: HomeSectionsValues) => Effect.Effect<boolean>
    readonly homeLayout: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<LayoutState>>
    readonly writeHomeLayout: (storeId: Ids.StoreId, layout: LayoutState) => Effect.Effect<boolean>
    /** The store's pixels, newest (highest id) first. */
    readonly listPixels: (storeId: Ids.StoreId, query: ListQuery) => Effect.Effect<ReadonlyArray<Pixel>>
    readonly getPixel: (storeId: Ids.StoreId, id: PixelId) => Effect.Effect<Option.Option<Pixel>>
    readonly findPixel: (storeId: Ids.StoreId, type: PixelType, pixelId: string) => Effect.Effect<Option.Option<Pixel>>
    /** The store's default pixel of `type`, if any. */
    readonly defaultPixel: (storeId: Ids.StoreId, type: PixelType) => Effect.Effect<Option.Option<PixelId>>
    readonly counts: (storeId: Ids.StoreId) => Effect.Effect<Counts>
    /**
     * Adds a pixel if one more of its type fits `fits` (asked under a lock of the store, so concurrent creates see
     * each other) and no pixel has its type and `pixel_id`; a default pixel takes the default from the others.
     */
    readonly insertPixel: (
      storeId: Ids.StoreId,
      pixel: NewPixel,
      fits: (counts: Counts) => boolean,
      restore?: PixelRestore
    ) => Effect.Effect<Pixel, PixelLimitHit | PixelDuplicate | PixelRefused>
    /** Applies `patch`; a pixel made default takes the default from the others. None when absent. */
    readonly updatePixel: (storeId: Ids.StoreId, id: PixelId, patch: PixelPatch) => Effect.Effect<Option.Option<Pixel>>
    /** Deletes the pixel (and its assignments); the deleted record, or None when absent. */
    readonly removePixel: (storeId: Ids.StoreId, id: PixelId) => Effect.Effect<Option.Option<Pixel>>
  }
>()("@tawsil/storefront/StorefrontStore") {}

/** A store as the memory implementation is told of it: its plan and, for `GET /v1/store`, its profile. */
export interface MemoryStoreInput extends Partial<Omit<StoreSettings, "theme">> {
  readonly name?: string
  readonly slug?: string
  readonly createdAt?: DateTime.Utc
}

/** The stores the memory implementation knows (the SQL one reads `stores`). */
export class MemoryStores extends Context.Service<
  MemoryStores,
  {
    /**
     * Adds a store on the initial theme, design and home page; adding it again starts it over, keeping the name,
     * slug, language and creation time not given.
     */
    readonly add: (storeId: Ids.StoreId, settings?: MemoryStoreInput) => Effect.Effect<void>
    /** Changes a store's plan, as billing does. */
    readonly setPlan: (storeId: Ids.StoreId, plan: string) => Effect.Effect<void>
    /** Sets a pixel's `test_event_code`, as the dashboard does. */
    readonly setTestEventCode: (id: PixelId, code: string | null) => Effect.Effect<void>
  }
>()("@tawsil/storefront/MemoryStores") {}

export const initialTheme: ThemeState = {
  theme: DEFAULTS.theme,
  fast_checkout_theme: DEFAULTS.fastCheckoutTheme,
  variant_card_style: DEFAULTS.variantStyle,
  is_digital: false,
  colors: LIGHT_PALETTE
}

/** Where every store's design starts (storage migration 0003's theme, and the defaults of the keys added since). */
export const initialDesign: DesignState = {
  colors: {
    ...LIGHT_PALETTE,
    text_color: null,
    button_color: null,
    button_text_color: null,
    header_color: null,
    footer_color: null
  },
  font_family: "Cairo",
  heading_font: null,
  border_radius: 8,
  button_style: "filled",
  product_image_ratio: "square"
}

/** Shown unless told: the hero, the categories, the products and the badges; testimonials and questions need text. */
const SHOWN: { readonly [K in HomeSection.StandardType]: boolean } = {
  hero: true,
  categories: true,
  featured_products: true,
  testimonials: false,
  faq: false,
  trust_badges: true
}

/** The standard home sections every store starts with, or `stored` (as kept) over them, section by section. */
export const homeSectionsOf = (stored: Readonly<Record<string, unknown>> = {}): HomeSectionsValues =>
  Object.fromEntries(
    HomeSection.STANDARD_TYPES.map((type) => {
      const kept = stored[type]
      return [
        type,
        {
          enabled: SHOWN[type],
          ...HomeSection.DEFAULTS[type],
          ...(typeof kept === "object" && kept !== null ? kept : {})
        }
      ]
    })
  ) as unknown as HomeSectionsValues

export const initialLayout: LayoutState = { sections: [], last_section_id: 0 }

/** A store of the memory implementation: one record, so the theme switch, the design and the profile agree. */
interface MemoryStore {
  readonly plan: string
  readonly planExpiresAt: DateTime.Utc | null
  readonly name: string
  readonly slug: string
  readonly createdAt: DateTime.Utc
  readonly settings: SettingsState
  readonly choices: Omit<ThemeState, "colors">
  readonly design: DesignState
  readonly homeSections: HomeSectionsValues
  readonly layout: LayoutState
}

interface MemoryPixel {
  readonly storeId: Ids.StoreId
  readonly pixel: Pixel
  readonly token: Redacted.Redacted<string> | null
}

/** Stores and pixels in `Map`s, on `Clock` time; every operation is one synchronous step. */
export const layerMemory: Layer.Layer<StorefrontStore | MemoryStores> = Layer.effectContext(
  Effect.sync(() => {
    const stores = new Map<number, MemoryStore>()
    const pixels = new Map<number, MemoryPixel>()
    let lastId = 0
    const now = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.makeUnsafe(millis))
    const own = (storeId: Ids.StoreId, id: number) => {
      const entry = pixels.get(id)
      return entry !== undefined && entry.storeId === storeId ? entry : undefined
    }
    const ofStore = (storeId: Ids.StoreId) => [...pixels.values()].filter((entry) => entry.storeId === storeId)
    const countsOf = (storeId: Ids.StoreId): Counts => {
      const counts: Record<PixelType, number> = { ...emptyCounts }
      for (const { pixel } of ofStore(storeId)) counts[pixel.pixel_type]++
      return counts
    }
    /** Clears the default of the store's other pixels of `type`. */
    const takeDefault = (storeId: Ids.StoreId, type: PixelType, id: number) => {
      for (const entry of ofStore(storeId)) {
        if (entry.pixel.pixel_type === type && entry.pixel.id !== id && entry.pixel.is_default) {
          pixels.set(entry.pixel.id, { ...entry, pixel: pixelOf({ ...entry.pixel, is_default: false }) })
        }
      }
    }

    /** Changes a store with `change`; false when there is no such store. */
    const write = (storeId: Ids.StoreId, change: (current: MemoryStore) => MemoryStore) =>
      Effect.sync(() => {
        const current = stores.get(storeId)
        if (current === undefined) return false
        stores.set(storeId, change(current))
        return true
      })
    const read = <A>(storeId: Ids.StoreId, view: (current: MemoryStore) => A) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(stores.get(storeId)), view))

    const store = StorefrontStore.of({
      settings: (storeId) =>
        read(
          storeId,
          (current): StoreSettings => ({
            plan: current.plan,
            planExpiresAt: current.planExpiresAt,
            language: current.settings.language,
            theme: {
              ...current.choices,
              colors: {
                primary_color: current.design.colors.primary_color,
                secondary_color: current.design.colors.secondary_color,
                background_color: current.design.colors.background_color
              }
            }
          })
        ),
      writeTheme: (storeId, { colors, ...choices }) =>
        write(storeId, (current) => ({
          ...current,
          choices,
          design: { ...current.design, colors: { ...current.design.colors, ...colors } }
        })),
      lock: (storeId) => Effect.sync(() => stores.has(storeId)),
      profile: (storeId) =>
        read(
          storeId,
          (current) =>
            new StoreRecord({
              id: storeId,
              name: current.settings.name,
              slug: current.slug,
              language: current.settings.language,
              description: current.settings.description,
              logo: current.settings.logo,
              favicon: current.settings.favicon,
              banner: current.settings.banner,
              theme: new Theme({
                primary_color: current.design.colors.primary_color,
                secondary_color: current.design.colors.secondary_color,
                background_color: current.design.colors.background_color,
                font_family: current.design.font_family
              }),
              contact: current.settings.contact,
              social_links: current.settings.social_links,
              currency: current.settings.currency,
              subdomain: null,
              custom_domain: null,
              custom_domain_verified: false,
              hide_branding: false,
              created_at: current.createdAt
            })
        ),
      writeSettings: (storeId, settings) => write(storeId, (current) => ({ ...current, settings })),
      design: (storeId) => read(storeId, (current) => current.design),
      writeDesign: (storeId, design) => write(storeId, (current) => ({ ...current, design })),
      homeSections: (storeId) => read(storeId, (current) => current.homeSections),
      writeHomeSections: (storeId, homeSections) => write(storeId, (current) => ({ ...current, homeSections })),
      homeLayout: (storeId) => read(storeId, (current) => current.layout),
      writeHomeLayout: (storeId, layout) => write(storeId, (current) => ({ ...current, layout })),
      listPixels: (storeId, query) =>
        Effect.sync(() =>
          ofStore(storeId)
            .map(({ pixel }) => pixel)
            .filter(
              (pixel) =>
                (query.afterId === undefined || pixel.id < query.afterId) &&
                (query.type === undefined || pixel.pixel_type === query.type)
            )
            .sort((a, b) => b.id - a.id)
            .slice(0, query.limit)
        ),
      getPixel: (storeId, id) => Effect.sync(() => Option.fromNullishOr(own(storeId, id)?.pixel)),
      findPixel: (storeId, type, pixelId) =>
        Effect.sync(() =>
          Option.fromNullishOr(
            ofStore(storeId).find(({ pixel }) => pixel.pixel_type === type && pixel.pixel_id === pixelId)?.pixel
          )
        ),
      defaultPixel: (storeId, type) =>
        Effect.sync(() =>
          Option.fromNullishOr(
            ofStore(storeId).find(({ pixel }) => pixel.pixel_type === type && pixel.is_default)?.pixel.id
          )
        ),
      counts: (storeId) => Effect.sync(() => countsOf(storeId)),
      insertPixel: (storeId, input, fits, restore) =>
        Effect.flatMap(now, (at): Effect.Effect<Pixel, PixelLimitHit | PixelDuplicate | PixelRefused> => {
          if (!stores.has(storeId)) return Effect.fail(new PixelRefused({ message: "the store no longer exists" }))
          if (!fits(countsOf(storeId))) return Effect.fail(new PixelLimitHit())
          if (
            ofStore(storeId).some(
              ({ pixel }) => pixel.pixel_type === input.pixel_type && pixel.pixel_id === input.pixel_id
            )
          ) {
            return Effect.fail(new PixelDuplicate())
          }
          const id = restore !== undefined && !pixels.has(restore.id) ? restore.id : PixelId.make(++lastId)
          lastId = Math.max(lastId, id)
          const { access_token, ...fields } = input
          const pixel = pixelOf({
            id,
            ...fields,
            has_token: access_token !== null,
            test_event_code: null,
            created_at: restore?.created_at ?? at,
            updated_at: at
          })
          if (pixel.is_default) takeDefault(storeId, pixel.pixel_type, id)
          pixels.set(id, { storeId, pixel, token: access_token })
          return Effect.succeed(pixel)
        }),
      updatePixel: (storeId, id, patch) =>
        Effect.map(now, (at) => {
          const entry = own(storeId, id)
          if (entry === undefined) return Option.none()
          const { access_token, clearTestEventCode, ...fields } = patch
          const token = access_token ?? entry.token
          const pixel = pixelOf({
            ...entry.pixel,
            ...fields,
            has_token: token !== null,
            test_event_code: clearTestEventCode === true ? null : entry.pixel.test_event_code,
            updated_at: at
          })
          if (pixel.is_default) takeDefault(storeId, pixel.pixel_type, id)
          pixels.set(id, { storeId, pixel, token })
          return Option.some(pixel)
        }),
      removePixel: (storeId, id) =>
        Effect.sync(() => {
          const entry = own(storeId, id)
          if (entry === undefined) return Option.none()
          pixels.delete(id)
          return Option.some(entry.pixel)
        })
    })

    const memoryStores = MemoryStores.of({
      add: (storeId, input = {}) =>
        Effect.flatMap(now, (at) =>
          Effect.sync(() => {
            const known = stores.get(storeId)
            const name = input.name ?? known?.name ?? `Store ${storeId}`
            const { colors: _, ...choices } = initialTheme
            stores.set(storeId, {
              plan: input.plan ?? "enterprise",
              planExpiresAt: input.planExpiresAt ?? null,
              name,
              slug: input.slug ?? known?.slug ?? `store-${storeId}`,
              createdAt: input.createdAt ?? known?.createdAt ?? at,
              settings: {
                name,
                description: null,
                language: input.language ?? known?.settings.language ?? "ar",
                logo: null,
                favicon: null,
                banner: null,
                contact: emptyContact,
                social_links: emptySocialLinks,
                currency: defaultCurrency
              },
              choices,
              design: initialDesign,
              homeSections: homeSectionsOf(),
              layout: initialLayout
            })
          })
        ),
      setPlan: (storeId, plan) => Effect.asVoid(write(storeId, (current) => ({ ...current, plan }))),
      setTestEventCode: (id, code) =>
        Effect.sync(() => {
          const entry = pixels.get(id)
          if (entry !== undefined)
            pixels.set(id, { ...entry, pixel: pixelOf({ ...entry.pixel, test_event_code: code }) })
        })
    })

    return Context.make(StorefrontStore, store).pipe(Context.add(MemoryStores, memoryStores))
  })
)
