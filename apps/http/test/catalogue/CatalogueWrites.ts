/**
 * Categories and stock for a property over HTTP (any sequence of recorded writes, undone newest first, restores the
 * exact start): a catalogue to write on (`seed`), one random valid `category` or `stock` write (`catalogueWrite`, made
 * by `applyWrite`: a category PATCH or delete, or a stock write, on an item there is, chosen when it runs) and the
 * catalogue as the API shows it (`stateOf`), ready to plug into `Changes.db.test.ts`'s property beside the promo and
 * pixel writes (the same shapes as `landing-page-sections/SectionWrites.ts`).
 *
 * Creates are left out: their undo is `nothing_to_restore` (spec "Undo rules" 2). So are two things the history does
 * not record, by the spec: a category's `position` (category order), and its image once deleted (a deleted category
 * returns without it, rule 5) — the seed's categories have no image and the writes set none, so a delete's undo
 * gives back exactly what was. `stateOf` leaves out update times (every write moves them) and positions (a deleted
 * category returns last in the order); the rest — names, slugs,
 * descriptions, parents, creation times, product counts, each product's categories and every stock quantity — must
 * come back exactly. Some generated writes are refused (a parent with subcategories, a subcategory as a parent):
 * refused writes record nothing, which the property allows.
 */
import { Effect } from "effect"
import * as fc from "fast-check"

import type { Answer, Request } from "../PropertyRequest.ts"

export { type Answer, type Request, requestOf } from "../PropertyRequest.ts"

export type CatalogueWrite =
  | {
      readonly kind: "category"
      readonly index: number
      /** `parent` is an index into the categories there are, resolved when the write runs; null for top level. */
      readonly body: {
        readonly name?: string
        readonly description?: string | null
        readonly parent?: number | null
      }
    }
  | { readonly kind: "categoryDelete"; readonly index: number }
  | {
      readonly kind: "stock"
      readonly index: number
      readonly product: { readonly stock: number | null } | { readonly adjust: number } | undefined
      /** By the option's rank among the product's options, resolved when the write runs. */
      readonly variants: ReadonlyArray<{
        readonly option: number
        readonly set: { stock: number } | { adjust: number }
      }>
    }

const quantity = fc.oneof(
  fc.record({ stock: fc.integer({ min: 0, max: 500 }) }),
  fc.record({ adjust: fc.integer({ min: -20, max: 20 }) })
)

/** One `category` or `stock` write. */
export const catalogueWrite: fc.Arbitrary<CatalogueWrite> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("category" as const),
      index: fc.nat(5),
      body: fc
        .record(
          {
            name: fc.constantFrom("Robes", "Caftans", "Bijoux en argent", "ملابس تقليدية", "Crème & Savon"),
            description: fc.constantFrom(null, "Faites main", "صناعة يدوية"),
            parent: fc.oneof(fc.constant(null), fc.nat(5))
          },
          { requiredKeys: [] }
        )
        .filter((body) => Object.keys(body).length > 0)
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("categoryDelete" as const), index: fc.nat(5) }) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        kind: fc.constant("stock" as const),
        index: fc.nat(1),
        product: fc.option(fc.oneof(fc.record({ stock: fc.oneof(fc.constant(null), fc.nat(500)) }), quantity), {
          nil: undefined
        }),
        variants: fc.uniqueArray(fc.record({ option: fc.nat(3), set: quantity }), {
          maxLength: 3,
          selector: (entry) => entry.option
        })
      })
      .filter((write) => write.product !== undefined || write.variants.length > 0)
  }
)

export interface Seeded {
  readonly productIds: ReadonlyArray<number>
}

/** A catalogue to write on: four categories (one under another) and two products in them, with tracked stock. */
export const seed = (request: Request) =>
  Effect.gen(function* () {
    const category = (body: object) =>
      Effect.map(request("POST", "/v1/categories", body), (answer) => answer.body.data.id as number)
    const women = yield* category({ name: "Femmes", description: "Mode féminine" })
    const dresses = yield* category({ name: "Robes", parent_id: women })
    const jewels = yield* category({ name: "Bijoux" })
    yield* category({ name: "Maison" })
    const productIds: Array<number> = []
    for (const body of [
      {
        name: "Robe kabyle",
        price: 4500,
        stock: 40,
        category_ids: [women, dresses],
        variant_groups: [
          {
            name: "Taille",
            type: "text",
            options: [
              { value: "M", stock: 10 },
              { value: "XL", stock: 5 }
            ]
          },
          {
            name: "Couleur",
            type: "color",
            options: [
              { value: "Rouge", stock: 3 },
              { value: "Noir", stock: 0 }
            ]
          }
        ]
      },
      {
        name: "Bracelet",
        price: 1200,
        stock: 12,
        category_ids: [jewels],
        variant_groups: [
          {
            name: "Métal",
            type: "text",
            options: [
              { value: "Argent", stock: 6 },
              { value: "Or", stock: 2 }
            ]
          }
        ]
      }
    ]) {
      productIds.push((yield* request("POST", "/v1/products", body)).body.data.id as number)
    }
    return { productIds } satisfies Seeded
  })

/** Makes `write` against the catalogue as it is when it runs; answers the write's answer. */
export const applyWrite = (request: Request, seeded: Seeded, write: CatalogueWrite) =>
  Effect.gen(function* () {
    if (write.kind === "stock") {
      const productId = seeded.productIds[write.index % seeded.productIds.length]!
      const stock = (yield* request("GET", `/v1/products/${productId}/stock`)).body.data
      const options: Array<{ option_id: number }> = stock.variants
      const variants = write.variants.flatMap(({ option, set }) => {
        const found = options[option % options.length]
        return found === undefined ? [] : [{ option_id: found.option_id, ...set }]
      })
      const unique = variants.filter(
        (entry, at) => variants.findIndex((other) => other.option_id === entry.option_id) === at
      )
      return yield* request("POST", `/v1/products/${productId}/stock`, {
        ...(write.product ?? {}),
        ...(unique.length > 0 ? { variants: unique } : {})
      })
    }
    const ids: Array<number> = (yield* request("GET", "/v1/categories?limit=200")).body.data.items
      .map((item: { id: number }) => item.id)
      .sort((a: number, b: number) => a - b)
    const target = ids[write.index % Math.max(ids.length, 1)]
    if (target === undefined) return { status: 204, body: undefined, text: "" } satisfies Answer
    if (write.kind === "categoryDelete") return yield* request("DELETE", `/v1/categories/${target}`)
    const { parent, ...fields } = write.body
    const parent_id = parent === undefined ? undefined : parent === null ? null : ids[parent % ids.length]
    return yield* request("PATCH", `/v1/categories/${target}`, {
      ...fields,
      ...(parent_id === undefined ? {} : { parent_id })
    })
  })

/** The seeded catalogue as the API shows it: categories, each product's categories and stock; no update times. */
export const stateOf = (request: Request, seeded: Seeded) =>
  Effect.gen(function* () {
    const categories = (yield* request("GET", "/v1/categories?limit=200")).body.data.items
      .map(({ updated_at: _, position: __, ...category }: Record<string, unknown>) => category)
      .sort((a: { id: number }, b: { id: number }) => a.id - b.id)
    const products: Array<unknown> = []
    for (const id of seeded.productIds) {
      const product = (yield* request("GET", `/v1/products/${id}`)).body.data
      const stock = (yield* request("GET", `/v1/products/${id}/stock`)).body.data
      products.push({ id, category_ids: product.category_ids, stock })
    }
    return { categories, products }
  })
