/**
 * Pure translation between Tawsil's one request shape and Colivraison Express's API: the bulk create body (one
 * order in it), the history, pricing and label requests, and every answer read back — a result, or the
 * `CourierErrorReason` it means. No HTTP client here: the adapter sends what this builds and hands back what it got,
 * so every rule is tested without a network.
 *
 * Reading an answer is the SDK's (`CourierAnswer.reader`: JSON through the wire schemas, 429 and `Retry-After`, 5xx,
 * 401 and 403, redirects, bodies that are not JSON); what is Colivraison's own is where and in which words it
 * refuses ({@link refusalOf}). Messages are built from status codes and the courier's own words only, never from the
 * request: nothing the caller sent (least of all the public key or the access token) is echoed.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./ColivraisonStatus.ts"
import * as Wire from "./ColivraisonWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

// --- Requests ---------------------------------------------------------------------------------------------------

/** The longest `product_name` the courier is sent: the plugin cuts the product list to 252 characters and "...". */
export const PRODUCT_NAME_MAX = 255

/** The product list as `product_name` takes it, cut (by characters, not UTF-16 units) where it is too long. */
export const productName = (list: string): string => {
  const characters = Array.from(list)
  return characters.length <= PRODUCT_NAME_MAX ? list : `${characters.slice(0, PRODUCT_NAME_MAX - 3).join("")}...`
}

/**
 * One order of `POST v2/orders/bulk`. The address falls back to the commune's name, as the plugin does (a desk
 * parcel has none to give); the recipient pays `codAmount`, sent as text as the plugin sends it. Colivraison has no
 * field for a desk id, a weight, a declared value, free shipping or an open-package right: those are not sent
 * (README).
 */
export const toOrder = (order: Shipment.ParcelOrder): Wire.Order => {
  const { recipient } = order
  return {
    client_name: recipient.fullName,
    wilaya_name: Wire.wilayaName(recipient.wilayaCode),
    commune_name: recipient.communeName,
    order_adress: present(recipient.addressLine) ? recipient.addressLine : recipient.communeName,
    phone_st: AlgerianMobile.nationalOrAsSent(recipient.phone),
    phone_sc: present(recipient.phoneAlt) ? AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) : "",
    product_name: productName(order.productList),
    qte: 1,
    product_price: String(order.codAmount),
    stopdesk_status: order.deliveryType === "stopdesk",
    ...(present(order.reference) ? { order_ref: order.reference } : {}),
    order_note: present(order.notes) ? order.notes : "",
    order_brittle: false,
    order_exchange: order.isExchange === true,
    order_refund: false
  }
}

/** `POST v2/orders/bulk`: the bulk endpoint with exactly one order, so its one outcome is this parcel's. */
export const createBody = (order: Shipment.ParcelOrder): Wire.CreateOrders => ({ orders: [toOrder(order)] })

/** `POST v2/trackinghistory/bulk`: one parcel, by its exact tracking number. */
export const historyBody = (tracking: string): Wire.TrackingNumbers => ({ tracking_numbers: [tracking] })

/** The most tracking numbers one batch asks about, as the SDK promises its callers (Colivraison documents none). */
export const MAX_BATCH = 100

/**
 * The tracking numbers of a batch, once each, as given (the answer is keyed by the exact number). More than
 * {@link MAX_BATCH}, or a blank one, is refused before any call.
 */
export const checkBatch = (trackings: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, Reason> => {
  const unique = [...new Set(trackings)]
  if (unique.length > MAX_BATCH) {
    return Result.fail(
      new CourierError.Refused({ message: `trackingNumbers: at most ${MAX_BATCH} tracking numbers in one call` })
    )
  }
  return unique.some((tracking) => !present(tracking))
    ? Result.fail(new CourierError.Refused({ message: "trackingNumbers: a tracking number is blank" }))
    : Result.succeed(unique)
}

/** `POST v2/trackinghistory/bulk` with several parcels: the list the endpoint takes, which the plugin sends one in. */
export const batchBody = (trackings: ReadonlyArray<string>): Wire.TrackingNumbers => ({ tracking_numbers: trackings })

/**
 * Colivraison's price list prices delivery to the door only (README "Unverified"): a desk is refused before any
 * call rather than priced at a guess.
 */
export const checkDeliveryType = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.deliveryType === "stopdesk"
    ? Result.fail(
        new CourierError.Refused({
          message: "Colivraison's price list prices delivery to the door only: ask for deliveryType home"
        })
      )
    : Result.void

/** `POST v2/generate-download-pdfx1`: one parcel's label. */
export const labelBody = (tracking: string): Wire.LabelRequest => ({ order_ids: [tracking] })

// --- Responses --------------------------------------------------------------------------------------------------

/**
 * `POST v2/orders/bulk` → the parcel. The answer's first outcome is this order's. A tracking number means the
 * parcel exists — whatever `success` says, since the plugin saves any outcome with one, and refusing it would make
 * the caller create a second parcel; without one, the courier's `message` is the refusal.
 */
export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.flatMap(
    decode(Wire.Created, response),
    ({ messages }): Result.Result<CourierAdapter.CreatedParcel, Reason> => {
      const [outcome] = messages
      const tracking = outcome.tracking?.trim() ?? ""
      if (tracking !== "") return Result.succeed({ trackingNumber: tracking, rawStatus: Status.placed })
      const said = clean(outcome.message ?? "")
      if (outcome.success === false || said !== "") {
        return Result.fail(
          new CourierError.Refused({
            message: said === "" ? "the courier refused the order without giving a reason" : said
          })
        )
      }
      return Result.fail(CourierAnswer.undocumented(response.status))
    }
  )

/**
 * A Colivraison time as ISO 8601 in Algiers (`2026-04-18T19:45:06+01:00`). The plugin only hands the text to
 * PHP's `strtotime`; `YYYY-MM-DD HH:MM:SS` in Algiers wall-clock time is assumed, and a time with an offset (or
 * `Z`) is converted. `undefined` when the text is no such time.
 */
export const timestampOf = AlgiersTime.fromCourierText

/**
 * `POST v2/trackinghistory/bulk` → the events of exactly `tracking`, in the order given (the core orders them by
 * time). A tracking number the answer does not hold is unknown: refused, in the courier's words when it gave some.
 */
export const fromHistory = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(
    decode(Wire.History, response),
    (body): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
      const entry = isEmptyList(body) || !Object.hasOwn(body, tracking) ? undefined : body[tracking]
      if (entry === undefined || entry === null) {
        // Any object decodes as the history: a refusal in it (`{ error, message }`) is read before "unknown".
        return Result.fail(
          refusalOf(response.status, body) ??
            new CourierError.Refused({ message: "trackingNumber: Colivraison knows no parcel with this number" })
        )
      }
      return eventsOf(entry) ?? Result.fail(CourierAnswer.undocumented(response.status))
    }
  )

/** One parcel's entry of the history answer → its events; `undefined` for an entry of an undocumented shape. */
const eventsOf = (entry: unknown): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> | undefined => {
  const decoded = Schema.decodeUnknownOption(Wire.HistoryEntry)(entry)
  if (Option.isNone(decoded)) return undefined
  const events: Array<CourierAdapter.RawEvent> = []
  for (const { date, status } of decoded.value) {
    const timestamp = timestampOf(date)
    if (timestamp === undefined) {
      return Result.fail(
        new CourierError.BadResponse({ message: "the courier answered an event time it does not document" })
      )
    }
    events.push({ rawStatus: status, timestamp })
  }
  return Result.succeed(events)
}

/**
 * `POST v2/trackinghistory/bulk` with several numbers → the events of each asked parcel the answer holds, read as
 * {@link fromHistory} reads one. A number the answer does not hold (or PHP's empty `[]`) is one Colivraison does not
 * know, and is left out; keys that were not asked are ignored. An answer holding none of the asked numbers but
 * saying why (`{ error, message }`) is that refusal.
 */
export const fromHistories = (
  asked: ReadonlyArray<string>,
  response: Response
): Result.Result<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, Reason> =>
  Result.flatMap(decode(Wire.History, response), (body) => {
    const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    if (isEmptyList(body)) return Result.succeed(found)
    for (const tracking of asked) {
      const entry = Object.hasOwn(body, tracking) ? body[tracking] : undefined
      if (entry === undefined || entry === null) continue
      const events = eventsOf(entry)
      if (events === undefined) return Result.fail(CourierAnswer.undocumented(response.status))
      if (Result.isFailure(events)) return Result.fail(events.failure)
      found.set(tracking, events.success)
    }
    const refusal = found.size === 0 ? refusalOf(response.status, body) : undefined
    return refusal === undefined ? Result.succeed(found) : Result.fail(refusal)
  })

/**
 * `GET v2/getpricing` read as the credential check: the cheapest read the plugin shows, creating nothing. Any price
 * list means both secrets work; a 401/403 is `CredentialsRejected`, anything else what it means.
 */
export const fromPricingCheck = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Pricing, response), () => undefined)

/** PHP's empty answer: `[]` where an object keyed by tracking number was expected. */
const isEmptyList = (body: typeof Wire.History.Type): body is readonly [] => Array.isArray(body)

const zero = 0 as Dzd.Dzd

/**
 * `GET v2/getpricing` → the fee to the destination wilaya. The list gives one price per wilaya, which the plugin
 * uses for delivery to the door; it has no desk price, no return fee and no fee on the cash (README "Unverified"):
 * a desk is refused ({@link checkDeliveryType}) rather than priced at a guess, the return and cash fees are 0.
 * Colivraison sells one speed, so no tier is named.
 */
export const fromPricing = (
  query: Shipment.RatesQuery,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Pricing, response), (pricing) => {
    const rows: ReadonlyArray<Wire.PriceRow> = Array.isArray(pricing) ? pricing : Object.values(pricing)
    const row = rows.find((candidate) => candidate.wilaya_mat === query.toWilaya)
    if (row === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `Colivraison does not deliver to wilaya ${query.toWilaya}: it is not in its price list`
        })
      )
    }
    const desk = checkDeliveryType(query)
    if (Result.isFailure(desk)) return Result.fail(desk.failure)
    const home = Shipment.RateOption.make({ deliveryType: "home", deliveryFee: row.delivery_price, returnFee: zero })
    return Result.succeed(
      Shipment.RatesResult.make({
        deliveryType: "home",
        deliveryFee: home.deliveryFee,
        returnFee: home.returnFee,
        codFee: zero,
        total: home.deliveryFee,
        currency: "DZD",
        options: [home]
      })
    )
  })

/**
 * `POST v2/generate-download-pdfx1` → the PDF itself (the plugin passes the bytes on as `application/pdf`). A
 * refusal inside an HTTP 200 is a refusal; anything else that is not a PDF is no label.
 */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status !== 200) return Result.fail(errorOf(response))
  if (CourierAnswer.isPdf(response.bytes)) {
    return Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
  }
  const body = CourierAnswer.json(response.text)
  const refusal = Option.isSome(body) ? refusalOf(200, body.value) : undefined
  return Result.fail(
    refusal ?? new CourierError.BadResponse({ message: "the courier answered a label that is not a PDF" })
  )
}

// --- Errors -----------------------------------------------------------------------------------------------------

/** Colivraison's field names (inside `orders.N.`), where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  client_name: "order.recipient.fullName",
  wilaya_name: "order.recipient.wilayaCode",
  commune_name: "order.recipient.communeName",
  order_adress: "order.recipient.addressLine",
  phone_st: "order.recipient.phone",
  phone_sc: "order.recipient.phoneAlt",
  product_name: "order.productList",
  product_price: "order.codAmount",
  stopdesk_status: "order.deliveryType",
  order_ref: "order.reference",
  order_note: "order.notes",
  order_exchange: "order.isExchange",
  tracking_numbers: "trackingNumber",
  order_ids: "trackingNumber"
}

const fieldName = (field: string): string => {
  const bare = field.replace(/^(orders|tracking_numbers|order_ids)\.\d+\.?/, (_all, list: string) =>
    list === "orders" ? "" : list
  )
  return ourFields[bare] ?? bare
}

/**
 * Where Colivraison refuses, in its words: an answer with an `error` member (what the plugin checks for), on a 2xx
 * or a 4xx — a 404 included, since a 404 with that body is the API's refusal, not a missing route; and, on a 400 or
 * 422, Laravel's validation body or a bare `{ message }`.
 */
export const refusalOf = (status: number, body: unknown): Reason | undefined => {
  const failure = Schema.decodeUnknownOption(Wire.Failure)(body)
  if (Option.isSome(failure) && failure.value.error !== false) {
    const { error, message } = failure.value
    const said = clean(typeof error === "string" && error.trim() !== "" ? error : (message ?? ""))
    return new CourierError.Refused({
      message: said === "" ? "the courier refused the request without giving a reason" : said
    })
  }
  if (status !== 400 && status !== 422) return undefined
  const validation = Schema.decodeUnknownOption(Wire.ValidationErrors)(body)
  if (Option.isSome(validation)) {
    const entries = Object.entries(validation.value.errors)
    const message =
      entries.length === 0
        ? clean(validation.value.message ?? "")
        : clean(
            entries
              .map(([field, messages]) => `${fieldName(field)}: ${messages.map((m) => clean(m)).join(" ")}`)
              .join("; "),
            600
          )
    return message === "" ? undefined : new CourierError.Refused({ message })
  }
  const bare = Schema.decodeUnknownOption(Wire.Message)(body)
  const said = Option.isSome(bare) ? clean(bare.value.message) : ""
  return said === "" ? undefined : new CourierError.Refused({ message: said })
}

/** Colivraison's answers, read the SDK's way; its own part is {@link refusalOf}. */
const answers = CourierAnswer.reader({
  credentials: "the public key or the access token",
  refusal: refusalOf
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf
