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

/** `POST /v1/store/home-layout/sections` body. */
export const SectionAdd = Schema.Struct({
  /** One of hero, categories, featured_products, testimonials, faq, trust_badges, banner, rich_text. */
  type: Schema.String,
  /** Default true. */
  enabled: Schema.optionalKey(Schema.Boolean),
  /** The type's settings (see LayoutSection); those not sent take their defaults. */
  settings: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  /** From 1; default: last. */
  position: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "LayoutSectionAdd" })

/** `PATCH /v1/store/home-layout/sections/{id}` body: only sent keys change (a list is replaced whole). */
export const SectionPatch = Schema.Struct({
  enabled: Schema.optionalKey(Schema.Boolean),
  settings: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "LayoutSectionPatch" })

/** `POST /v1/store/home-layout/move` body. */
export const SectionMove = Schema.Struct({
  /** The section to move. */
  id: Schema.Int,
  /** Its new position, from 1 to the number of sections. */
  position: Schema.Int
}).annotate({ identifier: "LayoutSectionMove" })

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const BODY = "Body must be a JSON object"
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
    const id = yield* Fields.integer(fields.id, 1, Ids.MAX_ID, `${path}.id must be a positive whole number`)
    if (ids.has(id)) return yield* Effect.fail(`${path}.id ${id} appears twice`)
    ids.add(id)
    if (!HomeSection.isSectionType(fields.type)) return yield* Effect.fail(`${path}.${INVALID_TYPE}`)
    const enabled = yield* Fields.boolean(fields.enabled, `${path}.enabled must be true or false`)
    const settings = yield* HomeSection.readSettings(fields.type, undefined, fields.settings, `${path}.settings`)
    sections.push({ id, type: fields.type, enabled, settings })
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

    const position = (value: unknown, last: number) =>
      Fields.integer(value, 1, last, `position must be a whole number from 1 to ${last}`)

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
        const body = yield* Fields.object(raw, BODY).pipe(invalid)
        if (!HomeSection.isSectionType(body.type)) return yield* StoreConfigError.invalid(INVALID_TYPE)
        const type = body.type
        const enabled = BodyFields.sent(body, "enabled")
          ? yield* Fields.boolean(body.enabled, "enabled must be true or false").pipe(invalid)
          : true
        const settings = yield* HomeSection.readSettings(type, undefined, body.settings, "settings").pipe(invalid)
        const count = before.sections.length
        const at = BodyFields.sent(body, "position")
          ? yield* position(body.position, count + 1).pipe(invalid)
          : count + 1
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
        const body = yield* Fields.object(raw, BODY).pipe(invalid)
        if (BodyFields.sent(body, "type") && body.type !== current.type)
          return yield* StoreConfigError.invalid(TYPE_FIXED)
        const enabled = BodyFields.sent(body, "enabled")
          ? yield* Fields.boolean(body.enabled, "enabled must be true or false").pipe(invalid)
          : current.enabled
        const settings = BodyFields.sent(body, "settings")
          ? yield* HomeSection.readSettings(current.type, current.settings as never, body.settings, "settings").pipe(
              invalid
            )
          : current.settings
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
        const body = yield* Fields.object(raw, BODY).pipe(invalid)
        const id = yield* Fields.integer(body.id, 1, Ids.MAX_ID, "id must be the id of a section of the layout").pipe(
          invalid
        )
        const index = yield* find(before, id)
        const at = yield* position(body.position, before.sections.length).pipe(invalid)
        if (at === index + 1) return { ...viewOf(before), change_id: null }
        const moved = before.sections[index]!
        const sections = before.sections.filter((section) => section.id !== id)
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
