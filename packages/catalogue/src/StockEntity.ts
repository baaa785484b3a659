/**
 * Stock as an entity of the change history (`stock`, entity id the product's id, scopes `products:read` /
 * `products:write`; spec "Undo rules" 7).
 *
 * An undo sets each recorded quantity back to its number, whatever happened since (orders committed or restored,
 * other stock writes): under the store's stock lock, so an order's commit runs wholly before or wholly after it and
 * is never lost. An option is found by its id, else by its group and option name (the product's variant groups were
 * replaced since); an option gone since is skipped. A deleted product cannot be restored (`restore_target_missing`).
 *
 * `snapshot` reads every quantity of the product under that lock; an undo records, of those, the quantities it set
 * (`Stock.touched`), as it found them and as it left them. Undoing that undo applies the original change's quantities
 * again (the change history's rule), whatever orders took since.
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option, Schema } from "effect"
import { notFound, recorded } from "./Inventory.ts"
import { ProductStore } from "./ProductStore.ts"
import * as Stock from "./Stock.ts"

const decode = Schema.decodeUnknownSync(Stock.StockValues)

export const entity: Effect.Effect<Entity.Entity<Stock.StockValues>, never, ProductStore> = Effect.map(
  Effect.service(ProductStore),
  (store): Entity.Entity<Stock.StockValues> => ({
    name: "stock",
    readScope: "products:read",
    undoScope: "products:write",
    values: Stock.StockValues,
    recorded: (now, values) => recorded(Stock.touched(decode(now), decode(values))),
    snapshot: (storeId, entityId) =>
      /^[0-9]{1,10}$/.test(entityId) && Ids.isStorableId(Number(entityId))
        ? Effect.map(store.lockStock(storeId, Ids.ProductId.make(Number(entityId))), Option.map(recorded))
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      const current = yield* store.lockStock(storeId, values.product_id)
      if (Option.isNone(current)) return yield* notFound()
      const write = Stock.restore(current.value, values)
      if (!Stock.writesNothing(write)) yield* store.writeStock(storeId, values.product_id, write)
      return String(values.product_id)
    })
  })
)
