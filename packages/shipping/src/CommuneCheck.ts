/**
 * The commune a parcel goes to, checked before any courier is asked: the recipient's spelling resolved to a commune
 * of the dataset (`CommuneResolver`, within the order's wilaya), then, for a courier that lists its communes, to the
 * courier's own entry, in its spelling, with whether it delivers there the way the order asks. An unknown or
 * ambiguous commune, or one the courier does not serve, stops the create with suggestions: nothing is sent.
 */
import type { CourierCommune } from "@tawsil/courier/CourierAdapter"
import type { DeliveryType } from "@tawsil/courier/Shipment"
import { CommuneNotServed, type CommuneSuggestion, UnknownCommune } from "@tawsil/courier/ShippingError"
import { CommuneResolver, type Communes, NameFolding } from "@tawsil/reference"
import { Option } from "effect"

export { CommuneNotServed, CommuneSuggestion as Suggestion, UnknownCommune } from "@tawsil/courier/ShippingError"

/** A commune as resolved for a courier: the dataset's, and the courier's own entry when it lists its communes. */
export interface Resolved {
  readonly commune: Communes.Commune
  /** The folded names were equal: nothing was corrected. */
  readonly exact: boolean
  readonly courier?: CourierCommune | undefined
}

export const suggestionsOf = (candidates: ReadonlyArray<CommuneResolver.Candidate>): ReadonlyArray<CommuneSuggestion> =>
  candidates.map(({ commune, score }) => ({
    nameFr: commune.name,
    nameAr: commune.nameAr,
    score: Math.round(score * 100) / 100
  }))

/** The dataset's commune for `name`, or why there is none. */
export const resolve = (
  resolution: CommuneResolver.Resolution<Communes.Commune>,
  wilayaCode: number,
  communeName: string
): Resolved | UnknownCommune =>
  resolution._tag === "Matched"
    ? { commune: resolution.commune, exact: resolution.exact }
    : new UnknownCommune({
        wilayaCode,
        communeName,
        ambiguous: resolution._tag === "Ambiguous",
        suggestions: suggestionsOf(resolution.suggestions)
      })

/**
 * A courier's list by folded name (the first entry of each), kept as long as the list itself: an adapter that keeps
 * its list answers the same array to every create, which is then folded once, not on every create.
 */
const folded = new WeakMap<ReadonlyArray<CourierCommune>, ReadonlyMap<string, CourierCommune>>()
const foldedNames = (listed: ReadonlyArray<CourierCommune>) => {
  let byName = folded.get(listed)
  if (byName === undefined) {
    const map = new Map<string, CourierCommune>()
    for (const entry of listed) {
      const key = NameFolding.fold(entry.name)
      if (!map.has(key)) map.set(key, entry)
    }
    byName = map
    folded.set(listed, byName)
  }
  return byName
}

/** The courier's entry for a dataset commune: the same name, or the one that sounds like it (its French or Arabic). */
export const courierEntry = (
  commune: Communes.Commune,
  listed: ReadonlyArray<CourierCommune>
): Option.Option<CourierCommune> => {
  // Most couriers spell most communes as the dataset does, up to case and accents: no resolver needed for those.
  const byName = foldedNames(listed)
  const same = byName.get(NameFolding.fold(commune.name)) ?? byName.get(NameFolding.fold(commune.nameAr))
  if (same !== undefined) return Option.some(same)
  // The courier's names go through the same resolver as the dataset's: one rule for every spelling.
  const resolver = CommuneResolver.make(
    listed.map((entry) => ({ wilayaCode: commune.wilayaCode, name: entry.name, nameAr: entry.name, entry }))
  )
  for (const name of [commune.name, commune.nameAr]) {
    const found = resolver.resolve(commune.wilayaCode, name)
    if (found._tag === "Matched") return Option.some(found.commune.entry)
  }
  return Option.none()
}

/** The courier's entry, if it serves the commune the way the order asks. */
export const served = (
  courier: string,
  commune: Communes.Commune,
  listed: ReadonlyArray<CourierCommune>,
  deliveryType: DeliveryType | undefined
): CourierCommune | CommuneNotServed =>
  Option.match(courierEntry(commune, listed), {
    onNone: () => new CommuneNotServed({ courier, commune: commune.name }),
    onSome: (entry) =>
      deliveryType === undefined || (deliveryType === "home" ? entry.home : entry.stopdesk)
        ? entry
        : new CommuneNotServed({ courier, commune: commune.name, deliveryType })
  })
