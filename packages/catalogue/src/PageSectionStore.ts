/**
 * Where landing page sections live: the port, and the in-memory implementation that `LandingPageStore.layerMemory`
 * builds beside its pages (so a page's `section_count` counts its sections and a deleted page takes them along, as
 * the SQL tables do).
 *
 * A page's sections are in one order, top first; the store answers each section's `position` as its place in that
 * order (1 for the top). Writes happen inside `withPage`, which holds the page against other section writes until
 * the caller's transaction ends, so the page's order and the limit on its sections are decided without races.
 */
import type { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Option, Semaphore } from "effect"
import { PageSection, type PageSectionId, type Settings, type StoredSection } from "./PageSection.ts"
import type { SectionPatch } from "./PageSectionRules.ts"

/** What an insert writes. */
export interface SectionInput {
  readonly type: string
  readonly is_visible: boolean
  readonly settings: Settings
  /** The ids of the deleted sections this one returns (an undo's re-creation); empty for a new one. */
  readonly formerIds: ReadonlyArray<number>
  /** A re-created section keeps its creation time; a new one is created now. */
  readonly createdAt?: DateTime.Utc | undefined
}

/** The section writes of one page, available inside `withPage`. */
export interface PageWrites {
  /** Writes a section at the end of the page; returns its id. Place it with `arrange`. */
  readonly insert: (input: SectionInput) => Effect.Effect<PageSectionId>
  /** Changes the sent fields and the update time. */
  readonly update: (id: PageSectionId, patch: SectionPatch) => Effect.Effect<void>
  readonly remove: (id: PageSectionId) => Effect.Effect<void>
  /** Puts the page's sections in this order (every section of the page, each once). */
  readonly arrange: (ids: ReadonlyArray<number>) => Effect.Effect<void>
  /** The page's sections now, top first. */
  readonly sections: Effect.Effect<ReadonlyArray<StoredSection>>
}

export class PageSectionStore extends Context.Service<
  PageSectionStore,
  {
    /** The page's sections, top first; None when the page is not the store's. */
    readonly list: (
      storeId: Ids.StoreId,
      pageId: Ids.LandingPageId
    ) => Effect.Effect<Option.Option<ReadonlyArray<StoredSection>>>
    /**
     * The store's section that has, or had before an undo brought it back, this id, with its page's sections; None
     * when no section of the store has or had it.
     */
    readonly trace: (
      storeId: Ids.StoreId,
      id: number
    ) => Effect.Effect<Option.Option<{ readonly section: StoredSection; readonly page: ReadonlyArray<StoredSection> }>>
    /**
     * Runs `write` with the page's sections (top first) and its writes, holding the page against other section
     * writes until the caller's transaction ends; None when the page is not the store's. A failure of `write` undoes
     * what it wrote.
     */
    readonly withPage: <A, E, R>(
      storeId: Ids.StoreId,
      pageId: Ids.LandingPageId,
      write: (sections: ReadonlyArray<StoredSection>, writes: PageWrites) => Effect.Effect<A, E, R>
    ) => Effect.Effect<Option.Option<A>, E, R>
  }
>()("@tawsil/catalogue/PageSectionStore") {}

interface Row {
  readonly id: PageSectionId
  readonly pageId: Ids.LandingPageId
  readonly type: string
  readonly is_visible: boolean
  readonly settings: Settings
  readonly formerIds: ReadonlyArray<number>
  readonly order: number
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/** The memory twin's sections, and what the memory pages need of them. */
export interface MemorySections {
  readonly service: PageSectionStore["Service"]
  /** How many sections the page has. */
  readonly count: (pageId: number) => number
  /** Deletes the page's sections (its delete). */
  readonly dropPage: (pageId: number) => void
}

/**
 * Sections in a `Map`, on `Clock` time, over pages `owns` says belong to a store. `withPage` runs one write at a
 * time, and rolls the sections back when its write fails.
 */
export const makeMemory = (owns: (storeId: Ids.StoreId, pageId: number) => boolean): MemorySections => {
  let rows = new Map<number, Row>()
  let lastId = 0
  const lock = Semaphore.makeUnsafe(1)

  const pageRows = (pageId: number) =>
    [...rows.values()].filter((row) => row.pageId === pageId).sort((a, b) => a.order - b.order || a.id - b.id)

  const stored = (pageId: number): ReadonlyArray<StoredSection> =>
    pageRows(pageId).map((row, index) => ({
      section: new PageSection({
        id: row.id,
        landing_page_id: row.pageId,
        type: row.type,
        position: index + 1,
        is_visible: row.is_visible,
        settings: row.settings,
        created_at: row.createdAt,
        updated_at: row.updatedAt
      }),
      formerIds: row.formerIds
    }))

  const writesOf = (pageId: Ids.LandingPageId): PageWrites => ({
    insert: (input) =>
      Effect.map(DateTime.now, (now) => {
        const id = ++lastId as PageSectionId
        const order = Math.max(0, ...pageRows(pageId).map((row) => row.order)) + 1
        rows.set(id, {
          id,
          pageId,
          type: input.type,
          is_visible: input.is_visible,
          settings: input.settings,
          formerIds: input.formerIds,
          order,
          createdAt: input.createdAt ?? now,
          updatedAt: now
        })
        return id
      }),
    update: (id, patch) =>
      Effect.map(DateTime.now, (now) => {
        const row = rows.get(id)
        if (row !== undefined && row.pageId === pageId) rows.set(id, { ...row, ...patch, updatedAt: now })
      }),
    remove: (id) =>
      Effect.sync(() => {
        if (rows.get(id)?.pageId === pageId) rows.delete(id)
      }),
    arrange: (ids) =>
      Effect.sync(() => {
        for (const [index, id] of ids.entries()) {
          const row = rows.get(id)
          if (row !== undefined && row.pageId === pageId) rows.set(id, { ...row, order: index + 1 })
        }
      }),
    sections: Effect.sync(() => stored(pageId))
  })

  const service = PageSectionStore.of({
    list: (storeId, pageId) => Effect.sync(() => (owns(storeId, pageId) ? Option.some(stored(pageId)) : Option.none())),
    trace: (storeId, id) =>
      Effect.sync(() => {
        const row = [...rows.values()]
          .filter((row) => (row.id === id || row.formerIds.includes(id)) && owns(storeId, row.pageId))
          .sort((a, b) => b.id - a.id)[0]
        if (row === undefined) return Option.none()
        const page = stored(row.pageId)
        const section = page.find((entry) => entry.section.id === row.id)!
        return Option.some({ section, page })
      }),
    withPage: (storeId, pageId, write) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          if (!owns(storeId, pageId)) return Effect.succeedNone
          // Ids are not given back, as a database's identity is not.
          const saved = new Map(rows)
          return write(stored(pageId), writesOf(pageId)).pipe(
            Effect.map(Option.some),
            Effect.onError(() =>
              Effect.sync(() => {
                rows = saved
              })
            )
          )
        })
      )
  })

  return {
    service,
    count: (pageId) => pageRows(pageId).length,
    dropPage: (pageId) => {
      for (const row of pageRows(pageId)) rows.delete(row.id)
    }
  }
}
