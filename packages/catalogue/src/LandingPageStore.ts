/**
 * Where landing pages live: the port, and its in-memory implementation (tests, one-process development).
 *
 * Every operation is scoped to one store. Slugs are unique per store, and the store is where that is decided
 * without races: `insert` and `update` take the wanted slug and write the first free one of `slug`, `slug-2`,
 * `slug-3`, … atomically. The memory twin keeps each page's sections too (`PageSectionStore`), so `section_count`
 * counts them and a delete takes them along, as the SQL tables do.
 */
import { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import {
  LandingPage,
  type LandingPageLanguage,
  type LandingPageStatus,
  type LandingPageSummary,
  toSummary
} from "./LandingPage.ts"
import { makeMemory, PageSectionStore } from "./PageSectionStore.ts"
import * as Slug from "./Slug.ts"

/** What a create writes (the slug apart). */
export interface NewLandingPage {
  readonly title: string
  readonly status: LandingPageStatus
  readonly language: LandingPageLanguage
  readonly product_id: Ids.ProductId | null
  readonly meta_title: string | null
  readonly meta_description: string | null
}

/** What a PATCH changes (the slug apart): the fields present. */
export type LandingPagePatch = Partial<NewLandingPage>

export interface ListQuery {
  /** How many rows to return at most. */
  readonly limit: number
  /** Only pages with a smaller id (the page after a cursor). */
  readonly afterId: number | undefined
  readonly status: LandingPageStatus | undefined
}

export class LandingPageStore extends Context.Service<
  LandingPageStore,
  {
    /** The store's pages, newest (highest id) first. */
    readonly list: (storeId: Ids.StoreId, query: ListQuery) => Effect.Effect<ReadonlyArray<LandingPageSummary>>
    readonly get: (storeId: Ids.StoreId, id: Ids.LandingPageId) => Effect.Effect<Option.Option<LandingPage>>
    /** Writes a page under the first free slug of `slug`, `slug-2`, … */
    readonly insert: (storeId: Ids.StoreId, page: NewLandingPage, slug: string) => Effect.Effect<LandingPage>
    /** Applies `patch`, and moves the page to the first free slug of `slug`, … when given. None when absent. */
    readonly update: (
      storeId: Ids.StoreId,
      id: Ids.LandingPageId,
      patch: LandingPagePatch,
      slug: string | undefined
    ) => Effect.Effect<Option.Option<LandingPage>>
    /** Deletes the page and its sections; false when it was absent. */
    readonly remove: (storeId: Ids.StoreId, id: Ids.LandingPageId) => Effect.Effect<boolean>
  }
>()("@tawsil/catalogue/LandingPageStore") {}

interface Entry {
  readonly storeId: Ids.StoreId
  readonly page: LandingPage
}

/**
 * Pages in a `Map`, on `Clock` time, and their sections (`PageSectionStore`, the same memory). Each write is one
 * synchronous step, so slug choice cannot race.
 */
export const layerMemory: Layer.Layer<LandingPageStore | PageSectionStore> = Layer.syncContext(() => {
  const entries = new Map<number, Entry>()
  let lastId = 0

  const owned = (storeId: Ids.StoreId, id: number) => {
    const entry = entries.get(id)
    return entry !== undefined && entry.storeId === storeId ? entry : undefined
  }
  const sections = makeMemory((storeId, id) => owned(storeId, id) !== undefined)
  /** The page with its live section count. */
  const counted = (page: LandingPage) => new LandingPage({ ...page, section_count: sections.count(page.id) })
  const freeSlug = (storeId: Ids.StoreId, slug: string, except?: number) =>
    Slug.firstFree(slug, (candidate) =>
      [...entries.values()].some(
        (entry) => entry.storeId === storeId && entry.page.id !== except && entry.page.slug === candidate
      )
    )

  const pages = LandingPageStore.of({
    list: (storeId, query) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter(
            (entry) =>
              entry.storeId === storeId &&
              (query.afterId === undefined || entry.page.id < query.afterId) &&
              (query.status === undefined || entry.page.status === query.status)
          )
          .sort((a, b) => b.page.id - a.page.id)
          .slice(0, query.limit)
          .map(({ page }) => toSummary(page))
      ),
    get: (storeId, id) => Effect.sync(() => Option.map(Option.fromNullishOr(owned(storeId, id)?.page), counted)),
    insert: Effect.fnUntraced(function* (storeId, fields, slug) {
      const now = yield* DateTime.now
      const page = new LandingPage({
        id: Ids.LandingPageId.make(++lastId),
        ...fields,
        slug: freeSlug(storeId, slug),
        views: 0,
        is_purchased: false,
        section_count: 0,
        created_at: now,
        updated_at: now
      })
      entries.set(page.id, { storeId, page })
      return page
    }),
    update: Effect.fnUntraced(function* (storeId, id, patch, slug) {
      const now = yield* DateTime.now
      const entry = owned(storeId, id)
      if (entry === undefined) return Option.none()
      const page = new LandingPage({
        ...entry.page,
        ...patch,
        slug: slug === undefined ? entry.page.slug : freeSlug(storeId, slug, id),
        updated_at: now
      })
      entries.set(id, { ...entry, page })
      return Option.some(counted(page))
    }),
    remove: (storeId, id) =>
      Effect.sync(() => {
        if (owned(storeId, id) === undefined) return false
        entries.delete(id)
        sections.dropPage(id)
        return true
      })
  })

  return Context.make(LandingPageStore, pages).pipe(Context.add(PageSectionStore, sections.service))
})
