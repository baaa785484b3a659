/**
 * The Yalidine engine's wire shapes (`/v1/…`, snake_case fields), as the research notes document them
 * (couriers.md §1.1; the official docs as integrators copied them, README "Unverified"). Every answer is decoded
 * with one of these schemas: a body that fits none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/**
 * One parcel of `POST /v1/parcels/` (the body is an array of them). Every field but `stopdesk_id` and
 * `product_to_collect` is required; wilaya and commune are given by their Yalidine **names**.
 */
export const Parcel = Schema.Struct({
  /** The key of this parcel's result in the answer; unique within one request. */
  order_id: Schema.String,
  /** The sender's wilaya, by name. */
  from_wilaya_name: Schema.String,
  firstname: Schema.String,
  familyname: Schema.String,
  /** National numbers (`0` then 9 digits for a mobile), comma-separated. */
  contact_phone: Schema.String,
  address: Schema.String,
  to_commune_name: Schema.String,
  to_wilaya_name: Schema.String,
  product_list: Schema.String,
  /** What the courier collects from the recipient, 0–150 000 DZD. */
  price: Schema.Int,
  do_insurance: Schema.Boolean,
  /** 0–150 000 DZD. */
  declared_value: Schema.Int,
  /** Centimetres. */
  length: Schema.Int,
  width: Schema.Int,
  height: Schema.Int,
  /** Kilograms. */
  weight: Schema.Int,
  /** True: the sender pays the delivery fee; false: it is added to what the driver collects. */
  freeshipping: Schema.Boolean,
  is_stopdesk: Schema.Boolean,
  /** A center id (`GET /v1/centers/`), required when `is_stopdesk`. */
  stopdesk_id: Schema.optionalKey(Schema.Int),
  has_exchange: Schema.Boolean,
  /**
   * The service: the economic tier when true, express when false. Absent from the older docs' table; in the
   * 2026 transcription and the feeef SDK's types (README "Unverified").
   */
  economic: Schema.optionalKey(Schema.Boolean),
  /** What the driver takes back, required when `has_exchange`. */
  product_to_collect: Schema.optionalKey(Schema.String)
})
export type Parcel = typeof Parcel.Type

/**
 * One parcel's result in the create answer, keyed by its `order_id`. A refused parcel comes back in an HTTP 200 as
 * `success: false` with a `message` and null tracking.
 */
export const CreateResult = Schema.Struct({
  success: Schema.Boolean,
  order_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tracking: Schema.optionalKey(Schema.NullOr(Schema.String)),
  import_id: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Number, Schema.String]))),
  /** A public link to this parcel's label. */
  label: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** A public link to the labels of every parcel of the request. */
  labels: Schema.optionalKey(Schema.NullOr(Schema.String)),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type CreateResult = typeof CreateResult.Type

/** `POST /v1/parcels/`: `{ <order_id>: CreateResult }`. */
export const Created = Schema.Record(Schema.String, CreateResult)

/** Every list answer, even for one tracking number: `{ has_more, total_data, data, links }`. */
export const List = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    has_more: Schema.optionalKey(Schema.Boolean),
    total_data: Schema.optionalKey(Schema.Number),
    data: Schema.Array(item)
  })

/** `YYYY-MM-DD HH:MM:SS`, Algiers wall-clock time. */
export const LocalTime = Schema.String.check(
  Schema.isPattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/)
)

/** One row of `GET /v1/histories/{tracking}` (other members are not read). */
export const History = Schema.Struct({
  date_status: LocalTime,
  tracking: Schema.String,
  status: Schema.String.check(Schema.isNonEmpty()),
  reason: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type History = typeof History.Type

/** One row of `GET /v1/parcels/{tracking}`, as far as tracking reads it. */
export const ParcelRow = Schema.Struct({
  tracking: Schema.String,
  last_status: Schema.String.check(Schema.isNonEmpty()),
  date_last_status: LocalTime,
  /** The public link of the parcel's label (the docs: "Anyone with this link can see the label"). */
  label: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type ParcelRow = typeof ParcelRow.Type

/** Amounts arrive as numbers (and, in some integrations, numeric strings); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))
const Percentage = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(
  Schema.decodeTo(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 })))
)

/** One destination commune's fees; null where the account or the commune has no such service. */
export const CommuneFees = Schema.Struct({
  commune_id: Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int)),
  commune_name: Schema.String,
  express_home: Schema.NullOr(Amount),
  express_desk: Schema.NullOr(Amount),
  economic_home: Schema.optionalKey(Schema.NullOr(Amount)),
  economic_desk: Schema.optionalKey(Schema.NullOr(Amount))
})
export type CommuneFees = typeof CommuneFees.Type

/** `GET /v1/fees/?from_wilaya_id=&to_wilaya_id=`: one route, priced per destination commune. */
export const Fees = Schema.Struct({
  from_wilaya_name: Schema.optionalKey(Schema.String),
  to_wilaya_name: Schema.optionalKey(Schema.String),
  zone: Schema.optionalKey(Schema.Number),
  /** What a parcel that comes back costs. */
  retour_fee: Amount,
  /** The fee on cash collected, in percent of the higher of the price and the declared value. */
  cod_percentage: Percentage,
  insurance_percentage: Schema.optionalKey(Percentage),
  /** Per kilogram above 5 (not read: `RatesQuery` has no weight). */
  oversize_fee: Schema.optionalKey(Schema.NullOr(Amount)),
  per_commune: Schema.Record(Schema.String, CommuneFees)
})
export type Fees = typeof Fees.Type

/**
 * An error body. The docs show none; integrators report `{ error: { message } }`, `{ message }` and
 * `{ error: "…" }` (README "Unverified"), and all three are read.
 */
export const ErrorBody = Schema.Union([
  Schema.Struct({
    error: Schema.Struct({ message: Schema.String, status_code: Schema.optionalKey(Schema.Number) })
  }),
  Schema.Struct({ message: Schema.String }),
  Schema.Struct({ error: Schema.String })
])
export type ErrorBody = typeof ErrorBody.Type

/** The quota headers every answer carries: requests left in the current second, minute, hour and day. */
export const quotaHeaders = {
  second: "x-second-quota-left",
  minute: "x-minute-quota-left",
  hour: "x-hour-quota-left",
  day: "x-day-quota-left"
} as const

/** An id or a count as the docs show it (a number) or as some answers give it (a numeric string). */
const IntLike = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

/** A yes/no flag: `0`/`1` in the docs' examples, a boolean in some answers. */
export const Flag = Schema.Union([Schema.Boolean, Schema.Literals([0, 1])])
export type Flag = typeof Flag.Type

/**
 * One answer of `DELETE /v1/parcels/{tracking}` (or `?tracking=a,b`): the decision for each tracking number.
 * `deleted: false` covers "cannot be deleted, misspelled, does not exist, already deleted" alike (the docs).
 */
export const Deletion = Schema.Struct({ tracking: Schema.String, deleted: Flag })
export type Deletion = typeof Deletion.Type

/**
 * The docs print the answer as a list of decisions inside braces, which is no JSON: read as an array, or as an
 * object of decisions (README "Unverified").
 */
export const Deleted = Schema.Union([Schema.Array(Deletion), Schema.Record(Schema.String, Deletion)])

/** One row of `GET /v1/centers/?wilaya_id=`: a center, the stop desk an order names by `stopdesk_id`. */
export const Center = Schema.Struct({
  center_id: IntLike,
  name: Schema.String,
  address: Schema.optionalKey(Schema.NullOr(Schema.String)),
  commune_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  wilaya_id: IntLike
})
export type Center = typeof Center.Type

/** One row of `GET /v1/communes/?wilaya_id=` (the delivery times are not read). */
export const CommuneRow = Schema.Struct({
  id: IntLike,
  name: Schema.String.check(Schema.isNonEmpty()),
  wilaya_id: IntLike,
  has_stop_desk: Flag,
  is_deliverable: Flag
})
export type CommuneRow = typeof CommuneRow.Type

/** One row of `GET /v1/wilayas/`, as far as the credential check reads it. */
export const WilayaRow = Schema.Struct({ id: IntLike, name: Schema.String })
