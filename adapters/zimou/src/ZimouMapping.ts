/**
 * Pure translation between Tawsil's one request shape and the Zimou Express API: the create body (with the service
 * Zimou sells for the delivery type and tier), the status, label and price requests, and every answer read back — a
 * result, or the `CourierErrorReason` it means. No HTTP client here: the adapter sends what this builds and hands
 * back what it got, so every rule is tested without a network.
 *
 * Zimou is a router: it hands each parcel to a partner courier (Yalidine, Maystro, DHD…). Its create answers its own
 * code (`tracking_code`, the tracking number every later call names) and, once routed, the partner and the partner's
 * own code (`tracking_partner_company`, `delivery_company_tracking_code`): the partner's code is the parcel's
 * `courierReference`.
 *
 * Error messages are built from Zimou's own words and status codes only, never from the request: nothing the caller
 * sent (least of all the token) is echoed.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Wire from "./ZimouWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

// --- Requests ---------------------------------------------------------------------------------------------------

/**
 * The Zimou service for a delivery type and tier: to the door, `Express` (the default, and what `express` asks for)
 * or `Flexible` (`economic`); to a desk, `Point relais`, Zimou's one desk service, whatever the tier.
 */
export const serviceOf = (deliveryType: Shipment.DeliveryType, tier: Shipment.Tier | undefined): Wire.DeliveryType =>
  deliveryType === "stopdesk" ? "Point relais" : tier === "economic" ? "Flexible" : "Express"

/** The tier a service is sold as; the desk service has none. */
const tierOf = (service: Wire.DeliveryType): Shipment.Tier | undefined =>
  service === "Express" ? "express" : service === "Flexible" ? "economic" : undefined

/** Zimou wants a first and a last name; a one-word name is given as both. */
export const splitName = (fullName: string): { readonly first: string; readonly last: string } => {
  const [first = "", ...rest] = fullName.trim().split(/\s+/)
  return { first, last: rest.length > 0 ? rest.join(" ") : first }
}

/**
 * A `Point relais` parcel goes to one office, which Zimou names by a number (`office_id`, from its offices list):
 * without one there is nothing to send, so the order is refused here, before any call, in words the caller can act
 * on. Zimou then also wants the declared commune to be the office's own (README); that rule is Zimou's to apply.
 */
const officeOf = (order: Shipment.ParcelOrder): Result.Result<number | undefined, Reason> => {
  if (order.deliveryType !== "stopdesk") return Result.succeed(undefined)
  const office = order.stopDeskId?.trim() ?? ""
  if (office === "") {
    return Result.fail(
      new CourierError.Refused({
        message:
          "order.stopDeskId: a Zimou stop-desk (Point relais) parcel needs the id of the office it goes to, from Zimou's offices list; the commune must be that office's commune"
      })
    )
  }
  return /^\d{1,9}$/.test(office)
    ? Result.succeed(Number(office))
    : Result.fail(new CourierError.Refused({ message: "order.stopDeskId: Zimou office ids are numbers" }))
}

/**
 * `POST v3/packages`. A desk parcel without an address gets the commune's name (Zimou's create wants `address`); a
 * home delivery without one leaves it out for Zimou to refuse. In an exchange the courier brings back the same
 * goods (`returned_product`). `declaredValue` has no Zimou field and is not sent (README).
 */
export const toCreatePackage = (order: Shipment.ParcelOrder): Result.Result<Wire.CreatePackage, Reason> =>
  Result.map(officeOf(order), (office): Wire.CreatePackage => {
    const { recipient } = order
    const stopdesk = order.deliveryType === "stopdesk"
    const address = present(recipient.addressLine)
      ? recipient.addressLine
      : stopdesk
        ? recipient.communeName
        : undefined
    const { first, last } = splitName(recipient.fullName)
    return {
      type: "ecommerce",
      name: order.productList,
      client_first_name: first,
      client_last_name: last,
      client_phone: AlgerianMobile.nationalOrAsSent(recipient.phone),
      ...(present(recipient.phoneAlt) ? { client_phone2: AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) } : {}),
      ...(address === undefined ? {} : { address }),
      wilaya: recipient.wilayaCode,
      commune: recipient.communeName,
      ...(present(order.reference) ? { order_id: order.reference } : {}),
      price: order.codAmount,
      free_delivery: order.freeShipping === true,
      delivery_type: serviceOf(order.deliveryType, order.tier),
      ...(office === undefined ? {} : { office_id: office }),
      ...(order.isExchange === true ? { returned_product: order.productList } : {}),
      ...(order.weightKg === undefined ? {} : { weight: order.weightKg }),
      can_be_opened: order.hasOpenPackage === true,
      ...(present(order.notes) ? { observation: order.notes } : {})
    }
  })

/** `GET v3/packages/status`: one parcel, by its exact Zimou code. */
export const statusQuery = (tracking: string): Readonly<Record<string, string>> => ({ "packages[]": tracking })

/** `POST v3/packages/labels`: the label of one parcel. */
export const labelBody = (tracking: string) => ({ packages: [tracking] })

// --- Responses --------------------------------------------------------------------------------------------------

/** The partner's code when Zimou has routed the parcel; `undefined` before (null, absent or blank). */
export const partnerCodeOf = (parcel: Wire.Package): string | undefined => {
  const code = parcel.delivery_company_tracking_code?.trim() ?? ""
  return code === "" ? undefined : code
}

/**
 * `POST v3/packages` → Zimou's code as the tracking number, its status id as the raw status, the partner's code as
 * `courierReference` when Zimou has already routed the parcel.
 */
export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.map(decode(Wire.Created, response), ({ data }) => {
    const partner = partnerCodeOf(data)
    return {
      trackingNumber: data.tracking_code,
      rawStatus: String(data.status_id),
      ...(partner === undefined ? {} : { courierReference: partner })
    }
  })

/** A Zimou time as ISO 8601 in Algiers (Laravel's UTC `…Z`, or a wall-clock `YYYY-MM-DD HH:MM:SS`). */
export const timestampOf = AlgiersTime.fromCourierText

/** The asked code's entry, bare or under `data`; PHP's empty answer (`[]`) holds none. */
const entryOf = (body: typeof Wire.Statuses.Type, tracking: string): unknown => {
  if (Array.isArray(body)) return undefined
  const record = body as Readonly<Record<string, unknown>>
  if (Object.hasOwn(record, tracking)) return record[tracking]
  const data = Object.hasOwn(record, "data") ? record.data : undefined
  return typeof data === "object" && data !== null && !Array.isArray(data) && Object.hasOwn(data, tracking)
    ? (data as Readonly<Record<string, unknown>>)[tracking]
    : undefined
}

/**
 * `GET v3/packages/status` → the parcel's current status, as one event at the time it last changed. Zimou answers
 * the status, not a history, so a track shows where the parcel is now, not the way it came. A code Zimou does not
 * return is unknown: refused.
 */
export const fromStatuses = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(
    decode(Wire.Statuses, response),
    (body): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
      const entry = entryOf(body, tracking)
      if (entry === undefined || entry === null) {
        return Result.fail(
          new CourierError.Refused({ message: "trackingNumber: Zimou knows no parcel with this tracking code" })
        )
      }
      const decoded = Schema.decodeUnknownOption(Wire.StatusEntry)(entry)
      if (Option.isNone(decoded)) return Result.fail(CourierAnswer.undocumented(response.status))
      const { created_at, status_id, updated_at } = decoded.value
      const at = updated_at ?? created_at
      const timestamp = at === undefined || at === null ? undefined : timestampOf(at)
      if (timestamp === undefined) {
        return Result.fail(
          new CourierError.BadResponse({ message: "the courier answered a status without a time it documents" })
        )
      }
      return Result.succeed([{ rawStatus: String(status_id), timestamp }])
    }
  )

/** `POST v3/packages/labels` → the PDF itself; a refusal inside an HTTP 200 is a refusal, anything else no label. */
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

const zero = 0 as Dzd.Dzd

/**
 * `GET v3/my/prices` → the account's prices to the destination wilaya (Zimou prices per wilaya: the origin and the
 * commune do not change them). Each service priced there is an option; the asked one is the service
 * {@link serviceOf} picks. A return price Zimou does not give is 0, and there is no fee on the cash (none is
 * documented).
 */
export const fromPrices = (
  query: Shipment.RatesQuery,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Prices, response), (prices) => {
    const rows = Array.isArray(prices) ? prices : (prices as { readonly data: ReadonlyArray<Wire.Price> }).data
    const row = rows.find((candidate) => candidate.wilaya_id === query.toWilaya)
    if (row === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `Zimou does not deliver to wilaya ${query.toWilaya}: it is not in the account's prices`
        })
      )
    }
    const returnFee = row.return_price ?? zero
    const priced: ReadonlyArray<readonly [Wire.DeliveryType, Shipment.DeliveryType, Dzd.Dzd | null | undefined]> = [
      ["Express", "home", row.express_price],
      ["Flexible", "home", row.flexible_price],
      ["Point relais", "stopdesk", row.point_relais_price]
    ]
    const options = priced.flatMap(([service, deliveryType, deliveryFee]) => {
      if (deliveryFee === undefined || deliveryFee === null) return []
      const tier = tierOf(service)
      return [
        {
          service,
          option: Shipment.RateOption.make({
            deliveryType,
            ...(tier === undefined ? {} : { tier }),
            deliveryFee,
            returnFee
          })
        }
      ]
    })
    const wanted = serviceOf(query.deliveryType, query.tier)
    const asked = options.find(({ service }) => service === wanted)?.option
    if (asked === undefined) {
      return Result.fail(
        new CourierError.Refused({ message: `Zimou sells no ${wanted} delivery to wilaya ${query.toWilaya}` })
      )
    }
    return Result.succeed(
      Shipment.RatesResult.make({
        deliveryType: asked.deliveryType,
        ...(asked.tier === undefined ? {} : { tier: asked.tier }),
        deliveryFee: asked.deliveryFee,
        returnFee: asked.returnFee,
        codFee: zero,
        total: asked.deliveryFee,
        currency: "DZD",
        options: options.map(({ option }) => option)
      })
    )
  })

// --- Errors -----------------------------------------------------------------------------------------------------

/**
 * Zimou's answers, read the SDK's way; what is Zimou's own is where it refuses — `{ error: 1, message }` inside a
 * 2xx (its create refuses on HTTP 201), Laravel's validation on 422 (or 400) — and in which words ({@link refusalOf}),
 * and the words of its 401 (`{ message: "Unauthenticated." }`).
 */
const answers = CourierAnswer.reader({
  credentials: "the API token",
  refusal: (status, body) =>
    (status >= 200 && status < 300) || status === 400 || status === 422 ? refusalOf(status, body) : undefined,
  rejection: (body) =>
    Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(Wire.Message)(body), (m) => m.message))
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf

/** Zimou's field names, where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  name: "order.productList",
  client_first_name: "order.recipient.fullName",
  client_last_name: "order.recipient.fullName",
  client_phone: "order.recipient.phone",
  client_phone2: "order.recipient.phoneAlt",
  address: "order.recipient.addressLine",
  wilaya: "order.recipient.wilayaCode",
  commune: "order.recipient.communeName",
  order_id: "order.reference",
  price: "order.codAmount",
  free_delivery: "order.freeShipping",
  delivery_type: "order.deliveryType",
  office_id: "order.stopDeskId",
  returned_product: "order.isExchange",
  weight: "order.weightKg",
  can_be_opened: "order.hasOpenPackage",
  observation: "order.notes",
  packages: "trackingNumber",
  "packages.0": "trackingNumber"
}

const refusalOf = (status: number, body: unknown): Reason | undefined => {
  const failure = Schema.decodeUnknownOption(Wire.Failure)(body)
  if (Option.isSome(failure)) {
    const said = clean(failure.value.message ?? "")
    return new CourierError.Refused({
      message: said === "" ? "the courier refused the request without giving a reason" : said
    })
  }
  const validation = Schema.decodeUnknownOption(Wire.ValidationErrors)(body)
  if (Option.isSome(validation)) {
    const entries = Object.entries(validation.value.errors)
    if (entries.length === 0) {
      const said = clean(validation.value.message ?? "")
      return said === "" ? undefined : new CourierError.Refused({ message: said })
    }
    return new CourierError.Refused({
      message: clean(
        entries
          .map(([field, messages]) => `${ourFields[field] ?? field}: ${messages.map((m) => clean(m)).join(" ")}`)
          .join("; "),
        600
      )
    })
  }
  const bare = Schema.decodeUnknownOption(Wire.Message)(body)
  // A bare `{ message }` refuses only on an error status; on a 2xx it is no documented answer.
  if (Option.isSome(bare) && status >= 400) {
    const said = clean(bare.value.message)
    if (said !== "") return new CourierError.Refused({ message: said })
  }
  return undefined
}
