/**
 * The Near Delivery API's wire shapes (`https://api.neardelivery.app/api/v1/sender/…`), as the research notes
 * document them (couriers.md §1.8, §3.3) with the envelope two public integrations read (courier-dz's adapter and a
 * WooCommerce plugin): `{ status: true, message, data }` on success, `{ status: false, message }` or `{ detail }` on
 * a refusal. Every answer is decoded with one of these schemas — a body that fits none of them is an undocumented
 * answer, never read by hand (README "Unverified").
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/** One line of a parcel's contents; the sum of `quantity × unit_price` is what the courier collects. */
export interface Item {
  readonly name: string
  readonly quantity: number
  readonly unit_price: number
}

/**
 * One parcel of `POST sender/parcels`. Every parcel goes to a relay point: `pickup_location_type` 1 (a centre or
 * buralist pick-up) and `buralist_id`, the buralist's id from `GET sender/buralists`. `recipient_wilaya` is the
 * wilaya code as text, two digits (`"05"`); `payment_preference` 1 collects the cash, 0 collects nothing.
 */
export interface Parcel {
  readonly reference?: string
  readonly recipient_name: string
  readonly recipient_phone: string
  readonly recipient_wilaya: string
  readonly recipient_commune: string
  readonly recipient_address?: string
  readonly payment_preference: 0 | 1
  readonly pickup_location_type: 1
  readonly buralist_id: number
  readonly size: string
  readonly items: ReadonlyArray<Item>
}

/** The body of `POST sender/parcels`: a list of parcels; the adapter sends one. */
export interface CreateParcels {
  readonly parcels: ReadonlyArray<Parcel>
}

/** A raw status as Near Delivery sends it: a number 0–16 (courier-dz), or a name; kept as text either way. */
export const RawStatus = Schema.Union([Schema.Int, Schema.String.check(Schema.isNonEmpty())])

/** One created parcel: its tracking number, and its id (kept as the courier's reference) and status when given. */
export const CreatedParcel = Schema.Struct({
  tracking_number: Schema.String.check(Schema.isBetweenLength(1, 80)),
  parcel_id: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Int, Schema.String]))),
  status: Schema.optionalKey(Schema.NullOr(RawStatus))
})

/** `POST sender/parcels`, accepted: the created parcels, in the order sent. */
export const Created = Schema.Struct({
  status: Schema.Literal(true),
  data: Schema.NonEmptyArray(CreatedParcel)
})

/** One entry of a parcel's status history. */
export const HistoryEntry = Schema.Struct({
  status: RawStatus,
  created_at: Schema.String.check(Schema.isNonEmpty())
})
export type HistoryEntry = typeof HistoryEntry.Type

/**
 * The parcel of `GET sender/parcels/{tracking}`: its current status and when it last changed, and its history when
 * the API gives one (courier-dz reads `status_history` first).
 */
export const TrackedParcel = Schema.Struct({
  tracking_number: Schema.String.check(Schema.isNonEmpty()),
  status: RawStatus,
  created_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  updated_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  status_history: Schema.optionalKey(Schema.NullOr(Schema.Array(HistoryEntry)))
})
export type TrackedParcel = typeof TrackedParcel.Type

export const Tracked = Schema.Struct({
  status: Schema.Literal(true),
  data: TrackedParcel
})

/** A wilaya code as the fee grid prints it: `"05"`, `"16"` or a number. */
const Code = Schema.Union([Schema.Int, Schema.FiniteFromString.pipe(Schema.decodeTo(Schema.Int))])

/** Amounts arrive as numbers or numeric strings (`"400.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))

/** One route of `GET sender/delivery-fees`: from a sender wilaya to a destination, to a relay point. */
export const Fee = Schema.Struct({
  from_wilaya: Code,
  to_wilaya: Code,
  b2b_fee: Amount,
  return_fee: Schema.optionalKey(Schema.NullOr(Amount))
})
export type Fee = typeof Fee.Type

/** `GET sender/delivery-fees`: one page of routes. */
export const Fees = Schema.Struct({
  status: Schema.Literal(true),
  data: Schema.Array(Fee)
})

/** A refusal: `{ status: false, message }`, on a 2xx or a 4xx. */
export const Failure = Schema.Struct({
  status: Schema.Literal(false),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** A validation refusal (HTTP 422): `{ detail: [{ loc, msg }] }`. */
export const Invalid = Schema.Struct({
  detail: Schema.Array(
    Schema.Struct({
      loc: Schema.optionalKey(Schema.Array(Schema.Union([Schema.String, Schema.Int]))),
      msg: Schema.String
    })
  )
})

/** Any other error body: `{ detail }` (`"Invalid API credentials"`, `"Parcel not found"`). */
export const Detail = Schema.Struct({ detail: Schema.String })

/** An id as the reference lists print it: a number, or its text. */
const Id = Schema.Union([Schema.Int, Schema.String.check(Schema.isNonEmpty())])

/**
 * One relay point of `GET sender/buralists`: its `id` is what a parcel sends as `buralist_id`; it says its wilaya
 * (`wilaya_code`, two digits as text) and the code of its commune in `sender/wilayas` (`commune_code`). The fields
 * are those of the WooCommerce plugin the research cites; `name` is read if the API gives one (README "Unverified").
 */
export const Buralist = Schema.Struct({
  id: Id,
  name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  username: Schema.optionalKey(Schema.NullOr(Schema.String)),
  phone_number: Schema.optionalKey(Schema.NullOr(Schema.String)),
  center_address: Schema.optionalKey(Schema.NullOr(Schema.String)),
  wilaya_code: Code,
  commune_code: Schema.optionalKey(Schema.NullOr(Id))
})
export type Buralist = typeof Buralist.Type

/** `GET sender/buralists`: every relay point of the network (no wilaya filter or paging is documented). */
export const Buralists = Schema.Struct({
  status: Schema.Literal(true),
  data: Schema.Array(Buralist)
})

/** One commune of a wilaya in `GET sender/wilayas`: its code and its name in Near Delivery's spelling. */
export const Commune = Schema.Struct({
  code: Id,
  name: Schema.String.check(Schema.isNonEmpty())
})

/** One wilaya of `GET sender/wilayas`, with its communes. */
export const Wilaya = Schema.Struct({
  wilaya_code: Code,
  wilaya_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  communes: Schema.Array(Commune)
})

/** `GET sender/wilayas`: the wilayas Near Delivery serves, each with its communes. */
export const Wilayas = Schema.Struct({
  status: Schema.Literal(true),
  data: Schema.Array(Wilaya)
})

/** `GET sender/centers`, the senders' centres: only read as a list (the credentials check). */
export const Centers = Schema.Struct({
  status: Schema.Literal(true),
  data: Schema.Array(Schema.Unknown)
})
