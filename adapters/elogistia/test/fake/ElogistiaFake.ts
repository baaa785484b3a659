/**
 * A loopback Elogistia: a real HTTP server on 127.0.0.1 (random port) speaking `https://api.elogistia.com/…/` as the
 * research notes and the integrations the README lists document it — and only so; nothing here was checked against
 * the live API.
 *
 * - Auth: the API key in the query string, `apiKey` on parcel operations and `key` on catalogue reads; a missing,
 *   unknown or misplaced key (the other parameter, a header) is answered 401 `{ success: false, Message }`.
 * - Paths end with `/`; without it, or on another method, 404 / 405.
 * - `POST insertCommande/`: every field in the query string, none in a body. Refusals come on HTTP 200 as
 *   `{ Message }`, in the courier's words: a missing field, a field it does not name, a wilaya it does not serve, a
 *   commune it does not know in that wilaya, a phone or code in another form, a desk where there is none. Success is
 *   `{ success: "<tracking>", "Frais de livraison", "Poids", "Frais poids en plus" }`; the parcel starts
 *   "À expédiée", after a log line without status ("Réception commande").
 * - `GET getTracking/?tracking=`: `{ body: [rows, newest first], itemCount }` — `Statut`, `Date` (Algiers wall
 *   time), `Tracking`, `logID`, `logtext`; an unknown parcel gives an empty body.
 * - `GET getShippingCost/`: `{ body: [{ wilayaID, wilayaLabel, home, stopdesk }], itemCount }`, amounts as numbers.
 * - `GET printBordereau_10x15/?tracking=`: the PDF; an unknown parcel, `{ Message }` on HTTP 200.
 * - `GET getManyTracking/?tracking=a,b`: a bare list of `{ tracking, count, validation, historique }`, the history
 *   oldest first; an unknown number is absent.
 * - `GET deleteOrder/?tracking=`: the bare string "la commande a été supprimée avec succès", and the parcel is gone;
 *   a parcel past pickup is refused in words (`{ Message }` on 200, words assumed), an unknown one too.
 * - `GET getMunicipalities/?wilaya=`: `{ body: [{ Id, name, wilaya }] }`; `GET getAgences/?type=2`:
 *   `{ body: [{ "Nom du bureau", Commune, "Code wilaya", Adresse }] }`, every wilaya's desks at once.
 *
 * Every request is recorded; `misbehaveNext` plays the standard misbehaviours and Elogistia's own: a refusal on 200,
 * a refused key inside a 200, a refusal quoting the request URL (key included), a 401 quoting the key, a redirect
 * whose `Location` carries the key, a PHP crash page quoting the URL on a 500.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer, type Scope } from "effect"

export const KEY = "fake-elogistia-key-0c1d2e3f4a5b6c7d"

export const ORIGIN = "https://api.elogistia.com"

/** Wilayas the fake courier does not serve (deep south). */
export const UNSERVED: ReadonlyArray<number> = [33, 50, 54, 56]
/** Served, but with no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [37, 38, 43, 49, 52]

/** The fake's price list, in DZD: [home, stop desk (0: none)]. */
export const prices = (wilaya: number): readonly [number, number] => {
  const home = wilaya === 16 ? 400 : wilaya < 20 ? 600 : 720
  return [home, NO_DESK.includes(wilaya) ? 0 : wilaya === 16 ? 250 : 300]
}

/** The communes the fake knows in a few wilayas; elsewhere any commune is accepted. */
export const COMMUNES: Readonly<Record<number, ReadonlyArray<string>>> = {
  9: ["Blida", "Boufarik", "Larbaa"],
  16: ["Alger Centre", "Bab Ezzouar", "Hydra", "Kouba"],
  31: ["Oran", "Bir El Djir", "Es Senia"]
}

/** The `insertCommande/` fields the collection names (courier-dz, integrations), besides the key. */
export const FIELDS: ReadonlyArray<string> = [
  "name",
  "firstname",
  "mail",
  "phone",
  "address",
  "commune",
  "wilaya",
  "modeDeLivraison",
  "price",
  "stop_desk",
  "product",
  "IdCommande",
  "remarque",
  "poids",
  "exchangeName",
  "fraisDeLivraison"
]

const REQUIRED = ["name", "phone", "address", "commune", "wilaya", "modeDeLivraison", "price", "stop_desk", "product"]

/** Which parameter carries the key, by path. */
const ROUTES: Readonly<Record<string, { readonly method: string; readonly key: "apiKey" | "key" }>> = {
  "/insertCommande/": { method: "POST", key: "apiKey" },
  "/getTracking/": { method: "GET", key: "apiKey" },
  "/printBordereau_10x15/": { method: "GET", key: "apiKey" },
  "/printBordereau_15x20/": { method: "GET", key: "apiKey" },
  "/printBordereau_10x10/": { method: "GET", key: "apiKey" },
  "/getManyTracking/": { method: "GET", key: "apiKey" },
  "/deleteOrder/": { method: "GET", key: "apiKey" },
  "/getShippingCost/": { method: "GET", key: "key" },
  "/getWilayas/": { method: "GET", key: "key" },
  "/getMunicipalities/": { method: "GET", key: "key" },
  "/getAgences/": { method: "GET", key: "key" }
}

/**
 * The labels before pickup: a parcel whose latest status is one of them can still be deleted; after, `deleteOrder/`
 * refuses ({@link CANNOT_DELETE}).
 */
export const DELETABLE: ReadonlyArray<string> = ["", "Brouillon", "À expédiée", "À ramasser", "Ramassage à relancer"]

/** The fake's refusal of a parcel past pickup; the real words are not documented (README "Unverified"). */
export const CANNOT_DELETE = "Impossible de supprimer cette commande : elle a déjà été ramassée"

/** The fake's success answer for `deleteOrder/`, the collection's sample. */
export const DELETED = "la commande a été supprimée avec succès"

/** The communes of a wilaya the fake lists in `getMunicipalities/`: the known ones, else two made-up names. */
export const communesOf = (wilaya: number): ReadonlyArray<string> =>
  COMMUNES[wilaya] ?? [`Commune ${wilaya} A`, `Commune ${wilaya} B`]

/**
 * The fake's stop-desk agencies (`getAgences/?type=2`): two in Algiers, one in each other served wilaya with a desk,
 * in its first commune.
 */
export const agencies = (): ReadonlyArray<Readonly<Record<string, string>>> =>
  Array.from({ length: 58 }, (_, i) => i + 1)
    .filter((wilaya) => !UNSERVED.includes(wilaya) && !NO_DESK.includes(wilaya))
    .flatMap((wilaya) =>
      (wilaya === 16 ? ["Bab Ezzouar", "Hydra"] : [communesOf(wilaya)[0] ?? ""]).map((commune) => ({
        "Nom du bureau": `Agence ${commune}`,
        Commune: commune,
        "Code wilaya": String(wilaya),
        Adresse: `Rue principale, ${commune}`
      }))
    )

/** Elogistia's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  /** A refusal in the courier's words, on HTTP 200. */
  | { readonly kind: "refuse"; readonly message: string }
  /** The key refused in words, on HTTP 200. */
  | { readonly kind: "keyRefusedIn200" }
  /** A 400 quoting the request URL as received: the key is in it, form-encoded. */
  | { readonly kind: "quoteUrl" }
  /** A 401 whose message quotes the key as sent. */
  | { readonly kind: "rejectQuotingKey" }
  /** A 302 to a login page whose `Location` (and HTML body) carry the request's query, key included. */
  | { readonly kind: "redirectWithKey" }
  /** A 500 with PHP's crash page quoting the URL. */
  | { readonly kind: "crashQuotingUrl" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Row {
  readonly Statut: string
  readonly Date: string
  readonly logtext: string
}

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, string>>
  /** Oldest first; the API answers newest first. */
  readonly rows: Array<Row>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Adds a status to a parcel's history (it must exist), stamped with the fake's clock. */
  readonly addStatus: (tracking: string, label: string) => void
  /** The Algiers wall time of the next row, `YYYY-MM-DD HH:MM:SS`; each row after it is a second later. */
  readonly setClock: (at: string) => void
}

export class ElogistiaFake extends Context.Service<ElogistiaFake, Fake>()(
  "@tawsil/adapter-elogistia/test/ElogistiaFake"
) {
  static readonly layer = (options: { readonly keys?: ReadonlyArray<string> } = {}) =>
    Layer.effect(ElogistiaFake, make(options))
}

const { json } = FakeCourier

/** The query string as the transport sent it (form-encoded), to quote back. */
const queryString = (query: Readonly<Record<string, string>>) => new URLSearchParams(query).toString()

const TRACKING_ALPHABET = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"

/** `L-` and six symbols, as the courier's tracking numbers look (`L-214DMUF`). */
const trackingOf = (n: number) => {
  let symbols = ""
  let rest = n + 7_000_000
  for (let i = 0; i < 6; i++) {
    symbols = TRACKING_ALPHABET[rest % TRACKING_ALPHABET.length] + symbols
    rest = Math.floor(rest / TRACKING_ALPHABET.length)
  }
  return `L-${symbols}`
}

/** Why `insertCommande/` refuses an order, in the courier's words; `undefined` when it accepts it. */
const refusalOf = (fields: Readonly<Record<string, string>>): string | undefined => {
  const unknown = Object.keys(fields).find((field) => !FIELDS.includes(field))
  if (unknown !== undefined) return `Paramètre inconnu : ${unknown}`
  for (const field of REQUIRED) {
    if ((fields[field] ?? "").trim() === "") return `Le champ ${field} est obligatoire`
  }
  if (!("firstname" in fields)) return "Le champ firstname est obligatoire"
  const wilaya = fields.wilaya ?? ""
  if (!/^[1-9]\d?$/.test(wilaya) || Number(wilaya) > 58) return "Cette wilaya n'existe pas"
  if (UNSERVED.includes(Number(wilaya))) return "Cette wilaya n'est pas desservie"
  const known = COMMUNES[Number(wilaya)]
  const commune = (fields.commune ?? "").trim().toLowerCase()
  if (known !== undefined && !known.some((name) => name.toLowerCase() === commune)) {
    return "Cette commune n'existe pas"
  }
  if (!/^0[5-7]\d{8}$/.test(fields.phone ?? "")) return "Numéro de téléphone invalide"
  if (!["1", "4"].includes(fields.modeDeLivraison ?? "")) return "Mode de livraison invalide"
  if (!["1", "2"].includes(fields.stop_desk ?? "")) return "Type de livraison invalide"
  if (fields.stop_desk === "2" && NO_DESK.includes(Number(wilaya))) return "Pas de stop desk dans cette wilaya"
  const products = (fields.product ?? "").split("|")
  const amounts = (fields.price ?? "").split("|")
  if (products.length !== amounts.length) return "Le nombre de produits et de prix ne correspond pas"
  if (!amounts.every((amount) => /^\d+$/.test(amount))) return "Prix invalide"
  if (fields.poids !== undefined && !/^\d+(\.\d+)?$/.test(fields.poids)) return "Poids invalide"
  return undefined
}

/** Starts the fake on a random loopback port, accepting `keys`; it stops when the scope closes. */
export const make = (
  options: { readonly keys?: ReadonlyArray<string> } = {}
): Effect.Effect<Fake, never, Scope.Scope> =>
  Effect.gen(function* () {
    const keys = options.keys ?? [KEY]
    const parcels = new Map<string, Parcel>()
    // Algiers wall time, kept as if it were UTC; every row is a second after the one before, so histories order.
    let clock = Date.UTC(2026, 3, 18, 19, 45, 6)
    let issued = 0

    const misbehave = (misbehaviour: Misbehaviour, request: FakeCourier.Request, response: Http.ServerResponse) => {
      const url = `${ORIGIN}${request.path}?${queryString(request.query)}`
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 200, { Message: misbehaviour.message })
          return true
        case "keyRefusedIn200":
          json(response, 200, { success: false, Message: "Clé API invalide" })
          return true
        case "quoteUrl":
          json(response, 400, { success: false, Message: `Requête invalide : ${url}` })
          return true
        case "rejectQuotingKey":
          json(response, 401, {
            success: false,
            Message: `La clé ${request.query.apiKey ?? request.query.key ?? ""} n'est pas autorisée`
          })
          return true
        case "redirectWithKey": {
          const location = `${ORIGIN}/login/?next=${encodeURIComponent(url)}&${queryString(request.query)}`
          response.writeHead(302, { location, "content-type": "text/html; charset=utf-8" })
          response.end(`<html><body>Moved: <a href="${location}">${location}</a></body></html>`)
          return true
        }
        case "crashQuotingUrl":
          response.writeHead(500, { "content-type": "text/html; charset=utf-8" })
          response.end(`<br /><b>Fatal error</b>: Uncaught PDOException while handling ${url} in index.php`)
          return true
        default:
          return false
      }
    }

    const stamp = (parcel: Parcel, Statut: string, logtext: string) => {
      parcel.rows.push({ Statut, Date: new Date(clock).toISOString().slice(0, 19).replace("T", " "), logtext })
      clock += 1000
    }

    const row = (parcel: Parcel, entry: Row, index: number) => ({
      logID: String(1000 + index),
      Tracking: parcel.tracking,
      Statut: entry.Statut,
      logtext: entry.logtext,
      Date: entry.Date
    })

    const route = (path: string, query: Readonly<Record<string, string>>, response: Http.ServerResponse) => {
      switch (path) {
        case "/insertCommande/": {
          const { apiKey: _, ...fields } = query
          const refusal = refusalOf(fields)
          if (refusal !== undefined) return json(response, 200, { Message: refusal })
          issued += 1
          const tracking = trackingOf(issued)
          const parcel: Parcel = { tracking, fields, rows: [] }
          stamp(parcel, "", " Réception commande ")
          stamp(parcel, "À expédiée", "Commande à expédier")
          parcels.set(tracking, parcel)
          const [home, desk] = prices(Number(fields.wilaya))
          return json(response, 200, {
            success: tracking,
            "Frais de livraison": fields.stop_desk === "2" ? desk : home,
            Poids: Number(fields.poids ?? "1"),
            "Frais poids en plus": 0
          })
        }
        case "/getTracking/": {
          const parcel = parcels.get(query.tracking ?? "")
          const rows = parcel === undefined ? [] : parcel.rows.map((entry, i) => row(parcel, entry, i)).reverse()
          return json(response, 200, { body: rows, itemCount: rows.length })
        }
        case "/getManyTracking/": {
          // Unknown numbers are simply absent from the bare list; the history is oldest first, as in the sample.
          const asked = (query.tracking ?? "").split(",").filter((tracking) => tracking !== "")
          const entries = asked.flatMap((tracking) => {
            const parcel = parcels.get(tracking)
            if (parcel === undefined) return []
            return [
              {
                tracking,
                count: parcel.rows.length,
                validation: "68",
                historique: parcel.rows.map((entry) => ({
                  logtext: entry.logtext,
                  Statut: entry.Statut,
                  Date: entry.Date,
                  Tentative: "0"
                }))
              }
            ]
          })
          return json(response, 200, entries)
        }
        case "/deleteOrder/": {
          const parcel = parcels.get(query.tracking ?? "")
          if (parcel === undefined) return json(response, 200, { Message: "Commande introuvable" })
          const latest = parcel.rows.at(-1)?.Statut ?? ""
          if (!DELETABLE.includes(latest)) return json(response, 200, { Message: CANNOT_DELETE })
          parcels.delete(parcel.tracking)
          return json(response, 200, DELETED)
        }
        case "/getMunicipalities/": {
          const wilayas =
            query.wilaya === undefined ? Array.from({ length: 58 }, (_, i) => i + 1) : [Number(query.wilaya)]
          const rows = wilayas
            .filter((wilaya) => !UNSERVED.includes(wilaya))
            .flatMap((wilaya) =>
              communesOf(wilaya).map((name, i) => ({ Id: String(wilaya * 100 + i), name, wilaya: String(wilaya) }))
            )
          return json(response, 200, { body: rows, itemCount: rows.length })
        }
        case "/getAgences/": {
          if (query.type !== "2") return json(response, 200, { body: [], itemCount: 0 })
          const rows = agencies()
          return json(response, 200, { body: rows, itemCount: rows.length })
        }
        case "/getShippingCost/": {
          const rows = Array.from({ length: 58 }, (_, i) => i + 1)
            .filter((wilaya) => !UNSERVED.includes(wilaya))
            .map((wilaya) => {
              const [home, stopdesk] = prices(wilaya)
              return { wilayaID: String(wilaya), wilayaLabel: `Wilaya ${wilaya}`, home, stopdesk }
            })
          return json(response, 200, { body: rows, itemCount: rows.length })
        }
        case "/getWilayas/":
          return json(response, 200, {
            body: Array.from({ length: 58 }, (_, i) => ({ id: String(i + 1), name: `Wilaya ${i + 1}` })),
            itemCount: 58
          })
        default: {
          const parcel = parcels.get(query.tracking ?? "")
          if (parcel === undefined) return json(response, 200, { Message: "Commande introuvable" })
          response.writeHead(200, { "content-type": "application/pdf" })
          return response.end(`%PDF-1.4\n% Elogistia ${path} ${parcel.tracking}\n%%EOF\n`)
        }
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ success: false, Message: message }),
      misbehave,
      handle: ({ method, path, query }, response) => {
        const expected = ROUTES[path]
        if (expected === undefined) return json(response, 404, { success: false, Message: "Page introuvable" })
        const key = query[expected.key]
        if (key === undefined || !keys.includes(key)) {
          return json(response, 401, { success: false, Message: "Clé API invalide" })
        }
        if (method !== expected.method) return json(response, 405, { success: false, Message: "Méthode non autorisée" })
        return route(path, query, response)
      }
    })
    const elogistia: Fake = {
      ...fake,
      parcels,
      addStatus: (tracking, label) => {
        const parcel = parcels.get(tracking)
        if (parcel === undefined) throw new Error(`the fake has no parcel ${tracking}`)
        stamp(parcel, label, label)
      },
      setClock: (at) => {
        clock = Date.parse(`${at.replace(" ", "T")}Z`)
      }
    }
    return elogistia
  })
