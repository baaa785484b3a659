/**
 * Random valid writes of `shipping.rates` and `shipping.settings` through HTTP, and what a client reads of both, for
 * the change history's property (`../Changes.db.test.ts`: any writes, undone newest first, restore the exact start).
 *
 * ```ts
 * const { dashboard } = yield* dashboardStore()
 * yield* ShippingWrites.seed(dashboard)                  // once, before the start is read
 * const before = yield* ShippingWrites.stateOf(dashboard)
 * for (const value of drawn) yield* ShippingWrites.write(dashboard, value)   // value: fc.sample(ShippingWrites.arbitrary)
 * // …undo newest first…
 * assert.deepStrictEqual(yield* ShippingWrites.stateOf(dashboard), before)
 * ```
 *
 * A courier rate sync's undo keeps the rates it added (spec "Undo rules" 7), so an exact restore needs the syncs to
 * add only rates an earlier write of the run removed (that write's undo puts them back): `seed` prices wilayas 1 to
 * 6 and sets the origin wilaya, and the drawn syncs (sandbox, no credentials) price only those six. Rate writes touch
 * wilayas 1 to 12; settings writes keep an origin wilaya. A write may be refused (none is here by design): the
 * property only undoes what the history lists.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { Client } from "../ConfigHarness.ts"

export type ShippingWrite =
  | { readonly kind: "rates"; readonly body: { readonly rates: ReadonlyArray<Record<string, unknown>> } }
  | { readonly kind: "settings"; readonly body: Record<string, unknown> }
  | { readonly kind: "sync"; readonly body: Record<string, unknown> }

/** The wilayas `seed` prices: the only ones a drawn sync touches. */
export const SEEDED: ReadonlyArray<number> = [1, 2, 3, 4, 5, 6]

const price = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 2500 }).map((n) => n * 10)
)

const rate = fc.record(
  {
    wilaya_id: fc.integer({ min: 1, max: 12 }),
    home_price: price,
    desk_price: price
  },
  { requiredKeys: ["wilaya_id"] }
)

const ratesWrite = fc
  .uniqueArray(rate, { minLength: 1, maxLength: 4, selector: (item) => item.wilaya_id })
  .map((rates): ShippingWrite => ({ kind: "rates", body: { rates } }))

const settingsWrite = fc
  .record(
    {
      origin_wilaya: fc.integer({ min: 1, max: 58 }),
      default_courier: fc.constantFrom(null, "sandbox", "yalidine", "dhd"),
      free_shipping_threshold: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 50_000 })),
      default_delivery_type: fc.constantFrom("home", "desk"),
      cod_fee_payer: fc.constantFrom("merchant", "customer"),
      cod_fee_percent: fc.integer({ min: 0, max: 500 }).map((n) => n / 100)
    },
    { requiredKeys: [] }
  )
  .filter((body) => Object.keys(body).length > 0)
  .map((body): ShippingWrite => ({ kind: "settings", body }))

const syncWrite = fc
  .record({
    wilaya_ids: fc.subarray([...SEEDED], { minLength: 1 }),
    tier: fc.constantFrom(undefined, "economic", "express")
  })
  .map(
    ({ wilaya_ids, tier }): ShippingWrite => ({
      kind: "sync",
      body: { courier: "sandbox", wilaya_ids, ...(tier === undefined ? {} : { tier }) }
    })
  )

/** One random valid write of either entity (a sync is a `shipping.rates` write). */
export const arbitrary: fc.Arbitrary<ShippingWrite> = fc.oneof(
  { weight: 3, arbitrary: ratesWrite },
  { weight: 2, arbitrary: settingsWrite },
  { weight: 1, arbitrary: syncWrite }
)

/** Prices wilayas 1 to 6 and sets the origin wilaya, so that a drawn sync runs and its undo restores exactly. */
export const seed = (client: Client) =>
  Effect.gen(function* () {
    yield* client.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
    yield* client.write("POST", "/v1/shipping/rates", {
      rates: SEEDED.map((wilaya_id) => ({ wilaya_id, home_price: 500 + wilaya_id, desk_price: 300 + wilaya_id }))
    })
  })

/** Makes the write through HTTP; answers the store API's answer. */
export const write = (client: Client, value: ShippingWrite) => {
  switch (value.kind) {
    case "rates":
      return client.write("POST", "/v1/shipping/rates", value.body)
    case "settings":
      return client.write("PATCH", "/v1/shipping/settings", value.body)
    case "sync":
      return client.write("POST", "/v1/shipping/rates/sync", value.body)
  }
}

/** What a client reads of both entities, without the times every write moves. */
export const stateOf = (client: Client) =>
  Effect.gen(function* () {
    const rates = (yield* client.get("/v1/shipping/rates")).body.data.items.map(
      ({ updated_at: _, ...item }: Record<string, unknown>) => item
    )
    const { updated_at: _, ...settings } = (yield* client.get("/v1/shipping/settings")).body.data
    return { rates, settings }
  })
