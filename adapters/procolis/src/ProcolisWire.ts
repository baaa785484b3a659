/**
 * The Procolis API's wire shapes (`https://procolis.com/api_v1/…`: PascalCase French fields, every read a POST), as
 * the research notes document them (couriers.md §1.3) and, where the notes are silent on a body's exact shape, the
 * integrations the README lists under "Unverified". Every response is decoded with one of these schemas — a body
 * that fits none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/**
 * One parcel of `POST add_colis`. Codes and amounts travel as strings (`"09"`, `"4500"`), as CourierDZ's examples
 * and most integrations send them. `Confrimee` is misspelled in the API itself.
 */
export const Colis = Schema.Struct({
  /** Chosen by the sender, unique per account: a second parcel with the same value is refused ("Double Tracking"). */
  Tracking: Schema.String,
  /** 0 home, 1 stop desk. */
  TypeLivraison: Schema.Literals(["0", "1"]),
  /** 1 exchange, else 0. */
  TypeColis: Schema.Literals(["0", "1"]),
  /** 1: confirmed, straight to "prêt à expédier"; empty: left "en préparation" until `pret`. */
  Confrimee: Schema.Literals(["1", ""]),
  Client: Schema.String,
  MobileA: Schema.String,
  MobileB: Schema.optionalKey(Schema.String),
  Adresse: Schema.optionalKey(Schema.String),
  /** The wilaya code on two digits. */
  IDWilaya: Schema.String.check(Schema.isPattern(/^\d{2}$/)),
  /** A commune name, not a code. */
  Commune: Schema.String,
  /** What the courier collects from the recipient, in DZD. */
  Total: Schema.String.check(Schema.isPattern(/^\d+$/)),
  Note: Schema.optionalKey(Schema.String),
  TProduit: Schema.String,
  /** The merchant's own reference. */
  id_Externe: Schema.optionalKey(Schema.String)
})
export type Colis = typeof Colis.Type

/** The body of `POST add_colis`, `pret` and `lire`: always a `Colis` list, even for one parcel. */
export const AddColis = Schema.Struct({ Colis: Schema.Array(Colis) })
export type AddColis = typeof AddColis.Type

export const TrackingList = Schema.Struct({ Colis: Schema.Array(Schema.Struct({ Tracking: Schema.String })) })
export type TrackingList = typeof TrackingList.Type

/** One parcel as `add_colis` (and `pret`) answer it: what was sent, plus `MessageRetour` ("Good" on success). */
export const ColisResult = Schema.Struct({
  Tracking: Schema.optionalKey(Schema.NullOr(Schema.String)),
  MessageRetour: Schema.String
})

/** `POST add_colis` / `POST pret`, on HTTP 200 — a refusal arrives here too, in `MessageRetour`. */
export const ColisResults = Schema.Struct({ Colis: Schema.NonEmptyArray(ColisResult) })

/**
 * `POST lire`: the rows of the asked parcels — or the literal `null` when the courier knows none of them. Rows are
 * first read for their `Tracking` only (rows of other parcels are not ours to judge); the row of the asked parcel is
 * then decoded with {@link Situation}.
 */
export const Lire = Schema.Union([Schema.Null, Schema.Struct({ Colis: Schema.Array(Schema.Unknown) })])

/**
 * A parcel's current state in `lire`: the situation's text and when it was reached. `DateH_Action` is Algiers wall
 * time without an offset (`2026-04-18T19:45:06.123`, as WinDev writes it); an offset, if one ever comes, is honoured.
 */
export const Situation = Schema.Struct({
  Tracking: Schema.String,
  Situation: Schema.String.check(Schema.isNonEmpty()),
  DateH_Action: Schema.String
})
export type Situation = typeof Situation.Type

/** Amounts arrive as numbers or numeric strings (`"400"`, `"400.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))
const WilayaId = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

/**
 * One wilaya of `POST tarification`: to the door (`Domicile`), to a stop desk (`Stopdesk`; absent, null or 0 when
 * there is none) and the fee for a parcel that comes back (`Annuler`).
 */
export const TariffRow = Schema.Struct({
  IDWilaya: WilayaId,
  Wilaya: Schema.optionalKey(Schema.NullOr(Schema.String)),
  Domicile: Amount,
  Stopdesk: Schema.optionalKey(Schema.NullOr(Amount)),
  Annuler: Schema.optionalKey(Schema.NullOr(Amount))
})
export type TariffRow = typeof TariffRow.Type

/** `POST tarification`: one row per wilaya the account is priced for. */
export const Tarification = Schema.Array(TariffRow)

/** The API gateway's refusal (a wrong token or key, a missing header): `{ fault: { faultstring } }`. */
export const Fault = Schema.Struct({ fault: Schema.Struct({ faultstring: Schema.String }) })

/** Any other error body: `{ message }` (or `Message`, as WinDev sometimes capitalises it). */
export const Message = Schema.Union([
  Schema.Struct({ message: Schema.String }),
  Schema.Struct({ Message: Schema.String })
])

/**
 * `GET token`, the credentials accepted: `{ "Statut": "Accès activé" }` (research §1.3). A wrong token or key is the
 * gateway's 401 `{ fault }`.
 */
export const TokenStatus = Schema.Struct({ Statut: Schema.String })
