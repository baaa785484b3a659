/**
 * Pure translation between Tawsil's one request shape and the Mylerz API: the token login, the cities and zones (a
 * wilaya and its communes), the `AddOrders` body, the tracking, cancel and label calls, and every answer read back —
 * a result, or the `CourierErrorReason` it means. No HTTP client here: the adapter sends what this builds and hands
 * back what it got, so every rule is tested without a network.
 *
 * Reading an answer is the SDK's (`CourierAnswer.reader`); what is Mylerz's own is in {@link answers}: its refusal
 * inside the envelope (`IsErrorState: true`, `ErrorDescription`) and ASP.NET's `{ Message }` on a refused token.
 * Messages are built from the courier's status codes and words only, never from the request: nothing the caller
 * sent (least of all the password or the token) is echoed.
 */
import {
  type CourierAdapter,
  CourierAnswer,
  CourierError,
  type CourierHttp,
  type Shipment,
  WilayaNames
} from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./MylerzStatus.ts"
import * as Wire from "./MylerzWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

const present = (text: string | null | undefined): text is string => typeof text === "string" && text.trim() !== ""

// --- Errors -----------------------------------------------------------------------------------------------------

/** Mylerz's refusal inside its envelope (`IsErrorState: true`), on a 2xx, 400 or 422. */
const refusalOf = (status: number, body: unknown): Reason | undefined => {
  if (!((status >= 200 && status < 300) || status === 400 || status === 422)) return undefined
  const refusal = Schema.decodeUnknownOption(Wire.Refusal)(body)
  if (Option.isNone(refusal)) return undefined
  const words = clean(refusal.value.ErrorDescription ?? "")
  return new CourierError.Refused({ message: words === "" ? "Mylerz refused the request without a reason" : words })
}

/** Mylerz's answers, read the SDK's way; a refused token quotes ASP.NET's words. */
export const answers = CourierAnswer.reader({
  credentials: "the username and password",
  refusal: refusalOf,
  rejection: (body) =>
    Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(Wire.Message)(body), (m) => m.Message))
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf

// --- Login ------------------------------------------------------------------------------------------------------

/** How long a token is kept when Mylerz does not say (`expires_in`): an hour. */
export const DEFAULT_TOKEN_SECONDS = 3600

/** A token is given up this long before it expires, so that no call goes out with one about to lapse. */
export const TOKEN_MARGIN_SECONDS = 60

/** The form of `POST /token`: OAuth's password grant. */
export const tokenForm = (username: string, password: string): Readonly<Record<string, string>> => ({
  grant_type: "password",
  username,
  password
})

/** A token and how long to keep it, in milliseconds. */
export interface Token {
  readonly token: string
  readonly keepMillis: number
}

/**
 * `POST /token` → the bearer token, kept for `expires_in` less a minute (an hour when Mylerz does not say). A 400 or
 * 401 with OAuth's `{ error }` is the username and password refused, in Mylerz's words when it gives them.
 */
export const fromToken = (response: Response): Result.Result<Token, Reason> => {
  if (response.status === 400 || response.status === 401) {
    const refusal = Option.flatMap(CourierAnswer.json(response.text), Schema.decodeUnknownOption(Wire.TokenRefusal))
    if (Option.isSome(refusal)) {
      const words = clean(refusal.value.error_description ?? refusal.value.error)
      return Result.fail(
        new CourierError.CredentialsRejected({
          message: `the courier refused the username and password (HTTP ${response.status}: ${words})`
        })
      )
    }
  }
  return Result.map(decode(Wire.Token, response), (body) => {
    const seconds =
      typeof body.expires_in === "number" && Number.isFinite(body.expires_in) && body.expires_in > 0
        ? body.expires_in
        : DEFAULT_TOKEN_SECONDS
    return {
      token: body.access_token,
      keepMillis: Math.max(0, Math.floor(seconds) - TOKEN_MARGIN_SECONDS) * 1000
    }
  })
}

// --- Cities and zones -------------------------------------------------------------------------------------------

/** `GET api/packages/GetCityZoneList` → every city with its zones. */
export const fromCities = (response: Response): Result.Result<ReadonlyArray<Wire.City>, Reason> =>
  Result.map(decode(Wire.Cities, response), (body) => body.Value)

/**
 * A name reduced to what spelling variants share: accents, case, apostrophes, hyphens and repeated spaces do not
 * tell two places apart. Nothing fuzzier: a near miss is refused, never guessed.
 */
export const nameKey = (name: string): string =>
  name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9\u0600-\u06ff]+/g, " ")
    .trim()

/** English names of wilayas that differ from the French ones couriers use. */
const ENGLISH: Readonly<Record<string, number>> = { algiers: 16 }

/**
 * The city Mylerz lists for a wilaya: the one whose English name is the wilaya's French name (or its English one,
 * Algiers), up to accents and case, or whose code is the wilaya's number. Undefined when Mylerz lists none.
 */
export const cityOf = (cities: ReadonlyArray<Wire.City>, wilaya: number): Wire.City | undefined => {
  const french = nameKey(WilayaNames.frenchOf(wilaya as WilayaCode.WilayaCode))
  return cities.find((city) => {
    const key = nameKey(city.EnName ?? "")
    const code = city.Code.trim().replace(/^DZ-?/i, "")
    return key === french || ENGLISH[key] === wilaya || (/^\d{1,2}$/.test(code) && Number(code) === wilaya)
  })
}

/** The zones of a city as the communes of its wilaya: Mylerz delivers to the door in each; it lists no desk. */
export const toCommunes = (city: Wire.City | undefined): ReadonlyArray<CourierAdapter.CourierCommune> =>
  (city?.Zones ?? []).flatMap((zone) => {
    const name = present(zone.EnName) ? clean(zone.EnName) : undefined
    return name === undefined ? [] : [{ name, id: zone.Code, home: true, stopdesk: false }]
  })

/**
 * The zone of the caller's commune in its wilaya's city, matched on {@link nameKey} (its English or Arabic name).
 * No city, no such zone, or two zones of that name is the caller's to fix: refused before anything is created.
 */
export const zoneOf = (
  city: Wire.City | undefined,
  communeName: string,
  wilaya: number
): Result.Result<{ readonly city: Wire.City; readonly zone: Wire.Zone }, Reason> => {
  if (city === undefined) {
    return Result.fail(
      new CourierError.Refused({ message: `order.recipient.wilayaCode: Mylerz lists no city for wilaya ${wilaya}` })
    )
  }
  const key = nameKey(communeName)
  const zones = (city.Zones ?? []).filter(
    (zone) => nameKey(zone.EnName ?? "") === key || (present(zone.ArName) && nameKey(zone.ArName) === key)
  )
  const codes = [...new Set(zones.map((zone) => zone.Code))]
  if (codes.length === 1) return Result.succeed({ city, zone: zones[0]! })
  return Result.fail(
    new CourierError.Refused({
      message:
        codes.length === 0
          ? `order.recipient.communeName: Mylerz knows no zone ${JSON.stringify(communeName)} in wilaya ${wilaya}` +
            " (check its spelling against the official list)"
          : `order.recipient.communeName: Mylerz has ${codes.length} zones named ${JSON.stringify(communeName)} in wilaya ${wilaya}`
    })
  )
}

// --- Create -----------------------------------------------------------------------------------------------------

/**
 * What Mylerz cannot do, refused before any call: it documents no desk delivery (no desk list, no desk field) and
 * no exchange order.
 */
export const checkOrder = (order: Shipment.ParcelOrder): Result.Result<void, Reason> => {
  if (order.deliveryType === "stopdesk") {
    return Result.fail(
      new CourierError.Refused({ message: "order.deliveryType: Mylerz documents home delivery only (no desks)" })
    )
  }
  if (order.isExchange === true) {
    return Result.fail(new CourierError.Refused({ message: "order.isExchange: Mylerz has no exchange orders" }))
  }
  return Result.void
}

/** The weight declared when the order gives none: a kilogram. */
export const DEFAULT_WEIGHT_KG = 1

/**
 * One OrderDTO of `POST api/Orders/AddOrders`: a door-to-door (`DTD`), next-day (`ND`) delivery, cash on delivery
 * (`COD`, or prepaid `PP` when nothing is collected), one piece. The address is the wilaya's city, the commune's zone
 * code as `Neighborhood` and its name as `District`, and the street (the commune's name when none is given).
 * `ValueOfGoods` is the declared value, else what is collected. `pickupDueDate`: when Mylerz may collect it.
 */
export const toOrder = (
  order: Shipment.ParcelOrder,
  city: Wire.City,
  zone: Wire.Zone,
  pickupDueDate: string
): Wire.OrderDto => {
  const { recipient } = order
  const weight = order.weightKg !== undefined && order.weightKg > 0 ? order.weightKg : DEFAULT_WEIGHT_KG
  return {
    PickupDueDate: pickupDueDate,
    ...(present(order.reference) ? { Package_Serial: order.reference, Reference: order.reference } : {}),
    Description: order.productList,
    Total_Weight: weight,
    Service_Type: "DTD",
    Service: "ND",
    Service_Category: "Delivery",
    Payment_Type: order.codAmount > 0 ? "COD" : "PP",
    COD_Value: order.codAmount,
    Pieces: [{ PieceNo: 1, Weight: weight }],
    Customer_Name: recipient.fullName,
    Mobile_No: AlgerianMobile.nationalOrAsSent(recipient.phone),
    Street: present(recipient.addressLine) ? recipient.addressLine : recipient.communeName,
    Country: "DZ",
    City: present(city.EnName) ? city.EnName : city.Code,
    Neighborhood: zone.Code,
    District: present(zone.EnName) ? zone.EnName : recipient.communeName,
    Address_Category: "H",
    ...(present(order.notes) ? { Special_Notes: order.notes } : {}),
    AllowToOpenPackage: order.hasOpenPackage ?? false,
    ValueOfGoods: order.declaredValue ?? order.codAmount
  }
}

/**
 * `AddOrders` → the package's barcode, the tracking number, and its status (`Uploaded` when Mylerz names none). A
 * package without a barcode is refused in Mylerz's words (`ErrorMessage`).
 */
export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.flatMap(decode(Wire.Created, response), ({ Value }) => {
    const [made] = Value.Packages
    if (made !== undefined && present(made.BarCode) && Wire.barcodePattern.test(made.BarCode.trim())) {
      return Result.succeed({
        trackingNumber: made.BarCode.trim(),
        ...(Value.PickupOrderCode ? { courierReference: Value.PickupOrderCode } : {}),
        rawStatus: present(made.Status) ? made.Status.trim() : Status.created
      })
    }
    const words = clean(made?.ErrorMessage ?? Value.ErrorMessage ?? "")
    return Result.fail(
      words === ""
        ? new CourierError.BadResponse({ message: "the courier answered a created order without a barcode" })
        : new CourierError.Refused({ message: words })
    )
  })

// --- Tracking, cancel, label ------------------------------------------------------------------------------------

/** A tracking number as it may be sent: a Mylerz barcode (digits), else refused before any call. */
export const barcodeOf = (trackingNumber: string): Result.Result<string, Reason> =>
  Wire.barcodePattern.test(trackingNumber)
    ? Result.succeed(trackingNumber)
    : Result.fail(
        new CourierError.Refused({ message: "trackingNumber: a Mylerz tracking number is the barcode create answered" })
      )

/** The body of `TrackPackages` and `CancelPackage`: one `{ Barcode }` per package. */
export const barcodesBody = (barcodes: ReadonlyArray<string>): ReadonlyArray<{ readonly Barcode: string }> =>
  barcodes.map((Barcode) => ({ Barcode }))

const undocumentedTime = () =>
  new CourierError.BadResponse({ message: "the courier answered a status time it does not document" })

/** `TrackPackages` → each package's history, oldest first as Mylerz lists it, by barcode. */
export const fromTracked = (
  response: Response
): Result.Result<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, Reason> =>
  Result.flatMap(decode(Wire.Tracked, response), ({ Value }) => {
    const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    for (const row of Value) {
      const events: Array<CourierAdapter.RawEvent> = []
      for (const step of row.TrackLog ?? []) {
        const timestamp = AlgiersTime.fromCourierText(step.ChangedDate)
        if (timestamp === undefined) return Result.fail(undocumentedTime())
        events.push({ rawStatus: step.StatusEnName.trim(), timestamp })
      }
      found.set(row.Barcode.trim(), events)
    }
    return Result.succeed(found)
  })

/** One package's history from {@link fromTracked}; a barcode Mylerz did not answer is refused as unknown. */
export const trackedOne = (
  tracked: ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>,
  barcode: string
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const events = tracked.get(barcode)
  return events === undefined
    ? Result.fail(new CourierError.Refused({ message: "trackingNumber: Mylerz has no such package" }))
    : Result.succeed(events)
}

/**
 * `CancelPackage` → cancelled (`IsChanged`), or refused: "not found" as an unknown package, any other refusal as the
 * package past the point it can be cancelled, in Mylerz's words.
 */
export const fromCancelled = (response: Response): Result.Result<void, Reason> =>
  Result.flatMap(decode(Wire.Cancelled, response), ({ Value }): Result.Result<void, Reason> => {
    const [row] = Value
    if (row === undefined) return Result.fail(CourierAnswer.undocumented(response.status))
    if (row.IsChanged) return Result.void
    const words = clean(row.ErrorMessage ?? "")
    if (words === "" || /not\s*found|unknown|does not exist/i.test(words)) {
      return Result.fail(
        new CourierError.Refused({ message: words === "" ? "Mylerz did not cancel the package" : words })
      )
    }
    return Result.fail(new CourierError.NotCancellable({ message: words }))
  })

/** `GetAWB` → the label: its base64 `Value` decoded, which must open as a PDF. */
export const fromAwb = (response: Response): Result.Result<CourierAdapter.Label, Reason> =>
  Result.flatMap(decode(Wire.Awb, response), ({ Value }) => {
    const text = Value.trim()
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? new Uint8Array(Buffer.from(text, "base64")) : new Uint8Array()
    return CourierAnswer.isPdf(bytes)
      ? Result.succeed({ contentType: "application/pdf", bytes })
      : Result.fail(new CourierError.BadResponse({ message: "the courier answered a label that is not a PDF" }))
  })
