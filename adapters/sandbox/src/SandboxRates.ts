/**
 * The sandbox's price list: a fee per zone of the destination relative to the origin, as real couriers price per
 * wilaya. Documented in the adapter's README so integrators can assert on it.
 */
import type { WilayaCode } from "@tawsil/domain"

export type Zone = "same_wilaya" | "north" | "highlands" | "south" | "deep_south"

const deepSouth = new Set([1, 11, 33, 37, 49, 50, 52, 53, 54, 56, 58])
const south = new Set([3, 7, 8, 30, 32, 39, 45, 47, 51, 55, 57])
const highlands = new Set([4, 5, 12, 14, 17, 19, 20, 28, 34, 38, 40])

export const zoneOf = (from: WilayaCode.WilayaCode, to: WilayaCode.WilayaCode): Zone =>
  from === to
    ? "same_wilaya"
    : deepSouth.has(to)
      ? "deep_south"
      : south.has(to)
        ? "south"
        : highlands.has(to)
          ? "highlands"
          : "north"

/** Delivery fees in DZD: [home, stopdesk]. Express adds EXPRESS_SURCHARGE to either. */
export const fees: Readonly<Record<Zone, readonly [home: number, stopdesk: number]>> = {
  same_wilaya: [400, 250],
  north: [600, 400],
  highlands: [700, 450],
  south: [900, 650],
  deep_south: [1400, 1000]
}

export const EXPRESS_SURCHARGE = 200
/** A returned parcel costs this share of its delivery fee. */
export const RETURN_SHARE = 0.5
/** The fee on collected cash: 1 % of the amount above 5 000 DZD, rounded to the dinar. */
export const codFee = (codAmount: number) => (codAmount > 5000 ? Math.round(codAmount * 0.01) : 0)
