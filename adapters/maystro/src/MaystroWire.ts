/**
 * The Maystro Delivery API's wire shapes (`https://backend.maystro-delivery.com/api/…`, a Django REST Framework
 * service), as the research notes document them (couriers.md §1.5; README "Unverified"). Every response is decoded
 * with one of these schemas — a body that fits none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/** One line of `products[]`: Maystro registers a catalogue product from the description when no id is given. */
export const Product = Schema.Struct({
  logistical_description: Schema.String,
  quantity: Schema.Int
})

/**
 * The body of `POST stores/orders/`. `commune` is Maystro's numeric commune id (never a name), `source` is always 4
 * (API orders), and `product_price` is everything the driver collects at the door.
 */
export const CreateOrder = Schema.Struct({
  source: Schema.Literal(4),
  external_order_id: Schema.optionalKey(Schema.String),
  customer_name: Schema.String,
  customer_phone: Schema.String,
  wilaya: Schema.Int,
  commune: Schema.Int,
  destination_text: Schema.optionalKey(Schema.String),
  product_price: Schema.Int,
  /** 1 home, 2 stop desk (README "Unverified": another source reads 0 and 1). */
  delivery_type: Schema.Literals([1, 2]),
  express: Schema.Boolean,
  stop_desk_id: Schema.optionalKey(Schema.String),
  note_to_driver: Schema.optionalKey(Schema.String),
  products: Schema.Array(Product)
})
export type CreateOrder = typeof CreateOrder.Type

/**
 * A status as Maystro sends it: a number, or the same number as a string. Any other string is kept too, to be
 * passed on as it is and mapped to `unknown` — one odd status must not hide the rest of a parcel's history.
 */
export const StatusCode = Schema.Union([Schema.Int, Schema.String.check(Schema.isNonEmpty())])
export type StatusCode = typeof StatusCode.Type

/** An order's `id`: a UUID. */
export const orderIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const DisplayId = Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Int, Schema.String])))

/**
 * `POST stores/orders/`, accepted (HTTP 201): the order as Maystro stored it. `id` (a UUID) keys every per-order
 * endpoint; the short number merchants see in Maystro's dashboard, printed on the label and naming the order in
 * Maystro's push, is `display_id` in the create answer four public integrations read, and `display_id_order` in the
 * one whose webhook handling shows it: both are read.
 */
export const Created = Schema.Struct({
  id: Schema.String.check(Schema.isPattern(orderIdPattern)),
  display_id: DisplayId,
  display_id_order: DisplayId,
  status: Schema.optionalKey(StatusCode)
})

/** A yes/no flag: a boolean, `0`/`1`, or the same as a string. */
const Flag = Schema.Union([Schema.Boolean, Schema.Literals([0, 1]), Schema.Literals(["0", "1"])])

/**
 * One commune of `GET shared/communes/?wilaya=`: Maystro's id and its French name. No source shows a home or desk
 * flag in it; `has_stop_desk` is read when present (courier-dz reads it defensively, "seen elsewhere"). Other
 * members are not read.
 */
export const Commune = Schema.Struct({
  id: Schema.Int.check(Schema.isGreaterThan(0)),
  name: Schema.String.check(Schema.isNonEmpty()),
  has_stop_desk: Schema.optionalKey(Schema.NullOr(Flag))
})
export type Commune = typeof Commune.Type

/** `GET shared/communes/?wilaya=`: a plain list, or DRF's paginated `{ results }`. */
export const Communes = Schema.Union([Schema.Array(Commune), Schema.Struct({ results: Schema.Array(Commune) })])

/** One step of `GET stores/history_order/{id}`: the status it reached, and when. */
export const HistoryEntry = Schema.Struct({
  status: StatusCode,
  created_at: Schema.String.check(Schema.isNonEmpty()),
  comment: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type HistoryEntry = typeof HistoryEntry.Type

/** `GET stores/history_order/{id}`: the order's statuses; a list, or DRF's paginated `{ results }`. */
export const History = Schema.Union([
  Schema.Array(HistoryEntry),
  Schema.Struct({ results: Schema.Array(HistoryEntry) })
])

/** Amounts arrive as numbers or as numeric strings (`"400"`, `"400.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))

/** `GET stores/delivery_price/?commune=&delivery_type=&express=`: the fee, or null when that option has no price. */
export const DeliveryPrice = Schema.Struct({
  delivery_price: Schema.NullOr(Amount)
})

/** The body of `POST delivery/starter/v2/starter_bordureau/`: the orders (by `id`) whose label to print. */
export const LabelRequest = Schema.Struct({
  orders_ids: Schema.Array(Schema.String)
})

/** DRF's error body for anything but field validation: `{ "detail": "Invalid token." }`. */
export const Detail = Schema.Struct({ detail: Schema.String })

/**
 * DRF's validation answer (HTTP 400): `{ field: [messages] }`, `non_field_errors` for rules about the whole order,
 * nested objects or lists for nested fields (`products`). Read loosely, then flattened by the mapping.
 */
export const FieldErrors = Schema.Record(Schema.String, Schema.Unknown)

/**
 * The body of `PATCH shared/status/{id}/`: the order aborted (status 50) with `abort_reason` 21, as courier-dz sends
 * it ("official endpoint (GitBook docs)"; the reason's meaning is not published).
 */
export const AbortOrder = Schema.Struct({ status: Schema.Literal(50), abort_reason: Schema.Int })
export type AbortOrder = typeof AbortOrder.Type

/**
 * `PATCH shared/status/{id}/`, done: DRF's update answers the object it changed (HTTP 200); only its status is read,
 * when it has one. A refusal is DRF's `{ detail }` or field errors on 400 (README "Unverified").
 */
export const StatusChanged = Schema.Struct({ status: Schema.optionalKey(StatusCode) })

/** One wilaya of `GET shared/wilayas/`: the `[id, name]` pair courier-dz calls documented, or an object with an id. */
const Wilaya = Schema.Union([
  Schema.Tuple([Schema.Int, Schema.String]),
  Schema.Struct({ id: Schema.Union([Schema.Int, Schema.String]) })
])

/** `GET shared/wilayas/?country=1`: a plain list, or DRF's paginated `{ results }`. */
export const Wilayas = Schema.Union([Schema.Array(Wilaya), Schema.Struct({ results: Schema.Array(Wilaya) })])
