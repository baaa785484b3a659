/**
 * The Ecotrack API's wire shapes (`/api/v1/…`, French snake_case fields), as the research notes document them
 * (couriers.md §1.2; README "Unverified"). Every response is decoded with one of these schemas — a body that fits
 * none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/** The longest text a create field takes (the documentation's validation rules: `max:255`). */
export const MAX_TEXT = 255

/** The body of `POST create/order` (sent as JSON). `type` 1 is a delivery, 2 an exchange. */
export const CreateOrder = Schema.Struct({
  reference: Schema.optionalKey(Schema.String),
  nom_client: Schema.String,
  telephone: Schema.String,
  telephone_2: Schema.optionalKey(Schema.String),
  /** Required by the platform. */
  adresse: Schema.String,
  /** With `stop_desk` 1: the stop-desk station code (`get/communes` `code_postal`). */
  code_postal: Schema.optionalKey(Schema.String),
  /** A commune name, not a code. */
  commune: Schema.String,
  code_wilaya: Schema.Number,
  /** What the courier collects from the recipient, in DZD. */
  montant: Schema.Number,
  remarque: Schema.optionalKey(Schema.String),
  /** At most {@link MAX_TEXT} characters, as every text field of the create. */
  produit: Schema.String,
  type: Schema.Literals([1, 2]),
  stop_desk: Schema.Literals([0, 1]),
  /** Kilograms. */
  weight: Schema.optionalKey(Schema.Number)
})
export type CreateOrder = typeof CreateOrder.Type

/** `POST create/order`, accepted. */
export const Created = Schema.Struct({
  success: Schema.Literal(true),
  tracking: Schema.String.check(Schema.isNonEmpty())
})

/** `POST create/orders`: each order's result under its reference — `Created`, or why it was refused. */
export const CreatedBatch = Schema.Struct({ results: Schema.Record(Schema.String, Schema.Unknown) })

/** `POST valid/order`, accepted (`"Commande expedier avec succès"`). */
export const Validated = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.optionalKey(Schema.String)
})

/** One step of `get/tracking/info`: Algiers wall-clock date and time, and the activity key. */
export const Activity = Schema.Struct({
  date: Schema.String.check(Schema.isPattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/)),
  time: Schema.String.check(Schema.isPattern(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/)),
  status: Schema.String.check(Schema.isNonEmpty()),
  station: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Activity = typeof Activity.Type

/** A Laravel time as the platform prints it (`2026-04-18 19:45:06`), or null. */
const Time = Schema.optionalKey(Schema.NullOr(Schema.String))

/**
 * What a tracking answer says of the parcel besides its activity: `status`, the order status (its key, or the
 * tenant's label: "Prêt à expédier", "Suspendus"), and the order's record (`OrderInfo`), whose times are read when the
 * parcel has no activity yet. Other members (names, cities, stations) are not read.
 */
const Current = {
  status: Schema.optionalKey(Schema.NullOr(Schema.String)),
  created_at: Time,
  updated_at: Time,
  OrderInfo: Schema.optionalKey(Schema.NullOr(Schema.Struct({ created_at: Time, updated_at: Time })))
}

/** `GET get/tracking/info`: the activity list, and the order status when the answer gives it. */
export const TrackingInfo = Schema.Struct({
  activity: Schema.Array(Activity),
  ...Current
})
export type TrackingInfo = typeof TrackingInfo.Type

/** Amounts arrive as numbers or as numeric strings (`"400"`, `"400.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))
const WilayaId = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

/** One wilaya's tariff: `tarif` to the door, `tarif_stopdesk` to a desk (absent or null: no desk there). */
const Tariff = {
  tarif: Amount,
  tarif_stopdesk: Schema.optionalKey(Schema.NullOr(Amount))
}
const FeeRow = Schema.Struct({ wilaya_id: WilayaId, ...Tariff })

/**
 * `GET get/fees`, as the research documents it: one list per service (`livraison`, `retours`, …), each row a
 * wilaya. Only delivery and return fees are read.
 */
export const FeesByService = Schema.Struct({
  livraison: Schema.Array(FeeRow),
  retours: Schema.optionalKey(Schema.Array(FeeRow))
})

/** `GET get/fees` as another secondary source shows it: one row per wilaya, one tariff per service. */
export const FeesByWilaya = Schema.Array(
  Schema.Struct({
    wilaya_id: WilayaId,
    livraison: Schema.Struct(Tariff),
    retour: Schema.optionalKey(Schema.Struct(Tariff))
  })
)

export const Fees = Schema.Union([FeesByService, FeesByWilaya])
export type Fees = typeof Fees.Type

/** A refusal on HTTP 200 (or 4xx): `{ success: false, error: 10002, message }`. */
export const Failure = Schema.Struct({
  success: Schema.Literal(false),
  message: Schema.optionalKey(Schema.NullOr(Schema.String)),
  error: Schema.optionalKey(Schema.Union([Schema.Number, Schema.String])),
  code: Schema.optionalKey(Schema.Union([Schema.Number, Schema.String]))
})

const FieldErrors = Schema.Record(Schema.String, Schema.Array(Schema.String))

/** Laravel's validation answer (HTTP 422): `{ message, errors: { field: [messages] } }`. */
export const ValidationErrors = Schema.Struct({
  message: Schema.optionalKey(Schema.String),
  errors: FieldErrors
})

/**
 * The bare form `{ field: [messages] }` (how `create/orders` reports a refused order). Every list must hold a
 * message, so that an unrelated body of empty lists is not read as a refusal.
 */
export const BareFieldErrors = Schema.Record(Schema.String, Schema.NonEmptyArray(Schema.String))

/** Any other error body: `{ message }` (`"Unauthenticated."`, `"Too Many Attempts."`, `"INVALID_TOKEN"`). */
export const Message = Schema.Struct({ message: Schema.String })

/**
 * `DELETE delete/order?tracking=`, accepted: `{ success: true, message: "Commande supprimée" }`, or the legacy
 * `{ delete: "success" }` (README "Unverified"). A validated order is refused with `10001`, "Commande non modifiable".
 */
export const Deleted = Schema.Union([
  Schema.Struct({ success: Schema.Literal(true), message: Schema.optionalKey(Schema.String) }),
  Schema.Struct({ delete: Schema.Literal("success") })
])

/** The legacy refusal of `delete/order`, which gives no reason. */
export const NotDeleted = Schema.Struct({ delete: Schema.Literal("fail") })

/**
 * One parcel of `get/trackings/info`: its order status and its activity, as `get/tracking/info` gives them; a tenant
 * may answer the status alone (no `activity`).
 */
export const TrackingsEntry = Schema.Struct({ activity: Schema.optionalKey(Schema.Array(Activity)), ...Current })
export type TrackingsEntry = typeof TrackingsEntry.Type

/**
 * `GET get/trackings/info?trackings[]=…`: the parcels it knows, keyed by tracking number (README "Unverified": no
 * source shows the answer whole).
 */
export const TrackingsInfo = Schema.Record(Schema.String, TrackingsEntry)

/** A yes/no flag: `0`/`1`, or a boolean. */
const Flag = Schema.Union([Schema.Boolean, Schema.Literals([0, 1]), Schema.Literals(["0", "1"])])

/** One row of `GET get/communes?wilaya_id=`: `code_postal` is the desk's station code when `has_stop_desk`. */
export const CommuneRow = Schema.Struct({
  nom: Schema.String.check(Schema.isNonEmpty()),
  wilaya_id: WilayaId,
  code_postal: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Finite]))),
  has_stop_desk: Flag
})
export type CommuneRow = typeof CommuneRow.Type

/** `GET get/communes`: an object keyed by index (as the research shows it), or an array. */
export const Communes = Schema.Union([Schema.Array(CommuneRow), Schema.Record(Schema.String, CommuneRow)])

/** `GET validate/token`, accepted: `{ success: true, message: "VALID_TOKEN" }`. */
export const TokenValid = Schema.Struct({ success: Schema.Literal(true), message: Schema.optionalKey(Schema.String) })
