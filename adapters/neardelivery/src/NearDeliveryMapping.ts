/**
 * Pure translation between Tawsil's one request shape and the Near Delivery API: the relay-point rule, the create
 * body, the fee query, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client
 * here: the adapter sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Near Delivery delivers every parcel to a relay point, a "buralist" (a tobacco shop), never to the door. An order
 * or a quote for home delivery is refused here, before any request, with what to send instead; it is never turned
 * into a relay-point parcel behind the caller's back.
 *
 * Messages are built from the courier's own words and status codes only, never from the request: nothing the
 * caller sent (least of all the API key or secret) is echoed.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd, type WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./NearDeliveryStatus.ts"
import * as Wire from "./NearDeliveryWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

// --- The relay-point rule ---------------------------------------------------------------------------------------

/** Why a home delivery is refused, and what to send instead: the same words for an order and for a quote. */
export const RELAY_POINT_ONLY =
  "Near Delivery delivers every parcel to a relay point (a buralist, a tobacco shop), never to the door: send deliveryType \"stopdesk\" with stopDeskId, the buralist's id in Near Delivery's list of buralists"

const refused = (message: string) => Result.fail(new CourierError.Refused({ message }))

/** Near Delivery sells one speed. */
const oneTier = (tier: Shipment.Tier | undefined): Result.Result<void, Reason> =>
  tier === "express"
    ? refused("Near Delivery has one speed, no express tier: leave tier out or ask for economic")
    : Result.void

/**
 * The buralist an order goes to, or why it cannot go: a home delivery (the relay-point rule), a stop desk without a
 * buralist, or one whose id is not a Near Delivery buralist id (a whole number), an exchange (none documented), or
 * the express tier. Checked before any request, so a refused order sends nothing.
 */
export const buralistOf = (order: Shipment.ParcelOrder): Result.Result<number, Reason> => {
  if (order.deliveryType === "home") return refused(`order.deliveryType: ${RELAY_POINT_ONLY}`)
  const tier = oneTier(order.tier)
  if (Result.isFailure(tier)) return Result.fail(tier.failure)
  if (order.isExchange === true) {
    return refused("order.isExchange: Near Delivery documents no exchange; send the parcel without it")
  }
  if (order.stopDeskId === undefined) {
    return refused(
      "order.stopDeskId: Near Delivery needs the relay point to deliver to: the buralist's id in its list of buralists"
    )
  }
  const id = order.stopDeskId.trim()
  return /^[1-9]\d{0,9}$/.test(id)
    ? Result.succeed(Number(id))
    : refused("order.stopDeskId: a Near Delivery buralist id is a whole number, from its list of buralists")
}

// --- Requests ---------------------------------------------------------------------------------------------------

/** The parcel size when nothing says otherwise: courier-dz sends `S`, the only size any source names. */
export const DEFAULT_SIZE = "S"

/** The wilaya code as Near Delivery's lists print it: two digits (`"05"`). */
export const wilayaText = (code: WilayaCode.WilayaCode): string => String(code).padStart(2, "0")

/**
 * One parcel for `buralist`. What the courier collects is the one item's price (`unit_price` × 1), with
 * `payment_preference` 1; a parcel with nothing to collect says 0. `notes`, `phoneAlt`, `weightKg`,
 * `declaredValue`, `freeShipping` and `hasOpenPackage` have no documented field and are not sent (README).
 */
export const toParcel = (order: Shipment.ParcelOrder, buralist: number): Wire.Parcel => {
  const { recipient } = order
  return {
    ...(present(order.reference) ? { reference: order.reference } : {}),
    recipient_name: recipient.fullName,
    recipient_phone: AlgerianMobile.nationalOrAsSent(recipient.phone),
    recipient_wilaya: wilayaText(recipient.wilayaCode),
    recipient_commune: recipient.communeName,
    ...(present(recipient.addressLine) ? { recipient_address: recipient.addressLine } : {}),
    payment_preference: order.codAmount > 0 ? 1 : 0,
    pickup_location_type: 1,
    buralist_id: buralist,
    size: DEFAULT_SIZE,
    items: [{ name: order.productList, quantity: 1, unit_price: order.codAmount }]
  }
}

/** `POST sender/parcels`: the order as a list of one parcel, or why it cannot be sent. */
export const toCreateParcels = (order: Shipment.ParcelOrder): Result.Result<Wire.CreateParcels, Reason> =>
  Result.map(buralistOf(order), (buralist) => ({ parcels: [toParcel(order, buralist)] }))

/** A quote for home delivery is refused as the order would be; so is the express tier. Before any request. */
export const checkRates = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.deliveryType === "home" ? refused(`query.deliveryType: ${RELAY_POINT_ONLY}`) : oneTier(query.tier)

/** The largest page of `sender/delivery-fees` a source asks for (the WooCommerce plugin's `size=150`). */
export const FEES_PAGE_SIZE = 150

/** `GET sender/delivery-fees`: the routes to one destination (courier-dz's `wilaya`), in one page. */
export const feesQuery = (query: Shipment.RatesQuery): Readonly<Record<string, string>> => ({
  wilaya: String(query.toWilaya),
  page: "1",
  size: String(FEES_PAGE_SIZE)
})

// --- Responses --------------------------------------------------------------------------------------------------

/** `POST sender/parcels` → the one parcel it made: its tracking number, status (0 when not given) and id. */
export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.map(decode(Wire.Created, response), ({ data: [parcel] }) => ({
    trackingNumber: parcel.tracking_number,
    rawStatus: parcel.status === undefined || parcel.status === null ? Status.created : String(parcel.status),
    ...(parcel.parcel_id === undefined || parcel.parcel_id === null
      ? {}
      : { courierReference: String(parcel.parcel_id) })
  }))

/** A Near Delivery time as ISO 8601 in Algiers; `undefined` when the text is no such time. */
export const timestampOf = AlgiersTime.fromCourierText

const badTime = () =>
  Result.fail(new CourierError.BadResponse({ message: "the courier answered a status time it does not document" }))

/**
 * `GET sender/parcels/{tracking}` → the parcel's events: its status history when the API gives one, else its
 * current status at the time it last changed. An answer about another parcel is not read as this one.
 */
export const fromTracked = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(
    decode(Wire.Tracked, response),
    ({ data }): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
      if (data.tracking_number !== tracking) {
        return Result.fail(new CourierError.BadResponse({ message: "the courier answered about another parcel" }))
      }
      const history: ReadonlyArray<Wire.HistoryEntry> =
        data.status_history !== undefined && data.status_history !== null && data.status_history.length > 0
          ? data.status_history
          : [{ status: data.status, created_at: data.updated_at ?? data.created_at ?? "" }]
      const events: Array<CourierAdapter.RawEvent> = []
      for (const entry of history) {
        const timestamp = timestampOf(entry.created_at)
        if (timestamp === undefined) return badTime()
        events.push({ rawStatus: String(entry.status), timestamp })
      }
      return Result.succeed(events)
    }
  )

const zero = 0 as Dzd.Dzd

/**
 * `GET sender/delivery-fees` → the relay-point fee from the sender's wilaya to the destination. Near Delivery prices
 * per route (`from_wilaya` → `to_wilaya`): with no origin given, the destination's one route is taken, and several
 * are refused, naming the origins to choose from. No fee on collected cash is documented (0).
 */
export const fromFees = (
  query: Shipment.RatesQuery,
  from: WilayaCode.WilayaCode | undefined,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Fees, response), ({ data }): Result.Result<Shipment.RatesResult, Reason> => {
    const routes = data.filter((fee) => fee.to_wilaya === query.toWilaya)
    if (routes.length === 0) {
      return refused(`Near Delivery does not deliver to wilaya ${query.toWilaya}: it is not in its fee list`)
    }
    const origins = [...new Set(routes.map((fee) => fee.from_wilaya))].sort((a, b) => a - b)
    const route =
      from !== undefined ? routes.find((fee) => fee.from_wilaya === from) : origins.length === 1 ? routes[0] : undefined
    if (route === undefined) {
      return refused(
        from === undefined
          ? `Near Delivery prices from the wilaya you ship from: give options.fromWilaya (one of ${origins.join(", ")})`
          : `Near Delivery has no route from wilaya ${from} to wilaya ${query.toWilaya} (it ships there from ${origins.join(", ")})`
      )
    }
    const option = Shipment.RateOption.make({
      deliveryType: "stopdesk",
      tier: "economic",
      deliveryFee: route.b2b_fee,
      returnFee: route.return_fee ?? zero
    })
    return Result.succeed(
      Shipment.RatesResult.make({
        deliveryType: "stopdesk",
        tier: "economic",
        deliveryFee: option.deliveryFee,
        returnFee: option.returnFee,
        codFee: zero,
        total: option.deliveryFee,
        currency: "DZD",
        options: [option]
      })
    )
  })

// --- Reference lists --------------------------------------------------------------------------------------------

/** The text, cleaned, or `undefined` when there is none. */
const given = (text: string | null | undefined): string | undefined => {
  const cleaned = clean(text ?? "")
  return cleaned === "" ? undefined : cleaned
}

/**
 * `GET sender/buralists` → the relay points of `wilaya` (the list is the whole network: no wilaya filter is
 * documented, so it is filtered here, on each buralist's `wilaya_code`).
 */
export const buralistsIn = (
  wilaya: WilayaCode.WilayaCode,
  response: Response
): Result.Result<ReadonlyArray<Wire.Buralist>, Reason> =>
  Result.map(decode(Wire.Buralists, response), ({ data }) => data.filter((buralist) => buralist.wilaya_code === wilaya))

/**
 * `GET sender/wilayas` → the communes of `wilaya` in Near Delivery's spelling, with its code for each as `id`. Near
 * Delivery delivers every parcel to a buralist of the recipient's wilaya, never to the door: `home` is false and
 * `stopdesk` true for every commune it lists (the recipient collects the parcel at the relay point the order
 * names, which need not be in that commune: README). A wilaya it does not list has none.
 */
export const fromCommunes = (
  wilaya: WilayaCode.WilayaCode,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.CourierCommune>, Reason> =>
  Result.map(decode(Wire.Wilayas, response), ({ data }) =>
    data
      .filter((entry) => entry.wilaya_code === wilaya)
      .flatMap((entry) => entry.communes)
      .map((commune) => ({ name: clean(commune.name), id: String(commune.code), home: false, stopdesk: true }))
  )

/**
 * The buralists of `wilaya` as desks: `id` is the buralist's id (what an order sends as `stopDeskId`), the name its
 * `name` or else its `username` (else "Buralist <id>"), the commune named from `communes` (its `commune_code`, from
 * {@link fromCommunes}), the address and phone as listed.
 */
export const toStopDesks = (
  wilaya: WilayaCode.WilayaCode,
  buralists: ReadonlyArray<Wire.Buralist>,
  communes: ReadonlyArray<CourierAdapter.CourierCommune>
): ReadonlyArray<CourierAdapter.StopDesk> => {
  const names = new Map(communes.map((commune) => [commune.id, commune.name]))
  return buralists.map((buralist) => {
    const id = String(buralist.id).trim()
    const communeName =
      buralist.commune_code === undefined || buralist.commune_code === null
        ? undefined
        : names.get(String(buralist.commune_code))
    const address = given(buralist.center_address)
    const phone = given(buralist.phone_number)
    return {
      id,
      name: given(buralist.name) ?? given(buralist.username) ?? `Buralist ${id}`,
      wilayaCode: wilaya,
      ...(communeName === undefined ? {} : { communeName }),
      ...(address === undefined ? {} : { address }),
      ...(phone === undefined ? {} : { phone })
    }
  })
}

/** `GET sender/centers` → the credentials work: Near Delivery answered its list to them. */
export const fromCenters = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Centers, response), () => undefined)

// --- Errors -----------------------------------------------------------------------------------------------------

/** Near Delivery's field names, where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  reference: "order.reference",
  recipient_name: "order.recipient.fullName",
  recipient_phone: "order.recipient.phone",
  recipient_wilaya: "order.recipient.wilayaCode",
  recipient_commune: "order.recipient.communeName",
  recipient_address: "order.recipient.addressLine",
  payment_preference: "order.codAmount",
  buralist_id: "order.stopDeskId",
  items: "order.productList"
}

/** A validation entry's field: the last name in its `loc` (`["body", "parcels", 0, "buralist_id"]`). */
const fieldOf = (loc: ReadonlyArray<string | number> | undefined): string | undefined => {
  const name = loc?.filter((part): part is string => typeof part === "string").at(-1)
  return name === undefined || name === "body" ? undefined : (ourFields[name] ?? name)
}

/**
 * Where Near Delivery refuses: `{ status: false, message }` inside a 2xx or on a 400, 404, 409 or 422; a validation
 * list `{ detail: [{ loc, msg }] }` on 422; a bare `{ detail }` on a 4xx. Its own words, fields renamed to ours.
 */
const refusalOf = (status: number, body: unknown): Reason | undefined => {
  const refuses = (status >= 200 && status < 300) || [400, 404, 409, 422].includes(status)
  if (!refuses) return undefined
  const failure = Schema.decodeUnknownOption(Wire.Failure)(body)
  if (Option.isSome(failure)) {
    const said = clean(failure.value.message ?? "")
    return new CourierError.Refused({
      message: said === "" ? "the courier refused the request without giving a reason" : said
    })
  }
  if (status < 400) return undefined
  const invalid = Schema.decodeUnknownOption(Wire.Invalid)(body)
  if (Option.isSome(invalid) && invalid.value.detail.length > 0) {
    const message = invalid.value.detail
      .map(({ loc, msg }) => {
        const field = fieldOf(loc)
        return field === undefined ? clean(msg) : `${field}: ${clean(msg)}`
      })
      .join("; ")
    return new CourierError.Refused({ message: clean(message, 600) })
  }
  const detail = Schema.decodeUnknownOption(Wire.Detail)(body)
  if (Option.isSome(detail) && clean(detail.value.detail) !== "") {
    return new CourierError.Refused({ message: clean(detail.value.detail) })
  }
  return undefined
}

/** Near Delivery's answers, read the SDK's way: what is its own is where and in which words it refuses. */
const answers = CourierAnswer.reader({
  credentials: "the API key and secret",
  refusal: refusalOf,
  rejection: (body) => {
    const detail = Schema.decodeUnknownOption(Wire.Detail)(body)
    if (Option.isSome(detail)) return detail.value.detail
    const failure = Schema.decodeUnknownOption(Wire.Failure)(body)
    return Option.isSome(failure) ? (failure.value.message ?? undefined) : undefined
  }
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf
