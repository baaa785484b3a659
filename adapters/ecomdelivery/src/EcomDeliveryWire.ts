/**
 * The E-COM Delivery API's wire shapes (`https://ecom-dz.net/Api_v1/…`: PascalCase French fields, Procolis-like), as
 * the research notes name them (couriers.md §1.8) and as E-COM's own API page shows them (a copy of it, bodies and
 * answers included, sits in public code; README "Sources"). Every answer is decoded with one of these schemas — a
 * body that fits none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/**
 * One parcel of `POST Colis`. `Echange` and `Stopdesk` travel as the numbers 0/1, every other value as a string
 * (`"Wilaya": "12"`, `"Total": "9600"`), as E-COM's page shows them.
 */
export const Colis = Schema.Struct({
  /** 1: an exchange (the driver takes something back), else 0. */
  Echange: Schema.Literals([0, 1]),
  /** 1: delivered to a stop desk, 0: to the door. */
  Stopdesk: Schema.Literals([0, 1]),
  NomComplet: Schema.String,
  Mobile_1: Schema.String,
  Mobile_2: Schema.optionalKey(Schema.String),
  Adresse: Schema.optionalKey(Schema.String),
  /** The wilaya code, 1–58, as a string without padding (`"12"`, `"31"`). */
  Wilaya: Schema.String.check(Schema.isPattern(/^[1-9]\d?$/)),
  /** A commune name, not a code. */
  Commune: Schema.String,
  /** What the parcel holds, as text. */
  Article: Schema.String,
  /** What the courier collects from the recipient, whole dinars. */
  Total: Schema.String.check(Schema.isPattern(/^\d+$/)),
  /** The merchant's own reference. */
  ID_Externe: Schema.optionalKey(Schema.String),
  /** The stop desk's code (`"16A"`), for a stop-desk parcel. */
  CodeStopdesk: Schema.optionalKey(Schema.String),
  /** A note for the courier. */
  NoteFournisseur: Schema.optionalKey(Schema.String),
  /** Where the order came from (free text: "Facebook", "website"). */
  Source: Schema.optionalKey(Schema.String)
})
export type Colis = typeof Colis.Type

/** The body of `POST Colis`: always a `Colis` list, even for one parcel. */
export const AddColis = Schema.Struct({ Colis: Schema.Array(Colis) })
export type AddColis = typeof AddColis.Type

/** The body of `PUT aExpédier`: the parcels to ship, by tracking number. */
export const TrackingList = Schema.Struct({ Colis: Schema.Array(Schema.Struct({ Tracking: Schema.String })) })
export type TrackingList = typeof TrackingList.Type

/**
 * A parcel as E-COM answers it (`POST Colis`, `GET Colis/Tracking/{t}`): where it is (`Avancement`), what happened
 * with the recipient (`Situation`), and since when (`Date_Action_D`, `dd/mm/yyyy hh:mm:ss` Algiers wall time). Only
 * the fields the adapter reads are decoded; the row carries many more (`label`, `NomComplet`, `Commentaire`, …).
 */
export const Row = Schema.Struct({
  Tracking: Schema.String.check(Schema.isNonEmpty()),
  Avancement: Schema.String.check(Schema.isNonEmpty()),
  Situation: Schema.optionalKey(Schema.NullOr(Schema.String)),
  Date_Action_D: Schema.String
})
export type Row = typeof Row.Type

/** `POST Colis` on success: the created parcels, in the order sent, each with its tracking number. */
export const Created = Schema.Struct({ Colis: Schema.NonEmptyArray(Row) })
export type Created = typeof Created.Type

/**
 * `GET Colis/Tracking/{t}`: the paginated list shape of every `Colis` read (`Nb_Colis`, `Nb_Page`, …), its rows first
 * read for their `Tracking` only — rows of other parcels are not ours to judge — then the asked one with {@link Row}.
 */
export const Listing = Schema.Struct({ Colis: Schema.Array(Schema.Unknown) })

/** `PUT aExpédier`: no answer body is documented; any JSON object is taken as done. */
export const Shipped = Schema.Record(Schema.String, Schema.Unknown)

/** `PUT Supprimer`: no answer body is documented either; any JSON object is taken as done. */
export const Deleted = Schema.Record(Schema.String, Schema.Unknown)

/** A page count of a `Colis` read (`Nb_Page`, `Current_Page`): a number, or its text. */
const PageNumber = Schema.Union([Schema.Int, Schema.FiniteFromString.pipe(Schema.decodeTo(Schema.Int))])

/**
 * `POST Colis/Liste` (up to 100 trackings a call; the `Page` header picks a page): the list shape of every `Colis`
 * read, with how many pages there are (`Nb_Page`) and which one this is (`Current_Page`). Its rows are read as
 * {@link Listing}'s are.
 */
export const Page = Schema.Struct({
  Nb_Page: Schema.optionalKey(Schema.NullOr(PageNumber)),
  Current_Page: Schema.optionalKey(Schema.NullOr(PageNumber)),
  Colis: Schema.Array(Schema.Unknown)
})
export type Page = typeof Page.Type

/** `GET Test` ("Tester la Connexion API avec Votre Compte"): the account's shop name (and city), beside its quota. */
export const Test = Schema.Struct({
  Fournisseur: Schema.String,
  Ville: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Int, Schema.String])))
})

/** Amounts arrive as numbers or numeric strings; both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))
const WilayaId = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

/**
 * One wilaya of `GET Tarification`, spelled as E-COM spells it: whether it delivers to the door (`Domicle`) and to a
 * desk (`Stopdesk`), and the fees for each (`Tarfi_Domicle`, `Tarfi_Stopdesk`) and for a parcel that comes back
 * (`Tarfi_Annuler`).
 */
export const TariffRow = Schema.Struct({
  ID: WilayaId,
  Domicle: Schema.Boolean,
  Stopdesk: Schema.Boolean,
  Tarfi_Domicle: Amount,
  Tarfi_Stopdesk: Amount,
  Tarfi_Annuler: Schema.optionalKey(Schema.NullOr(Amount))
})
export type TariffRow = typeof TariffRow.Type

/** `GET Tarification`: one row per wilaya, beside the account's quota. */
export const Tarification = Schema.Struct({ Wilaya: Schema.Array(TariffRow) })
export type Tarification = typeof Tarification.Type

/** An error body: `{ message }`, `{ Message }` or `{ error }`, as integrations read E-COM's refusals. */
export const Message = Schema.Union([
  Schema.Struct({ message: Schema.String }),
  Schema.Struct({ Message: Schema.String }),
  Schema.Struct({ error: Schema.String })
])
