/**
 * A loopback E-COM Delivery: a real HTTP server on 127.0.0.1 (random port) speaking `/Api_v1/…` as E-COM's API page
 * and the research notes document it (couriers.md §1.8) — and, where they are silent, as this fake decides, each
 * decision listed under "Unverified" in the README; nothing here was checked against the live API.
 *
 * - Auth: the `Key` and `Token` headers must name a known account; otherwise 401 `{ message }`. No other header
 *   (`Authorization`, `X-API-Key`) is read.
 * - Paths are matched without regard to case (the page writes both `/Api_v1` and `/API_v1`); a known path with the
 *   wrong method is 405.
 * - `POST Colis {Colis:[…]}`: every parcel is checked — fields the API does not name ("Champ inconnu"), required
 *   fields, `Echange`/`Stopdesk` as 0 or 1, the wilaya (1–58, served), the commune (for the wilayas whose communes the
 *   fake knows), the phones (national form), the stop desk (`CodeStopdesk`, required for `Stopdesk` 1) — and refused
 *   with 400 `{ message }`; else each is created "En Préparation" / "EnCours" and answered in `Colis`.
 * - `PUT aExpédier {Colis:[{Tracking}]}`: "En Préparation" → "En Traitement"; an unknown tracking is 400.
 * - `GET Colis/Tracking/{t}`: the list shape with the parcel's row, or an empty `Colis` when it is not known.
 * - `GET Tarification`: one row per wilaya; some not served, some without a desk.
 * - `GET Test`: the account's shop (`Fournisseur`) and city (`Ville`), as E-COM's connection test answers.
 * - `POST Colis/Liste {Colis:[{Tracking}…]}` (at most 100, else 400): the list shape with the rows of the numbers it
 *   knows, {@link LIST_PAGE_SIZE} rows a page, the page picked by the `Page` header (1 when absent).
 * - `PUT Supprimer {Colis:[{Tracking}…]}`: deletes parcels that are still "En Préparation" or "En Traitement" (not yet
 *   collected), all or nothing; an unknown tracking, or a parcel past that, is refused with 400 `{ message }` (the
 *   words are the fake's: E-COM documents no refusal).
 *
 * Every answer carries the account's `Quota`. Every request is recorded; `misbehaveNext` makes the next request
 * (optionally for one path) hang, reset, answer 5xx, HTML, 429, a refusal, any JSON, or a refusal quoting the token.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export interface Account {
  readonly key: string
  readonly token: string
}

export const ACCOUNT: Account = { key: "fake-ecom-key-4c1d9e0a7b3f", token: "fake-ecom-token-8e2f5a61-0c9d" }

/** Wilayas the fake courier does not serve (deep south). */
export const UNSERVED: ReadonlyArray<number> = [33, 50, 54, 56]
/** Served to the door, but with no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [1, 11, 37, 49, 52, 53, 58]

/** The fake's tariff, in DZD: [home, stop desk, return]. */
export const tariff = (wilaya: number): readonly [number, number, number] => {
  const home = wilaya === 16 ? 450 : NO_DESK.includes(wilaya) ? 1200 : 750
  return [home, home - 250, 200]
}

/** The communes the fake knows, for the wilayas it checks them in; any commune is taken elsewhere. */
export const COMMUNES: Readonly<Record<number, ReadonlyArray<string>>> = {
  9: ["Blida", "Boufarik", "Ouled Yaich"],
  16: ["Alger Centre", "Bab Ezzouar", "Bir Mourad Raïs", "Hydra", "Kouba"],
  31: ["Oran", "Bir El Djir", "Es Senia"]
}

/** The stop desks, by code, and the wilaya each is in. */
export const DESKS: Readonly<Record<string, number>> = { "16A": 16, "16B": 16, "31A": 31, "9A": 9 }

/** How many rows a page of `Colis/Liste` holds in the fake (E-COM documents pages, not their size). */
export const LIST_PAGE_SIZE = 50

/** Where a parcel can still be deleted, in the fake: before it is collected. */
export const DELETABLE: ReadonlyArray<string> = ["En Préparation", "En Traitement"]

/** The `Colis` fields E-COM's page documents. */
export const FIELDS: ReadonlyArray<string> = [
  "Echange",
  "Stopdesk",
  "NomComplet",
  "Mobile_1",
  "Mobile_2",
  "Adresse",
  "Wilaya",
  "Commune",
  "Article",
  "Ref_Article",
  "Total",
  "ID_Externe",
  "CodeStopdesk",
  "NoteFournisseur",
  "Source"
]

const REQUIRED = ["NomComplet", "Mobile_1", "Adresse", "Wilaya", "Commune", "Article", "Total"]

/** E-COM's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own = { readonly kind: "refuse"; readonly message: string } | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  avancement: string
  situation: string
  at: string
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Moves a parcel: its `Avancement`, its `Situation`, or both, stamped with the fake's clock. */
  readonly setState: (tracking: string, state: { readonly avancement?: string; readonly situation?: string }) => void
  /** The Algiers wall time the fake stamps changes with, `dd/mm/yyyy hh:mm:ss`. */
  readonly setClock: (at: string) => void
  /** Puts a home parcel to Alger Centre under `tracking`, at `avancement`, as if created earlier (for failure rows). */
  readonly seedParcel: (tracking: string, avancement: string) => void
}

export class EcomDeliveryFake extends Context.Service<EcomDeliveryFake, Fake>()(
  "@tawsil/adapter-ecomdelivery/test/EcomDeliveryFake"
) {
  static readonly layer = (options: { readonly accounts?: ReadonlyArray<Account> } = {}) =>
    Layer.effect(EcomDeliveryFake, make(options))
}

/** Starts the fake on a random loopback port (or `port`), accepting `accounts`; it stops when the scope closes. */
export const make = (options: { readonly accounts?: ReadonlyArray<Account>; readonly port?: number } = {}) =>
  start(options.accounts ?? [ACCOUNT], options.port)

const { json } = FakeCourier

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const fold = (name: string) => name.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().trim()

/** Why `POST Colis` refuses a parcel, in E-COM's words; `undefined` when it accepts it. */
export const refusalOf = (fields: Readonly<Record<string, unknown>>): string | undefined => {
  const unknown = Object.keys(fields).find((field) => !FIELDS.includes(field))
  if (unknown !== undefined) return `Champ inconnu : ${unknown}`
  for (const field of REQUIRED) {
    if ((text(fields[field]) ?? "").trim() === "") return `${field} obligatoire`
  }
  for (const field of ["Echange", "Stopdesk"]) {
    if (fields[field] !== 0 && fields[field] !== 1) return `${field} doit être 0 ou 1`
  }
  const wilaya = text(fields.Wilaya) ?? ""
  if (!/^\d{1,2}$/.test(wilaya) || Number(wilaya) < 1 || Number(wilaya) > 58) return "Wilaya non reconnue"
  if (UNSERVED.includes(Number(wilaya))) return "Wilaya non desservie"
  const communes = COMMUNES[Number(wilaya)]
  const commune = fold(text(fields.Commune) ?? "")
  if (communes !== undefined && !communes.some((known) => fold(known) === commune)) return "Commune non reconnue"
  for (const field of ["Mobile_1", "Mobile_2"]) {
    const phone = text(fields[field])
    if (phone !== undefined && phone !== "" && !/^0[5-7]\d{8}$/.test(phone)) return `${field} invalide`
  }
  if (!/^\d+$/.test(text(fields.Total) ?? "")) return "Total invalide"
  if (fields.Stopdesk === 1) {
    const desk = text(fields.CodeStopdesk) ?? ""
    if (desk === "") return "CodeStopdesk obligatoire pour une livraison au bureau"
    if (DESKS[desk] !== Number(wilaya)) return "CodeStopdesk non reconnu"
  }
  return undefined
}

const trackingsOf = (body: unknown): ReadonlyArray<string> | undefined =>
  isRecord(body) && Array.isArray(body.Colis)
    ? body.Colis.map((row) => (isRecord(row) ? (text(row.Tracking) ?? "") : ""))
    : undefined

const TRACKING_PATH = /^\/api_v1\/colis\/tracking\/([^/]+)$/i

/** The documented paths (lower case) and their methods. */
const ROUTES: Readonly<Record<string, string>> = {
  "/api_v1/test": "GET",
  "/api_v1/colis": "POST",
  "/api_v1/aexpédier": "PUT",
  "/api_v1/supprimer": "PUT",
  "/api_v1/colis/liste": "POST",
  "/api_v1/tarification": "GET"
}

const start = (accounts: ReadonlyArray<Account>, port: number | undefined) =>
  Effect.gen(function* () {
    const parcels = new Map<string, Parcel>()
    let clock = "18/04/2026 19:45:06"
    let issued = 0
    let used = 0

    const quota = () => ({
      Consommer_1min: used,
      Consommer_1h: used,
      Consommer_24h: used,
      Limite_1min: 40,
      Limite_1h: 1500,
      Limite_24h: 15000
    })

    /** E-COM's own misbehaviours, and its 429 (documented as « Trop de demandes »). */
    const misbehave = (misbehaviour: Misbehaviour, request: FakeCourier.Request, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "rateLimited":
          json(
            response,
            429,
            { message: "Trop de demandes" },
            misbehaviour.retryAfter === undefined ? {} : { "retry-after": misbehaviour.retryAfter }
          )
          return true
        case "refuse":
          json(response, 400, { message: misbehaviour.message })
          return true
        case "echoToken":
          json(response, 400, { message: `Token ${request.headers.token ?? ""} non autorisé pour ce colis` })
          return true
        default:
          return false
      }
    }

    const row = (parcel: Parcel) => ({
      Date_Création_D: ` ${parcel.at}`,
      Tracking: parcel.tracking,
      ID_Externe: parcel.fields.ID_Externe ?? "",
      label: `SiteWeb/SYSTEM2025_WEB/FR/Fournisseur_A/Page.awp?P1=${parcel.tracking}&P2=0b6f7d1e-5a4c-4e21-9d8b-3f2a1c0e9b7d`,
      Stopdesk: parcel.fields.Stopdesk,
      IDWilaya: Number(parcel.fields.Wilaya),
      Echange: parcel.fields.Echange,
      Total: Number(parcel.fields.Total),
      NomComplet: parcel.fields.NomComplet,
      Mobile_1: parcel.fields.Mobile_1,
      Adresse: parcel.fields.Adresse,
      Commune_Bureau: parcel.fields.Commune,
      Article: parcel.fields.Article,
      NoteFournisseur: parcel.fields.NoteFournisseur ?? "",
      Date_Action_D: parcel.at,
      Avancement: parcel.avancement,
      Situation: parcel.situation,
      Commentaire: "",
      Date_Livrée: parcel.avancement === "Récupérer" ? parcel.at : null
    })

    /** `path` decoded: tracking numbers keep their case, the rest is matched in lower case. */
    const route = (
      method: string,
      decoded: string,
      body: unknown,
      headers: Readonly<Record<string, string>>,
      response: Http.ServerResponse
    ) => {
      const tracked = TRACKING_PATH.exec(decoded)
      if (tracked !== null) {
        if (method !== "GET") return json(response, 405, { message: "Méthode non autorisée" })
        const parcel = parcels.get(tracked[1] ?? "")
        const rows = parcel === undefined ? [] : [row(parcel)]
        return json(response, 200, {
          Quota: quota(),
          Nb_Colis: rows.length,
          Nb_Page: rows.length,
          Current_Page: 1,
          Colis: rows
        })
      }
      const path = decoded.toLowerCase()
      const expected = ROUTES[path]
      if (expected === undefined) return json(response, 404, { message: "Ressource introuvable" })
      if (method !== expected) return json(response, 405, { message: "Méthode non autorisée" })
      switch (path) {
        case "/api_v1/test":
          return json(response, 200, { Quota: quota(), Fournisseur: "Boutique Tawsil", Ville: 16 })
        case "/api_v1/colis": {
          if (!isRecord(body) || !Array.isArray(body.Colis) || body.Colis.length === 0) {
            return json(response, 400, { message: "Colis attendu" })
          }
          const entries = body.Colis.map((entry: unknown) => (isRecord(entry) ? entry : {}))
          for (const fields of entries) {
            const refusal = refusalOf(fields)
            if (refusal !== undefined) return json(response, 400, { message: refusal })
          }
          const created = entries.map((fields) => {
            issued += 1
            const tracking = `EC${String(issued).padStart(6, "0")}`
            const parcel: Parcel = { tracking, fields, avancement: "En Préparation", situation: "EnCours", at: clock }
            parcels.set(tracking, parcel)
            return row(parcel)
          })
          return json(response, 200, { Quota: quota(), Colis: created })
        }
        case "/api_v1/aexpédier": {
          const trackings = trackingsOf(body)
          if (trackings === undefined || trackings.length === 0) {
            return json(response, 400, { message: "Colis attendu" })
          }
          const unknown = trackings.find((tracking) => !parcels.has(tracking))
          if (unknown !== undefined) return json(response, 400, { message: `Tracking introuvable : ${unknown}` })
          for (const tracking of trackings) {
            const parcel = parcels.get(tracking)!
            if (parcel.avancement === "En Préparation") {
              parcel.avancement = "En Traitement"
              parcel.at = clock
            }
          }
          return json(response, 200, { Quota: quota(), Colis: trackings.map((tracking) => ({ Tracking: tracking })) })
        }
        case "/api_v1/supprimer": {
          const trackings = trackingsOf(body)
          if (trackings === undefined || trackings.length === 0) {
            return json(response, 400, { message: "Colis attendu" })
          }
          for (const tracking of trackings) {
            const parcel = parcels.get(tracking)
            if (parcel === undefined) return json(response, 400, { message: `Tracking introuvable : ${tracking}` })
            if (!DELETABLE.includes(parcel.avancement)) {
              return json(response, 400, {
                message: `Suppression impossible : le colis ${tracking} est ${parcel.avancement}`
              })
            }
          }
          for (const tracking of trackings) parcels.delete(tracking)
          return json(response, 200, { Quota: quota(), Colis: trackings.map((tracking) => ({ Tracking: tracking })) })
        }
        case "/api_v1/colis/liste": {
          const trackings = trackingsOf(body)
          if (trackings === undefined || trackings.length === 0) {
            return json(response, 400, { message: "Colis attendu" })
          }
          if (trackings.length > 100) return json(response, 400, { message: "Maximum 100 colis" })
          const page = headers.page === undefined ? 1 : Number(headers.page)
          if (!Number.isInteger(page) || page < 1) return json(response, 400, { message: "Page invalide" })
          const rows = [...new Set(trackings)].flatMap((tracking) => {
            const parcel = parcels.get(tracking)
            return parcel === undefined ? [] : [row(parcel)]
          })
          return json(response, 200, {
            Quota: quota(),
            Nb_Colis: rows.length,
            Nb_Page: Math.max(1, Math.ceil(rows.length / LIST_PAGE_SIZE)),
            Current_Page: page,
            Colis: rows.slice((page - 1) * LIST_PAGE_SIZE, page * LIST_PAGE_SIZE)
          })
        }
        case "/api_v1/tarification":
          return json(response, 200, {
            Quota: quota(),
            Wilaya: Array.from({ length: 58 }, (_, i) => i + 1).map((wilaya) => {
              const [home, desk, back] = tariff(wilaya)
              const served = !UNSERVED.includes(wilaya)
              return {
                ID: wilaya,
                Libellé: `Wilaya ${wilaya}`,
                Domicle: served,
                Stopdesk: served && !NO_DESK.includes(wilaya),
                Tarfi_Domicle: home,
                Tarfi_Stopdesk: desk,
                Tarfi_Annuler: back
              }
            })
          })
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      port,
      errorBody: (_status, message) => ({ message }),
      misbehave,
      handle: ({ body, headers, method, path }, response) => {
        if (!accounts.some((account) => account.key === headers.key && account.token === headers.token)) {
          return json(response, 401, { message: "Key ou Token invalide" })
        }
        used += 1
        return route(method, decodeURIComponent(path), body, headers, response)
      }
    })
    const ecom: Fake = {
      ...fake,
      parcels,
      setState: (tracking, state) => {
        const parcel = parcels.get(tracking)
        if (parcel === undefined) return
        if (state.avancement !== undefined) parcel.avancement = state.avancement
        if (state.situation !== undefined) parcel.situation = state.situation
        parcel.at = clock
      },
      setClock: (at) => {
        clock = at
      },
      seedParcel: (tracking, avancement) => {
        parcels.set(tracking, {
          tracking,
          fields: {
            Echange: 0,
            Stopdesk: 0,
            NomComplet: "Amina Benali",
            Mobile_1: "0555123456",
            Adresse: "Rue Didouche Mourad",
            Wilaya: "16",
            Commune: "Alger Centre",
            Article: "1x robe",
            Total: "4500"
          },
          avancement,
          situation: "EnCours",
          at: clock
        })
      }
    }
    return ecom
  })
