/**
 * The store API's landing page sections: list, read, create, PATCH, delete and reorder over a `PageSectionStore`,
 * each write recorded in the change history (entity `lp.section`) in the same transaction.
 *
 * - A section's change has the section's id as its entity id and its recorded form (`PageSection.snapshot`) as
 *   values; a reorder's has `lp:<page id>` and the page's section ids, top first, before and after.
 * - A create may place the section (`position`, the end by default); the sections below move down. A delete moves
 *   the sections below up. A PATCH changes `is_visible` and `settings` only: a section moves with a reorder, and
 *   keeps its type.
 * - A write that changes nothing (an empty PATCH, a reorder into the current order) records nothing.
 * - A write, in order: the page is the store's (`PageNotFound`), the section is on it (`SectionNotFound`), the
 *   body's rules (`PageSectionRules`), the page's room (`LimitReached`, on create); then the write and its record.
 */
import { ChangeLog } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option } from "effect"
import {
  LAYOUT,
  orderEntityId,
  orderSnapshot,
  type PageSection,
  type PageSectionDeleted,
  PageSectionId,
  type PageSectionList,
  type StoredSection,
  snapshot
} from "./PageSection.ts"
import * as PageSectionError from "./PageSectionError.ts"
import * as PageSectionRules from "./PageSectionRules.ts"
import { PageSectionStore, type PageWrites } from "./PageSectionStore.ts"

export const ENTITY = "lp.section"

export const PAGE_NOT_FOUND = "Landing page not found"
export const SECTION_NOT_FOUND = "Section not found on this landing page"

/** Who writes: the store and the key's id (recorded on the change). */
export type Writer = ChangeLog.Writer

export class PageSections extends Context.Service<
  PageSections,
  {
    /** `GET /v1/landing-pages/{id}/sections`: every section of the page, top first. */
    readonly list: (
      storeId: Ids.StoreId,
      pageId: number
    ) => Effect.Effect<PageSectionList, PageSectionError.PageSectionError>
    readonly get: (
      storeId: Ids.StoreId,
      pageId: number,
      id: number
    ) => Effect.Effect<PageSection, PageSectionError.PageSectionError>
    readonly create: (
      writer: Writer,
      pageId: number,
      body: unknown
    ) => Effect.Effect<PageSection, PageSectionError.PageSectionError>
    /** Only sent fields change; a PATCH that changes nothing records nothing. */
    readonly update: (
      writer: Writer,
      pageId: number,
      id: number,
      body: unknown
    ) => Effect.Effect<PageSection, PageSectionError.PageSectionError>
    readonly remove: (
      writer: Writer,
      pageId: number,
      id: number
    ) => Effect.Effect<PageSectionDeleted, PageSectionError.PageSectionError>
    /** `section_ids`: every section of the page once, top first. Answers the page's sections in their new order. */
    readonly reorder: (
      writer: Writer,
      pageId: number,
      body: unknown
    ) => Effect.Effect<PageSectionList, PageSectionError.PageSectionError>
  }
>()("@tawsil/catalogue/PageSections") {}

const refuse = (reason: PageSectionError.PageSectionErrorReason) => Effect.fail(PageSectionError.fail(reason))
const pageNotFound = () => refuse(new PageSectionError.PageNotFound({ message: PAGE_NOT_FOUND }))
const sectionNotFound = () => refuse(new PageSectionError.SectionNotFound({ message: SECTION_NOT_FOUND }))

/** The fields of a patch whose value differs from the section's (settings compared as JSON, keys in any order). */
const changedFields = (section: PageSection, patch: PageSectionRules.SectionPatch) =>
  (["is_visible", "settings"] as const).filter(
    (field) => patch[field] !== undefined && !PageSectionRules.sameJson(patch[field], section[field])
  )

const ids = (sections: ReadonlyArray<StoredSection>) => sections.map((stored) => stored.section.id as number)

const items = (sections: ReadonlyArray<StoredSection>): PageSectionList => ({
  items: sections.map((stored) => stored.section)
})

const find = (sections: ReadonlyArray<StoredSection>, id: number) => sections.find((stored) => stored.section.id === id)

const written = (sections: ReadonlyArray<StoredSection>, id: number) => {
  const stored = find(sections, id)
  return stored === undefined ? Effect.die(`section ${id} vanished inside its own write`) : Effect.succeed(stored)
}

export const layer: Layer.Layer<PageSections, never, PageSectionStore | ChangeLog.ChangeLog> = Layer.effect(
  PageSections,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* PageSectionStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

    /** Runs a write on the store's page, or `PageNotFound`. */
    const onPage = <A, E>(
      storeId: Ids.StoreId,
      pageId: number,
      write: (sections: ReadonlyArray<StoredSection>, writes: PageWrites) => Effect.Effect<A, E>
    ) =>
      Ids.isStorableId(pageId)
        ? Effect.flatMap(
            store.withPage(storeId, Ids.LandingPageId.make(pageId), write),
            Option.match({ onNone: pageNotFound, onSome: Effect.succeed })
          )
        : pageNotFound()

    const pageSections = Effect.fnUntraced(function* (storeId: Ids.StoreId, pageId: number) {
      if (!Ids.isStorableId(pageId)) return yield* pageNotFound()
      const found = yield* store.list(storeId, Ids.LandingPageId.make(pageId))
      if (Option.isNone(found)) return yield* pageNotFound()
      return found.value
    })

    return PageSections.of({
      list: method("PageSections.list")(function* (storeId, pageId) {
        return items(yield* pageSections(storeId, pageId))
      }),
      get: method("PageSections.get")(function* (storeId, pageId, id) {
        const stored = find(yield* pageSections(storeId, pageId), id)
        if (stored === undefined) return yield* sectionNotFound()
        return stored.section
      }),
      create: method("PageSections.create")(function* (writer, pageId, body) {
        const created = yield* onPage(writer.storeId, pageId, (sections, writes) =>
          Effect.gen(function* () {
            const { section, index } = yield* PageSectionRules.parseCreate(body, sections.length)
            if (sections.length >= PageSectionRules.MAX_SECTIONS) {
              return yield* refuse(
                new PageSectionError.LimitReached({ message: PageSectionRules.limitMessage(sections.length) })
              )
            }
            const id = yield* writes.insert({ ...section, formerIds: [] })
            const order = ids(sections)
            order.splice(index, 0, id)
            yield* writes.arrange(order)
            return yield* written(yield* writes.sections, id)
          })
        )
        const { section } = created
        yield* record(
          writer,
          "create",
          section.id,
          `Added ${section.type} section #${section.id} to landing page #${pageId}`,
          null,
          snapshot(created)
        )
        return section
      }),
      update: method("PageSections.update")(function* (writer, pageId, id, body) {
        const outcome = yield* onPage(writer.storeId, pageId, (sections, writes) =>
          Effect.gen(function* () {
            const current = find(sections, id)
            if (current === undefined) return yield* sectionNotFound()
            const patch = yield* PageSectionRules.parsePatch(body)
            const changed = changedFields(current.section, patch)
            if (changed.length === 0) return { before: current, after: current, changed }
            yield* writes.update(current.section.id, patch)
            return { before: current, after: yield* written(yield* writes.sections, id), changed }
          })
        )
        const { before, after, changed } = outcome
        if (changed.length > 0) {
          yield* record(
            writer,
            "update",
            after.section.id,
            `Updated ${after.section.type} section #${after.section.id} of landing page #${pageId} (${changed.join(", ")})`,
            snapshot(before),
            snapshot(after)
          )
        }
        return after.section
      }),
      remove: method("PageSections.remove")(function* (writer, pageId, id) {
        const removed = yield* onPage(writer.storeId, pageId, (sections, writes) =>
          Effect.gen(function* () {
            const current = find(sections, id)
            if (current === undefined) return yield* sectionNotFound()
            yield* writes.remove(current.section.id)
            yield* writes.arrange(ids(sections).filter((other) => other !== id))
            return current
          })
        )
        const { section } = removed
        yield* record(
          writer,
          "delete",
          section.id,
          `Deleted ${section.type} section #${section.id} of landing page #${pageId}`,
          snapshot(removed),
          null
        )
        return { deleted: true as const, id: PageSectionId.make(section.id) }
      }),
      reorder: method("PageSections.reorder")(function* (writer, pageId, body) {
        const { before, after } = yield* onPage(writer.storeId, pageId, (sections, writes) =>
          Effect.gen(function* () {
            const order = yield* PageSectionRules.parseOrder(body, ids(sections))
            if (order.every((id, index) => id === sections[index]!.section.id)) {
              return { before: sections, after: sections }
            }
            yield* writes.arrange(order)
            return { before: sections, after: yield* writes.sections }
          })
        )
        if (before !== after) {
          yield* record(
            writer,
            "update",
            orderEntityId(pageId),
            `Reordered the sections of landing page #${pageId}`,
            orderSnapshot(pageId, before),
            orderSnapshot(pageId, after)
          )
        }
        return items(after)
      })
    })
  })
)
