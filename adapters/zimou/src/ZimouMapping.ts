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
import { AlgerianMobile, AlgiersTime, type Dzd, type WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./ZimouStatus.ts"
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

/** The most codes one `packages/status` call is asked for (the SDK's batch bound; Zimou documents none). */
export const MAX_BATCH = 100

/** The codes of a batch, once each; more than {@link MAX_BATCH}, or a blank one, is refused before any call. */
export const checkBatch = (trackings: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, Reason> => {
  if (trackings.length > MAX_BATCH) {
    return Result.fail(
      new CourierError.Refused({ message: `trackingNumbers: at most ${MAX_BATCH} tracking numbers in one call` })
    )
  }
  return trackings.some((tracking) => tracking.trim() === "")
    ? Result.fail(new CourierError.Refused({ message: "trackingNumbers: a tracking number is blank" }))
    : Result.succeed([...new Set(trackings)])
}

/**
 * `GET v3/packages/status` for several codes. courier-dz sends `packages[]=a&packages[]=b`; a query here is one value
 * per name, so each code goes under its index, `packages[0]=a&packages[1]=b`, which PHP reads as the same array
 * (README "Unverified").
 */
export const batchQuery = (trackings: ReadonlyArray<string>): Readonly<Record<string, string>> =>
  Object.fromEntries(trackings.map((tracking, index) => [`packages[${index}]`, tracking]))

/** `DELETE v3/packages/bulk`: one parcel, by its Zimou code (courier-dz's body). */
export const bulkDeleteBody = (tracking: string): Wire.BulkDelete => ({ tracking_codes: [tracking] })

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

/** A status entry → its one event: the status id at the time it last changed; no time is a `BadResponse`. */
const eventOf = (entry: unknown, response: Response): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
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
      return eventOf(entry, response)
    }
  )

/**
 * `GET v3/packages/status` for several codes → each asked parcel's current status (one event, as {@link fromStatuses}),
 * keyed by its code; a code Zimou does not return is left out (PHP's `[]`: none known). Only the asked codes'
 * entries are read; one of them in a shape Zimou does not document fails the batch.
 */
export const fromBatchStatuses = (
  asked: ReadonlyArray<string>,
  response: Response
): Result.Result<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, Reason> =>
  Result.flatMap(decode(Wire.Statuses, response), (body) => {
    const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    for (const tracking of asked) {
      const entry = entryOf(body, tracking)
      if (entry === undefined || entry === null) continue
      const events = eventOf(entry, response)
      if (Result.isFailure(events)) return Result.fail(events.failure)
      found.set(tracking, events.success)
    }
    return Result.succeed(found)
  })

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

// --- Cancel -----------------------------------------------------------------------------------------------------

const isSuccess = (status: number) => status >= 200 && status < 300

/**
 * `DELETE v3/packages/bulk` → done: HTTP 204, or a 2xx that is not a refusal ({@link Wire.Deleted}). A refusal
 * (`{ error: 1, message }` or `{ success: false, message }` on a 2xx, 400 or 422) is `Refused` in Zimou's words,
 * which {@link whyNotCancelled} may tell apart; anything else is what the answer means.
 */
export const fromDeleted = (response: Response): Result.Result<void, Reason> => {
  if (response.status === 204 && response.text.trim() === "") return Result.void
  if (isSuccess(response.status)) {
    // A refusal inside the 2xx is read before the words-alone success, which any refusal would also fit.
    const body = CourierAnswer.json(response.text)
    const refused = Option.isSome(body) ? refusalOf(response.status, body.value) : undefined
    if (refused !== undefined) return Result.fail(refused)
  }
  return Result.map(decode(Wire.Deleted, response), () => undefined)
}

/** Where a parcel still can be deleted, or Zimou refused for a reason of its own (already being cancelled). */
const NOT_PAST: ReadonlySet<string> = new Set(["created", "pending_pickup", "on_hold", "cancelled"])

/**
 * A refused delete, and the parcel's status read just after it → why. Zimou's words for a parcel past the point it
 * can be deleted are not documented, so the adapter does not guess from them: when the parcel's status is past
 * pickup (picked up, in transit, delivered, returned, …) the refusal is `NotCancellable`, in Zimou's words with the
 * status; otherwise (still waiting for pickup, blocked, already cancelled, an id the table does not know, a status
 * that could not be read) it stays what it was.
 */
export const whyNotCancelled = (
  refusal: Reason,
  status: Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason>
): Reason => {
  if (refusal._tag !== "Refused" || Result.isFailure(status)) return refusal
  const latest = [...status.success].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))[0]
  if (latest === undefined) return refusal
  const canonical = Status.statuses[latest.rawStatus]
  if (canonical === undefined || NOT_PAST.has(canonical)) return refusal
  return new CourierError.NotCancellable({
    message: `${refusal.message} (the parcel is at status ${latest.rawStatus}, ${canonical}: past the point where it can be cancelled)`
  })
}

// --- Communes, desks, credentials -------------------------------------------------------------------------------

/**
 * The rows of a reference list that are of `schema`'s shape; a row that is not (a commune without a wilaya, an
 * office without a commune) is left out rather than failing every create that needs the list. A list of which no
 * row is of that shape is an answer Zimou does not document.
 */
const rowsOf = <A>(schema: Schema.Decoder<A>, response: Response): Result.Result<ReadonlyArray<A>, Reason> =>
  Result.flatMap(decode(Wire.Rows, response), (list) => {
    const rows: ReadonlyArray<unknown> = Array.isArray(list) ? list : (list as { readonly data: Array<unknown> }).data
    const decoded = rows.flatMap((row) => Option.toArray(Schema.decodeUnknownOption(schema)(row)))
    return rows.length > 0 && decoded.length === 0
      ? Result.fail(CourierAnswer.undocumented(response.status))
      : Result.succeed(decoded)
  })

/** `GET v3/helpers/communes` → Zimou's communes, every wilaya. */
export const fromCommunes = (response: Response): Result.Result<ReadonlyArray<Wire.Commune>, Reason> =>
  rowsOf(Wire.Commune, response)

/** `GET v3/helpers/offices` → Zimou's relay points, every wilaya. */
export const fromOffices = (response: Response): Result.Result<ReadonlyArray<Wire.Office>, Reason> =>
  rowsOf(Wire.Office, response)

/**
 * The relay points of a wilaya: the offices whose commune is one of the wilaya's (an office names its commune only).
 * The id is the office's, what a desk order sends as `stopDeskId` (`office_id`); the commune is Zimou's spelling,
 * what that order must declare. An office without a name is named by its partner and commune.
 */
export const desksIn = (
  wilaya: WilayaCode.WilayaCode,
  communes: ReadonlyArray<Wire.Commune>,
  offices: ReadonlyArray<Wire.Office>
): ReadonlyArray<CourierAdapter.StopDesk> => {
  const byId = new Map(communes.filter((row) => row.wilaya_id === wilaya).map((row) => [row.id, row.name]))
  return offices.flatMap((office) => {
    const communeName = byId.get(office.commune_id)
    if (communeName === undefined) return []
    const name = clean(office.name ?? "")
    const partner = clean(office.partner_company_name ?? "")
    const address = clean(office.address ?? "")
    return [
      {
        id: String(office.id),
        name: name !== "" ? name : `${partner !== "" ? partner : "Zimou"} ${communeName}`,
        wilayaCode: wilaya,
        communeName,
        ...(address === "" ? {} : { address })
      }
    ]
  })
}

/**
 * A wilaya's communes as Zimou names them (what the create's `commune` expects), with their ids. Zimou delivers
 * `Express` to every commune it lists (the list has no home flag); a commune has a desk when one of its offices is
 * in it.
 */
export const communesIn = (
  wilaya: WilayaCode.WilayaCode,
  communes: ReadonlyArray<Wire.Commune>,
  offices: ReadonlyArray<Wire.Office>
): ReadonlyArray<CourierAdapter.CourierCommune> => {
  const withOffice = new Set(offices.map((office) => office.commune_id))
  return communes
    .filter((row) => row.wilaya_id === wilaya)
    .map((row) => ({ name: row.name, id: String(row.id), home: true, stopdesk: withOffice.has(row.id) }))
}

/** `GET v3/user` → the token works (its account answered). */
export const fromUser = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.User, response), () => undefined)

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
  "packages.0": "trackingNumber",
  tracking_codes: "trackingNumber",
  "tracking_codes.0": "trackingNumber"
}

const refusalOf = (status: number, body: unknown): Reason | undefined => {
  const failure = Option.orElse(Schema.decodeUnknownOption(Wire.Failure)(body), () =>
    Schema.decodeUnknownOption(Wire.Unsuccessful)(body)
  )
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
