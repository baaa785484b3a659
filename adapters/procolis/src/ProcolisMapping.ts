/**
 * Pure translation between Tawsil's one request shape and the Procolis API: the `add_colis` parcel, the `pret` and
 * `lire` bodies, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here:
 * the adapter sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Procolis answers a refused parcel with HTTP 200: the refusal is in `MessageRetour`, and anything but "Good" is a
 * failure. Error messages are built from the courier's own words and status codes only, never from the request (the
 * host blanks the token and key out of every answer should the courier ever quote them back).
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd } from "@tawsil/domain"
import { DateTime, Option, Result, Schema } from "effect"
import * as Wire from "./ProcolisWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Requests ---------------------------------------------------------------------------------------------------

/** The core has already checked the phones are Algerian mobiles; Procolis wants the 10-digit national form. */
const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

const TRACKING_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/** How many random symbols follow the `TWL` prefix: 36^12 ≈ 2^62 tracking numbers. */
export const TRACKING_SYMBOLS = 12

/**
 * The parcel's tracking number, chosen by the sender as Procolis expects: `TWL` and {@link TRACKING_SYMBOLS}
 * symbols of 0-9A-Z, one per random integer in [0, 36). Letters and digits only, so it survives any field check.
 */
export const trackingFrom = (symbols: ReadonlyArray<number>): string =>
  `TWL${symbols.map((symbol) => TRACKING_ALPHABET[symbol % TRACKING_ALPHABET.length]).join("")}`

/**
 * The one parcel of `POST add_colis`. Procolis requires `Adresse`; a stop-desk parcel has none to give, so the
 * commune name stands in. `stopDeskId`, `weightKg`, `declaredValue`, `freeShipping` and `hasOpenPackage` have no
 * Procolis field and are not sent (README).
 */
export const toColis = (
  order: Shipment.ParcelOrder,
  tracking: string,
  options: { readonly confirmed: boolean }
): Wire.Colis => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  const address = present(recipient.addressLine) ? recipient.addressLine : stopdesk ? recipient.communeName : undefined
  return {
    Tracking: tracking,
    TypeLivraison: stopdesk ? "1" : "0",
    TypeColis: order.isExchange === true ? "1" : "0",
    Confrimee: options.confirmed ? "1" : "",
    Client: recipient.fullName,
    MobileA: AlgerianMobile.nationalOrAsSent(recipient.phone),
    ...(present(recipient.phoneAlt) ? { MobileB: AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) } : {}),
    ...(address === undefined ? {} : { Adresse: address }),
    IDWilaya: String(recipient.wilayaCode).padStart(2, "0"),
    Commune: recipient.communeName,
    Total: String(order.codAmount),
    ...(present(order.notes) ? { Note: order.notes } : {}),
    TProduit: order.productList,
    ...(present(order.reference) ? { id_Externe: order.reference } : {})
  }
}

export const toAddColis = (colis: Wire.Colis): Wire.AddColis => ({ Colis: [colis] })

/** The body of `pret` and `lire`: the one parcel, by tracking number. */
export const trackingList = (tracking: string): Wire.TrackingList => ({ Colis: [{ Tracking: tracking }] })

/** The most parcels one `lire` is asked for: the SDK's batch bound (Procolis documents none). */
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

/** The body of a batch `lire`: every parcel, by tracking number, in one `Colis` list. */
export const batchList = (trackings: ReadonlyArray<string>): Wire.TrackingList => ({
  Colis: trackings.map((tracking) => ({ Tracking: tracking }))
})

/** Procolis has one tier. */
export const checkTier = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.tier === "express"
    ? Result.fail(new CourierError.Refused({ message: "this courier has no express tier: ask for economic" }))
    : Result.void

// --- Responses --------------------------------------------------------------------------------------------------

const GOOD = "Good"

/**
 * `POST add_colis` (or `pret`) → done, when the courier says "Good" for our parcel. Any other `MessageRetour` is a
 * refusal even on HTTP 200 ("Double Tracking", a wilaya it does not know …); a "Good" for another tracking number is
 * an answer we cannot trust.
 */
export const fromColisResults = (tracking: string, response: Response): Result.Result<void, Reason> =>
  Result.flatMap(decode(Wire.ColisResults, response), (body): Result.Result<void, Reason> => {
    const [first] = body.Colis
    if (first.MessageRetour.trim() !== GOOD) {
      const said = clean(first.MessageRetour)
      return Result.fail(
        new CourierError.Refused({
          message: said === "" ? "the courier refused the parcel without giving a reason" : `the courier said: ${said}`,
          ...(said === "" ? {} : { courierCode: clean(said, 80) })
        })
      )
    }
    if (present(first.Tracking ?? undefined) && first.Tracking !== tracking) {
      return Result.fail(
        new CourierError.BadResponse({ message: "the courier confirmed a parcel other than the one it was sent" })
      )
    }
    return Result.void
  })

const LOCAL = /^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))[T ]((?:[01]\d|2[0-3]):[0-5]\d)(:[0-5]\d)?(?:\.\d+)?$/
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/

/**
 * An ISO 8601 time with offset, in Algiers. Wall time without an offset is Algiers time, which is UTC+01:00 all year
 * (no daylight saving time), so the offset is exact; fractions of a second are dropped. A time that carries its own
 * offset is converted. Anything else is `undefined`.
 */
export const algiersTimestamp = (raw: string): string | undefined => {
  const local = LOCAL.exec(raw.trim())
  if (local !== null) return `${local[1]}T${local[2]}${local[3] ?? ":00"}+01:00`
  if (!ZONED.test(raw.trim())) return undefined
  return Option.getOrUndefined(Option.map(DateTime.make(raw.trim()), AlgiersTime.formatIso))
}

/** A row of `lire` → its one event: the current situation at the time it was reached. */
const eventOf = (row: unknown): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const situation = Schema.decodeUnknownOption(Wire.Situation)(row)
  if (Option.isNone(situation)) {
    return Result.fail(
      new CourierError.BadResponse({ message: "the courier answered a parcel without a readable situation" })
    )
  }
  const timestamp = algiersTimestamp(situation.value.DateH_Action)
  return timestamp === undefined
    ? Result.fail(
        new CourierError.BadResponse({ message: "the courier answered a situation time it does not document" })
      )
    : Result.succeed([{ rawStatus: situation.value.Situation, timestamp }])
}

/** The row of exactly `tracking`, if the answer has one. */
const rowOf = (body: typeof Wire.Lire.Type, tracking: string): unknown =>
  body?.Colis.find((candidate) => Option.exists(trackingOfRow(candidate), (read) => read.Tracking === tracking))

/**
 * `POST lire` → the parcel's one event: Procolis reports where a parcel is now (`Situation`, reached at
 * `DateH_Action`), not its history. Only the row of exactly the asked tracking number is read; `null`, an empty list
 * or rows for other parcels mean the courier does not know it.
 */
export const fromLire = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(decode(Wire.Lire, response), (body): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
    const row = rowOf(body, tracking)
    return row === undefined
      ? Result.fail(
          new CourierError.Refused({ message: "trackingNumber: the courier does not know this tracking number" })
        )
      : eventOf(row)
  })

/**
 * `POST lire` with several parcels → each asked parcel's one event (as {@link fromLire}), by tracking number. A number
 * whose row is missing (the literal `null` when none is known, or rows for other parcels only) is left out; an asked
 * row without a readable situation or time fails the batch.
 */
export const fromLireBatch = (
  asked: ReadonlyArray<string>,
  response: Response
): Result.Result<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, Reason> =>
  Result.flatMap(decode(Wire.Lire, response), (body) => {
    const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    for (const tracking of asked) {
      const row = rowOf(body, tracking)
      if (row === undefined) continue
      const events = eventOf(row)
      if (Result.isFailure(events)) return Result.fail(events.failure)
      found.set(tracking, events.success)
    }
    return Result.succeed(found)
  })

const trackingOfRow = Schema.decodeUnknownOption(Schema.Struct({ Tracking: Schema.String }))

const zero = 0 as Dzd.Dzd

/**
 * `POST tarification` → the fees for the destination wilaya (Procolis prices per wilaya: the origin and the commune
 * do not matter). A stop-desk price that is absent, null or 0 means there is no desk there. `Annuler`, what a parcel
 * that comes back costs, is the return fee for both options; 0 when absent. There is no fee on collected cash.
 */
export const fromTarification = (
  query: Shipment.RatesQuery,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Tarification, response), (rows) => {
    const row = rows.find((candidate) => candidate.IDWilaya === query.toWilaya)
    if (row === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `the courier does not deliver to wilaya ${query.toWilaya}: it is not in its tariff`
        })
      )
    }
    const returnFee = row.Annuler ?? zero
    const desk = row.Stopdesk === undefined || row.Stopdesk === null || row.Stopdesk === 0 ? undefined : row.Stopdesk
    const options = [
      Shipment.RateOption.make({ deliveryType: "home", tier: "economic", deliveryFee: row.Domicile, returnFee }),
      ...(desk === undefined
        ? []
        : [Shipment.RateOption.make({ deliveryType: "stopdesk", tier: "economic", deliveryFee: desk, returnFee })])
    ]
    return Shipment.economicRates(query, options)
  })

/** What `GET token` says for credentials that work, compared without case or accents. */
const ACTIVE = "acces active"

const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim()

/**
 * `GET token` → the credentials work when the courier says "Accès activé". Any other `Statut` on HTTP 200 (an
 * account not activated, in the courier's words) is a rejection of the credentials, quoting it; a wrong token or key
 * is the gateway's 401.
 */
export const fromTokenStatus = (response: Response): Result.Result<void, Reason> =>
  Result.flatMap(decode(Wire.TokenStatus, response), ({ Statut }) =>
    fold(Statut) === ACTIVE
      ? Result.void
      : Result.fail(
          new CourierError.CredentialsRejected({
            message: `the courier did not activate the token and key (it said: ${clean(Statut, 120) || "nothing"})`
          })
        )
  )

// --- Errors -----------------------------------------------------------------------------------------------------

/** The courier's own words in an error body: the gateway's `faultstring`, or a `message`. */
const saidIn = (body: unknown): string | undefined => {
  const fault = Schema.decodeUnknownOption(Wire.Fault)(body)
  if (Option.isSome(fault)) return clean(fault.value.fault.faultstring)
  const message = Schema.decodeUnknownOption(Wire.Message)(body)
  if (Option.isSome(message)) return clean("message" in message.value ? message.value.message : message.value.Message)
  return undefined
}

/** Procolis refuses with 400 or 422 and its own words; a refused parcel is answered inside a 200 (`MessageRetour`). */
const answers = CourierAnswer.reader({
  credentials: "the token and key",
  refusal: (status, body) => {
    const said = status === 400 || status === 422 ? saidIn(body) : undefined
    return said === undefined || said === ""
      ? undefined
      : new CourierError.Refused({ message: `the courier said: ${said}` })
  }
})

const { decode } = answers

/** What a failed answer means. */
export const errorOf = answers.errorOf

/**
 * The parcel was created (`Confrimee` left empty) but `pret` did not confirm it: it exists on the caller's account,
 * "en préparation", and the courier will not collect it. Whatever went wrong, the caller gets a refusal naming the
 * tracking number — never a retryable error, since retrying the create would make a second parcel.
 */
export const notConfirmed = (tracking: string, reason: Reason): CourierError.Refused =>
  CourierError.unfinishedCreate(
    tracking,
    {
      failed: "did not confirm it",
      consequence: 'it exists on your account, "en préparation", and will not be collected until confirmed',
      remedy: "Confirm or delete it in the courier's dashboard"
    },
    reason
  )
