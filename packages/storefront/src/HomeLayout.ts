/**
 * The merchant's own home page (`/v1/store/home-layout`): an ordered list of sections of any type
 * (`HomeSection.SECTION_TYPES`), each with its id, whether it shows and its settings. While at least one of them
 * shows (`in_use`), the storefront's home page is this layout; otherwise it is the theme's standard sections
 * (`HomeSections`).
 *
 * Every write — add, update, remove or move a section — is recorded in the change history as an update of the whole
 * layout (entity `store.home_layout`, entity id `layout`; so adding a section can be undone, spec undo rule 2's
 * exception), and answers with the id of its change (`change_id`; null when the write changed nothing). An undo
 * writes the whole earlier layout back, and is refused while a later change of the layout stands (409
 * `layout_changed`): walk back newest first.
 *
 * Section ids are given per store, one more than the last given (`last_section_id`), and never given twice, not even
 * after an undo took a section away. A layout holds at most `MAX_SECTIONS` sections. Positions count from 1.
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema } from "effect"
import * as HomeSection from "./HomeSection.ts"
import * as Fields from "./internal/Fields.ts"
import { LayoutSection, type LayoutState } from "./StoreConfig.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const ENTITY = "store.home_layout"
export const ENTITY_ID = "layout"
export const MAX_SECTIONS = 30
export const BODY = "Body must be a JSON object"

/** A section of the layout, and a layout as the port keeps it: defined beside the port (`StoreConfig`). */
export { LayoutSection, type LayoutState } from "./StoreConfig.ts"

/** What `store.home_layout` changes record: the sections, in order. */
export const LayoutValues = Schema.Struct({ sections: Schema.Array(Schema.Unknown) })
export type LayoutValues = { readonly sections: ReadonlyArray<LayoutSection> }

/** `GET /v1/store/home-layout`. */
export const Layout = Schema.Struct({
  sections: Schema.Array(LayoutSection),
  /** True while a section shows: the storefront's home page is then this layout, not the standard sections. */
  in_use: Schema.Boolean
}).annotate({ identifier: "HomeLayout" })
export type Layout = { readonly sections: ReadonlyArray<LayoutSection>; readonly in_use: boolean }

const changeId = Schema.NullOr(Schema.Int).annotate({
  description: "The change this write recorded (undo it with POST /v1/changes/{id}/undo); null when nothing changed."
})

/** A section added or updated, where it stands, and the change recorded. */
export const SectionWritten = Schema.Struct({
  section: LayoutSection,
  /** From 1. */
  position: Schema.Int,
  change_id: changeId
}).annotate({ identifier: "LayoutSectionWritten" })
export type SectionWritten = {
  readonly section: LayoutSection
  readonly position: number
  readonly change_id: number | null
}

export const SectionRemoved = Schema.Struct({
  deleted: Schema.Literal(true),
  id: Schema.Int,
  change_id: changeId
}).annotate({ identifier: "LayoutSectionRemoved" })
export type SectionRemoved = { readonly deleted: true; readonly id: number; readonly change_id: number | null }

/** The layout after a move, and the change recorded. */
export const LayoutMoved = Schema.Struct({ ...Layout.fields, change_id: changeId }).annotate({
  identifier: "HomeLayoutMoved"
})
export type LayoutMoved = Layout & { readonly change_id: number | null }

const ENABLED = "must be true or false"
const MOVED_ID = "must be the id of a section of the layout"
const STORED_ID = "must be a positive whole number"
const Enabled = Schema.Boolean.pipe(BodyFields.oneMessage(ENABLED))

type Settings = Readonly<Record<string, unknown>>

/** The settings of a section of `type` as a body sends them: any of them, each with its rule and message. */
const settingsOf = (type: HomeSection.SectionType) =>
  // The fields are typed as any struct's; what they decode is a JSON object's fields, needing no service.
  Schema.Struct(HomeSection.settingsPatchFields(type)).annotate({
    message: "must be an object",
    description: `A ${type} section's settings (those not sent keep their value, or take their defaults).`
  }) as unknown as Schema.Codec<Settings>

/** `rich_text` as `RichText`, for schema names. */
const pascal = (type: string) => type.replace(/(^|_)(\w)/g, (_, __, letter: string) => letter.toUpperCase())

/** The body adding a section of `type`. */
const sectionAddOf = (type: HomeSection.SectionType) =>
  Schema.Struct({
    type: Schema.Literal(type),
    /** Default true. */
    enabled: Schema.optionalKey(Enabled),
    settings: Schema.optionalKey(settingsOf(type)),
    /** From 1 to the number of sections plus one; default: last. */
    position: Schema.optionalKey(Schema.Int)
  }).annotate({ identifier: `LayoutSectionAdd${pascal(type)}`, message: BODY })

/** The body changing a section of `type` (its type cannot change). */
const sectionPatchOf = (type: HomeSection.SectionType) =>
  Schema.Struct({
    enabled: Schema.optionalKey(Enabled),
    /** Only sent keys change (a list is replaced whole). */
    settings: Schema.optionalKey(settingsOf(type))
  }).annotate({ message: BODY })

/** `POST /v1/store/home-layout/sections` body: one member per section type, with that type's settings. */
export const SectionAdd = Schema.Union(HomeSection.SECTION_TYPES.map(sectionAddOf)).annotate({
  identifier: "LayoutSectionAdd"
})

/** `PATCH /v1/store/home-layout/sections/{id}` body: the settings are those of the section's type. */
export const SectionPatch = Schema.Struct({
  enabled: Schema.optionalKey(Enabled),
  settings: Schema.optionalKey(Schema.Union(HomeSection.SECTION_TYPES.map(settingsOf)))
}).annotate({ identifier: "LayoutSectionPatch", message: BODY })

/** `POST /v1/store/home-layout/move` body. */
export const SectionMove = Schema.Struct({
  /** The section to move. */
  id: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Ids.MAX_ID })).pipe(
    BodyFields.oneMessage(MOVED_ID),
    Schema.annotateKey({ messageMissingKey: MOVED_ID })
  ),
  /** Its new position, from 1 to the number of sections. */
  position: Schema.Int
}).annotate({ identifier: "LayoutSectionMove", message: BODY })

/** A section an undo writes back, as a write of `type` made it. */
const sectionOf = (type: HomeSection.SectionType) =>
  Schema.Struct({
    id: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Ids.MAX_ID })).pipe(
      BodyFields.oneMessage(STORED_ID),
      Schema.annotateKey({ messageMissingKey: STORED_ID })
    ),
    type: Schema.Literal(type),
    enabled: Enabled.pipe(Schema.annotateKey({ messageMissingKey: ENABLED })),
    settings: Schema.optionalKey(settingsOf(type))
  }).annotate({ message: "must be an object" })

/**
 * A decoder per section type, failing with the first issue's refusal (the settings' field schemas are typed as any
 * struct's, so the decoded shape is stated here).
 */
const byType = <A>(schemaOf: (type: HomeSection.SectionType) => Schema.Top) =>
  Object.fromEntries(
    HomeSection.SECTION_TYPES.map((type) => [
      type,
      BodyFields.decode(schemaOf(type) as unknown as Schema.Decoder<A>, (refusal) => refusal)
    ])
  ) as Record<HomeSection.SectionType, (raw: unknown) => Effect.Effect<A, BodyFields.Refusal>>

const decodeAdd = byType<{ enabled?: boolean; settings?: Settings; position?: number }>(sectionAddOf)
const decodePatch = byType<{ enabled?: boolean; settings?: Settings }>(sectionPatchOf)
const decodeSection = byType<{ id: number; enabled: boolean; settings?: Settings }>(sectionOf)
const decodeMove = BodyFields.decode(SectionMove, (refusal) => refusal)

const positionMessage = (last: number) => `position must be a whole number from 1 to ${last}`

/** A refusal's text, but a position's, whose range the layout decides. */
const textOr = (last: number) => (refusal: BodyFields.Refusal) =>
  refusal.path[0] === "position" ? positionMessage(last) : refusal.text

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const FULL = `The home layout holds at most ${MAX_SECTIONS} sections; remove one first`
export const INVALID_TYPE = `type must be one of ${HomeSection.SECTION_TYPES.join(", ")}`
export const TYPE_FIXED = "A section's type cannot change; add a section of the other type and remove this one"

export const laterChange = (changeId: number) =>
  `The home layout changed after change #${changeId}; undo the later changes first, newest first`

export const viewOf = (state: Pick<LayoutState, "sections">): Layout => ({
  sections: state.sections,
  in_use: state.sections.some((section) => section.enabled)
})

const notFound = (id: number) =>
  Effect.fail(StoreConfigError.fail(new StoreConfigError.SectionNotFound({ message: `Section ${id} not found` })))

/**
 * The sections an undo writes back, checked as the writes that made them were: at most `MAX_SECTIONS`, known
 * types, distinct positive ids, each section's settings by its type's rules. The message of the first that breaks
 * one, else the sections.
 */
export const checkSections = Effect.fnUntraced(function* (raw: ReadonlyArray<unknown>) {
  if (raw.length > MAX_SECTIONS) return yield* Effect.fail(FULL)
  const sections: Array<LayoutSection> = []
  const ids = new Set<number>()
  for (const [index, value] of raw.entries()) {
    const path = `sections[${index}]`
    const fields = yield* Fields.object(value, `${path} must be an object`)
    if (!HomeSection.isSectionType(fields.type)) return yield* Effect.fail(`${path}.${INVALID_TYPE}`)
    const type = fields.type
    const section = yield* decodeSection[type](value).pipe(Effect.mapError(({ text }) => `${path}.${text}`))
    if (ids.has(section.id)) return yield* Effect.fail(`${path}.id ${section.id} appears twice`)
    ids.add(section.id)
    const settings = yield* HomeSection.readSettings(type, undefined, section.settings, `${path}.settings`)
    sections.push({ id: section.id, type, enabled: section.enabled, settings })
  }
  return sections
})

export class HomeLayout extends Context.Service<
  HomeLayout,
  {
    /** `GET /v1/store/home-layout`. */
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<Layout, StoreConfigError.StoreConfigError>
    /** `POST /v1/store/home-layout/sections`. */
    readonly add: (writer: Writer, body: unknown) => Effect.Effect<SectionWritten, StoreConfigError.StoreConfigError>
    /** `PATCH /v1/store/home-layout/sections/{id}`. */
    readonly update: (
      writer: Writer,
      id: number,
      body: unknown
    ) => Effect.Effect<SectionWritten, StoreConfigError.StoreConfigError>
    /** `DELETE /v1/store/home-layout/sections/{id}`. */
    readonly remove: (writer: Writer, id: number) => Effect.Effect<SectionRemoved, StoreConfigError.StoreConfigError>
    /** `POST /v1/store/home-layout/move`. */
    readonly move: (writer: Writer, body: unknown) => Effect.Effect<LayoutMoved, StoreConfigError.StoreConfigError>
  }
>()("@tawsil/storefront/HomeLayout") {}

export const layer: Layer.Layer<HomeLayout, never, StorefrontStore | ChangeLog.ChangeLog> = Layer.effect(
  HomeLayout,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StorefrontStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY)
    const invalid = Effect.mapError(StoreConfigError.invalid)

    const read = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      const found = yield* store.homeLayout(storeId)
      if (Option.isNone(found)) return yield* StoreConfigError.storeNotFound()
      return found.value
    })

    /** The layout, read under the store's lock for a write. */
    const forWrite = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      if (!(yield* store.lock(storeId))) return yield* StoreConfigError.storeNotFound()
      return yield* read(storeId)
    })

    /** Saves `after` and records the whole layout's change. */
    const save = Effect.fnUntraced(function* (
      writer: Writer,
      before: LayoutState,
      after: LayoutState,
      summary: string
    ) {
      if (!(yield* store.writeHomeLayout(writer.storeId, after))) return yield* StoreConfigError.storeNotFound()
      return yield* record(
        writer,
        "update",
        ENTITY_ID,
        summary,
        { sections: before.sections },
        { sections: after.sections }
      )
    })

    const position = (value: unknown, last: number) => Fields.integer(value, 1, last, positionMessage(last))

    const find = (state: LayoutState, id: number) => {
      const index = Ids.isStorableId(id) ? state.sections.findIndex((section) => section.id === id) : -1
      return index === -1 ? notFound(id) : Effect.succeed(index)
    }

    return HomeLayout.of({
      get: method("HomeLayout.get")(function* (storeId) {
        return viewOf(yield* read(storeId))
      }),
      add: method("HomeLayout.add")(function* (writer, raw) {
        const before = yield* forWrite(writer.storeId)
        const fields = yield* Fields.object(raw, BODY).pipe(invalid)
        if (!HomeSection.isSectionType(fields.type)) return yield* StoreConfigError.invalid(INVALID_TYPE)
        const type = fields.type
        const count = before.sections.length
        const body = yield* decodeAdd[type](raw).pipe(Effect.mapError(textOr(count + 1)), invalid)
        const enabled = body.enabled ?? true
        const settings = yield* HomeSection.readSettings(type, undefined, body.settings, "settings").pipe(invalid)
        const at = body.position === undefined ? count + 1 : yield* position(body.position, count + 1).pipe(invalid)
        if (count >= MAX_SECTIONS) return yield* StoreConfigError.invalid(FULL)
        const id = before.last_section_id + 1
        const section: LayoutSection = { id, type, enabled, settings }
        const sections = [...before.sections]
        sections.splice(at - 1, 0, section)
        const change = yield* save(
          writer,
          before,
          { sections, last_section_id: id },
          `Added ${type} section #${id} to the home layout`
        )
        return { section, position: at, change_id: change }
      }),
      update: method("HomeLayout.update")(function* (writer, id, raw) {
        const before = yield* forWrite(writer.storeId)
        const index = yield* find(before, id)
        const current = before.sections[index]!
        const fields = yield* Fields.object(raw, BODY).pipe(invalid)
        if (BodyFields.sent(fields, "type") && fields.type !== current.type)
          return yield* StoreConfigError.invalid(TYPE_FIXED)
        const body = yield* decodePatch[current.type](raw).pipe(
          Effect.mapError(({ text }) => text),
          invalid
        )
        const enabled = body.enabled ?? current.enabled
        const settings =
          body.settings === undefined
            ? current.settings
            : yield* HomeSection.readSettings(current.type, current.settings as never, body.settings, "settings").pipe(
                invalid
              )
        const section: LayoutSection = { ...current, enabled, settings }
        if (Fields.same(section, current)) {
          return { section: current, position: index + 1, change_id: null }
        }
        const sections = before.sections.map((each) => (each.id === current.id ? section : each))
        const change = yield* save(
          writer,
          before,
          { ...before, sections },
          `Updated ${current.type} section #${current.id} of the home layout`
        )
        return { section, position: index + 1, change_id: change }
      }),
      remove: method("HomeLayout.remove")(function* (writer, id) {
        const before = yield* forWrite(writer.storeId)
        const index = yield* find(before, id)
        const removed = before.sections[index]!
        const change = yield* save(
          writer,
          before,
          { ...before, sections: before.sections.filter((section) => section.id !== removed.id) },
          `Removed ${removed.type} section #${removed.id} from the home layout`
        )
        return { deleted: true as const, id: removed.id, change_id: change }
      }),
      move: method("HomeLayout.move")(function* (writer, raw) {
        const before = yield* forWrite(writer.storeId)
        const last = before.sections.length
        const body = yield* decodeMove(raw).pipe(Effect.mapError(textOr(last)), invalid)
        const index = yield* find(before, body.id)
        const at = yield* position(body.position, last).pipe(invalid)
        if (at === index + 1) return { ...viewOf(before), change_id: null }
        const moved = before.sections[index]!
        const sections = before.sections.filter((section) => section.id !== moved.id)
        sections.splice(at - 1, 0, moved)
        const after = { ...before, sections }
        const change = yield* save(
          writer,
          before,
          after,
          `Moved ${moved.type} section #${moved.id} to position ${at} of the home layout`
        )
        return { ...viewOf(after), change_id: change }
      })
    })
  })
)
