/**
 * Pure translation between Tawsil's one request shape and the E-COM Delivery API: the `Colis` parcel, the
 * `aExpédier` body, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here:
 * the adapter sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Error messages are built from the courier's own words and status codes only, never from the request (the host
 * blanks the key and token out of every answer should the courier ever quote them back).
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, type Dzd } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./EcomDeliveryStatus.ts"
import * as Wire from "./EcomDeliveryWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Requests ---------------------------------------------------------------------------------------------------

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/** Where the order came from, as `Source` tells E-COM (free text). */
export const SOURCE = "Tawsil"

/**
 * The one parcel of `POST Colis`. E-COM requires `Adresse`; a stop-desk parcel has none to give, so the commune name
 * stands in. The desk is `CodeStopdesk` (the caller's `stopDeskId`). `weightKg`, `declaredValue`, `freeShipping` and
 * `hasOpenPackage` have no E-COM field and are not sent (README).
 */
export const toColis = (order: Shipment.ParcelOrder): Wire.Colis => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  const address = present(recipient.addressLine) ? recipient.addressLine : stopdesk ? recipient.communeName : undefined
  return {
    Echange: order.isExchange === true ? 1 : 0,
    Stopdesk: stopdesk ? 1 : 0,
    NomComplet: recipient.fullName,
    Mobile_1: AlgerianMobile.nationalOrAsSent(recipient.phone),
    ...(present(recipient.phoneAlt) ? { Mobile_2: AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) } : {}),
    ...(address === undefined ? {} : { Adresse: address }),
    Wilaya: String(recipient.wilayaCode),
    Commune: recipient.communeName,
    Article: order.productList,
    Total: String(order.codAmount),
    ...(present(order.reference) ? { ID_Externe: order.reference } : {}),
    ...(stopdesk && present(order.stopDeskId) ? { CodeStopdesk: order.stopDeskId } : {}),
    ...(present(order.notes) ? { NoteFournisseur: order.notes } : {}),
    Source: SOURCE
  }
}

export const toAddColis = (colis: Wire.Colis): Wire.AddColis => ({ Colis: [colis] })

/** The body of `aExpédier`: the one parcel, by tracking number. */
export const trackingList = (tracking: string): Wire.TrackingList => ({ Colis: [{ Tracking: tracking }] })

/** `POST Colis/Liste` and `PUT Supprimer`: several parcels, by tracking number, each once. */
export const trackingsList = (trackings: ReadonlyArray<string>): Wire.TrackingList => ({
  Colis: [...new Set(trackings)].map((tracking) => ({ Tracking: tracking }))
})

/** E-COM has one tier. */
export const checkTier = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.tier === "express"
    ? Result.fail(new CourierError.Refused({ message: "this courier has no express tier: ask for economic" }))
    : Result.void

// --- Responses --------------------------------------------------------------------------------------------------

/**
 * `POST Colis` → the parcel E-COM made: its tracking number and where it stands (`Avancement`, "En Préparation" for a
 * new parcel). One parcel was sent, so exactly one must come back.
 */
export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.flatMap(decode(Wire.Created, response), (body): Result.Result<CourierAdapter.CreatedParcel, Reason> => {
    if (body.Colis.length !== 1) {
      return Result.fail(
        new CourierError.BadResponse({ message: "the courier answered a number of parcels other than the one sent" })
      )
    }
    const [row] = body.Colis
    return Result.succeed({ trackingNumber: row.Tracking, rawStatus: row.Avancement })
  })

/** `PUT aExpédier` → done: no answer body is documented, so any JSON object on a 2xx is taken as done. */
export const fromShipped = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Shipped, response), () => undefined)

const LOCAL = /^(0[1-9]|[12]\d|3[01])\/(0[1-9]|1[0-2])\/(\d{4})[ T]((?:[01]\d|2[0-3]):[0-5]\d)(:[0-5]\d)?$/

/**
 * E-COM's `dd/mm/yyyy hh:mm:ss` (its page shows one with a stray leading space) as ISO 8601 in Algiers, which is
 * UTC+01:00 all year (no daylight saving time), so the offset is exact. Anything else is `undefined`.
 */
export const algiersTimestamp = (raw: string): string | undefined => {
  const local = LOCAL.exec(raw.trim())
  return local === null ? undefined : `${local[3]}-${local[2]}-${local[1]}T${local[4]}${local[5] ?? ":00"}+01:00`
}

/**
 * The events one parcel row reports, at `Date_Action_D`: where it is (`Avancement`), then what happened with the
 * recipient (`Situation`), which qualifies it — "Au Bureau" then "Ne Réponde pas #1" is a failed attempt at the desk.
 * The situations that report contact only ({@link Status.remarks}) are left out; any other, known or not, is passed
 * on as sent.
 */
export const eventsOf = (row: Wire.Row): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const timestamp = algiersTimestamp(row.Date_Action_D)
  if (timestamp === undefined) {
    return Result.fail(
      new CourierError.BadResponse({ message: "the courier answered a parcel time its API does not document" })
    )
  }
  const situation = row.Situation?.trim() ?? ""
  return Result.succeed([
    { rawStatus: row.Avancement, timestamp },
    ...(situation === "" || Status.remarks.includes(situation) ? [] : [{ rawStatus: situation, timestamp }])
  ])
}

const trackingOfRow = Schema.decodeUnknownOption(Schema.Struct({ Tracking: Schema.String }))

/**
 * `GET Colis/Tracking/{t}` → the parcel's events. E-COM reports where a parcel is now, not its history. Only the row
 * of exactly the asked tracking number is read; an empty list or rows for other parcels mean the courier does not
 * know it.
 */
export const fromTracking = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(decode(Wire.Listing, response), (body) => {
    const found = body.Colis.find((candidate) =>
      Option.exists(trackingOfRow(candidate), (read) => read.Tracking === tracking)
    )
    if (found === undefined) {
      return Result.fail(
        new CourierError.Refused({ message: "trackingNumber: the courier does not know this tracking number" })
      )
    }
    const row = Schema.decodeUnknownOption(Wire.Row)(found)
    return Option.isNone(row)
      ? Result.fail(new CourierError.BadResponse({ message: "the courier answered a parcel without a readable state" }))
      : eventsOf(row.value)
  })

/**
 * One page of `POST Colis/Liste` → the events of each asked number it holds, read as `track` reads one (exact
 * `Tracking` match; rows of numbers not asked are not read); a number E-COM does not return is left out. An asked
 * parcel's row without a readable state makes the whole answer a `BadResponse`. The page count is returned too, so
 * that the adapter asks for the next pages.
 */
export const fromListPage = (
  trackings: ReadonlyArray<string>,
  response: Response
): Result.Result<
  {
    readonly events: ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>
    readonly pages: number
    readonly page: number
  },
  Reason
> =>
  Result.flatMap(decode(Wire.Page, response), (body) => {
    const asked = new Set(trackings)
    const events = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    for (const candidate of body.Colis) {
      const tracking = Option.getOrUndefined(Option.map(trackingOfRow(candidate), (read) => read.Tracking))
      if (tracking === undefined || !asked.has(tracking) || events.has(tracking)) continue
      const row = Schema.decodeUnknownOption(Wire.Row)(candidate)
      if (Option.isNone(row)) {
        return Result.fail(
          new CourierError.BadResponse({ message: "the courier answered a parcel without a readable state" })
        )
      }
      const read = eventsOf(row.value)
      if (Result.isFailure(read)) return Result.fail(read.failure)
      events.set(tracking, read.success)
    }
    const page = body.Current_Page ?? 1
    return Result.succeed({ events, page, pages: Math.max(body.Nb_Page ?? page, page) })
  })

/** Where a parcel can still be deleted: before E-COM collects it (its first two `Avancement`s). */
export const DELETABLE: ReadonlySet<string> = new Set(["En Préparation", Status.shipped])

/**
 * `GET Colis/Tracking/{t}` before a delete → whether the parcel can still be deleted: unknown is refused as `track`
 * refuses it; one E-COM reports past preparation ("Dispatcher", "Au Bureau", …) is `NotCancellable`, naming where
 * E-COM says it is. Else nothing: `PUT Supprimer` may go.
 */
export const checkDeletable = (tracking: string, response: Response): Result.Result<void, Reason> =>
  Result.flatMap(avancementOf(tracking, response), (avancement) =>
    DELETABLE.has(avancement)
      ? Result.void
      : Result.fail(
          new CourierError.NotCancellable({
            message: `the courier reports the parcel "${avancement}": past preparation, it can no longer be deleted`
          })
        )
  )

/** `GET Colis/Tracking/{t}` → where E-COM reports exactly this parcel (`Avancement`); unknown is refused. */
const avancementOf = (tracking: string, response: Response): Result.Result<string, Reason> =>
  Result.flatMap(decode(Wire.Listing, response), (body): Result.Result<string, Reason> => {
    const found = body.Colis.find((candidate) =>
      Option.exists(trackingOfRow(candidate), (read) => read.Tracking === tracking)
    )
    if (found === undefined) {
      return Result.fail(
        new CourierError.Refused({ message: "trackingNumber: the courier does not know this tracking number" })
      )
    }
    const row = Schema.decodeUnknownOption(Wire.Row)(found)
    return Option.isNone(row)
      ? Result.fail(new CourierError.BadResponse({ message: "the courier answered a parcel without a readable state" }))
      : Result.succeed(clean(row.value.Avancement))
  })

/**
 * `GET Colis/Tracking/{t}` before `aExpédier` → what dispatching the parcel takes: one still "En Préparation" is
 * shipped (`"ship"`); one E-COM reports further along has been already, and answers where it is — `aExpédier` would
 * not move it; one in a state the table does not know is refused.
 */
export const dispatchStep = (
  tracking: string,
  response: Response
): Result.Result<"ship" | { readonly rawStatus: string }, Reason> =>
  Result.flatMap(
    avancementOf(tracking, response),
    (avancement): Result.Result<"ship" | { readonly rawStatus: string }, Reason> => {
      if (avancement === Status.created) return Result.succeed("ship")
      return Object.hasOwn(Status.statuses, avancement)
        ? Result.succeed({ rawStatus: avancement })
        : Result.fail(
            new CourierError.Refused({
              message: `the courier reports the parcel "${avancement}", which this adapter does not know: dispatch it in the courier's dashboard`
            })
          )
    }
  )

/** `PUT Supprimer` → done (no answer body is documented: any JSON object). */
export const fromDeleted = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Deleted, response), () => undefined)

/** `GET Test` → the key and token work: E-COM named the account's shop. */
export const fromTest = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Test, response), () => undefined)

const zero = 0 as Dzd.Dzd

/**
 * `GET Tarification` → the fees for the destination wilaya (E-COM prices per wilaya: the origin and the commune do
 * not matter). `Domicle` and `Stopdesk` say which deliveries the wilaya has; `Tarfi_Annuler`, what a parcel that
 * comes back costs, is the return fee of both (0 when absent). There is no fee on collected cash.
 */
export const fromTarification = (
  query: Shipment.RatesQuery,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Tarification, response), ({ Wilaya }) => {
    const row = Wilaya.find((candidate) => candidate.ID === query.toWilaya)
    if (row === undefined || (!row.Domicle && !row.Stopdesk)) {
      return Result.fail(
        new CourierError.Refused({
          message: `the courier does not deliver to wilaya ${query.toWilaya}: it is not in its tariff`
        })
      )
    }
    const returnFee = row.Tarfi_Annuler ?? zero
    const options = [
      ...(row.Domicle
        ? [
            Shipment.RateOption.make({
              deliveryType: "home",
              tier: "economic",
              deliveryFee: row.Tarfi_Domicle,
              returnFee
            })
          ]
        : []),
      ...(row.Stopdesk
        ? [
            Shipment.RateOption.make({
              deliveryType: "stopdesk",
              tier: "economic",
              deliveryFee: row.Tarfi_Stopdesk,
              returnFee
            })
          ]
        : [])
    ]
    return Shipment.economicRates(query, options)
  })

// --- Errors -----------------------------------------------------------------------------------------------------

/** The courier's own words in an error body. */
const saidIn = (body: unknown): string | undefined =>
  Option.getOrUndefined(
    Option.map(Schema.decodeUnknownOption(Wire.Message)(body), (said) =>
      clean("message" in said ? said.message : "Message" in said ? said.Message : said.error)
    )
  )

/**
 * E-COM documents no error body; integrations read `message` (or `Message`, `error`) on a 4xx. A 400 or 422 with
 * words is a refusal in them; a 401 or 403 is the key and token refused, quoting what it says.
 */
const answers = CourierAnswer.reader({
  credentials: "the API key and token",
  refusal: (status, body) => {
    const said = status === 400 || status === 422 ? saidIn(body) : undefined
    return said === undefined || said === ""
      ? undefined
      : new CourierError.Refused({ message: `the courier said: ${said}`, courierCode: clean(said, 80) })
  },
  rejection: saidIn
})

const { decode } = answers

/** What a failed answer means. */
export const errorOf = answers.errorOf

/**
 * The parcel was created but `aExpédier` did not ship it: it exists on the caller's account, "En Préparation", and
 * the courier will not collect it. Whatever went wrong, the caller gets a refusal naming the tracking number — never
 * a retryable error, since retrying the create would make a second parcel.
 */
export const notShipped = (tracking: string, reason: Reason): CourierError.Refused =>
  CourierError.unfinishedCreate(
    tracking,
    {
      failed: "did not mark it ready to ship",
      consequence: 'it exists on your account, "En Préparation", and will not be collected until it is',
      remedy: "Mark it ready to ship or delete it in the courier's dashboard"
    },
    reason
  )
