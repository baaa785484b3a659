/**
 * The sandbox's stop desks and communes: a believable network without a courier. Each wilaya has desks in up to
 * three of its communes — the one named after the wilaya when there is one (its seat: Oran, Alger Centre), then the
 * next in alphabetical order — so integrators can list desks, pick one and send its id as `stopDeskId`. Ids are
 * stable: `SBXD-<wilaya>-<n>`. Every commune of the CC0 dataset is served at home and by its wilaya's desks
 * (`stopdesk: true`, as a courier lists a commune a desk serves): the sandbox accepts every order the API accepts,
 * a desk order without `stopDeskId` to any commune among them (docs/sandbox.md "Desks").
 */
import type { CourierAdapter } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Communes, NameFolding, Wilayas } from "@tawsil/reference"
import { Effect, Option } from "effect"

/** How many desks a wilaya has at most. */
const DESKS_PER_WILAYA = 3

interface Network {
  readonly desks: ReadonlyArray<CourierAdapter.StopDesk>
  readonly communes: ReadonlyArray<CourierAdapter.CourierCommune>
}

/**
 * Every wilaya's desks and communes, built once per process: a create asks for its wilaya's communes, and must not
 * decode the dataset or sort names again each time.
 */
let networks: ReadonlyMap<number, Network> | undefined

/** The communes of a wilaya with a desk: its seat first, then alphabetical order. */
const deskCommunes = (wilaya: number, communes: ReadonlyArray<Communes.Commune>) => {
  const seat = Option.match(Wilayas.byCode(wilaya), {
    onNone: () => "",
    onSome: (found) => NameFolding.fold(found.nameFr)
  })
  const isSeat = (commune: Communes.Commune) => seat !== "" && NameFolding.fold(commune.name).startsWith(seat)
  return [...communes]
    .sort((a, b) => (isSeat(a) === isSeat(b) ? a.name.localeCompare(b.name, "fr") : isSeat(a) ? -1 : 1))
    .slice(0, DESKS_PER_WILAYA)
}

const networkOf = (wilaya: number, communes: ReadonlyArray<Communes.Commune>): Network => {
  const withDesk = deskCommunes(wilaya, communes)
  return {
    desks: withDesk.map((commune, index) => ({
      id: `SBXD-${wilaya}-${index + 1}`,
      name: `Sandbox ${commune.name}`,
      wilayaCode: commune.wilayaCode,
      communeName: commune.name,
      address: `Cité administrative, ${commune.name}`
    })),
    // Desks serve their whole wilaya (documented leniency): a desk order to any commune is accepted.
    communes: communes.map((commune) => ({ name: commune.name, home: true, stopdesk: true }))
  }
}

const none: Network = { desks: [], communes: [] }

const network = (wilaya: WilayaCode.WilayaCode): Effect.Effect<Network> =>
  networks !== undefined
    ? Effect.succeed(networks.get(wilaya) ?? none)
    : Effect.map(Communes.loadBundled, (all) => {
        const grouped = new Map<number, Array<Communes.Commune>>()
        for (const commune of all) {
          const list = grouped.get(commune.wilayaCode)
          if (list === undefined) grouped.set(commune.wilayaCode, [commune])
          else list.push(commune)
        }
        networks = new Map([...grouped].map(([code, communes]) => [code, networkOf(code, communes)]))
        return networks.get(wilaya) ?? none
      })

export const stopDesks = (wilaya: WilayaCode.WilayaCode): Effect.Effect<ReadonlyArray<CourierAdapter.StopDesk>> =>
  Effect.map(network(wilaya), (found) => found.desks)

export const communes = (wilaya: WilayaCode.WilayaCode): Effect.Effect<ReadonlyArray<CourierAdapter.CourierCommune>> =>
  Effect.map(network(wilaya), (found) => found.communes)
