/**
 * Pure translation between Tawsil's one request shape and the NOEST Express API: the create body, the validation
 * and tracking bodies, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client
 * here: the adapter sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Error messages are built from the courier's own words and status codes only, never from the request: nothing
 * the caller sent (least of all the token or the GUID) is echoed; the host blanks both out of every answer should
 * NOEST ever quote them back.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd, type WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Status from "./NoestStatus.ts"
import * as Wire from "./NoestWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Requests ---------------------------------------------------------------------------------------------------

/** The core has already checked the phones are Algerian mobiles; NOEST wants the 10-digit national form. */
const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/** `poids` when the order gives no weight: the PDF spec makes the field required (README "Unverified"). */
export const DEFAULT_WEIGHT_KG = 1

/** The shortest reference NOEST takes (its specification: at least 5 characters). */
export const MIN_REFERENCE = 5

/**
 * What NOEST would refuse of an order, refused here first: a reference shorter than {@link MIN_REFERENCE}
 * characters (the host makes one of 13 when the caller sends none).
 */
export const checkOrder = (order: Shipment.ParcelOrder): Result.Result<void, Reason> =>
  present(order.reference) && Array.from(order.reference.trim()).length < MIN_REFERENCE
    ? Result.fail(
        new CourierError.Refused({
          message: `order.reference: NOEST takes references of at least ${MIN_REFERENCE} characters`
        })
      )
    : Result.void

/**
 * `POST create/order`. NOEST requires `adresse`: without an address line (a stop-desk parcel has none to give;
 * neither may a home delivery in a village) the commune name stands in. `freeShipping` and `declaredValue` have no
 * NOEST field and are not sent (README).
 */
export const toCreateOrder = (order: Shipment.ParcelOrder): Wire.CreateOrder => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  return {
    ...(present(order.reference) ? { reference: order.reference.trim() } : {}),
    client: recipient.fullName,
    phone: AlgerianMobile.nationalOrAsSent(recipient.phone),
    ...(present(recipient.phoneAlt) ? { phone_2: AlgerianMobile.nationalOrAsSent(recipient.phoneAlt) } : {}),
    adresse: present(recipient.addressLine) ? recipient.addressLine.trim() : recipient.communeName,
    wilaya_id: recipient.wilayaCode,
    commune: recipient.communeName,
    montant: order.codAmount,
    ...(present(order.notes) ? { remarque: order.notes } : {}),
    produit: order.productList,
    type_id: order.isExchange === true ? 2 : 1,
    poids: order.weightKg ?? DEFAULT_WEIGHT_KG,
    stop_desk: stopdesk ? 1 : 0,
    ...(stopdesk && order.stopDeskId !== undefined ? { station_code: order.stopDeskId } : {}),
    can_open: order.hasOpenPackage === true ? 1 : 0
  }
}

/** `POST valid/order`: makes the parcel visible to the courier. */
export const validationBody = (tracking: string) => ({ tracking })

/** `POST get/trackings/info`: one parcel, by its exact tracking number. */
export const trackingBody = (tracking: string) => ({ trackings: [tracking] })

/** `POST get/trackings/info` for several parcels at once (at most 100: the host's bound), each asked once. */
export const batchTrackingBody = (trackings: ReadonlyArray<string>) => ({ trackings: [...new Set(trackings)] })

/** NOEST prices one tier only. */
export const checkTier = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.tier === "express"
    ? Result.fail(new CourierError.Refused({ message: "this courier has no express tier: ask for economic" }))
    : Result.void

// --- Responses --------------------------------------------------------------------------------------------------

/** `POST create/order` → the tracking number. */
export const fromCreated = (response: Response): Result.Result<string, Reason> =>
  Result.map(decode(Wire.Created, response), (body) => body.tracking)

/**
 * `POST create/orders` (the PDF's bulk create, up to 100): the orders keyed by their index, each as `create/order`
 * takes it, in the Ecotrack platform's form (NOEST's API is built on it).
 */
export const toCreateOrders = (orders: ReadonlyArray<Shipment.ParcelOrder>) => ({
  orders: Object.fromEntries(orders.map((order, index) => [String(index), toCreateOrder(order)]))
})

/**
 * `POST create/orders` → each order's tracking number, in the order sent, read by the order's reference (its key in
 * the answer), or NOEST's refusal of that order alone.
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

/** `POST delete/order` → done. */
export const fromDeleted = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Deleted, response), () => undefined)

/**
 * Why NOEST refused to delete a parcel, from its events: one that has gone past `upload` has been validated (or
 * further), which NOEST never deletes — `NotCancellable`, in its words; one still only uploaded was refused for
 * another reason, passed on as it is.
 */
export const whyNotDeleted = (events: ReadonlyArray<CourierAdapter.RawEvent>, refusal: CourierError.Refused): Reason =>
  events.some((event) => event.rawStatus !== Status.uploaded)
    ? new CourierError.NotCancellable({
        message: `NOEST deletes a parcel only before it is validated, and this one is: ${refusal.message}`
      })
    : refusal

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
      remedy: "Validate or delete it in NOEST's dashboard"
    },
    reason
  )

/**
 * A NOEST time as ISO 8601 in Algiers (`2026-04-18T19:45:06+01:00`). Laravel prints `YYYY-MM-DD HH:MM:SS` in the
 * application's time zone — Algiers wall-clock time, which keeps UTC+01:00 all year; a time with an offset (or `Z`,
 * Laravel's JSON dates) is converted. `undefined` when the text is no such time.
 */
export const timestampOf = AlgiersTime.fromCourierText

const unknownTracking = new CourierError.Refused({ message: "trackingNumber: NOEST knows no parcel with this number" })

/**
 * NOEST's answer when it knows none of the numbers asked, `{ "message": "Trackings not found" }`: on HTTP 404 in the
 * v2.3 specification (its words read here; a 404 without them is a route NOEST does not have).
 */
const noneFound = (response: Response) => {
  if (response.status !== 404) return false
  const body = CourierAnswer.json(response.text)
  const said = Option.isSome(body) ? Schema.decodeUnknownOption(Wire.Message)(body.value) : Option.none()
  return Option.isSome(said) && /trackings? (?:not found|non trouv)/i.test(said.value.message)
}

/**
 * `POST get/trackings/info` → the events of exactly `tracking`, admin edits left out; cash events are kept (the
 * core reads them apart, through `codStatuses`). A tracking number NOEST does not return, or answers "Trackings not
 * found" for (404), is unknown: refused.
 */
export const fromTracking = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  noneFound(response)
    ? Result.fail(unknownTracking)
    : Result.flatMap(
        decode(Wire.TrackingInfo, response),
        (body): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
          const entry = isEmptyList(body) || !Object.hasOwn(body, tracking) ? undefined : body[tracking]
          if (entry === undefined) return Result.fail(unknownTracking)
          return eventsOf(entry, response.status)
        }
      )

/**
 * One parcel's entry of `get/trackings/info` → its events (each row's key, or the key its label stands for:
 * `Status.keyOf`), admin edits left out; cash events kept.
 */
const eventsOf = (entry: unknown, status: number): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
  const decoded = Schema.decodeUnknownOption(Wire.TrackingEntry)(entry)
  if (Option.isNone(decoded)) return Result.fail(CourierAnswer.undocumented(status))
  const events: Array<CourierAdapter.RawEvent> = []
  for (const activity of decoded.value.activity) {
    const key = Status.keyOf(activity)
    if (Status.notStatuses.has(key)) continue
    const timestamp = timestampOf(activity.date)
    if (timestamp === undefined) {
      return Result.fail(
        new CourierError.BadResponse({ message: "the courier answered an event time it does not document" })
      )
    }
    events.push({ rawStatus: key, timestamp })
  }
  return Result.succeed(events)
}

/**
 * `POST get/trackings/info` for several parcels → the events of each asked number NOEST returns, read as `track`
 * reads one; a number it does not return is left out, and entries for numbers not asked are not read; "Trackings
 * not found" (404) is none of them. One asked parcel's undocumented entry makes the whole answer a `BadResponse`;
 * `{ success: false }` is NOEST's refusal.
 */
export const fromTrackingBatch = (
  trackings: ReadonlyArray<string>,
  response: Response
): Result.Result<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, Reason> =>
  noneFound(response)
    ? Result.succeed(new Map())
    : Result.flatMap(decode(Wire.TrackingInfo, response), (body) => {
        const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
        if (isEmptyList(body)) return Result.succeed(found)
        // `{ success: false, message }` is an object too: a refusal, never "none of them known".
        if (Option.isSome(Schema.decodeUnknownOption(Wire.Failure)(body))) {
          return Result.fail(refusalOf(response.status, body) ?? CourierAnswer.undocumented(response.status))
        }
        // Every member is a parcel's entry, an object: anything else (a bare `{ message }`) is no documented answer.
        if (Object.values(body).some((entry) => typeof entry !== "object" || entry === null || Array.isArray(entry))) {
          return Result.fail(CourierAnswer.undocumented(response.status))
        }
        for (const tracking of trackings) {
          if (!Object.hasOwn(body, tracking) || found.has(tracking)) continue
          const events = eventsOf(body[tracking], response.status)
          if (Result.isFailure(events)) return Result.fail(events.failure)
          found.set(tracking, events.success)
        }
        return Result.succeed(found)
      })

/** PHP's empty answer: `[]` where an object keyed by tracking number was expected. */
const isEmptyList = (body: typeof Wire.TrackingInfo.Type): body is readonly [] => Array.isArray(body)

const zero = 0 as Dzd.Dzd

/**
 * `GET fees` → the fees for the destination wilaya (NOEST prices per wilaya: the origin and the commune do not
 * matter). A return fee NOEST does not list is 0, and there is no fee on collected cash (none is documented).
 */
export const fromFees = (query: Shipment.RatesQuery, response: Response): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Fees, response), ({ tarifs }) => {
    const key = String(query.toWilaya)
    const delivery = Object.hasOwn(tarifs.delivery, key) ? tarifs.delivery[key] : undefined
    if (delivery === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `NOEST does not deliver to wilaya ${query.toWilaya}: it is not in its fee list`
        })
      )
    }
    const back = tarifs.return !== undefined && Object.hasOwn(tarifs.return, key) ? tarifs.return[key] : undefined
    const desk = delivery.tarif_stopdesk ?? undefined
    const options = [
      Shipment.RateOption.make({
        deliveryType: "home",
        tier: "economic",
        deliveryFee: delivery.tarif,
        returnFee: back?.tarif ?? zero
      }),
      ...(desk === undefined
        ? []
        : [
            Shipment.RateOption.make({
              deliveryType: "stopdesk",
              tier: "economic",
              deliveryFee: desk,
              returnFee: back?.tarif_stopdesk ?? back?.tarif ?? zero
            })
          ])
    ]
    return Shipment.economicRates(query, options, "NOEST")
  })

/**
 * `GET get/order/label` → the PDF itself. A redirect (courier-dz reports one to a pre-signed S3 address) is not
 * followed: the core reaches only the courier's own origin, and the address carries a signature that is not ours
 * to hand out (README "Unverified").
 */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status >= 300 && response.status < 400) {
    return Result.fail(
      new CourierError.BadResponse({
        message: `NOEST answered the label with a redirect (HTTP ${response.status}) to another address, which Tawsil does not follow`
      })
    )
  }
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

/** The wilaya a desk code names: the number it starts with (`16A` → 16, `5B` or `05B` → 5). */
export const wilayaOfDesk = (code: string): number | undefined => {
  const digits = /^\s*(\d{1,2})(?!\d)/.exec(code)?.[1]
  return digits === undefined ? undefined : Number(digits)
}

/** The text, trimmed, or `undefined` when there is none. */
const given = (text: string | null | undefined): string | undefined => {
  const trimmed = clean(text ?? "")
  return trimmed === "" ? undefined : trimmed
}

/**
 * `GET desks` → the desks of `wilaya`: those whose code starts with its number (the answer has no wilaya field; a
 * code that starts with none is in no wilaya Tawsil can name, and left out). `id` is the code, what a create sends
 * as `station_code`; the phone is the first one listed.
 */
export const fromDesks = (
  wilaya: WilayaCode.WilayaCode,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.StopDesk>, Reason> =>
  Result.map(decode(Wire.Desks, response), (body) =>
    (Array.isArray(body) ? [] : Object.values(body))
      .filter((desk) => wilayaOfDesk(desk.code) === wilaya)
      .map((desk) => {
        const phones = desk.phones == null ? [] : Array.isArray(desk.phones) ? desk.phones : Object.values(desk.phones)
        const phone = phones.map(given).find((number) => number !== undefined)
        const communeName = given(desk.commune)
        const address = given(desk.address)
        return {
          id: desk.code.trim(),
          name: clean(desk.name),
          wilayaCode: wilaya,
          ...(communeName === undefined ? {} : { communeName }),
          ...(address === undefined ? {} : { address }),
          ...(phone === undefined ? {} : { phone })
        }
      })
  )

/** A name folded for comparison: lower case, without accents, apostrophes, dashes or spaces (`Bab-Ezzouar`). */
const fold = (name: string) =>
  name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")

/**
 * `GET get/communes/{wilaya}` → the communes in NOEST's spelling (what a create sends as `commune`; NOEST uses
 * names, not ids). `home`: NOEST lists it as active (absent: active); `stopdesk`: one of the wilaya's desks is in
 * it (`desks`, from {@link fromDesks}), compared without case, accents or punctuation.
 */
export const fromCommunes = (
  response: Response,
  desks: ReadonlyArray<CourierAdapter.StopDesk>
): Result.Result<ReadonlyArray<CourierAdapter.CourierCommune>, Reason> =>
  Result.map(decode(Wire.Communes, response), (communes) => {
    const withDesk = new Set(desks.flatMap((desk) => (desk.communeName === undefined ? [] : [fold(desk.communeName)])))
    return communes.map((commune) => ({
      name: clean(commune.nom),
      home: commune.is_active == null || commune.is_active === true || String(commune.is_active) === "1",
      stopdesk: withDesk.has(fold(commune.nom))
    }))
  })

/** `GET get/wilayas` → the credentials work: NOEST answered its list to them. */
export const fromWilayas = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Wilayas, response), () => undefined)

// --- Errors -----------------------------------------------------------------------------------------------------

/**
 * NOEST's answers, read the SDK's way; what is NOEST's own is where it refuses (a failure inside a 2xx; a 400 or
 * 422) and in which words ({@link refusalOf}).
 */
const answers = CourierAnswer.reader({
  credentials: "the API token or the user GUID",
  refusal: (status, body) =>
    (status >= 200 && status < 300) || status === 400 || status === 422 ? refusalOf(status, body) : undefined
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf

/** NOEST's field names, where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  reference: "order.reference",
  client: "order.recipient.fullName",
  phone: "order.recipient.phone",
  phone_2: "order.recipient.phoneAlt",
  adresse: "order.recipient.addressLine",
  wilaya_id: "order.recipient.wilayaCode",
  commune: "order.recipient.communeName",
  montant: "order.codAmount",
  remarque: "order.notes",
  produit: "order.productList",
  type_id: "order.isExchange",
  poids: "order.weightKg",
  stop_desk: "order.deliveryType",
  station_code: "order.stopDeskId",
  can_open: "order.hasOpenPackage",
  tracking: "trackingNumber",
  trackings: "trackingNumber"
}

/** Credential fields: a validation error on one of them is a credentials problem, not the order's. */
const credentialFields: ReadonlySet<string> = new Set(["api_token", "user_guid"])

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
    const message = clean(
      entries
        .map(([field, messages]) => `${ourFields[field] ?? field}: ${messages.map((m) => clean(m)).join(" ")}`)
        .join("; "),
      600
    )
    return entries.some(([field]) => credentialFields.has(field))
      ? new CourierError.CredentialsRejected({ message: `the courier refused the credentials (${message})` })
      : new CourierError.Refused({ message })
  }
  const bare = Schema.decodeUnknownOption(Wire.Message)(body)
  // A bare `{ message }` refuses only on an error status; on 200 it is no documented answer.
  if (Option.isSome(bare) && status >= 400) {
    const said = clean(bare.value.message)
    if (said !== "") return new CourierError.Refused({ message: said })
  }
  return undefined
}
