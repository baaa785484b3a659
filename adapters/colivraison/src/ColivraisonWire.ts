/**
 * The wire format of Colivraison Express's API (`https://api.colivraison.express/v2/…`), as the one public
 * integration shows it (WooBordereauGenerator's `ColivraisonExpress.php` and `ColivraisonExpressSettings.php`; the
 * research's peer-landscape.md §1 row 6). No API document was found: every shape below is what that client sends,
 * or what it reads back, and the rest is marked as assumed (README "Unverified"). Answers are untrusted input,
 * decoded here, never checked by hand.
 */
import { WilayaNames } from "@tawsil/courier"
import { Dzd, type WilayaCode } from "@tawsil/domain"
import { Schema } from "effect"

/**
 * One order of `POST v2/orders/bulk`, with the plugin's field names (`order_adress` is spelled so). The wilaya is
 * sent by name, the commune by name; the prices are text, as the plugin casts them.
 */
export interface Order {
  readonly client_name: string
  readonly wilaya_name: string
  readonly commune_name: string
  readonly order_adress: string
  /** The recipient's phone (`st`: first), national form. */
  readonly phone_st: string
  /** A second phone, or "" (the plugin always sends the field). */
  readonly phone_sc: string
  /** At most 255 characters (the plugin cuts it to 252 and "..."). */
  readonly product_name: string
  readonly qte: number
  /** What the recipient pays, in DZD, as text. */
  readonly product_price: string
  /** Delivered to a desk rather than the door. */
  readonly stopdesk_status: boolean
  readonly order_ref?: string
  /** A note for the courier, or "" (the plugin always sends the field). */
  readonly order_note: string
  readonly order_brittle: boolean
  readonly order_exchange: boolean
  readonly order_refund: boolean
}

/** `POST v2/orders/bulk`: the orders to create (Tawsil sends one). */
export interface CreateOrders {
  readonly orders: ReadonlyArray<Order>
}

/**
 * One entry of the bulk answer's `messages`, in the order the orders were sent: `tracking` when the order was
 * created, else `success: false` and the courier's `message`.
 */
export const OrderOutcome = Schema.Struct({
  success: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  tracking: Schema.optionalKey(Schema.NullOr(Schema.String)),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type OrderOutcome = typeof OrderOutcome.Type

/** `POST v2/orders/bulk`, answered: one outcome per order sent. */
export const Created = Schema.Struct({
  messages: Schema.NonEmptyArray(OrderOutcome)
})

/** `POST v2/trackinghistory/bulk` and `v2/tracking/bulk`: the numbers asked about. */
export interface TrackingNumbers {
  readonly tracking_numbers: ReadonlyArray<string>
}

/**
 * One event of a parcel's history: a status of {@link statuses} and its time. The plugin reads only these two
 * members (and sorts by the time itself, so the order of the list is not relied on).
 */
export const HistoryEvent = Schema.Struct({
  status: Schema.String.check(Schema.isNonEmpty()),
  date: Schema.String.check(Schema.isNonEmpty())
})
export type HistoryEvent = typeof HistoryEvent.Type

/** One parcel's history. */
export const HistoryEntry = Schema.Array(HistoryEvent)

/**
 * `POST v2/trackinghistory/bulk`: an object keyed by tracking number (the plugin reads `$response[$tracking]`).
 * Only the asked parcel's entry is decoded, so another parcel's odd entry cannot fail this one; PHP encodes an
 * empty answer as `[]`.
 */
export const History = Schema.Union([Schema.Record(Schema.String, Schema.Unknown), Schema.Tuple([])])

/** Amounts as numbers or numeric text (`650`, `"650.00"`), read as whole dinars. */
const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))

/** A wilaya number, as a number or as text (`16`, `"16"`: the plugin pads and compares it loosely). */
const WilayaNumber = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

/** One row of `GET v2/getpricing`: the home-delivery price to one wilaya (`wilaya_mat` is its official number). */
export const PriceRow = Schema.Struct({
  wilaya: Schema.optionalKey(Schema.NullOr(Schema.String)),
  wilaya_mat: WilayaNumber,
  delivery_price: Amount
})
export type PriceRow = typeof PriceRow.Type

/** `GET v2/getpricing`: a list of rows (PHP may also key it, so an object of rows is read the same way). */
export const Pricing = Schema.Union([Schema.Array(PriceRow), Schema.Record(Schema.String, PriceRow)])
export type Pricing = typeof Pricing.Type

/** `POST v2/generate-download-pdfx1`: the orders whose labels to print, by tracking number. */
export interface LabelRequest {
  readonly order_ids: ReadonlyArray<string>
}

/**
 * A refusal: the plugin treats any answer with an `error` member as failed. `error` is a flag or the words
 * themselves; `message` carries the words when `error` is a flag (assumed: README "Unverified").
 */
export const Failure = Schema.Struct({
  error: Schema.Union([Schema.String, Schema.Boolean]),
  message: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** A Laravel validation answer (`{ message, errors: { field: [messages] } }`), should the API send one. */
export const ValidationErrors = Schema.Struct({
  message: Schema.optionalKey(Schema.String),
  errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
})

/** A bare `{ message }` on an error status. */
export const Message = Schema.Struct({ message: Schema.String })

/**
 * A wilaya as `wilaya_name` spells it. The plugin sends names from its own `colivraison_wilaya.json`, which was not
 * found; these are the usual French spellings, the SDK's `WilayaNames` (README "Unverified": a spelling Colivraison
 * does not know is one exception here).
 */
export const wilayaName = (code: WilayaCode.WilayaCode): string => WilayaNames.frenchOf(code)
