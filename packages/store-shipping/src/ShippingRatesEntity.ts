/**
 * Shipping rates as an entity of the change history (`shipping.rates`, entity id `rates`, scopes `shipping:read` /
 * `shipping:write`; spec "Undo rules" 7 and 8).
 *
 * An undo writes recorded prices back: the wilayas in `rates` get their prices again, the ones in `absent` lose
 * theirs. So undoing a rates write puts the prices it replaced back and removes the rates of wilayas that had none,
 * and undoing a courier rate sync (whose `before` lists only the prices it overwrote) keeps the rates it added. An
 * undo records the wilayas it wrote (`Rate.touched`), before and after; undoing it applies the original change again
 * (the change history's rule), and after a sync's undo there is nothing to apply (a sync records no `after`: 422
 * `nothing_to_restore`).
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option, Schema } from "effect"
import { LAYOUT, pricesOf, RatesValues, snapshotOf, touched } from "./Rate.ts"
import { ENTITY, ENTITY_ID } from "./ShippingRates.ts"
import { ShippingStore } from "./ShippingStore.ts"

const decode = Schema.decodeUnknownSync(RatesValues)

export const entity: Effect.Effect<Entity.Entity<RatesValues>, never, ShippingStore> = Effect.map(
  Effect.service(ShippingStore),
  (store): Entity.Entity<RatesValues> => ({
    name: ENTITY,
    readScope: "shipping:read",
    undoScope: "shipping:write",
    values: RatesValues,
    layout: LAYOUT,
    recorded: (now, values) => touched(decode(now), decode(values)),
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID
        ? Effect.map(store.rates(storeId), (rates) => Option.some<unknown>(snapshotOf(rates)))
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      yield* store.lock(storeId)
      yield* store.putRates(storeId, pricesOf(values))
      return ENTITY_ID
    })
  })
)
