/**
 * Products on PostgreSQL (tables `products`, `variant_groups`, `variant_options` of storage migration 0003),
 * needing only `SqlClient`.
 *
 * Every statement names the store: products by `store_id`, groups and options through their product. A delete
 * only stamps `deleted_at` (orders keep referencing the row) and every read skips stamped rows. Writes that touch
 * several tables run in `sql.withTransaction`, a savepoint inside the caller's transaction.
 *
 * A product's categories are rows of `product_categories` (migration 0012), written for the store's categories only:
 * the insert reads them `FOR KEY SHARE`, so a category deleted meanwhile is skipped rather than failing the foreign
 * key. Stock writes take the store's row `FOR NO KEY UPDATE` first, as an order's stock move does
 * (`@tawsil/orders` `OrderStoreSql.moveOrder`), then the product's and its options' rows: the stock writes of a store
 * run one at a time, and always lock in that order, so none waits on another in a cycle.
 */
import { Ids, StoreAmount } from "@tawsil/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { CategoryId } from "./Category.ts"
import {
  Product,
  type ProductInput,
  ProductStatus,
  ProductSummary,
  VariantGroup,
  type VariantGroupInput,
  VariantOption,
  VariantType
} from "./Product.ts"
import { ProductStore } from "./ProductStore.ts"
import { ProductStock, VariantStock } from "./Stock.ts"

const ProductRow = Schema.Struct({
  id: Ids.ProductId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  sku: Schema.NullOr(Schema.String),
  price: StoreAmount.FromString,
  compare_at_price: Schema.NullOr(StoreAmount.FromString),
  status: ProductStatus,
  digital: Schema.Boolean,
  stock: Schema.NullOr(Schema.Int),
  sales_count: Schema.Int,
  category_ids: Schema.Array(CategoryId),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
const decodeProducts = Schema.decodeUnknownEffect(Schema.Array(ProductRow))

const GroupRow = Schema.Struct({ id: Schema.Int, name: Schema.String, type: VariantType })
const decodeGroups = Schema.decodeUnknownEffect(Schema.Array(GroupRow))

const OptionRow = Schema.Struct({
  id: Schema.Int,
  group_id: Schema.Int,
  value: Schema.String,
  color_code: Schema.NullOr(Schema.String),
  image_id: Schema.NullOr(Schema.Int),
  price_adjustment: StoreAmount.FromString,
  stock: Schema.NullOr(Schema.Int)
})
const decodeOptions = Schema.decodeUnknownEffect(Schema.Array(OptionRow))

const StockRow = Schema.Struct({ id: Ids.ProductId, stock: Schema.NullOr(Schema.Int) })
const decodeStock = Schema.decodeUnknownEffect(Schema.Array(StockRow))
const decodeVariantStock = Schema.decodeUnknownEffect(Schema.Array(VariantStock))

const ProductIdRow = Schema.Struct({ product_id: Ids.ProductId })
const decodeProductIds = Schema.decodeUnknownEffect(Schema.Array(ProductIdRow))

/** Ids as one JSON parameter, read by `jsonb_array_elements_text`: a fixed parameter count whatever their number. */
const idsJson = (ids: ReadonlyArray<number>) => JSON.stringify(ids)

/** An amount as the text PostgreSQL reads into `numeric`, exactly. */
const numeric = (amount: StoreAmount.StoreAmount) => StoreAmount.format(amount)
const numericOrNull = (amount: StoreAmount.StoreAmount | null) => (amount === null ? null : numeric(amount))

/** The columns of `products` a create or PATCH may set, from the fields present. */
const productColumns = (fields: Partial<Omit<ProductInput, "variant_groups" | "category_ids">>) => {
  const columns: Record<string, unknown> = {}
  if (fields.name !== undefined) columns.name = fields.name
  if (fields.description !== undefined) columns.description = fields.description
  if (fields.sku !== undefined) columns.sku = fields.sku
  if (fields.price !== undefined) columns.price = numeric(fields.price)
  if (fields.compare_at_price !== undefined) columns.compare_at_price = numericOrNull(fields.compare_at_price)
  if (fields.status !== undefined) columns.status = fields.status
  if (fields.digital !== undefined) columns.digital = fields.digital
  if (fields.stock !== undefined) columns.stock = fields.stock
  return columns
}

export const layer: Layer.Layer<ProductStore, never, SqlClient.SqlClient> = Layer.effect(
  ProductStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const columns = sql.literal(
      "id, name, description, sku, price, compare_at_price, status, digital, stock, sales_count, " +
        "coalesce((SELECT json_agg(pc.category_id ORDER BY pc.category_id) FROM product_categories pc " +
        "WHERE pc.product_id = products.id), '[]'::json) AS category_ids, created_at, updated_at"
    )

    /** Puts a product of the store into the store's categories among `ids` (others, and vanished ones, skipped). */
    const insertCategories = (storeId: Ids.StoreId, productId: Ids.ProductId, ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.void
        : sql`
            INSERT INTO product_categories (product_id, category_id)
            SELECT ${productId}, c.id FROM categories c
            WHERE c.store_id = ${storeId}
              AND c.id IN (SELECT jsonb_array_elements_text(${idsJson(ids)}::jsonb)::int)
            FOR KEY SHARE
            ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)

    const groupsOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: Ids.ProductId) {
      const groups = yield* sql`
        SELECT g.id, g.name, g.type FROM variant_groups g JOIN products p ON p.id = g.product_id
        WHERE g.product_id = ${id} AND p.store_id = ${storeId}
        ORDER BY g.position`.pipe(Effect.flatMap(decodeGroups))
      if (groups.length === 0) return []
      const options = yield* sql`
        SELECT o.id, o.group_id, o.value, o.color_code, o.image_id, o.price_adjustment, o.stock
        FROM variant_options o JOIN variant_groups g ON g.id = o.group_id JOIN products p ON p.id = g.product_id
        WHERE g.product_id = ${id} AND p.store_id = ${storeId}
        ORDER BY o.group_id, o.position`.pipe(Effect.flatMap(decodeOptions))
      return groups.map(
        (group) =>
          new VariantGroup({
            ...group,
            options: options
              .filter((option) => option.group_id === group.id)
              .map(({ group_id: _, ...option }) => new VariantOption(option))
          })
      )
    })

    const find = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: Ids.ProductId) {
      const [row] = yield* sql`
        SELECT ${columns} FROM products
        WHERE id = ${id} AND store_id = ${storeId} AND deleted_at IS NULL`.pipe(Effect.flatMap(decodeProducts))
      if (row === undefined) return Option.none<Product>()
      const { created_at, updated_at, ...head } = row
      return Option.some(new Product({ ...head, variant_groups: yield* groupsOf(storeId, id), created_at, updated_at }))
    })

    /** Writes the groups of a product that has none, in body order. */
    const insertGroups = Effect.fnUntraced(function* (
      productId: Ids.ProductId,
      groups: ReadonlyArray<VariantGroupInput>
    ) {
      const [first, ...rest] = groups.map((group, position) => ({
        product_id: productId,
        name: group.name,
        type: group.type,
        position
      }))
      if (first === undefined) return
      const inserted = yield* sql<{ readonly id: number; readonly position: number }>`
        INSERT INTO variant_groups ${sql.insert([first, ...rest])} RETURNING id, position`
      const options = inserted.flatMap(({ id, position }) =>
        (groups[position]?.options ?? []).map((option, optionPosition) => ({
          group_id: id,
          value: option.value,
          color_code: option.color_code,
          image_id: option.image_id,
          price_adjustment: numeric(option.price_adjustment),
          stock: option.stock,
          position: optionPosition
        }))
      )
      const [firstOption, ...otherOptions] = options
      if (firstOption === undefined) return
      yield* sql`INSERT INTO variant_options ${sql.insert([firstOption, ...otherOptions])}`
    })

    /** Reads back a product this transaction just wrote. */
    const written = (storeId: Ids.StoreId, id: Ids.ProductId) =>
      find(storeId, id).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.die(`product ${id} vanished inside its own transaction`),
            onSome: Effect.succeed
          })
        )
      )

    return ProductStore.of({
      list: Effect.fnUntraced(function* (storeId, query) {
        const rows = yield* sql`
          SELECT ${columns} FROM products
          WHERE ${sql.and([
            sql`store_id = ${storeId}`,
            sql`deleted_at IS NULL`,
            ...(query.afterId === undefined ? [] : [sql`id < ${query.afterId}`]),
            ...(query.status === undefined ? [] : [sql`status = ${query.status}`]),
            ...(query.categoryId === undefined
              ? []
              : [
                  sql`EXISTS (SELECT 1 FROM product_categories pc
                        WHERE pc.product_id = products.id AND pc.category_id = ${query.categoryId})`
                ])
          ])}
          ORDER BY id DESC LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeProducts), Effect.orDie)
        return rows.map((row) => new ProductSummary(row))
      }),
      get: Effect.fnUntraced(function* (storeId, id) {
        return yield* find(storeId, id).pipe(Effect.orDie)
      }),
      exists: Effect.fnUntraced(function* (storeId, id) {
        const rows = yield* sql`
          SELECT 1 FROM products WHERE id = ${id} AND store_id = ${storeId} AND deleted_at IS NULL`.pipe(Effect.orDie)
        return rows.length > 0
      }),
      insert: Effect.fnUntraced(function* (storeId, { variant_groups, category_ids, ...input }) {
        return yield* Effect.gen(function* () {
          const [row] = yield* sql<{ readonly id: Ids.ProductId }>`
            INSERT INTO products ${sql.insert({ store_id: storeId, ...productColumns(input) })} RETURNING id`
          if (row === undefined) return yield* Effect.die("INSERT INTO products returned no row")
          yield* insertGroups(row.id, variant_groups)
          yield* insertCategories(storeId, row.id, category_ids)
          return yield* written(storeId, row.id)
        }).pipe(sql.withTransaction, Effect.orDie)
      }),
      update: Effect.fnUntraced(function* (storeId, id, { variant_groups, category_ids, ...patch }) {
        return yield* Effect.gen(function* () {
          const changes = productColumns(patch)
          const assignments =
            Object.keys(changes).length === 0
              ? sql`updated_at = now()`
              : sql`${sql.update(changes)}, updated_at = now()`
          // The row lock serialises concurrent PATCHes of one product, group replacement included.
          const updated = yield* sql`
            UPDATE products SET ${assignments}
            WHERE id = ${id} AND store_id = ${storeId} AND deleted_at IS NULL
            RETURNING id`
          if (updated.length === 0) return Option.none<Product>()
          if (variant_groups !== undefined) {
            yield* sql`
              DELETE FROM variant_groups g USING products p
              WHERE g.product_id = p.id AND p.id = ${id} AND p.store_id = ${storeId}`
            yield* insertGroups(id, variant_groups)
          }
          if (category_ids !== undefined) {
            yield* sql`DELETE FROM product_categories WHERE product_id = ${id}`
            yield* insertCategories(storeId, id, category_ids)
          }
          return Option.some(yield* written(storeId, id))
        }).pipe(sql.withTransaction, Effect.orDie)
      }),
      remove: Effect.fnUntraced(function* (storeId, id) {
        const removed = yield* sql`
          UPDATE products SET deleted_at = now(), updated_at = now()
          WHERE id = ${id} AND store_id = ${storeId} AND deleted_at IS NULL
          RETURNING id`.pipe(Effect.orDie)
        return removed.length > 0
      }),
      productsIn: Effect.fnUntraced(function* (storeId, categoryId) {
        const rows = yield* sql`
          SELECT pc.product_id FROM product_categories pc JOIN products p ON p.id = pc.product_id
          WHERE pc.category_id = ${categoryId} AND p.store_id = ${storeId} AND p.deleted_at IS NULL
          ORDER BY pc.product_id`.pipe(Effect.flatMap(decodeProductIds), Effect.orDie)
        return rows.map((row) => row.product_id)
      }),
      detachCategory: (storeId, categoryId) =>
        sql`
          DELETE FROM product_categories pc USING categories c
          WHERE pc.category_id = c.id AND c.id = ${categoryId} AND c.store_id = ${storeId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      attachCategory: (storeId, categoryId, productIds) =>
        productIds.length === 0
          ? Effect.void
          : sql`
              INSERT INTO product_categories (product_id, category_id)
              SELECT p.id, c.id FROM products p JOIN categories c ON c.id = ${categoryId} AND c.store_id = p.store_id
              WHERE p.store_id = ${storeId} AND p.deleted_at IS NULL
                AND p.id IN (SELECT jsonb_array_elements_text(${idsJson(productIds)}::jsonb)::int)
              ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
      lockStock: Effect.fnUntraced(function* (storeId, id) {
        return yield* Effect.gen(function* () {
          // The order matters: the store's row first, as an order's stock move takes it.
          yield* sql`SELECT id FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE`
          const [product] = yield* sql`
            SELECT id, stock FROM products
            WHERE id = ${id} AND store_id = ${storeId} AND deleted_at IS NULL
            FOR NO KEY UPDATE`.pipe(Effect.flatMap(decodeStock))
          if (product === undefined) return Option.none<ProductStock>()
          const variants = yield* sql`
            SELECT o.id AS option_id, g.name AS group_name, o.value AS option_name, o.stock
            FROM variant_options o JOIN variant_groups g ON g.id = o.group_id
            WHERE g.product_id = ${id}
            ORDER BY g.position, o.position
            FOR NO KEY UPDATE OF o`.pipe(Effect.flatMap(decodeVariantStock))
          return Option.some(new ProductStock({ product_id: product.id, stock: product.stock, variants }))
        }).pipe(Effect.orDie)
      }),
      writeStock: Effect.fnUntraced(function* (storeId, id, write) {
        yield* Effect.gen(function* () {
          if (write.stock !== undefined) {
            yield* sql`UPDATE products SET stock = ${write.stock} WHERE id = ${id} AND store_id = ${storeId}`
          }
          if (write.options.length > 0) {
            yield* sql`
              UPDATE variant_options o SET stock = w.stock
              FROM jsonb_to_recordset(${JSON.stringify(write.options)}::jsonb) AS w(id int, stock int),
                variant_groups g, products p
              WHERE o.id = w.id AND g.id = o.group_id AND p.id = g.product_id
                AND p.id = ${id} AND p.store_id = ${storeId}`
          }
        }).pipe(Effect.orDie)
      })
    })
  })
)
