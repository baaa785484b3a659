/**
 * The sandbox's stop desks and communes: a believable network without a courier. Every commune of the CC0 dataset
 * is served at home; each wilaya has desks in up to three of its communes — the one named after the wilaya when
 * there is one (its seat: Oran, Alger Centre), then the next in alphabetical order — so integrators can list desks, pick one and send
 * its id as `stopDeskId`. Ids are stable: `SBXD-<wilaya>-<n>`.
 */
import type { CourierAdapter } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Communes, NameFolding, Wilayas } from "@tawsil/reference"
import { Effect, Option } from "effect"

/** How many desks a wilaya has at most. */
const DESKS_PER_WILAYA = 3

const communesOf = (wilaya: WilayaCode.WilayaCode) =>
  Effect.map(Communes.loadBundled, (all) => all.filter((commune) => commune.wilayaCode === wilaya))

/** The communes of a wilaya with a desk: its seat first, then alphabetical order. */
const deskCommunes = (wilaya: WilayaCode.WilayaCode, communes: ReadonlyArray<Communes.Commune>) => {
  const seat = Option.match(Wilayas.byCode(wilaya), {
    onNone: () => "",
    onSome: (found) => NameFolding.fold(found.nameFr)
  })
  return [...communes]
    .sort((a, b) => {
      const aSeat = seat !== "" && NameFolding.fold(a.name).startsWith(seat)
      const bSeat = seat !== "" && NameFolding.fold(b.name).startsWith(seat)
      return aSeat === bSeat ? a.name.localeCompare(b.name, "fr") : aSeat ? -1 : 1
    })
    .slice(0, DESKS_PER_WILAYA)
}

export const stopDesks = (wilaya: WilayaCode.WilayaCode): Effect.Effect<ReadonlyArray<CourierAdapter.StopDesk>> =>
  Effect.map(communesOf(wilaya), (communes) =>
    deskCommunes(wilaya, communes).map((commune, index) => ({
      id: `SBXD-${wilaya}-${index + 1}`,
      name: `Sandbox ${commune.name}`,
      wilayaCode: wilaya,
      communeName: commune.name,
      address: `Cité administrative, ${commune.name}`
    }))
  )

export const communes = (wilaya: WilayaCode.WilayaCode): Effect.Effect<ReadonlyArray<CourierAdapter.CourierCommune>> =>
  Effect.map(communesOf(wilaya), (all) => {
    const withDesk = new Set(deskCommunes(wilaya, all))
    return all.map((commune) => ({ name: commune.name, home: true, stopdesk: withDesk.has(commune) }))
  })
