/**
 * Order numbers (spec "Order number"): `ORD-{store_id}-{YYYYMMDD}-{8 uppercase hex}` for orders made through the
 * API, the day being the order's day in Algiers, and `LP-{8 uppercase hex}` for landing-page orders. Numbers are
 * unique across stores; the 8 hex digits are random, so a store writing them retries with fresh digits on the rare
 * collision. Orders from before 2026-06-02 have 4 hex digits, so the parser takes both lengths.
 */
import { AlgiersTime, type Ids } from "@tawsil/domain"
import { type DateTime, Effect, Random } from "effect"

/** 8 uppercase hex digits from `Random`. */
export const suffix: Effect.Effect<string> = Effect.map(Random.nextIntBetween(0, 0xffffffff), (n) =>
  n.toString(16).toUpperCase().padStart(8, "0")
)

/** The number of an API order of `store` made at `at` (its day in Algiers) with the given hex suffix. */
export const format = (store: Ids.StoreId, at: DateTime.DateTime, hex: string): string =>
  `ORD-${store}-${AlgiersTime.day(at)}-${hex}`

/** A fresh number: `format` with a random suffix. */
export const make = (store: Ids.StoreId, at: DateTime.DateTime): Effect.Effect<string> =>
  Effect.map(suffix, (hex) => format(store, at, hex))

export type Parsed =
  | {
      readonly _tag: "Api"
      readonly storeId: number
      /** `YYYYMMDD`, the order's day in Algiers. */
      readonly day: string
      readonly suffix: string
    }
  | { readonly _tag: "LandingPage"; readonly suffix: string }

const API = /^ORD-([1-9][0-9]{0,9})-([0-9]{4})(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])-([0-9A-F]{8}|[0-9A-F]{4})$/
const LANDING_PAGE = /^LP-([0-9A-F]{8})$/

/** Reads an order number of either kind; `undefined` when it is neither. */
export const parse = (text: string): Parsed | undefined => {
  const api = API.exec(text)
  if (api !== null) {
    const [, store, year, month, day, hex] = api as unknown as readonly [string, string, string, string, string, string]
    return { _tag: "Api", storeId: Number(store), day: `${year}${month}${day}`, suffix: hex }
  }
  const landingPage = LANDING_PAGE.exec(text)
  return landingPage === null ? undefined : { _tag: "LandingPage", suffix: landingPage[1]! }
}
