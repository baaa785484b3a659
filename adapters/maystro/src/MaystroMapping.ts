/**
 * Pure translation between Tawsil's one request shape and the Maystro Delivery API: the commune id lookup, the
 * create body, the price queries, and every answer read back — a result, or the `CourierErrorReason` it means. No
 * HTTP client here: the adapter sends what this builds and hands back what it got, so every rule is tested without
 * a network.
 *
 * Error messages are built from the courier's own words and status codes only, never from the request: nothing
 * the caller sent (least of all the API key) is echoed; the host blanks the key out of every answer should
 * Maystro ever quote it back.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./MaystroStatus.ts"
import * as Wire from "./MaystroWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Communes ---------------------------------------------------------------------------------------------------

/**
 * A commune name reduced to what spelling variants share: accents, case, apostrophes, hyphens and repeated spaces
 * do not tell two communes apart ("Bordj El Kiffan", "bordj el-kiffan", "Bordj El Kiffane" is NOT the same). Nothing
 * fuzzier: a near miss is refused, never guessed.
 */
export const communeKey = (name: string): string =>
  name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()

/** `GET shared/communes/?wilaya=`: the communes of one wilaya, with Maystro's ids. */
export const communesQuery = (wilaya: number) => ({ wilaya: String(wilaya) })

/** The answer to {@link communesQuery}: every commune of the wilaya, as Maystro names and numbers them. */
export const fromCommunes = (response: Response): Result.Result<ReadonlyArray<Wire.Commune>, Reason> =>
  Result.map(decode(Wire.Communes, response), (body) => ("results" in body ? body.results : body))

/**
 * Maystro's id of the caller's commune, matched on {@link communeKey} within the destination wilaya. No match, or
 * two different communes with the same name, is the caller's to fix: refused, naming the commune they sent.
 */
export const communeIdOf = (
  communes: ReadonlyArray<Wire.Commune>,
  communeName: string,
  wilaya: number
): Result.Result<number, Reason> => {
  const key = communeKey(communeName)
  const ids = [...new Set(communes.filter((commune) => communeKey(commune.name) === key).map(({ id }) => id))]
  if (ids.length === 1) return Result.succeed(ids[0]!)
  return Result.fail(
    new CourierError.Refused({
      message:
        ids.length === 0
          ? `order.recipient.communeName: Maystro knows no commune ${JSON.stringify(communeName)} in wilaya ${wilaya}` +
            " (check its spelling against the official list)"
          : `order.recipient.communeName: Maystro has ${ids.length} communes named ${JSON.stringify(communeName)} in wilaya ${wilaya}`
    })
  )
}

/**
 * The commune that prices a wilaya when the caller names none: the first Maystro lists (prices are reported to be
 * the same across a wilaya's communes). A wilaya without communes is one Maystro does not serve.
 */
export const firstCommuneOf = (communes: ReadonlyArray<Wire.Commune>, wilaya: number): Result.Result<number, Reason> =>
  communes.length > 0
    ? Result.succeed(communes[0]!.id)
    : Result.fail(
        new CourierError.Refused({ message: `Maystro lists no commune in wilaya ${wilaya}: it does not deliver there` })
      )

const isSet = (flag: boolean | number | string) => flag === true || flag === 1 || flag === "1"

/**
 * The wilaya's communes as Maystro names them, with its ids: every commune the create accepts (it looks the name up
 * in this same list). The list documents no flags: every commune is served at home, and has a desk unless the row
 * says `has_stop_desk` false — Maystro's create decides (README "Unverified").
 */
export const toCourierCommunes = (
  communes: ReadonlyArray<Wire.Commune>
): ReadonlyArray<CourierAdapter.CourierCommune> =>
  communes.map((commune) => ({
    name: commune.name,
    id: String(commune.id),
    home: true,
    stopdesk: commune.has_stop_desk === undefined || commune.has_stop_desk === null || isSet(commune.has_stop_desk)
  }))

// --- Requests ---------------------------------------------------------------------------------------------------

/** The core has already checked the phones are Algerian mobiles; Maystro wants the 10-digit national form. */
const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/** What Maystro cannot do, refused before any call: it has no exchange orders. */
export const checkOrder = (order: Shipment.ParcelOrder): Result.Result<void, Reason> =>
  order.isExchange === true
    ? Result.fail(new CourierError.Refused({ message: "order.isExchange: Maystro has no exchange orders" }))
    : Result.void

/**
 * `POST stores/orders/`. A stop-desk parcel has no address to give, so the commune name stands in; a home delivery
 * without one leaves `destination_text` out for Maystro to refuse. Orders are never express: `ParcelOrder` has no
 * tier. `phoneAlt`, `weightKg`, `declaredValue`, `freeShipping` and `hasOpenPackage` have no Maystro field (README).
 */
export const toCreateOrder = (order: Shipment.ParcelOrder, communeId: number): Wire.CreateOrder => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  const address = present(recipient.addressLine) ? recipient.addressLine : stopdesk ? recipient.communeName : undefined
  return {
    source: 4,
    ...(present(order.reference) ? { external_order_id: order.reference } : {}),
    customer_name: recipient.fullName,
    customer_phone: AlgerianMobile.nationalOrAsSent(recipient.phone),
    wilaya: recipient.wilayaCode,
    commune: communeId,
    ...(address === undefined ? {} : { destination_text: address }),
    product_price: order.codAmount,
    delivery_type: deliveryTypeCode(order.deliveryType),
    express: false,
    ...(stopdesk && order.stopDeskId !== undefined ? { stop_desk_id: order.stopDeskId } : {}),
    ...(present(order.notes) ? { note_to_driver: order.notes } : {}),
    products: [{ logistical_description: order.productList, quantity: 1 }]
  }
}

/** Maystro's `delivery_type` (README "Unverified": CourierDZ reads 0 home, 1 stop desk; courier-dz 1 and 2). */
export const deliveryTypeCode = (deliveryType: Shipment.DeliveryType): 1 | 2 => (deliveryType === "home" ? 1 : 2)

/**
 * Maystro keys every per-order endpoint by the order's `id`, a UUID, which is the tracking number `create`
 * answers. Anything else is refused before a call: it could only name another parcel, or another path.
 */
export const orderId = (trackingNumber: string): Result.Result<string, Reason> =>
  Wire.orderIdPattern.test(trackingNumber)
    ? Result.succeed(trackingNumber.toLowerCase())
    : Result.fail(
        new CourierError.Refused({
          message:
            "trackingNumber: a Maystro tracking number is the order id create answered (a UUID), not its display number"
        })
      )

/** `GET stores/delivery_price/`: one option's price to a commune. */
export const priceQuery = (communeId: number, deliveryType: Shipment.DeliveryType, tier: Shipment.Tier) => ({
  commune: String(communeId),
  delivery_type: String(deliveryTypeCode(deliveryType)),
  ...(tier === "express" ? { express: "true" } : {})
})

/** Every option Maystro may price: both delivery types, each in both tiers. */
export const priceOptions: ReadonlyArray<readonly [Shipment.DeliveryType, Shipment.Tier]> = [
  ["home", "economic"],
  ["home", "express"],
  ["stopdesk", "economic"],
  ["stopdesk", "express"]
]

/** `POST delivery/starter/v2/starter_bordureau/`: the label of one order, by its id. */
export const labelRequest = (id: string): typeof Wire.LabelRequest.Type => ({ orders_ids: [id] })

/** Maystro's `abort_reason` on a cancel: courier-dz's 21 (its meaning is not published). */
export const ABORT_REASON = 21

/** `PATCH shared/status/{id}/`: the order aborted, status 50. */
export const abortRequest: Wire.AbortOrder = { status: 50, abort_reason: ABORT_REASON }

/** `GET shared/wilayas/`: Algeria's (courier-dz's `country=1`). */
export const wilayasQuery = { country: "1" } as const

// --- Responses --------------------------------------------------------------------------------------------------

/**
 * `POST stores/orders/` → the tracking number (the order's id), its display number as the courier's reference
 * (`display_id`, else `display_id_order`: what the label prints and Maystro's push names the order by) and its
 * first status.
 */
export const fromCreated = (response: Response): Result.Result<CreatedOrder, Reason> =>
  Result.map(decode(Wire.Created, response), (body) => {
    const display = String(body.display_id ?? body.display_id_order ?? "").trim()
    return {
      trackingNumber: body.id.toLowerCase(),
      ...(display === "" ? {} : { courierReference: display }),
      rawStatus: body.status === undefined ? Status.created : rawStatusOf(body.status)
    }
  })

/** A status as the status table keys it: the number's decimal text (`"041"` and `41` are `"41"`). */
export const rawStatusOf = (status: Wire.StatusCode): string =>
  typeof status === "number" ? String(status) : /^\d{1,6}$/.test(status.trim()) ? String(Number(status)) : status

export interface CreatedOrder {
  readonly trackingNumber: string
  readonly courierReference?: string
  readonly rawStatus: string
}

/**
 * A Maystro time as ISO 8601 in Algiers (`2026-04-18T19:45:06+01:00`). Django sends ISO 8601, with an offset (or
 * `Z`) when time zones are on; a time without one is Algiers wall-clock time (the platform is Algerian, and Algeria
 * keeps UTC+01:00 all year). `undefined` when the text is no such time.
 */
export const timestampOf = AlgiersTime.fromCourierText

/** `GET stores/history_order/{id}` → the order's statuses, each with its Algiers time. */
export const fromHistory = (response: Response): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const notFound = response.status === 404 ? Option.getOrUndefined(detailOf(response)) : undefined
  if (notFound !== undefined) {
    return Result.fail(
      new CourierError.Refused({ message: `trackingNumber: Maystro has no order with this id (${clean(notFound)})` })
    )
  }
  return Result.flatMap(decode(Wire.History, response), (body) => {
    const entries = "results" in body ? body.results : body
    const events: Array<CourierAdapter.RawEvent> = []
    for (const entry of entries) {
      const timestamp = timestampOf(entry.created_at)
      if (timestamp === undefined) {
        return Result.fail(
          new CourierError.BadResponse({ message: "the courier answered a history time it does not document" })
        )
      }
      events.push({ rawStatus: rawStatusOf(entry.status), timestamp })
    }
    return Result.succeed(events)
  })
}

/**
 * `GET stores/delivery_price/` → the price, or `undefined` when Maystro has none for that option: a null price,
 * or its 404 "no pricing for the provided information".
 */
export const fromPrice = (response: Response): Result.Result<Dzd.Dzd | undefined, Reason> =>
  response.status === 404 && Option.isSome(CourierAnswer.json(response.text))
    ? Result.succeed(undefined)
    : Result.map(decode(Wire.DeliveryPrice, response), (body) => body.delivery_price ?? undefined)

const zero = 0 as Dzd.Dzd

/**
 * The rates answer from the prices of every option: Maystro prices per commune, charges no fee on the cash it
 * collects (none is documented) and documents no return fee (README "Unverified"). The asked option must be
 * among those priced.
 */
export const toRates = (
  query: Shipment.RatesQuery,
  prices: ReadonlyArray<readonly [Shipment.DeliveryType, Shipment.Tier, Dzd.Dzd | undefined]>
): Result.Result<Shipment.RatesResult, Reason> => {
  const options = prices.flatMap(([deliveryType, tier, deliveryFee]) =>
    deliveryFee === undefined ? [] : [Shipment.RateOption.make({ deliveryType, tier, deliveryFee, returnFee: zero })]
  )
  const tier = query.tier ?? "economic"
  const asked = options.find((option) => option.deliveryType === query.deliveryType && option.tier === tier)
  if (asked === undefined) {
    return Result.fail(
      new CourierError.Refused({
        message: `Maystro has no ${tier} ${query.deliveryType === "home" ? "home" : "stop-desk"} delivery to this commune`
      })
    )
  }
  return Result.succeed(
    Shipment.RatesResult.make({
      deliveryType: asked.deliveryType,
      tier,
      deliveryFee: asked.deliveryFee,
      returnFee: asked.returnFee,
      codFee: zero,
      total: asked.deliveryFee,
      currency: "DZD",
      options
    })
  )
}

/** The bordereau answers the PDF itself; anything else on 200 is not a label. */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status !== 200) return Result.fail(errorOf(response))
  if (CourierAnswer.isPdf(response.bytes))
    return Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
  // A refusal inside the HTTP 200 is a refusal; anything else that is not a PDF is no label.
  const body = CourierAnswer.json(response.text)
  const refusal = Option.isSome(body) ? refusalOf(200, body.value) : undefined
  return Result.fail(
    refusal ?? new CourierError.BadResponse({ message: "the courier answered a label that is not a PDF" })
  )
}

// --- Cancel, credentials ----------------------------------------------------------------------------------------

/**
 * `PATCH shared/status/{id}/` → done: DRF's 200 with the order (or a 204). A `{ detail }` inside the 2xx is a
 * refusal (read first: any object fits the changed order); anything else is what it means.
 */
export const fromAborted = (response: Response): Result.Result<void, Reason> => {
  if (response.status === 204 && response.text.trim() === "") return Result.void
  const inside = response.status >= 200 && response.status < 300 ? Option.getOrUndefined(detailOf(response)) : undefined
  if (inside !== undefined) return Result.fail(refusalOf(response.status, { detail: inside }) ?? errorOf(response))
  return Result.map(decode(Wire.StatusChanged, response), () => undefined)
}

/** Where an order still can be aborted, or Maystro refused for a reason of its own (already aborted). */
const NOT_PAST: ReadonlySet<string> = new Set(["created", "pending_pickup", "on_hold", "cancelled"])

/**
 * A refused abort, and the order's history read just after it → why. Maystro's words for an order past the point it
 * can be cancelled are not documented, so the adapter does not guess from them: when the order's latest status is
 * past pickup (picked up, in transit, out for delivery, delivered, returning, …) the refusal is `NotCancellable`, in
 * Maystro's words with the status; otherwise (still before pickup, on hold, already aborted, a code the table does
 * not know, a history that could not be read) it stays what it was.
 */
export const whyNotCancelled = (
  refusal: Reason,
  history: Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason>
): Reason => {
  if (refusal._tag !== "Refused" || Result.isFailure(history)) return refusal
  // The latest by time; of steps at the same time, the one listed last (the history lists them in order).
  const latest = history.success.reduce<CourierAdapter.RawEvent | undefined>(
    (found, event) =>
      found === undefined || Date.parse(event.timestamp) >= Date.parse(found.timestamp) ? event : found,
    undefined
  )
  if (latest === undefined) return refusal
  const canonical = Status.statuses[latest.rawStatus]
  if (canonical === undefined || NOT_PAST.has(canonical)) return refusal
  return new CourierError.NotCancellable({
    message: `${refusal.message} (the order is at status ${latest.rawStatus}, ${canonical}: past the point where it can be cancelled)`
  })
}

/** `GET shared/wilayas/` → the key works (DRF refuses an invalid token on any view: 401 "Invalid token."). */
export const fromWilayas = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Wilayas, response), () => undefined)

// --- Errors -----------------------------------------------------------------------------------------------------

/** DRF's `{ detail }` of an answer, if it has one. */
const detailOf = (response: Response) =>
  Option.flatMap(CourierAnswer.json(response.text), (body) =>
    Option.map(Schema.decodeUnknownOption(Wire.Detail)(body), ({ detail }) => detail)
  )

/**
 * Maystro's refusal in a body: DRF's `{ detail }` on a 2xx (a failure inside a success), 400, 404 (no such object),
 * 409 and 422, or its field errors on 400 and 422.
 */
const refusalOf = (status: number, body: unknown): Reason | undefined => {
  const detail = Schema.decodeUnknownOption(Wire.Detail)(body)
  if (Option.isSome(detail) && ((status >= 200 && status < 300) || [400, 404, 409, 422].includes(status))) {
    const said = clean(detail.value.detail)
    return said === "" ? undefined : new CourierError.Refused({ message: said })
  }
  if (status === 400 || status === 422) {
    const fields = Schema.decodeUnknownOption(Wire.FieldErrors)(body)
    if (Option.isSome(fields)) {
      const messages = Object.entries(fields.value).flatMap(([field, value]) =>
        messagesOf(value, 0).map((message) =>
          field === "non_field_errors" ? message : `${ourFields[field] ?? field}: ${message}`
        )
      )
      if (messages.length > 0) return new CourierError.Refused({ message: clean(messages.join("; "), 600) })
    }
  }
  return undefined
}

/** Maystro's answers, read the SDK's way; a refused key quotes DRF's `detail`. */
const answers = CourierAnswer.reader({
  credentials: "the API key",
  refusal: refusalOf,
  rejection: (body) => Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(Wire.Detail)(body), (b) => b.detail))
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf

/** The messages in a DRF error value: a string, a list of them, or nested objects (`products: [{ field: [...] }]`). */
const messagesOf = (value: unknown, depth: number): ReadonlyArray<string> => {
  if (typeof value === "string") return value.trim() === "" ? [] : [clean(value)]
  if (depth > 3) return []
  if (Array.isArray(value)) return value.flatMap((item) => messagesOf(item, depth + 1))
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, inner]) =>
      messagesOf(inner, depth + 1).map((message) => `${key}: ${message}`)
    )
  }
  return []
}

/** Maystro's field names, where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  external_order_id: "order.reference",
  customer_name: "order.recipient.fullName",
  customer_phone: "order.recipient.phone",
  wilaya: "order.recipient.wilayaCode",
  commune: "order.recipient.communeName",
  destination_text: "order.recipient.addressLine",
  product_price: "order.codAmount",
  delivery_type: "order.deliveryType",
  stop_desk_id: "order.stopDeskId",
  note_to_driver: "order.notes",
  products: "order.productList",
  orders_ids: "trackingNumber"
}
