/**
 * Pure translation between Tawsil's one request shape and the MDM Express API: the city id lookup, the create body,
 * the label steps, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here:
 * the adapter sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Reading an answer is the SDK's (`CourierAnswer.reader`); what is MDM's own is in {@link answers}: its refusal body
 * (`{ error: { code, message } }`, or a bare `{ message }`) and its words on a refused key. Messages are built from
 * the courier's status codes and words only, never from the request: nothing the caller sent (least of all the API
 * key) is echoed.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, type Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./MdmStatus.ts"
import * as Wire from "./MdmWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

// --- Cities -----------------------------------------------------------------------------------------------------

/** MDM's id of a wilaya (a "state"): `DZA` and the two-digit code, `DZA09`, `DZA16`. */
export const stateId = (wilaya: number): string => `DZA${String(wilaya).padStart(2, "0")}`

/** `GET api/geo/cities`: the cities of one state, all on one page (a wilaya has fewer than a hundred). */
export const citiesQuery = (wilaya: number): Readonly<Record<string, string>> => ({
  "countryId[]": "DZA",
  "stateId[]": stateId(wilaya),
  perPage: "2000"
})

/** A city of MDM's list, its id as text whichever way MDM sent it. */
export interface City {
  readonly id: string
  readonly name: string
}

/** The answer to {@link citiesQuery}: every city of the wilaya, as MDM names and numbers them. */
export const fromCities = (response: Response): Result.Result<ReadonlyArray<City>, Reason> =>
  Result.map(decode(Wire.Cities, response), (body) =>
    ("list" in body ? body.list : body).map(({ id, name }) => ({ id: String(id), name }))
  )

/**
 * A commune name reduced to what spelling variants share: accents, case, apostrophes, hyphens and repeated spaces
 * do not tell two communes apart. Nothing fuzzier: a near miss is refused, never guessed.
 */
export const cityKey = (name: string): string =>
  name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()

/**
 * MDM's id of the caller's commune, matched on {@link cityKey} among the wilaya's cities. No match, or two cities
 * with the same name, is the caller's to fix: refused, naming the commune they sent, before anything is created.
 */
export const cityIdOf = (
  cities: ReadonlyArray<City>,
  communeName: string,
  wilaya: number
): Result.Result<string, Reason> => {
  const key = cityKey(communeName)
  const ids = [...new Set(cities.filter((city) => cityKey(city.name) === key).map(({ id }) => id))]
  if (ids.length === 1) return Result.succeed(ids[0]!)
  return Result.fail(
    new CourierError.Refused({
      message:
        ids.length === 0
          ? `order.recipient.communeName: MDM Express knows no commune ${JSON.stringify(communeName)} in wilaya ${wilaya}` +
            " (check its spelling against the official list)"
          : `order.recipient.communeName: MDM Express has ${ids.length} communes named ${JSON.stringify(communeName)} in wilaya ${wilaya}`
    })
  )
}

// --- Offices, communes and the credentials check ---------------------------------------------------------------

/** `GET api/v2/shipping/companies/offices`: every office on one page, as the cities are asked. */
export const officesQuery: Readonly<Record<string, string>> = { countryId: "DZA", perPage: "2000" }

/** The text, cleaned, or `undefined` when there is none. */
const given = (text: string | null | undefined): string | undefined => {
  const cleaned = clean(text ?? "")
  return cleaned === "" ? undefined : cleaned
}

/** The answer to {@link officesQuery}: every office MDM lists. */
export const fromOffices = (response: Response): Result.Result<ReadonlyArray<Wire.Office>, Reason> =>
  Result.map(decode(Wire.Offices, response), (body) => ("list" in body ? body.list : body))

/**
 * The offices of a wilaya as desks: those whose city (`address.cityCode`) is one of the wilaya's `cities` (MDM's
 * ids, from {@link fromCities}); an office that names no city cannot be placed and is left out. `id` is the office
 * id, what an order sends as `stopDeskId`; the commune is MDM's name of its city.
 */
export const toStopDesks = (
  wilaya: WilayaCode.WilayaCode,
  cities: ReadonlyArray<City>,
  offices: ReadonlyArray<Wire.Office>
): ReadonlyArray<CourierAdapter.StopDesk> => {
  const names = new Map(cities.map((city) => [city.id, city.name]))
  return offices.flatMap((office) => {
    const code = office.address?.cityCode
    const cityName = code === undefined || code === null ? undefined : names.get(String(code))
    if (cityName === undefined) return []
    const address = given(office.address?.streetAddress)
    const phone = given(office.phone)
    return [
      {
        id: String(office.id).trim(),
        name: clean(office.name),
        wilayaCode: wilaya,
        communeName: cityName,
        ...(address === undefined ? {} : { address }),
        ...(phone === undefined ? {} : { phone })
      }
    ]
  })
}

/**
 * The wilaya's cities as MDM names them, with its id (what a create sends as `destination.cityId`). `home`: every
 * city MDM lists takes a home order; `stopdesk`: one of MDM's `offices` is in it (its `address.cityCode`).
 */
export const toCommunes = (
  cities: ReadonlyArray<City>,
  offices: ReadonlyArray<Wire.Office>
): ReadonlyArray<CourierAdapter.CourierCommune> => {
  const withOffice = new Set(
    offices.flatMap((office) => {
      const code = office.address?.cityCode
      return code === undefined || code === null ? [] : [String(code)]
    })
  )
  return cities.map((city) => ({ name: city.name, id: city.id, home: true, stopdesk: withOffice.has(city.id) }))
}

/** `GET api/geo/countries` → the key works: MDM answered its list to it. */
export const fromCountries = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Countries, response), () => undefined)

// --- Requests ---------------------------------------------------------------------------------------------------

/** `Amina Ben Ali` → `Amina` / `Ben Ali`; a one-word name fills both (MDM asks for both). */
export const splitName = (fullName: string): { readonly firstName: string; readonly lastName: string } => {
  const [first = "", ...rest] = fullName.trim().split(/\s+/)
  return { firstName: first, lastName: rest.length > 0 ? rest.join(" ") : first }
}

/**
 * What MDM cannot do, refused before any call: it has no exchange orders, and a stop desk is named by its office
 * id (`api/v2/shipping/companies/offices`), which nothing else can stand for.
 */
export const checkOrder = (order: Shipment.ParcelOrder): Result.Result<void, Reason> => {
  if (order.isExchange === true) {
    return Result.fail(new CourierError.Refused({ message: "order.isExchange: MDM Express has no exchange orders" }))
  }
  if (order.deliveryType === "stopdesk" && !present(order.stopDeskId)) {
    return Result.fail(
      new CourierError.Refused({
        message: "order.stopDeskId: MDM Express delivers to a stop desk only by its office id (its offices list)"
      })
    )
  }
  return Result.void
}

/**
 * `POST api/v2/orders`. The commune goes as MDM's city id. A stop-desk order has no street to give, so the commune
 * name stands in; a home order without one sends an empty street for MDM to refuse. The order goes as confirmed:
 * the merchant has confirmed it with the customer before shipping, and MDM makes the parcel only then. `weightKg`
 * is rounded up to whole kilograms; `declaredValue` has no MDM field (README).
 */
export const toCreateOrder = (order: Shipment.ParcelOrder, cityId: string): Wire.CreateOrder => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  const street = present(recipient.addressLine) ? recipient.addressLine : stopdesk ? recipient.communeName : ""
  return {
    totalPrice: order.codAmount,
    client: {
      ...splitName(recipient.fullName),
      phone: AlgerianMobile.nationalOrAsSent(recipient.phone),
      ...(present(recipient.phoneAlt) ? { phone2: AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) } : {})
    },
    destination: { cityId, streetAddress: street },
    products: [{ name: order.productList, quantity: 1, price: order.codAmount }],
    freeShipping: order.freeShipping ?? false,
    fragile: false,
    openable: order.hasOpenPackage ?? false,
    isStopDesk: stopdesk,
    ...(stopdesk && present(order.stopDeskId) ? { stopDeskId: order.stopDeskId } : {}),
    ...(order.weightKg === undefined || order.weightKg <= 0 ? {} : { weight: Math.ceil(order.weightKg) }),
    ...(present(order.notes) ? { notes: order.notes } : {}),
    confirmed: true
  }
}

/** A tracking number as it may go in a path: MDM's tracking id, else refused before any call. */
export const trackingIdOf = (trackingNumber: string): Result.Result<string, Reason> =>
  Wire.trackingIdPattern.test(trackingNumber)
    ? Result.succeed(trackingNumber)
    : Result.fail(
        new CourierError.Refused({
          message: "trackingNumber: an MDM Express tracking number is the order's tracking id create answered (ORD-…)"
        })
      )

/** `POST api/prints/parcel-slips`: the slip of one parcel, by its tracking id. */
export const slipRequest = (parcelId: string): typeof Wire.SlipRequest.Type => ({ parcelIds: [parcelId] })

// --- Responses --------------------------------------------------------------------------------------------------

/** `POST api/v2/orders` → the order's tracking id, and its status (its first one when MDM does not say). */
export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.map(decode(Wire.Created, response), (body) => ({
    trackingNumber: body.trackingId,
    rawStatus: body.status ?? Status.created
  }))

/** An MDM time (ISO 8601, with an offset or `Z`, or Algiers wall-clock time without one) in Algiers time. */
export const timestampOf = AlgiersTime.fromCourierText

const undocumentedTime = () =>
  new CourierError.BadResponse({ message: "the courier answered a status time it does not document" })

/** An unknown order on a per-order endpoint: MDM's 404, refused under Tawsil's field name. */
const orderNotFound = (response: Response): Reason | undefined => {
  if (response.status !== 404) return undefined
  const words = Option.getOrUndefined(Option.flatMap(CourierAnswer.json(response.text), wordsOf))
  return words === undefined
    ? undefined
    : new CourierError.Refused({ message: `trackingNumber: MDM Express has no such order (${words})` })
}

/** `GET api/v2/orders/{t}/status-history` → the order's statuses, each with its Algiers time. */
export const fromHistory = (response: Response): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const notFound = orderNotFound(response)
  if (notFound !== undefined) return Result.fail(notFound)
  return Result.flatMap(decode(Wire.History, response), (body) => {
    const entries = "statusHistory" in body ? body.statusHistory : body
    const events: Array<CourierAdapter.RawEvent> = []
    for (const entry of entries) {
      const timestamp = timestampOf(entry.date)
      if (timestamp === undefined) return Result.fail(undocumentedTime())
      events.push({ rawStatus: entry.status, timestamp })
    }
    return Result.succeed(events)
  })
}

/** `GET api/v2/orders/{t}` → the order. */
export const fromOrder = (response: Response): Result.Result<Wire.Order, Reason> => {
  const notFound = orderNotFound(response)
  return notFound === undefined ? decode(Wire.Order, response) : Result.fail(notFound)
}

/**
 * The order's current status as one event, for an order whose history is still empty: stamped with its last
 * change (`updatedAt`, else `createdAt`).
 */
export const currentEvent = (order: Wire.Order): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const timestamp = timestampOf(order.updatedAt ?? order.createdAt ?? "")
  return timestamp === undefined
    ? Result.fail(undocumentedTime())
    : Result.succeed([{ rawStatus: order.status, timestamp }])
}

/** The tracking id of the parcel MDM made for the order; none before the order is confirmed. */
export const parcelOf = (order: Wire.Order): Result.Result<string, Reason> => {
  const parcel = (order.relatives ?? []).find((relative) => relative.type === "parcel")?.data?.trackingId
  return parcel !== undefined && Wire.trackingIdPattern.test(parcel)
    ? Result.succeed(parcel)
    : Result.fail(
        new CourierError.Refused({
          message: `MDM Express has made no parcel for this order yet (status ${JSON.stringify(order.status)}): its slip can be printed once it is confirmed`
        })
      )
}

/** `POST api/prints/parcel-slips` → the id of the printed file. */
export const fromSlip = (response: Response): Result.Result<string, Reason> =>
  Result.map(decode(Wire.Slip, response), ({ fileId }) => fileId)

/** `GET api/prints/files/{fileId}` answers the PDF itself; anything else on 200 is not a label. */
export const fromLabelFile = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status !== 200) return Result.fail(errorOf(response))
  if (CourierAnswer.isPdf(response.bytes)) {
    return Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
  }
  // A refusal inside the HTTP 200 is a refusal; anything else that is not a PDF is no label.
  const body = CourierAnswer.json(response.text)
  const refusal = Option.isSome(body) ? refusalOf(200, body.value) : undefined
  return Result.fail(
    refusal ?? new CourierError.BadResponse({ message: "the courier answered a label that is not a PDF" })
  )
}

// --- Errors -----------------------------------------------------------------------------------------------------

/** MDM's words in an error body, and its error code when it gives one. */
const failureOf = (body: unknown): Option.Option<{ readonly words: string; readonly code?: string }> =>
  Option.flatMap(Schema.decodeUnknownOption(Wire.Failure)(body), (failure) => {
    const [said, code] =
      "error" in failure
        ? [failure.error.message, failure.error.code]
        : [typeof failure.message === "string" ? failure.message : failure.message.join("; "), undefined]
    const words = clean(said)
    if (words === "") return Option.none()
    return Option.some(code === undefined || code.trim() === "" ? { words } : { words, code: clean(code, 80) })
  })

const wordsOf = (body: unknown) => Option.map(failureOf(body), ({ words }) => words)

/**
 * MDM's refusal in a body: its `{ error }` or `{ message }` on 400, 404, 409 and 422, or inside a 2xx (the
 * WooCommerce integration checks every answer for an `error`). Its code, when it gives one, is kept.
 */
const refusalOf = (status: number, body: unknown): Reason | undefined => {
  if (!((status >= 200 && status < 300) || [400, 404, 409, 422].includes(status))) return undefined
  return Option.getOrUndefined(
    Option.map(
      failureOf(body),
      ({ words, code }) =>
        new CourierError.Refused(code === undefined ? { message: words } : { message: words, courierCode: code })
    )
  )
}

/** MDM's answers, read the SDK's way; a refused key quotes MDM's words. */
export const answers = CourierAnswer.reader({
  credentials: "the API key",
  refusal: refusalOf,
  rejection: (body) => Option.getOrUndefined(wordsOf(body))
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf
