/**
 * Pure translation between Tawsil's one request shape and the Ecotrack API: the create body, the validation
 * query, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here: the
 * adapter sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Error messages are built from the courier's own words and status codes only, never from the request: nothing
 * the caller sent (least of all the token) is echoed; the host blanks the token out of every answer should
 * a courier ever quote it back.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd, type WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./EcotrackStatus.ts"
import * as Wire from "./EcotrackWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Requests ---------------------------------------------------------------------------------------------------

/** The core has already checked the phones are Algerian mobiles; Ecotrack wants the 10-digit national form. */
const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/**
 * Text cut to what a create field takes ({@link Wire.MAX_TEXT} characters, counted as the platform counts them:
 * code points), ending with "…" when it was cut: the courier would refuse the whole order for it.
 */
export const capped = (text: string): string => {
  const points = Array.from(text)
  return points.length <= Wire.MAX_TEXT ? text : `${points.slice(0, Wire.MAX_TEXT - 1).join("")}…`
}

/**
 * `POST create/order`. Ecotrack requires `adresse`: without an address line (a stop-desk parcel has none to give;
 * neither may a home delivery in a village) the commune name stands in. The product list is cut to the 255
 * characters the field takes. `freeShipping`, `declaredValue` and `hasOpenPackage` have no Ecotrack field and are
 * not sent (README).
 */
export const toCreateOrder = (order: Shipment.ParcelOrder): Wire.CreateOrder => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  return {
    ...(present(order.reference) ? { reference: order.reference } : {}),
    nom_client: recipient.fullName,
    telephone: AlgerianMobile.nationalOrAsSent(recipient.phone),
    ...(present(recipient.phoneAlt) ? { telephone_2: AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) } : {}),
    adresse: present(recipient.addressLine) ? recipient.addressLine.trim() : recipient.communeName,
    ...(stopdesk && order.stopDeskId !== undefined ? { code_postal: order.stopDeskId } : {}),
    commune: recipient.communeName,
    code_wilaya: recipient.wilayaCode,
    montant: order.codAmount,
    ...(present(order.notes) ? { remarque: order.notes } : {}),
    produit: capped(order.productList),
    type: order.isExchange === true ? 2 : 1,
    stop_desk: stopdesk ? 1 : 0,
    ...(order.weightKg === undefined ? {} : { weight: order.weightKg })
  }
}

/** `POST valid/order`: makes the parcel visible to the courier and asks it to collect the parcel. */
export const validationQuery = (tracking: string) => ({ tracking, ask_collection: "1" })

/** Ecotrack prices one tier only. */
export const checkTier = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.tier === "express"
    ? Result.fail(new CourierError.Refused({ message: "this courier has no express tier: ask for economic" }))
    : Result.void

/** The most tracking numbers `get/trackings/info` takes in one call (research §1.2). */
export const MAX_BATCH = 100

/** The tracking numbers of a batch, once each; more than {@link MAX_BATCH}, or a blank one, is refused before a call. */
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
 * `get/trackings/info` takes the list as `trackings[]`. A query here is one value per name, so each number is sent
 * under its index, `trackings[0]=…&trackings[1]=…`, which Laravel reads as the same array (README "Unverified").
 */
export const trackingsQuery = (trackings: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(trackings.map((tracking, index) => [`trackings[${index}]`, tracking]))

/** `get/communes` of one wilaya. */
export const communesQuery = (wilaya: WilayaCode.WilayaCode) => ({ wilaya_id: String(wilaya) })

// --- Responses --------------------------------------------------------------------------------------------------

/** `POST create/order` → the tracking number. */
export const fromCreated = (response: Response): Result.Result<string, Reason> =>
  Result.map(decode(Wire.Created, response), (body) => body.tracking)

/**
 * `POST create/orders`: the orders keyed by their index, as the documented body has it (an object, not an array),
 * each as `create/order` takes it.
 */
export const toCreateOrders = (orders: ReadonlyArray<Shipment.ParcelOrder>) => ({
  orders: Object.fromEntries(orders.map((order, index) => [String(index), toCreateOrder(order)]))
})

/**
 * `POST create/orders` → each order's tracking number, in the order sent, read from the answer by the order's
 * reference (its key there), or the courier's refusal of that order alone (its field errors, or a business code).
 */
export const fromCreatedBatch = (
  references: ReadonlyArray<string>,
  response: Response
): Result.Result<ReadonlyArray<Result.Result<string, Reason>>, Reason> =>
  Result.map(decode(Wire.CreatedBatch, response), ({ results }) =>
    references.map((reference): Result.Result<string, Reason> => {
      const result = Object.hasOwn(results, reference) ? results[reference] : undefined
      if (result === undefined) {
        return Result.fail(
          new CourierError.BadResponse({ message: "the courier's bulk create answer has no result for this order" })
        )
      }
      const created = Schema.decodeUnknownOption(Wire.Created)(result)
      if (Option.isSome(created)) return Result.succeed(created.value.tracking)
      return Result.fail(
        refusalOf(200, result) ??
          new CourierError.BadResponse({
            message: "the courier's bulk create answered something unreadable for this order"
          })
      )
    })
  )

/** `POST valid/order` → done. */
export const fromValidated = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Validated, response), () => undefined)

/** Algeria keeps UTC+01:00 all year, so Ecotrack's Algiers wall-clock time has one fixed offset. */
export const timestampOf = (activity: Wire.Activity): string =>
  `${activity.date}T${activity.time.length === 5 ? `${activity.time}:00` : activity.time}+01:00`

/** `get/order/label` answers the PDF itself; anything else on 200 is not a label. */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status !== 200) return Result.fail(errorOf(response))
  return CourierAnswer.isPdf(response.bytes)
    ? Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
    : Result.fail(new CourierError.BadResponse({ message: "the courier answered a label that is not a PDF" }))
}

/** The activity as raw events, remarks (`notification_on_order`) left out. */
const activityEvents = (activity: ReadonlyArray<Wire.Activity>): Array<CourierAdapter.RawEvent> =>
  activity
    .filter((step) => !Status.notStatuses.has(step.status))
    .map((step) => ({ rawStatus: step.status, timestamp: timestampOf(step) }))

/** When the order's record was last changed (or made), when the answer carries it. */
const recordTime = (answer: Wire.TrackingsEntry): string | undefined =>
  [answer.updated_at, answer.created_at, answer.OrderInfo?.updated_at, answer.OrderInfo?.created_at]
    .map((text) => (text === undefined || text === null ? undefined : AlgiersTime.fromCourierText(text)))
    .find((time) => time !== undefined)

/**
 * A tracking answer → the parcel's events: its activity, remarks left out, then the order status the answer gives
 * (`status`: a key, or a label read back to its key, {@link Status.keyOfLabel}) as the newest event, at the newest
 * activity's time — or, with no activity yet, at the order record's time. The status says what the activity may
 * not: a parcel suspended after its last move ("Suspendus"), one ready to ship before any activity ("Prêt à
 * expédier"). When the activity already ends on that status, or the parcel has no time at all to give it, nothing
 * is added.
 */
export const eventsOf = (answer: Wire.TrackingsEntry): ReadonlyArray<CourierAdapter.RawEvent> => {
  const events = activityEvents(answer.activity ?? [])
  const said = answer.status?.trim() ?? ""
  if (said === "") return events
  const current = Status.keyOfLabel(said)
  const newest = events.reduce<string | undefined>(
    (latest, event) => (latest === undefined || event.timestamp > latest ? event.timestamp : latest),
    undefined
  )
  const at = newest ?? recordTime(answer)
  if (at === undefined || events.findLast((event) => event.timestamp === at)?.rawStatus === current) return events
  return [...events, { rawStatus: current, timestamp: at }]
}

/** `GET get/tracking/info` → the parcel's events ({@link eventsOf}). */
export const fromTracking = (response: Response): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.map(decode(Wire.TrackingInfo, response), eventsOf)

/** A batch read's answer: the events of the numbers the courier knows, or which of the asked it refused. */
export type BatchAnswer =
  | { readonly _tag: "Found"; readonly events: Map<string, ReadonlyArray<CourierAdapter.RawEvent>> }
  /** It refused the batch for these numbers, unknown to it: the rest can be asked again. */
  | { readonly _tag: "Unknown"; readonly trackings: ReadonlyArray<string> }
  /** It refused the batch for a number it does not know, without saying which. */
  | { readonly _tag: "SomeUnknown" }

/** `trackings.3` or `trackings[3]`: the index of the asked number a validation error names. */
const indexOf = (field: string): number | undefined => {
  const index = /^trackings(?:\.|\[)(\d+)\]?(?:\.|$)/.exec(field)?.[1]
  return index === undefined ? undefined : Number(index)
}

/**
 * `GET get/trackings/info` → the events of each asked parcel the courier knows, exactly those numbers (read as
 * `track` reads one). A number it does not know is left out; but the documented answer to a batch holding one is a
 * 422 for the whole call (Laravel's validation: `errors: { "trackings.3": […] }`): the numbers it names are unknown
 * and the others can be asked again; a 422 that names none says only that some number is unknown. When it knows
 * none, it answers 404 "Trackings non trouvés": an empty map.
 */
export const fromTrackings = (asked: ReadonlyArray<string>, response: Response): Result.Result<BatchAnswer, Reason> => {
  if (response.status === 404 && noneFound(response)) return Result.succeed({ _tag: "Found", events: new Map() })
  if (response.status === 422) {
    const body = CourierAnswer.json(response.text)
    const validation = Option.isSome(body)
      ? Schema.decodeUnknownOption(Wire.ValidationErrors)(body.value)
      : Option.none()
    const named = Option.isSome(validation)
      ? Object.keys(validation.value.errors).flatMap((field) => {
          const index = indexOf(field)
          return index === undefined || asked[index] === undefined ? [] : [asked[index]!]
        })
      : []
    return Result.succeed(named.length > 0 ? { _tag: "Unknown", trackings: named } : { _tag: "SomeUnknown" })
  }
  return Result.map(decode(Wire.TrackingsInfo, response), (byTracking) => {
    const events = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    for (const tracking of asked) {
      const entry = Object.hasOwn(byTracking, tracking) ? byTracking[tracking] : undefined
      if (entry !== undefined) events.set(tracking, eventsOf(entry))
    }
    return { _tag: "Found", events }
  })
}

/** A 404 that is the courier saying it found none of the numbers, not a route it does not have. */
const noneFound = (response: Response) => {
  const body = CourierAnswer.json(response.text)
  const said = Option.isSome(body) ? Schema.decodeUnknownOption(Wire.Message)(body.value) : Option.none()
  return Option.isSome(said) && /trackings? non trouv/i.test(said.value.message)
}

/** The courier's code for an order it will not change any more: it has been validated (shipped). */
export const NOT_MODIFIABLE = "10001"

/**
 * `DELETE delete/order` → done. Ecotrack deletes an order only before it is validated; after, it answers `10001`
 * ("Commande non modifiable"): the parcel is past the point it can be cancelled (`NotCancellable`, in its words).
 * The legacy `{ delete: "fail" }` gives no reason: a refusal.
 */
export const fromDeleted = (response: Response): Result.Result<void, Reason> => {
  const legacy = CourierAnswer.json(response.text).pipe(
    Option.flatMap((body) => Schema.decodeUnknownOption(Wire.NotDeleted)(body))
  )
  if (response.status >= 200 && response.status < 300 && Option.isSome(legacy)) {
    return Result.fail(
      new CourierError.Refused({ message: "the courier did not delete the order, and gave no reason" })
    )
  }
  return Result.mapError(
    Result.map(decode(Wire.Deleted, response), () => undefined),
    (reason) =>
      reason._tag === "Refused" && reason.courierCode === NOT_MODIFIABLE
        ? new CourierError.NotCancellable({ message: reason.message })
        : reason
  )
}

const isSet = (flag: boolean | number | string) => flag === true || flag === 1 || flag === "1"

const communeRows = (wilaya: WilayaCode.WilayaCode, response: Response) =>
  Result.map(decode(Wire.Communes, response), (answer) =>
    (Array.isArray(answer) ? answer : Object.values(answer)).filter((row) => row.wilaya_id === wilaya)
  )

/**
 * `GET get/communes?wilaya_id=` → the tenant's communes of the wilaya in its spelling (what `commune` must match).
 * Every commune the tenant lists is taken as served at home (the API has no home flag); `has_stop_desk` is a desk.
 */
export const fromCommunes = (
  wilaya: WilayaCode.WilayaCode,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.CourierCommune>, Reason> =>
  Result.map(communeRows(wilaya, response), (rows) =>
    rows.map((row) => ({ name: row.nom, home: true, stopdesk: isSet(row.has_stop_desk) }))
  )

/**
 * `GET get/communes?wilaya_id=` → the wilaya's desks: each commune with `has_stop_desk`, its `code_postal` the
 * station code a desk order sends (`code_postal`, from `stopDeskId`). A desk row without a code cannot be ordered
 * to and is left out.
 */
export const fromDesks = (
  wilaya: WilayaCode.WilayaCode,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.StopDesk>, Reason> =>
  Result.map(communeRows(wilaya, response), (rows) =>
    rows.flatMap((row) => {
      const code = row.code_postal === undefined || row.code_postal === null ? "" : String(row.code_postal).trim()
      return isSet(row.has_stop_desk) && code !== ""
        ? [{ id: code, name: `Stop desk ${clean(row.nom)}`, wilayaCode: wilaya, communeName: row.nom }]
        : []
    })
  )

/** `GET validate/token` → the token works (`VALID_TOKEN`); `INVALID_TOKEN` and `TOKEN_NOT_ALLOWED` are rejections. */
export const fromTokenCheck = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.TokenValid, response), () => undefined)

interface WilayaFees {
  readonly home: Dzd.Dzd
  readonly stopdesk: Dzd.Dzd | undefined
  readonly returnHome: Dzd.Dzd | undefined
  readonly returnStopdesk: Dzd.Dzd | undefined
}

/**
 * A desk tariff: absent, null or 0 is no desk there. The documented fee list gives `tarif_stopdesk: "0"` for the
 * wilayas a tenant has no desk in (23 of them in the documentation's data): quoted, a 0 DA desk delivery would top
 * every comparison.
 */
const deskFee = (fee: Dzd.Dzd | null | undefined): Dzd.Dzd | undefined =>
  fee === undefined || fee === null || fee === 0 ? undefined : fee

const feesFor = (fees: Wire.Fees, wilaya: number): WilayaFees | undefined => {
  if ("livraison" in fees) {
    const delivery = fees.livraison.find((row) => row.wilaya_id === wilaya)
    const back = fees.retours?.find((row) => row.wilaya_id === wilaya)
    return (
      delivery && {
        home: delivery.tarif,
        stopdesk: deskFee(delivery.tarif_stopdesk),
        returnHome: back?.tarif,
        returnStopdesk: back?.tarif_stopdesk ?? back?.tarif
      }
    )
  }
  const row = fees.find((row) => row.wilaya_id === wilaya)
  return (
    row && {
      home: row.livraison.tarif,
      stopdesk: deskFee(row.livraison.tarif_stopdesk),
      returnHome: row.retour?.tarif,
      returnStopdesk: row.retour?.tarif_stopdesk ?? row.retour?.tarif
    }
  )
}

const zero = 0 as Dzd.Dzd

/**
 * `GET get/fees` → the fees for the destination wilaya (Ecotrack prices per wilaya: the origin and the commune do
 * not matter). A return fee the courier does not list is 0, and there is no fee on collected cash: `recouvrement`
 * prices the "recouvrement" order type, not a COD commission (README "Unverified").
 */
export const fromFees = (query: Shipment.RatesQuery, response: Response): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Fees, response), (fees) => {
    const wilaya = feesFor(fees, query.toWilaya)
    if (wilaya === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `the courier does not deliver to wilaya ${query.toWilaya}: it is not in its fee list`
        })
      )
    }
    const options = [
      Shipment.RateOption.make({
        deliveryType: "home",
        tier: "economic",
        deliveryFee: wilaya.home,
        returnFee: wilaya.returnHome ?? zero
      }),
      ...(wilaya.stopdesk === undefined
        ? []
        : [
            Shipment.RateOption.make({
              deliveryType: "stopdesk",
              tier: "economic",
              deliveryFee: wilaya.stopdesk,
              returnFee: wilaya.returnStopdesk ?? zero
            })
          ])
    ]
    return Shipment.economicRates(query, options)
  })

// --- Errors -----------------------------------------------------------------------------------------------------

/**
 * Ecotrack's answers, read the SDK's way; what is Ecotrack's own is where it refuses (a failure inside a 2xx,
 * `success: false`; a 400 or 422) and in which words ({@link refusalOf}).
 */
const answers = CourierAnswer.reader({
  credentials: "the API token",
  refusal: (status, body) =>
    (status >= 200 && status < 300) || status === 400 || status === 422 ? refusalOf(status, body) : undefined
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf

const businessCodes: Readonly<Record<string, string>> = {
  "10001": "the order can no longer be changed: the courier has already validated it",
  "10002": "the courier does not deliver to this wilaya: it is not among the wilayas this tenant serves",
  "10003": "a return cannot be requested for this parcel"
}

const tokenWords: Readonly<Record<string, string>> = {
  INVALID_TOKEN: "the courier does not know this API token (INVALID_TOKEN)",
  TOKEN_NOT_ALLOWED: "this API token may not use the courier's API (TOKEN_NOT_ALLOWED): ask the courier to enable it"
}

/** Ecotrack's field names, where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  reference: "order.reference",
  nom_client: "order.recipient.fullName",
  telephone: "order.recipient.phone",
  telephone_2: "order.recipient.phoneAlt",
  adresse: "order.recipient.addressLine",
  commune: "order.recipient.communeName",
  code_wilaya: "order.recipient.wilayaCode",
  code_postal: "order.stopDeskId",
  stop_desk: "order.deliveryType",
  montant: "order.codAmount",
  remarque: "order.notes",
  produit: "order.productList",
  type: "order.isExchange",
  weight: "order.weightKg",
  tracking: "trackingNumber"
}

const fieldsRefused = (errors: Readonly<Record<string, ReadonlyArray<string>>>) =>
  new CourierError.Refused({
    message: clean(
      Object.entries(errors)
        .map(([field, messages]) => `${ourFields[field] ?? field}: ${messages.map((m) => clean(m)).join(" ")}`)
        .join("; "),
      600
    )
  })

const refusalOf = (status: number, body: unknown): Reason | undefined => {
  const failure = Schema.decodeUnknownOption(Wire.Failure)(body)
  if (Option.isSome(failure)) {
    const said = clean(failure.value.message ?? "")
    const code = failure.value.error ?? failure.value.code
    if (tokenWords[said] !== undefined) return new CourierError.CredentialsRejected({ message: tokenWords[said] })
    const known = code === undefined ? undefined : businessCodes[String(code)]
    return new CourierError.Refused({
      message:
        known !== undefined
          ? `${known} (courier code ${code}${said === "" ? "" : `: ${said}`})`
          : said === ""
            ? "the courier refused the request without giving a reason"
            : said,
      ...(code === undefined ? {} : { courierCode: String(code) })
    })
  }
  const validation = Schema.decodeUnknownOption(Wire.ValidationErrors)(body)
  if (Option.isSome(validation)) {
    if (Object.keys(validation.value.errors).length > 0) return fieldsRefused(validation.value.errors)
    const said = clean(validation.value.message ?? "")
    return said === "" ? undefined : new CourierError.Refused({ message: said })
  }
  const bare = Schema.decodeUnknownOption(Wire.BareFieldErrors)(body)
  if (Option.isSome(bare) && Object.keys(bare.value).length > 0) return fieldsRefused(bare.value)
  const message = Schema.decodeUnknownOption(Wire.Message)(body)
  if (Option.isSome(message)) {
    const said = clean(message.value.message)
    if (tokenWords[said] !== undefined) return new CourierError.CredentialsRejected({ message: tokenWords[said] })
    // A bare `{ message }` refuses only on an error status; on 200 it is no documented answer.
    if (status >= 400 && said !== "") return new CourierError.Refused({ message: said })
  }
  return undefined
}

/**
 * The create call succeeded but `valid/order` did not: the parcel exists on the caller's account, unvalidated and
 * invisible to the courier. Whatever went wrong, the caller gets a refusal naming the tracking number — never a
 * retryable error, since retrying the create would make a second parcel.
 */
export const notValidated = (tracking: string, reason: Reason): CourierError.Refused =>
  CourierError.unfinishedCreate(
    tracking,
    {
      failed: "did not validate it",
      consequence: "it exists on your account, invisible to the courier until validated",
      remedy: "Validate or delete it in the courier's dashboard"
    },
    reason
  )
