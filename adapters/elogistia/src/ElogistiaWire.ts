/**
 * The Elogistia API's wire shapes (`https://api.elogistia.com/<endpoint>/`), as the research notes document them
 * (couriers.md §1.8) and, where they are silent on a body's exact shape, the public integrations the README lists
 * under "Unverified" (answers quoted from the courier's Postman collection). Elogistia takes no request body at all:
 * every field, the API key included, travels in the query string, so a request is a flat record of strings. Every
 * answer is decoded with one of these schemas — a body that fits none of them is an undocumented answer.
 */
import { Dzd, WilayaCode } from "@tawsil/domain"
import { Schema } from "effect"

/**
 * The fields of `POST insertCommande/`, all sent as query parameters (the API key is added by the adapter, never
 * here). `product` and `price` are pipe-separated parallel lists; the adapter sends one line carrying the whole
 * amount to collect.
 */
export interface InsertCommande {
  /** The recipient's (family) name. */
  readonly name: string
  readonly firstname: string
  /** The 10-digit national form. */
  readonly phone: string
  readonly address?: string
  /** A commune name, not a code. */
  readonly commune: string
  /** The wilaya code, 1–58, as a decimal string. */
  readonly wilaya: string
  /** 1 standard, 4 exchange. */
  readonly modeDeLivraison: "1" | "4"
  /** What the courier collects from the recipient, whole dinars. */
  readonly price: string
  /** 1 to the door, 2 to a stop desk. */
  readonly stop_desk: "1" | "2"
  readonly product: string
  /** The merchant's own reference. */
  readonly IdCommande?: string
  readonly remarque?: string
  /** Kilograms. */
  readonly poids?: string
}

/**
 * `insertCommande/` on success: the new parcel's tracking number in `success` (a string, not a boolean), with the
 * fees the courier computed (`"Frais de livraison"`, `"Poids"`, `"Frais poids en plus"`), which are not read.
 */
export const Inserted = Schema.Struct({ success: Schema.String.check(Schema.isNonEmpty()) })

/** The courier's words in a refusal: `{ "Message": "Cette commune n'existe pas" }` (or `message`, or `error`). */
export const Refusal = Schema.Union([
  Schema.Struct({ Message: Schema.String }),
  Schema.Struct({ message: Schema.String }),
  Schema.Struct({ error: Schema.String })
])

/**
 * `getTracking/` (and every list read): `{ "body": [...], "itemCount": n }`. Rows are read one by one with
 * {@link TrackingRow}; an empty list means the courier does not know the parcel.
 */
export const Listing = Schema.Struct({ body: Schema.Array(Schema.Unknown) })

/**
 * One row of `getTracking/`: the status label (`Statut`, empty on log lines that are not statuses, such as
 * "Réception commande"), when (`Date`, Algiers wall time `YYYY-MM-DD HH:MM:SS`) and, usually, the parcel's
 * tracking number.
 */
export const TrackingRow = Schema.Struct({
  Statut: Schema.optionalKey(Schema.NullOr(Schema.String)),
  Date: Schema.String,
  Tracking: Schema.optionalKey(Schema.NullOr(Schema.String)),
  logtext: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type TrackingRow = typeof TrackingRow.Type

/** Amounts arrive as numbers or numeric strings (`500`, `"500"`, `"500.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))
const Wilaya = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(WilayaCode.WilayaCode))
/**
 * A wilaya number on a catalogue row, not checked against 1–58: a row of a wilaya outside the division Tawsil uses
 * (the 69-wilaya change) is one no query asks for, not a broken answer.
 */
const WilayaNumber = Schema.Union([Schema.Finite, Schema.FiniteFromString])

/**
 * One wilaya of `getShippingCost/`: the price to the door (`home`) and to a stop desk (`stopdesk`; absent, null or
 * 0 where there is none).
 */
export const CostRow = Schema.Struct({
  wilayaID: Wilaya,
  wilayaLabel: Schema.optionalKey(Schema.NullOr(Schema.String)),
  home: Amount,
  stopdesk: Schema.optionalKey(Schema.NullOr(Amount))
})
export type CostRow = typeof CostRow.Type

/** `getShippingCost/`: one row per served wilaya, in the list envelope or (as one integration shows) bare. */
export const ShippingCost = Schema.Union([Schema.Struct({ body: Schema.Array(CostRow) }), Schema.Array(CostRow)])

/**
 * One parcel of `getManyTracking/?tracking=a,b,c`, which answers a bare list of them (the Postman collection's
 * sample, quoted verbatim by a public integration): its tracking number, and its history (`historique`, oldest first
 * in the sample) of rows like {@link TrackingRow}'s without the tracking number (`logtext`, `Statut`, `Date`,
 * `Tentative`). `count` and `validation` are not read.
 */
export const ManyTrackingEntry = Schema.Struct({
  tracking: Schema.String,
  historique: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.Unknown)))
})
export type ManyTrackingEntry = typeof ManyTrackingEntry.Type

/** `getManyTracking/`: a bare list (the sample), or the `{ body }` envelope of the other list reads. */
export const ManyTracking = Schema.Union([
  Schema.Array(ManyTrackingEntry),
  Schema.Struct({ body: Schema.Array(ManyTrackingEntry) })
])

/**
 * `deleteOrder/?tracking=` on success: a bare JSON string, `"la commande a été supprimée avec succès"` (the
 * collection's sample as an integration quotes it). Read as success only when it says so.
 */
export const Deleted = Schema.String

/**
 * One desk of `getAgences/?type=2` (type 2: the stop-desk agencies), as the WooBordereauGenerator plugin reads it:
 * `"Nom du bureau"` (also what the plugin uses as its id: no other id is shown), `Commune`, `"Code wilaya"`,
 * `Adresse`.
 */
export const Agency = Schema.Struct({
  "Nom du bureau": Schema.String,
  Commune: Schema.optionalKey(Schema.NullOr(Schema.String)),
  "Code wilaya": WilayaNumber,
  Adresse: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Agency = typeof Agency.Type

/** `getAgences/`: `{ body: [...], itemCount }`. */
export const Agencies = Schema.Struct({ body: Schema.Array(Agency) })

/**
 * One commune of `getMunicipalities/?wilaya=`: its `name` (the spelling `insertCommande/`'s `commune` expects, as the
 * plugin sends it back) and its wilaya (`wilaya`, which the plugin filters on); `Id` where one integration shows it.
 */
export const Municipality = Schema.Struct({
  name: Schema.String,
  wilaya: WilayaNumber,
  Id: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Finite])))
})
export type Municipality = typeof Municipality.Type

/** `getMunicipalities/`: `{ body: [...], itemCount }`. */
export const Municipalities = Schema.Struct({ body: Schema.Array(Municipality) })
