/**
 * Landing page sections as an entity of the change history (`lp.section`, scopes `landing_pages:read` /
 * `landing_pages:write`; spec "Recorded entities", "Undo rules" 5).
 *
 * Two kinds of entity id: a section's id (a create, PATCH or delete of that section) and `lp:<page id>` (a reorder of
 * the page's sections).
 *
 * - A section's update records what it changed of `is_visible` and `settings`; its undo writes those back through
 *   the same checks as a PATCH, and leaves the other as later writes made it; its place stays where later reorders
 *   put it (a reorder's undo moves it).
 * - A deleted section returns with a NEW id (spec rule 5), at its recorded place (the end when the page is now
 *   shorter), with its type, visibility, settings and creation time, through the page's section limit
 *   (`LimitReached`). It remembers the ids it had (`former_ids`), so the history still reaches it: an earlier change
 *   of the deleted section applies to the returned one, and walking a page's changes back newest first restores it.
 * - A reorder's undo puts the recorded sections back in the recorded order (a section returned by an undo counts as
 *   the one it replaces); sections added since keep their places, and those deleted since are left out.
 * - A page deleted since: an update or reorder undo is the engine's `restore_target_missing`; a delete's undo is
 *   `RestoreTargetMissing` here.
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option, Schema } from "effect"
import {
  LAYOUT,
  OrderValues,
  orderEntityId,
  orderSnapshot,
  RecordedSection,
  SectionValues,
  type StoredSection,
  snapshot
} from "./PageSection.ts"
import * as PageSectionError from "./PageSectionError.ts"
import * as PageSectionRules from "./PageSectionRules.ts"
import { PageSectionStore } from "./PageSectionStore.ts"
import { ENTITY } from "./PageSections.ts"

/** What an `lp.section` change records: a section (whole, or what an update changed), or a page's order. */
export const Values = Schema.Union([RecordedSection, OrderValues])
export type Values = typeof Values.Type

const refuse = (reason: PageSectionError.PageSectionErrorReason) => Effect.fail(PageSectionError.fail(reason))

const isWhole = Schema.is(SectionValues)

const ORDER_ID = /^lp:([0-9]{1,10})$/
const SECTION_ID = /^[0-9]{1,10}$/

/** The page of an `lp:<page id>` entity id. */
const pageOf = (entityId: string): number | undefined => {
  const match = ORDER_ID.exec(entityId)
  const id = match === null ? Number.NaN : Number(match[1])
  return Ids.isStorableId(id) ? id : undefined
}

/** Every id a stored section is known by: its own, and those it had before undos brought it back. */
const namesOf = (stored: StoredSection) => [stored.section.id as number, ...stored.formerIds]

export const entity: Effect.Effect<Entity.Entity<Values>, never, PageSectionStore> = Effect.map(
  Effect.service(PageSectionStore),
  (store): Entity.Entity<Values> => {
    const gone = (message: string) => refuse(new PageSectionError.RestoreTargetMissing({ message }))

    const restoreOrder = Effect.fnUntraced(function* (storeId: Ids.StoreId, entityId: string, values: OrderValues) {
      const restored = yield* store.withPage(
        storeId,
        Ids.LandingPageId.make(values.landing_page_id),
        (sections, writes) =>
          Effect.gen(function* () {
            const current = sections.map((stored) => stored.section.id as number)
            // Each recorded id, as the section that has it now.
            const recorded = values.section_ids.flatMap((id) => {
              const holder = sections.find((stored) => namesOf(stored).includes(id))
              return holder === undefined ? [] : [holder.section.id as number]
            })
            yield* writes.arrange(PageSectionRules.restoredOrder(current, recorded))
          })
      )
      if (Option.isNone(restored)) return yield* gone(`Landing page #${values.landing_page_id} no longer exists`)
      return entityId
    })

    const restoreSection = Effect.fnUntraced(function* (
      storeId: Ids.StoreId,
      recorded: RecordedSection,
      how: Entity.Restore
    ) {
      const pageId = Ids.LandingPageId.make(recorded.landing_page_id)
      if (how === "recreate") {
        // A delete records the whole section.
        if (!isWhole(recorded)) return yield* Effect.die(new Error("a section's delete recorded part of it"))
        const values = recorded
        const settings = yield* PageSectionRules.readSettings(values.settings)
        const created = yield* store.withPage(storeId, pageId, (sections, writes) =>
          Effect.gen(function* () {
            if (sections.length >= PageSectionRules.MAX_SECTIONS) {
              return yield* refuse(
                new PageSectionError.LimitReached({ message: PageSectionRules.limitMessage(sections.length) })
              )
            }
            const id = yield* writes.insert({
              type: values.type,
              is_visible: values.is_visible,
              settings,
              formerIds: [...values.former_ids, values.id],
              createdAt: values.created_at
            })
            const order = sections.map((stored) => stored.section.id as number)
            order.splice(Math.min(Math.max(values.position, 1), order.length + 1) - 1, 0, id)
            yield* writes.arrange(order)
            return id
          })
        )
        if (Option.isNone(created)) {
          return yield* gone(`Landing page #${values.landing_page_id} of the deleted section no longer exists`)
        }
        return String(created.value)
      }
      const patch: PageSectionRules.SectionPatch = {
        ...(recorded.is_visible === undefined ? {} : { is_visible: recorded.is_visible }),
        ...(recorded.settings === undefined
          ? {}
          : { settings: yield* PageSectionRules.readSettings(recorded.settings) })
      }
      const traced = yield* store.trace(storeId, recorded.id)
      if (Option.isNone(traced)) return yield* gone(`Section #${recorded.id} no longer exists`)
      const { section } = traced.value.section
      const updated = yield* store.withPage(storeId, section.landing_page_id, (sections, writes) =>
        sections.some((stored) => stored.section.id === section.id)
          ? Effect.as(writes.update(section.id, patch), true)
          : Effect.succeed(false)
      )
      if (Option.isNone(updated) || !updated.value) return yield* gone(`Section #${recorded.id} no longer exists`)
      return String(section.id)
    })

    return {
      name: ENTITY,
      readScope: "landing_pages:read",
      undoScope: "landing_pages:write",
      values: Values,
      layout: LAYOUT,
      snapshot: (storeId, entityId) => {
        const pageId = pageOf(entityId)
        if (pageId !== undefined) {
          return Effect.map(
            store.list(storeId, Ids.LandingPageId.make(pageId)),
            Option.map((sections) => orderSnapshot(pageId, sections))
          )
        }
        return SECTION_ID.test(entityId) && Ids.isStorableId(Number(entityId))
          ? Effect.map(
              store.trace(storeId, Number(entityId)),
              Option.map(({ section }) => snapshot(section))
            )
          : Effect.succeedNone
      },
      write: (storeId, entityId, values, how) =>
        "section_ids" in values
          ? entityId === orderEntityId(values.landing_page_id)
            ? restoreOrder(storeId, entityId, values)
            : Effect.die(`change of ${entityId} recorded the order of landing page #${values.landing_page_id}`)
          : restoreSection(storeId, values, how)
    }
  }
)
