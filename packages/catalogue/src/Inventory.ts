/**
 * The store API's stock: a product's quantities read (`GET /v1/products/{id}/stock`) and set
 * (`POST /v1/products/{id}/stock`), each write recorded in the change history (entity `stock`, entity id the
 * product's id) in the same transaction.
 *
 * A write reads the product's stock under the store's stock lock (`ProductStore.lockStock`, the lock an order's
 * commit or restore takes too), works out what the body comes to (`Stock.plan`: absolute quantities, differences
 * stopping at 0, options by id or by name), writes only what changes and records those quantities before and after.
 * Orders keep committing and restoring stock as they do; neither ever overwrites the other's update.
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { ProductNotFound } from "./ProductError.ts"
import { ProductStore } from "./ProductStore.ts"
import * as Stock from "./Stock.ts"
import * as StockError from "./StockError.ts"

export const ENTITY = "stock"
export const NOT_FOUND = "Product not found"

export class Inventory extends Context.Service<
  Inventory,
  {
    readonly get: (storeId: Ids.StoreId, id: number) => Effect.Effect<Stock.ProductStock, StockError.StockError>
    /** Sets quantities; a body that changes none answers the stock as it is and records nothing. */
    readonly set: (
      writer: ChangeLog.Writer,
      id: number,
      body: unknown
    ) => Effect.Effect<Stock.ProductStock, StockError.StockError>
  }
>()("@tawsil/catalogue/Inventory") {}

export const notFound = () => Effect.fail(StockError.fail(new ProductNotFound({ message: NOT_FOUND })))
const invalid = (message: string) => StockError.fail(new StockError.InvalidStock({ message }))
const decode = BodyFields.decode(Stock.StockBody, ({ text }) => invalid(text))

/** Values as the change history records them. */
export const recorded = Schema.encodeSync(Stock.StockValues)

export const layer: Layer.Layer<Inventory, never, ProductStore | ChangeLog.ChangeLog> = Layer.effect(
  Inventory,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* ProductStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, Stock.LAYOUT)

    /** The product's stock, locked until the transaction ends; `ProductNotFound` when absent. */
    const locked = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: Ids.ProductId) {
      const found = yield* store.lockStock(storeId, id)
      if (Option.isNone(found)) return yield* notFound()
      return found.value
    })

    return Inventory.of({
      get: method("Inventory.get")(function* (storeId, id) {
        if (!Ids.isStorableId(id)) return yield* notFound()
        const found = yield* store.get(storeId, Ids.ProductId.make(id))
        if (Option.isNone(found)) return yield* notFound()
        return Stock.of(found.value)
      }),
      set: method("Inventory.set")(function* (writer, id, body) {
        if (!Ids.isStorableId(id)) return yield* notFound()
        const productId = Ids.ProductId.make(id)
        const current = yield* locked(writer.storeId, productId)
        const plan = Stock.plan(current, yield* decode(body))
        if (plan._tag === "Invalid") return yield* Effect.fail(invalid(plan.message))
        if (Stock.writesNothing(plan.write)) return current
        yield* store.writeStock(writer.storeId, productId, plan.write)
        const after = yield* locked(writer.storeId, productId)
        yield* record(
          writer,
          "update",
          productId,
          Stock.summary(plan.before, plan.after),
          recorded(plan.before),
          recorded(plan.after)
        )
        return after
      })
    })
  })
)
