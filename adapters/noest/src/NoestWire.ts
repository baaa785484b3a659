/**
 * The NOEST Express API's wire shapes (`https://app.noest-dz.com/api/public/…`, a Laravel service "built on the
 * Ecotrack-style API"), as the research notes document them (couriers.md §1.6; README "Unverified"). Every response
 * is decoded with one of these schemas — a body that fits none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/** The credentials every call carries, in the body of a POST and the query of a GET (the PDF spec's names). */
export interface Auth {
  readonly api_token: string
  readonly user_guid: string
}

/**
 * The body of `POST create/order` (without the credentials). `type_id` 1 is a delivery, 2 an exchange; `wilaya_id`
 * is the official code and `commune` a name; `station_code` names the stop desk (`16A`).
 */
export const CreateOrder = Schema.Struct({
  reference: Schema.optionalKey(Schema.String),
  client: Schema.String,
  phone: Schema.String,
  phone_2: Schema.optionalKey(Schema.String),
  adresse: Schema.optionalKey(Schema.String),
  wilaya_id: Schema.Int,
  commune: Schema.String,
  /** What the courier collects from the recipient, in DZD. */
  montant: Schema.Number,
  remarque: Schema.optionalKey(Schema.String),
  produit: Schema.String,
  type_id: Schema.Literals([1, 2]),
  /** Kilograms; the PDF spec makes it required. */
  poids: Schema.Number,
  stop_desk: Schema.Literals([0, 1]),
  station_code: Schema.optionalKey(Schema.String),
  /** 1: the recipient may open the parcel before paying. */
  can_open: Schema.Literals([0, 1])
})
export type CreateOrder = typeof CreateOrder.Type

/** `POST create/order`, accepted: the order exists, unvalidated ("pas encore visible pour la société de logistique"). */
export const Created = Schema.Struct({
  success: Schema.Literal(true),
  tracking: Schema.String.check(Schema.isNonEmpty())
})

/** `POST create/orders`: each order's result under its reference — `Created`, or why it was refused. */
export const CreatedBatch = Schema.Struct({ results: Schema.Record(Schema.String, Schema.Unknown) })

/** `POST valid/order`, accepted: the courier now sees the parcel. */
export const Validated = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** `POST delete/order` done: the same `{ success: true }` as the other writes (assumed: README "Unverified"). */
export const Deleted = Validated

/**
 * One event of `get/trackings/info`: its key (the vocabulary of the PDF's "Liste des evenements"), or only its label
 * (`event`: "Uploadé sur le système"), as both official examples (the v2.3 specification and the 2024 PDF) print
 * the rows; and its Algiers time. The other members (`causer`, `badge-class`, `by`, `name`, `driver`, `fdr`) are not
 * read. A row with neither a key nor a label is no documented event.
 */
export const Activity = Schema.Struct({
  event_key: Schema.optionalKey(Schema.NullOr(Schema.String)),
  event: Schema.optionalKey(Schema.NullOr(Schema.String)),
  date: Schema.String.check(Schema.isNonEmpty())
}).check(
  Schema.makeFilter((row) => (row.event_key ?? row.event ?? "").trim() !== "" || "an event needs its key or its label")
)
export type Activity = typeof Activity.Type

/** One parcel of `get/trackings/info`: `OrderInfo`, names and cities (not read) and the events. */
export const TrackingEntry = Schema.Struct({
  activity: Schema.Array(Activity)
})

/**
 * `POST get/trackings/info`: an object keyed by tracking number. Only the asked one's entry is decoded (another
 * parcel's odd entry must not fail this one); PHP encodes an empty answer as `[]`.
 */
export const TrackingInfo = Schema.Union([Schema.Record(Schema.String, Schema.Unknown), Schema.Tuple([])])

/** Amounts arrive as numbers or as numeric strings (`"400"`, `"400.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))

/** One wilaya's tariff: `tarif` to the door, `tarif_stopdesk` to a desk (absent or null: no desk there). */
export const Tariff = Schema.Struct({
  tarif: Amount,
  tarif_stopdesk: Schema.optionalKey(Schema.NullOr(Amount))
})
export type Tariff = typeof Tariff.Type

/** `GET fees`: delivery and return tariffs keyed by wilaya code (`"16"`). */
export const Fees = Schema.Struct({
  tarifs: Schema.Struct({
    delivery: Schema.Record(Schema.String, Tariff),
    return: Schema.optionalKey(Schema.Record(Schema.String, Tariff))
  })
})
export type Fees = typeof Fees.Type

/** A refusal on HTTP 200 (or 4xx): `{ success: false, message }`. */
export const Failure = Schema.Struct({
  success: Schema.Literal(false),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** Laravel's validation answer (HTTP 422): `{ message, errors: { field: [messages] } }`. */
export const ValidationErrors = Schema.Struct({
  message: Schema.optionalKey(Schema.String),
  errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
})

/** Any other error body: `{ message }` (`"Unauthenticated."`, `"Too Many Attempts."`). */
export const Message = Schema.Struct({ message: Schema.String })

/**
 * One desk of `GET desks` (courier-dz's `getOffices`): `code` is the `station_code` a create sends (`16A`), `commune`
 * the commune it is in, as NOEST names it. `map`, `email` and `horaires` are not read. The answer has no wilaya
 * field: the wilaya is the number the code starts with (README "Unverified").
 */
export const Desk = Schema.Struct({
  code: Schema.String.check(Schema.isNonEmpty()),
  name: Schema.String.check(Schema.isNonEmpty()),
  commune: Schema.optionalKey(Schema.NullOr(Schema.String)),
  address: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Its phone numbers, an object (`{ "1": "0550…" }`) as courier-dz reads it, or a list. */
  phones: Schema.optionalKey(
    Schema.NullOr(
      Schema.Union([
        Schema.Record(Schema.String, Schema.NullOr(Schema.String)),
        Schema.Array(Schema.NullOr(Schema.String))
      ])
    )
  )
})
export type Desk = typeof Desk.Type

/** `GET desks`: every desk of the network, keyed by its code; PHP encodes none as `[]`. */
export const Desks = Schema.Union([Schema.Record(Schema.String, Desk), Schema.Tuple([])])

/** A flag as PHP prints it: a boolean, 0/1, or "0"/"1". */
const Flag = Schema.Union([Schema.Boolean, Schema.Literals([0, 1, "0", "1"])])

/** One commune of `GET get/communes/{wilaya}`: its name (what a create sends as `commune`) and whether it is served. */
export const Commune = Schema.Struct({
  nom: Schema.String.check(Schema.isNonEmpty()),
  wilaya_id: Schema.optionalKey(Schema.Union([Schema.Int, Schema.String])),
  code_postal: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Int]))),
  is_active: Schema.optionalKey(Schema.NullOr(Flag))
})
export type Commune = typeof Commune.Type

/** `GET get/communes/{wilaya}`: the wilaya's communes. */
export const Communes = Schema.Array(Commune)

/** `GET get/wilayas`: `[{ code, nom, is_active }]`, only read as a list (the credentials check). */
export const Wilayas = Schema.Array(Schema.Struct({ code: Schema.Union([Schema.Int, Schema.String]) }))
