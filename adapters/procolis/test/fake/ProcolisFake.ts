/**
 * A loopback Procolis: a real HTTP server on 127.0.0.1 (random port) speaking `/api_v1/…` as the research notes
 * document it (couriers.md §1.3) — and only as they document it; nothing here was checked against the live API.
 *
 * - Auth: the `token` and `key` headers must name a known account; otherwise 401 with the API gateway's
 *   `{ fault: { faultstring } }`. No other header (`Authorization`, `id`) is read.
 * - Every read is a POST (`lire`, `tarification`); only `token` is a GET. Any other method on a known path: 405.
 * - `POST add_colis {Colis:[…]}`: each parcel is checked and answered on HTTP 200, its `MessageRetour` "Good" or the
 *   refusal ("Double Tracking", "Wilaya non reconnue", "<Field> obligatoire", …). Fields the API does not name are
 *   refused too ("Champ inconnu"), so that a misspelled field fails a test. `Confrimee` "1" puts the parcel straight
 *   in "Prêt à expédier"; empty, it stays "En Préparation" until `pret`.
 * - `POST lire {Colis:[{Tracking}, …]}` (one parcel or several): the rows of the known parcels (current `Situation` and `DateH_Action`, Algiers
 *   wall time without offset), or the literal `null` when none is known.
 * - `POST tarification`: one row per served wilaya, amounts as strings; `Stopdesk` "0" where there is no desk.
 * - `GET token`: `{ "Statut": "Accès activé" }` for a known account (the gateway's 401 otherwise, as everywhere).
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, a refusal in `MessageRetour`, any JSON, or a refusal that quotes the caller's token.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export interface Account {
  readonly token: string
  readonly key: string
}

export const ACCOUNT: Account = { token: "fake-procolis-token-5d1e8a2c4b7f", key: "fake-procolis-key-93c0e6a1" }

/** Wilayas the fake courier does not serve (deep south). */
export const UNSERVED: ReadonlyArray<number> = [33, 50, 54, 56]
/** Served, but with no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [1, 11, 37, 49, 52, 53, 58]

/** The fake's tariff, in DZD: [home, stop desk (0: none), return]. */
export const tariff = (wilaya: number): readonly [number, number, number] => {
  const home = wilaya === 16 ? 400 : NO_DESK.includes(wilaya) ? 1100 : 700
  return [home, NO_DESK.includes(wilaya) ? 0 : home - 200, 200]
}

/** The `add_colis` fields the API documents (CourierDZ's rules). */
export const FIELDS: ReadonlyArray<string> = [
  "Tracking",
  "TypeLivraison",
  "TypeColis",
  "Confrimee",
  "Client",
  "MobileA",
  "MobileB",
  "Adresse",
  "IDWilaya",
  "Commune",
  "Total",
  "Note",
  "TProduit",
  "id_Externe",
  "Source"
]

const REQUIRED = ["Client", "MobileA", "Adresse", "IDWilaya", "Commune", "Total", "TProduit"]

export type RecordedRequest = FakeCourier.Request

/** Procolis's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own = { readonly kind: "refuse"; readonly message: string } | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  situation: string
  at: string
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Moves a parcel to a situation, stamped with the fake's clock. */
  readonly setSituation: (tracking: string, situation: string) => void
  /** The Algiers wall time the fake stamps situations with, `YYYY-MM-DDTHH:MM:SS.mmm`. */
  readonly setClock: (at: string) => void
}

export class ProcolisFake extends Context.Service<ProcolisFake, Fake>()("@tawsil/adapter-procolis/test/ProcolisFake") {
  static readonly layer = (options: { readonly accounts?: ReadonlyArray<Account> } = {}) =>
    Layer.effect(ProcolisFake, make(options))
}

/** Starts the fake on a random loopback port, accepting `accounts`; it stops when the scope closes. */
export const make = (options: { readonly accounts?: ReadonlyArray<Account> } = {}) =>
  start(options.accounts ?? [ACCOUNT])

const { json } = FakeCourier

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Why `add_colis` refuses a parcel, as `MessageRetour` would say it; `undefined` when it accepts it. */
const refusalOf = (fields: Readonly<Record<string, unknown>>, taken: ReadonlySet<string>): string | undefined => {
  const unknown = Object.keys(fields).find((field) => !FIELDS.includes(field))
  if (unknown !== undefined) return `Champ inconnu : ${unknown}`
  for (const field of REQUIRED) {
    if ((text(fields[field]) ?? "").trim() === "") return `${field} obligatoire`
  }
  if (!("Confrimee" in fields)) return "Confrimee obligatoire"
  if (!["", "0", "1"].includes(text(fields.Confrimee) ?? "?")) return "Confrimee invalide"
  for (const field of ["TypeLivraison", "TypeColis"]) {
    if (field in fields && !["0", "1"].includes(text(fields[field]) ?? "?")) return `${field} invalide`
  }
  const wilaya = text(fields.IDWilaya) ?? ""
  if (!/^\d{2}$/.test(wilaya) || Number(wilaya) < 1 || Number(wilaya) > 58) return "Wilaya non reconnue"
  if (UNSERVED.includes(Number(wilaya))) return "Wilaya non desservie"
  for (const field of ["MobileA", "MobileB"]) {
    const phone = text(fields[field])
    if (phone !== undefined && phone !== "" && !/^0\d{8,9}$/.test(phone)) return `${field} invalide`
  }
  if (!/^\d+(\.\d+)?$/.test(text(fields.Total) ?? "")) return "Total invalide"
  const tracking = text(fields.Tracking) ?? ""
  if (tracking !== "" && taken.has(tracking)) return "Double Tracking"
  return undefined
}

const trackingsOf = (body: unknown): ReadonlyArray<string> | undefined =>
  isRecord(body) && Array.isArray(body.Colis)
    ? body.Colis.map((row) => (isRecord(row) ? (text(row.Tracking) ?? "") : ""))
    : undefined

const ROUTES: Readonly<Record<string, string>> = {
  "/api_v1/token": "GET",
  "/api_v1/add_colis": "POST",
  "/api_v1/pret": "POST",
  "/api_v1/lire": "POST",
  "/api_v1/tarification": "POST"
}

const start = (accounts: ReadonlyArray<Account>) =>
  Effect.gen(function* () {
    const parcels = new Map<string, Parcel>()
    let clock = "2026-04-18T19:45:06.250"
    let issued = 0

    /** Procolis's own misbehaviours, and its API gateway's 429. */
    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "rateLimited":
          json(
            response,
            429,
            { fault: { faultstring: "Rate limit quota violation" } },
            misbehaviour.retryAfter === undefined ? {} : { "retry-after": misbehaviour.retryAfter }
          )
          return true
        case "refuse":
          json(response, 200, { Colis: [{ Tracking: "", MessageRetour: misbehaviour.message }] })
          return true
        case "echoToken":
          json(response, 400, { message: `Jeton ${request.headers.token ?? ""} non autorisé pour cette ressource` })
          return true
        default:
          return false
      }
    }

    const row = (parcel: Parcel) => ({
      Tracking: parcel.tracking,
      IDSituation: 1,
      Situation: parcel.situation,
      DateH_Action: parcel.at,
      Client: parcel.fields.Client,
      MobileA: parcel.fields.MobileA,
      IDWilaya: parcel.fields.IDWilaya,
      Commune: parcel.fields.Commune,
      Total: parcel.fields.Total,
      TypeLivraison: parcel.fields.TypeLivraison ?? "0",
      id_Externe: parcel.fields.id_Externe ?? ""
    })

    const route = (path: string, body: unknown, response: Http.ServerResponse) => {
      switch (path) {
        case "/api_v1/token":
          return json(response, 200, { Statut: "Accès activé" })
        case "/api_v1/add_colis": {
          if (!isRecord(body) || !Array.isArray(body.Colis)) return json(response, 400, { message: "Colis attendu" })
          const taken = new Set(parcels.keys())
          const results = body.Colis.map((entry: unknown) => {
            const fields = isRecord(entry) ? entry : {}
            const refusal = refusalOf(fields, taken)
            if (refusal !== undefined) return { ...fields, MessageRetour: refusal }
            issued += 1
            const tracking = text(fields.Tracking) || `ZRFAKE${String(issued).padStart(8, "0")}`
            taken.add(tracking)
            parcels.set(tracking, {
              tracking,
              fields,
              situation: text(fields.Confrimee) === "1" ? "Prêt à expédier" : "En Préparation",
              at: clock
            })
            return { ...fields, Tracking: tracking, MessageRetour: "Good" }
          })
          return json(response, 200, { Colis: results })
        }
        case "/api_v1/pret": {
          const trackings = trackingsOf(body)
          if (trackings === undefined) return json(response, 400, { message: "Colis attendu" })
          return json(response, 200, {
            Colis: trackings.map((tracking) => {
              const parcel = parcels.get(tracking)
              if (parcel === undefined) return { Tracking: tracking, MessageRetour: "Tracking introuvable" }
              if (parcel.situation === "En Préparation") {
                parcel.situation = "Prêt à expédier"
                parcel.at = clock
              }
              return { Tracking: tracking, MessageRetour: "Good" }
            })
          })
        }
        case "/api_v1/lire": {
          const trackings = trackingsOf(body)
          if (trackings === undefined) return json(response, 400, { message: "Colis attendu" })
          const known = trackings.flatMap((tracking) => {
            const parcel = parcels.get(tracking)
            return parcel === undefined ? [] : [row(parcel)]
          })
          return json(response, 200, known.length === 0 ? null : { Colis: known })
        }
        case "/api_v1/tarification":
          return json(
            response,
            200,
            Array.from({ length: 58 }, (_, i) => i + 1)
              .filter((wilaya) => !UNSERVED.includes(wilaya))
              .map((wilaya) => {
                const [home, desk, back] = tariff(wilaya)
                return {
                  IDWilaya: String(wilaya).padStart(2, "0"),
                  Wilaya: `Wilaya ${wilaya}`,
                  Domicile: String(home),
                  Stopdesk: String(desk),
                  Annuler: String(back)
                }
              })
          )
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ message }),
      misbehave,
      handle: ({ body, headers, method, path }, response) => {
        if (!accounts.some((account) => account.token === headers.token && account.key === headers.key)) {
          return json(response, 401, {
            fault: {
              faultstring: "Invalid ApiKey for given resource",
              detail: { errorcode: "oauth.v2.InvalidApiKeyForGivenResource" }
            }
          })
        }
        const expected = ROUTES[path]
        if (expected === undefined) return json(response, 404, { message: "Ressource introuvable" })
        if (method !== expected) return json(response, 405, { message: "Méthode non autorisée" })
        return route(path, body, response)
      }
    })
    const procolis: Fake = {
      ...fake,
      parcels,
      setSituation: (tracking, situation) => {
        const parcel = parcels.get(tracking)
        if (parcel !== undefined) {
          parcel.situation = situation
          parcel.at = clock
        }
      },
      setClock: (at) => {
        clock = at
      }
    }
    return procolis
  })
