/**
 * The Zimou Express API's wire shapes (`https://zimou.express/api/v3/…`, a Laravel service), as the research notes
 * document them (couriers.md §1.7, from courier-dz's and uften's Zimou adapters and uften's test fixtures; Zimou's
 * own Swagger at `/api/docs` was not readable). Every answer is decoded with one of these schemas: a body that fits
 * none of them is an undocumented answer, never read by hand. What each shape rests on is in the README,
 * "Unverified".
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/** Zimou's three services: two speeds to the door, and a relay point (its own office or a partner's desk). */
export const DeliveryType = Schema.Literals(["Express", "Flexible", "Point relais"])
export type DeliveryType = typeof DeliveryType.Type

/**
 * The body of `POST v3/packages`. `wilaya` is the official code; `commune` a name; `office_id` the relay point of a
 * `Point relais` parcel (whose commune must then be the office's own); `price` what the recipient pays, in DZD.
 */
export const CreatePackage = Schema.Struct({
  type: Schema.Literal("ecommerce"),
  /** The goods, as the label shows them. */
  name: Schema.String,
  client_first_name: Schema.String,
  client_last_name: Schema.String,
  client_phone: Schema.String,
  client_phone2: Schema.optionalKey(Schema.String),
  address: Schema.optionalKey(Schema.String),
  wilaya: Schema.Int,
  commune: Schema.String,
  /** The merchant's reference. */
  order_id: Schema.optionalKey(Schema.String),
  price: Schema.Number,
  free_delivery: Schema.Boolean,
  delivery_type: DeliveryType,
  office_id: Schema.optionalKey(Schema.Int),
  /** What the courier brings back in an exchange. */
  returned_product: Schema.optionalKey(Schema.String),
  /** Kilograms. */
  weight: Schema.optionalKey(Schema.Number),
  can_be_opened: Schema.Boolean,
  observation: Schema.optionalKey(Schema.String)
})
export type CreatePackage = typeof CreatePackage.Type

/** An id Zimou may print as a number or as a numeric string (PHP). */
const NumericId = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

const Text = Schema.String.check(Schema.isNonEmpty())

/**
 * Zimou's package resource, as far as the adapter reads it: its own code (`tracking_code`), the status id, and the
 * partner it routed the parcel to (`tracking_partner_company`, "Yalidine") with that partner's own code
 * (`delivery_company_tracking_code`), both null until Zimou has routed it.
 */
export const Package = Schema.Struct({
  id: NumericId,
  tracking_code: Text,
  status_id: NumericId,
  status_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tracking_partner_company: Schema.optionalKey(Schema.NullOr(Schema.String)),
  delivery_company_tracking_code: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Package = typeof Package.Type

/**
 * `POST v3/packages`, accepted (HTTP 201): `{ error: 0, order_id, message, data: <package> }`. A refusal comes on
 * the same 201 as `{ error: 1, message }` ({@link Failure}).
 */
export const Created = Schema.Struct({
  error: Schema.optionalKey(Schema.Literals([0, "0", false])),
  data: Package
})

/**
 * One entry of `GET v3/packages/status?packages[]=`: the package's current status and when it last changed. Laravel
 * prints times as ISO 8601 in UTC (`2026-04-18T18:45:06.000000Z`) or, for a raw column, `YYYY-MM-DD HH:MM:SS` in the
 * application's (Algiers) time.
 */
export const StatusEntry = Schema.Struct({
  status_id: NumericId,
  status_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  updated_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  created_at: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type StatusEntry = typeof StatusEntry.Type

/**
 * `GET v3/packages/status`: an object keyed by tracking code, bare or under `data` (both aggregators read both);
 * PHP encodes an empty answer as `[]`. Only the asked code's entry is decoded, so that another parcel's odd entry
 * cannot fail this one.
 */
export const Statuses = Schema.Union([Schema.Record(Schema.String, Schema.Unknown), Schema.Tuple([])])

/** Amounts arrive as numbers or as Laravel's decimal strings (`"650.00"`); both decode to whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))

/** A price Zimou may leave out or null: the service is not sold there. */
const MaybeAmount = Schema.optionalKey(Schema.NullOr(Amount))

/** One row of `GET v3/my/prices`: the account's prices to one wilaya, per service. */
export const Price = Schema.Struct({
  wilaya_id: NumericId,
  express_price: MaybeAmount,
  flexible_price: MaybeAmount,
  point_relais_price: MaybeAmount,
  return_price: MaybeAmount
})
export type Price = typeof Price.Type

/** `GET v3/my/prices`: the rows, as a Laravel resource collection (`{ data: [...] }`) or a bare list. */
export const Prices = Schema.Union([Schema.Struct({ data: Schema.Array(Price) }), Schema.Array(Price)])

/** A refusal, on HTTP 201, 200 or a 4xx: `{ error: 1, message }`. */
export const Failure = Schema.Struct({
  error: Schema.Literals([1, "1", true]),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** Laravel's validation answer (HTTP 422): `{ message, errors: { field: [messages] } }`. */
export const ValidationErrors = Schema.Struct({
  message: Schema.optionalKey(Schema.String),
  errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
})

/** Any other Laravel error body: `{ message }` (`"Unauthenticated."`, `"Too Many Attempts."`). */
export const Message = Schema.Struct({ message: Schema.String })

/**
 * `DELETE v3/packages/bulk`: the packages to delete, by Zimou code (courier-dz's `cancelOrder`, which sends one).
 * A JSON body on a DELETE, as Laravel reads it.
 */
export const BulkDelete = Schema.Struct({ tracking_codes: Schema.Array(Text) })
export type BulkDelete = typeof BulkDelete.Type

/**
 * `DELETE v3/packages/bulk`, done: courier-dz reads `success`, taking its absence as done (`success ?? true`). So
 * `{ success: true, … }`, Zimou's `{ error: 0, … }` (its create's shape), or words alone (`{ message }`); HTTP 204
 * without a body is read as done too (Laravel's empty answer). A refusal is `{ error: 1, message }` or
 * `{ success: false, message }` ({@link Unsuccessful}), read first.
 */
export const Deleted = Schema.Union([
  Schema.Struct({ success: Schema.Literals([true, 1, "1"]) }),
  Schema.Struct({ error: Schema.Literals([0, "0", false]) }),
  Schema.Struct({ message: Schema.String })
])

/** `{ success: false, message }`: what courier-dz's `success ?? true` reads as not done. */
export const Unsuccessful = Schema.Struct({
  success: Schema.Literals([false, 0, "0"]),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * One row of `GET v3/helpers/communes` (courier-dz: `{ data: [{ id, name, wilaya_id, zip_code }] }`): Zimou's
 * commune, in the spelling its create's `commune` expects, with its id (what an office's `commune_id` names).
 */
export const Commune = Schema.Struct({
  id: NumericId,
  name: Text,
  wilaya_id: NumericId,
  zip_code: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Finite])))
})
export type Commune = typeof Commune.Type

/**
 * One row of `GET v3/helpers/offices` (courier-dz: `{ data: [{ id, name, delivery_price, partner_company_name,
 * address, commune_id }] }`): a relay point, placed by its commune only (no wilaya), run by a partner courier. Its
 * `id` is the create's `office_id`. `delivery_price` is not read.
 */
export const Office = Schema.Struct({
  id: NumericId,
  name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  commune_id: NumericId,
  address: Schema.optionalKey(Schema.NullOr(Schema.String)),
  partner_company_name: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Office = typeof Office.Type

/**
 * A reference list (`helpers/communes`, `helpers/offices`): a Laravel resource collection (`{ data: [...] }`) or a
 * bare list, as courier-dz reads it (`raw.data ?? raw`). Rows are decoded one by one ({@link Commune},
 * {@link Office}): the list must be one.
 */
export const Rows = Schema.Union([Schema.Struct({ data: Schema.Array(Schema.Unknown) }), Schema.Array(Schema.Unknown)])

/**
 * `GET v3/user`: the token's account, the read courier-dz and uften test a token with. Laravel's `user()` bare, or
 * under `data` (the fake's resource); only the id is read.
 */
export const User = Schema.Union([
  Schema.Struct({ data: Schema.Struct({ id: NumericId }) }),
  Schema.Struct({ id: NumericId })
])
