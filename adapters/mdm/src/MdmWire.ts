/**
 * The MDM Express API's wire shapes (`https://api.mdm.express/api/…`, a JSON API behind an `x-api-key` header), as
 * the research notes (couriers.md §1.8, §3.3) and two public integrations describe them: courier-dz's `MdmAdapter`
 * and the WooCommerce Bordereau Generator's `Mdm` provider (README "Unverified"). Every answer is decoded with one
 * of these schemas: a body that fits none of them is an undocumented answer, never read by hand.
 */
import { Schema } from "effect"

/** The recipient of `POST api/v2/orders`: MDM takes the name in two parts, and phones in the national form. */
export const Client = Schema.Struct({
  firstName: Schema.String,
  lastName: Schema.String,
  phone: Schema.String,
  phone2: Schema.optionalKey(Schema.String)
})

/** Where the order goes: MDM's own city id (never a name) and the street. */
export const Destination = Schema.Struct({
  cityId: Schema.String,
  streetAddress: Schema.String
})

/** One line of `products[]`: described by name (no catalogue id), its quantity and what it is sold for. */
export const Product = Schema.Struct({
  name: Schema.String,
  quantity: Schema.Int,
  price: Schema.Int
})

/**
 * The body of `POST api/v2/orders`. `totalPrice` is everything the driver collects at the door; `confirmed` tells
 * MDM the merchant has already confirmed the order with the customer, so that MDM makes its parcel at once.
 */
export const CreateOrder = Schema.Struct({
  totalPrice: Schema.Int,
  client: Client,
  destination: Destination,
  products: Schema.Array(Product),
  freeShipping: Schema.Boolean,
  fragile: Schema.Boolean,
  openable: Schema.Boolean,
  isStopDesk: Schema.Boolean,
  stopDeskId: Schema.optionalKey(Schema.String),
  weight: Schema.optionalKey(Schema.Int),
  notes: Schema.optionalKey(Schema.String),
  confirmed: Schema.Boolean
})
export type CreateOrder = typeof CreateOrder.Type

/**
 * An MDM tracking id (`ORD-…` for orders, `PCL-…`-like for parcels, `FIL-…`-like for print files): letters, digits,
 * `-` and `_`. Anything else is refused before a call: it could only name another path.
 */
export const trackingIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

const TrackingId = Schema.String.check(Schema.isPattern(trackingIdPattern))

/** A raw status as MDM sends it: a word (`pending`, `confirmed`, …); an undocumented one is passed on as it is. */
export const Status = Schema.String.check(Schema.isNonEmpty())

/** `POST api/v2/orders`, accepted: the order's tracking id, and its status when MDM says it. */
export const Created = Schema.Struct({
  trackingId: TrackingId,
  status: Schema.optionalKey(Status)
})

/** What the order is linked to: MDM makes a parcel (`type: "parcel"`) once the order is confirmed. */
export const Relative = Schema.Struct({
  type: Schema.String,
  data: Schema.optionalKey(Schema.Struct({ trackingId: Schema.optionalKey(Schema.String) }))
})

/** `GET api/v2/orders/{trackingId}`: the order, its status and what it is linked to. Other members are not read. */
export const Order = Schema.Struct({
  trackingId: TrackingId,
  status: Status,
  createdAt: Schema.optionalKey(Schema.String),
  updatedAt: Schema.optionalKey(Schema.String),
  relatives: Schema.optionalKey(Schema.Array(Relative))
})
export type Order = typeof Order.Type

/** One step of an order's status history: the status it reached, and when (ISO 8601). */
export const HistoryEntry = Schema.Struct({
  status: Status,
  date: Schema.String.check(Schema.isNonEmpty())
})

/**
 * `GET api/v2/orders/{trackingId}/status-history`: `{ statusHistory: [...] }` (the WooCommerce integration's
 * reading), or the bare list (courier-dz's).
 */
export const History = Schema.Union([
  Schema.Struct({ statusHistory: Schema.Array(HistoryEntry) }),
  Schema.Array(HistoryEntry)
])

/** An id as MDM sends it: a string (`DZA161601`), or a number; the mapping reads both as text. */
const Id = Schema.Union([Schema.String.check(Schema.isNonEmpty()), Schema.Int])

/** One city of `GET api/geo/cities`: MDM's id and its French name. Other members (`nameAr`, `zipCode`) are not read. */
export const City = Schema.Struct({
  id: Id,
  name: Schema.String.check(Schema.isNonEmpty())
})
export type City = typeof City.Type

/** `GET api/geo/cities?stateId[]=DZA16`: the state's cities, in MDM's `{ list }` page or as a bare list. */
export const Cities = Schema.Union([Schema.Struct({ list: Schema.Array(City) }), Schema.Array(City)])

/**
 * Where an office is: the id of the city it is in (`cityCode`, an id of `api/geo/cities`), and its name. The
 * street (`streetAddress`, the word MDM's `destination` uses) is read when given (README "Unverified").
 */
export const OfficeAddress = Schema.Struct({
  cityCode: Schema.optionalKey(Schema.NullOr(Id)),
  cityName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  streetAddress: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** One office (stop desk) of `GET api/v2/shipping/companies/offices`: its id is an order's `stopDeskId`. */
export const Office = Schema.Struct({
  id: Id,
  name: Schema.String.check(Schema.isNonEmpty()),
  address: Schema.optionalKey(Schema.NullOr(OfficeAddress)),
  phone: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Office = typeof Office.Type

/** `GET api/v2/shipping/companies/offices`: every office, in MDM's `{ list }` page or as a bare list. */
export const Offices = Schema.Union([Schema.Struct({ list: Schema.Array(Office) }), Schema.Array(Office)])

/** `GET api/geo/countries`: only read as a list (the credentials check). */
export const Countries = Schema.Union([
  Schema.Struct({ list: Schema.Array(Schema.Unknown) }),
  Schema.Array(Schema.Unknown)
])

/** The body of `POST api/prints/parcel-slips`: the parcels (by tracking id) whose slips to print. */
export const SlipRequest = Schema.Struct({ parcelIds: Schema.Array(Schema.String) })

/** `POST api/prints/parcel-slips` answers the id of the file it printed, fetched at `api/prints/files/{fileId}`. */
export const Slip = Schema.Struct({ fileId: TrackingId })

/** MDM's refusal: `{ error: { code, message } }` (often with `status`), or a bare `{ message }`. */
export const Failure = Schema.Union([
  Schema.Struct({
    error: Schema.Struct({ code: Schema.optionalKey(Schema.String), message: Schema.String })
  }),
  Schema.Struct({ message: Schema.Union([Schema.String, Schema.Array(Schema.String)]) })
])
