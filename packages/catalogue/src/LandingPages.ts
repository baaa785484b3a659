/**
 * The store API's landing pages: list, read, create, PATCH, publish and delete, over a `LandingPageStore` (and a
 * `ProductStore`, to check that a linked product is the store's).
 *
 * - Slugs (`Slug`): on create, a sent slug is kept as sent and an omitted one is derived from the title; on PATCH
 *   a sent slug is normalised, and a changed title regenerates the slug only when no slug is sent. An empty result
 *   falls back to `landing-` and 6 hex. Either way the store makes it unique with `-2`, `-3`, …
 * - Create coerces `status` and `language`; PATCH refuses values out of their sets.
 * - `publish` is PATCH `{ status: "active" }`. A delete removes the page and its sections.
 */
import { BodyFields, Ids, Pagination } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option } from "effect"
import { identity } from "effect/Function"
import { type ListParams, listQuery } from "./internal/listing.ts"
import {
  type LandingPage,
  LandingPageCreateBody,
  type LandingPageDeleted,
  LandingPageStatus,
  type LandingPageSummary,
  LandingPageUpdateBody
} from "./LandingPage.ts"
import * as LandingPageError from "./LandingPageError.ts"
import { type LandingPagePatch, LandingPageStore } from "./LandingPageStore.ts"
import { ProductStore } from "./ProductStore.ts"
import * as Slug from "./Slug.ts"

export type { ListParams }

const notFound = () =>
  LandingPageError.fail(new LandingPageError.LandingPageNotFound({ message: "Landing page not found" }))
const invalid = (message: string) => LandingPageError.fail(new LandingPageError.InvalidLandingPage({ message }))

export class LandingPages extends Context.Service<
  LandingPages,
  {
    readonly list: (storeId: Ids.StoreId, params?: ListParams) => Effect.Effect<Pagination.Page<LandingPageSummary>>
    readonly get: (
      storeId: Ids.StoreId,
      id: Ids.LandingPageId
    ) => Effect.Effect<LandingPage, LandingPageError.LandingPageError>
    readonly create: (
      storeId: Ids.StoreId,
      body: unknown
    ) => Effect.Effect<LandingPage, LandingPageError.LandingPageError>
    readonly update: (
      storeId: Ids.StoreId,
      id: Ids.LandingPageId,
      body: unknown
    ) => Effect.Effect<LandingPage, LandingPageError.LandingPageError>
    readonly publish: (
      storeId: Ids.StoreId,
      id: Ids.LandingPageId
    ) => Effect.Effect<LandingPage, LandingPageError.LandingPageError>
    readonly remove: (
      storeId: Ids.StoreId,
      id: Ids.LandingPageId
    ) => Effect.Effect<LandingPageDeleted, LandingPageError.LandingPageError>
  }
>()("@tawsil/catalogue/LandingPages") {}

const decodeCreate = BodyFields.decode(LandingPageCreateBody, ({ text }) => invalid(text))
const decodeUpdate = BodyFields.decode(LandingPageUpdateBody, ({ text }) => invalid(text))

const orNotFound = <A>(found: Option.Option<A>) =>
  Option.match(found, { onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })

export const layer: Layer.Layer<LandingPages, never, LandingPageStore | ProductStore> = Layer.effect(
  LandingPages,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* LandingPageStore
    const products = yield* ProductStore

    /** The store's own product, or the spec's 400. */
    const ownProduct = Effect.fnUntraced(function* (storeId: Ids.StoreId, productId: number | null) {
      if (productId === null) return null
      const message = `product_id ${productId} does not belong to this store`
      if (!Ids.isStorableId(productId)) return yield* invalid(message)
      const id = Ids.ProductId.make(productId)
      if (!(yield* products.exists(storeId, id))) return yield* invalid(message)
      return id
    })

    const get = method("LandingPages.get")(function* (storeId: Ids.StoreId, id: Ids.LandingPageId) {
      if (!Ids.isStorableId(id)) return yield* notFound()
      return yield* store.get(storeId, id).pipe(Effect.flatMap(orNotFound))
    })

    const patch = Effect.fnUntraced(function* (
      storeId: Ids.StoreId,
      id: Ids.LandingPageId,
      changes: LandingPagePatch,
      slug: string | undefined
    ) {
      return yield* store.update(storeId, id, changes, slug).pipe(Effect.flatMap(orNotFound))
    })

    return LandingPages.of({
      list: method("LandingPages.list")(function* (storeId, params = {}) {
        const query = listQuery(params, LandingPageStatus.literals)
        const rows = yield* store.list(storeId, { ...query, limit: query.limit + 1 })
        return Pagination.page(rows, query.limit, (row) => row.id, identity)
      }),
      get,
      create: method("LandingPages.create")(function* (storeId, body) {
        const { slug, product_id, ...fields } = yield* decodeCreate(body)
        const productId = yield* ownProduct(storeId, product_id)
        // A sent slug is stored as sent; only an omitted (or empty) one is derived.
        const wanted = slug !== null && slug !== "" ? slug : yield* Slug.derive(fields.title)
        return yield* store.insert(storeId, { ...fields, product_id: productId }, wanted)
      }),
      update: method("LandingPages.update")(function* (storeId, id, body) {
        const current = yield* get(storeId, id)
        const { slug, product_id, ...fields } = yield* decodeUpdate(body)
        const changes: LandingPagePatch =
          product_id === undefined ? fields : { ...fields, product_id: yield* ownProduct(storeId, product_id) }
        const wanted =
          slug !== undefined
            ? yield* Slug.derive(slug)
            : fields.title !== undefined && fields.title !== current.title
              ? yield* Slug.derive(fields.title)
              : undefined
        if (Object.keys(changes).length === 0 && wanted === undefined) return current
        return yield* patch(storeId, id, changes, wanted)
      }),
      publish: method("LandingPages.publish")(function* (storeId, id) {
        if (!Ids.isStorableId(id)) return yield* notFound()
        return yield* patch(storeId, id, { status: "active" }, undefined)
      }),
      remove: method("LandingPages.remove")(function* (storeId, id) {
        if (!Ids.isStorableId(id) || !(yield* store.remove(storeId, id))) return yield* notFound()
        return { deleted: true, id } as const
      })
    })
  })
)
