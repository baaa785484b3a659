/**
 * The theme's standard home page (`GET /v1/store/home-sections`, `PATCH /v1/store/home-sections`): one section of
 * each standard type (`HomeSection.STANDARD_TYPES`), each shown or hidden (`enabled`) with its settings, in the
 * order the theme gives them. A PATCH is recorded in the change history (entity `store.home_sections`, entity id
 * `home_sections`) in the same transaction: the sections it changed, each with the keys it changed, before and after.
 *
 * A PATCH sends the sections it changes, each with the keys it changes (`{ "faq": { "enabled": true, "items":
 * [...] } }`); a list is replaced whole. A section name that is not a standard one is refused (a `banner` or a
 * `rich_text` is placed in the home layout); unknown keys inside a section are ignored. A PATCH that changes nothing
 * records nothing.
 *
 * The storefront shows these sections while the store's home layout shows none of its own (`HomeLayout`).
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, type Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import * as HomeSection from "./HomeSection.ts"
import * as Fields from "./internal/Fields.ts"
import { type HomeSectionsValues, standardSection } from "./StoreConfig.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const ENTITY = "store.home_sections"
export const ENTITY_ID = "home_sections"

/** `GET /v1/store/home-sections`: defined beside the port (`StoreConfig`). */
export { HomeSectionsValues } from "./StoreConfig.ts"

/** How `store.home_sections` changes lay out their values: each section key by key. */
export const LAYOUT = { nested: HomeSection.STANDARD_TYPES }

const changedSection = <T extends HomeSection.StandardType>(type: T) =>
  Schema.optionalKey(standardSection(type).mapFields(Struct.map(Schema.optionalKey)))

/** What `store.home_sections` changes record: the sections a PATCH changed, each with the keys it changed. */
export const RecordedSections = Schema.Struct({
  hero: changedSection("hero"),
  categories: changedSection("categories"),
  featured_products: changedSection("featured_products"),
  testimonials: changedSection("testimonials"),
  faq: changedSection("faq"),
  trust_badges: changedSection("trust_badges")
})
export type RecordedSections = typeof RecordedSections.Type

/** `PATCH /v1/store/home-sections` body, as documented: the sections to change, each with the keys to change. */
export const HomeSectionsPatch = Schema.Struct(
  Object.fromEntries(
    HomeSection.STANDARD_TYPES.map((type) => [
      type,
      Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)).annotate({
        description: `\`enabled\` (true or false) and any setting of a ${type} section (see HomeSections).`
      })
    ])
  ) as { readonly [K in HomeSection.StandardType]: Schema.optionalKey<Schema.$Record<Schema.String, Schema.Unknown>> }
).annotate({ identifier: "HomeSectionsPatch" })

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const BODY = "Body must be a JSON object of home sections"

/**
 * The sections after `body`, read over `current`, or the message of the first key that breaks its rule. An undo
 * passes its recorded sections as the body: the same checks.
 */
export const apply = Effect.fnUntraced(function* (current: HomeSectionsValues, raw: unknown) {
  const body = yield* Fields.object(raw, BODY)
  for (const name of Object.keys(body)) {
    if (!HomeSection.STANDARD_TYPES.includes(name as HomeSection.StandardType)) {
      return yield* Effect.fail(
        `${name} is not a standard home section (${HomeSection.STANDARD_TYPES.join(", ")}); ` +
          "place other sections in the home layout"
      )
    }
  }
  const next: Record<string, unknown> = { ...current }
  for (const type of HomeSection.STANDARD_TYPES) {
    if (!BodyFields.sent(body, type)) continue
    const fields = yield* Fields.object(body[type], `${type} must be an object`)
    const { enabled, ...settings } = current[type]
    const shown = BodyFields.sent(fields, "enabled")
      ? yield* Fields.boolean(fields.enabled, `${type}.enabled must be true or false`)
      : enabled
    next[type] = { enabled: shown, ...(yield* HomeSection.readSettings(type, settings as never, fields, type)) }
  }
  return next as HomeSectionsValues
})

/** The sections whose values differ, in the theme's order. */
export const changedSections = (before: HomeSectionsValues, after: HomeSectionsValues): ReadonlyArray<string> =>
  HomeSection.STANDARD_TYPES.filter((type) => !Fields.same(before[type], after[type]))

export class HomeSections extends Context.Service<
  HomeSections,
  {
    /** `GET /v1/store/home-sections`. */
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<HomeSectionsValues, StoreConfigError.StoreConfigError>
    /** `PATCH /v1/store/home-sections`: only sent sections and keys change; answers the sections as `get` does. */
    readonly update: (
      writer: Writer,
      body: unknown
    ) => Effect.Effect<HomeSectionsValues, StoreConfigError.StoreConfigError>
  }
>()("@tawsil/storefront/HomeSections") {}

export const layer: Layer.Layer<HomeSections, never, StorefrontStore | ChangeLog.ChangeLog> = Layer.effect(
  HomeSections,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StorefrontStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

    const read = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      const found = yield* store.homeSections(storeId)
      if (Option.isNone(found)) return yield* StoreConfigError.storeNotFound()
      return found.value
    })

    return HomeSections.of({
      get: method("HomeSections.get")(function* (storeId) {
        return yield* read(storeId)
      }),
      update: method("HomeSections.update")(function* (writer, body) {
        if (!(yield* store.lock(writer.storeId))) return yield* StoreConfigError.storeNotFound()
        const before = yield* read(writer.storeId)
        const after = yield* apply(before, body).pipe(Effect.mapError(StoreConfigError.invalid))
        const changed = changedSections(before, after)
        if (changed.length === 0) return before
        if (!(yield* store.writeHomeSections(writer.storeId, after))) return yield* StoreConfigError.storeNotFound()
        yield* record(writer, "update", ENTITY_ID, `Updated home sections (${changed.join(", ")})`, before, after)
        return after
      })
    })
  })
)
