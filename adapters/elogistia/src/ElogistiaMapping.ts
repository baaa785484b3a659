/**
 * Pure translation between Tawsil's one request shape and the Elogistia API: the `insertCommande/` fields, and
 * every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here: the adapter sends
 * what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Elogistia takes its API key in the query string, so a courier that quotes the request back (a debug message, a
 * redirect page) quotes the key. The core blanks the caller's credentials out of every answer before this module
 * reads it; on top of that, the courier's words are never quoted with a `key=` or `apiKey=` value in them
 * ({@link quiet}), so not even a form of the key the core does not know (re-encoded, cut) can reach a message.
 * Messages are otherwise built from status codes and the courier's own words, never from the request.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd, type WilayaCode } from "@tawsil/domain"
import { DateTime, Option, Result, Schema } from "effect"
import * as Status from "./ElogistiaStatus.ts"
import * as Wire from "./ElogistiaWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const present = (text: string | null | undefined): text is string =>
  text !== undefined && text !== null && text.trim() !== ""

// --- Requests ---------------------------------------------------------------------------------------------------

/**
 * `product` and `price` are parallel lists split on `|`: a product text carrying one would become two lines against
 * one price, so it is written as `/`.
 */
const oneLine = (text: string): string => text.replace(/\|/g, "/").trim()

/**
 * The fields of `POST insertCommande/`. Tawsil has one name field: it goes whole in `name` (the family name), with
 * `firstname` empty, as the courier's own sample order shows (`Prénom: ""`), so a name is never split wrongly. A
 * stop-desk parcel without an address gives its commune as the address; a home parcel without one sends none, and
 * the courier refuses it. `phoneAlt`, `stopDeskId`, `declaredValue`, `freeShipping` and `hasOpenPackage` have no
 * Elogistia field and are not sent (README).
 */
export const toInsertCommande = (order: Shipment.ParcelOrder): Wire.InsertCommande => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  const address = present(recipient.addressLine) ? recipient.addressLine : stopdesk ? recipient.communeName : undefined
  return {
    name: recipient.fullName.trim(),
    firstname: "",
    phone: AlgerianMobile.nationalOrAsSent(recipient.phone),
    ...(address === undefined ? {} : { address: address.trim() }),
    commune: recipient.communeName.trim(),
    wilaya: String(recipient.wilayaCode),
    modeDeLivraison: order.isExchange === true ? "4" : "1",
    price: String(order.codAmount),
    stop_desk: stopdesk ? "2" : "1",
    product: oneLine(order.productList),
    ...(present(order.reference) ? { IdCommande: order.reference } : {}),
    ...(present(order.notes) ? { remarque: order.notes.trim() } : {}),
    ...(order.weightKg === undefined ? {} : { poids: String(order.weightKg) })
  }
}

/** A request's fields as query parameters: the API has no request body. */
export const query = (fields: object): Readonly<Record<string, string>> =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === "string"))

/** Elogistia has one tier. */
export const checkTier = (rates: Shipment.RatesQuery): Result.Result<void, Reason> =>
  rates.tier === "express"
    ? Result.fail(new CourierError.Refused({ message: "this courier has no express tier: ask for economic" }))
    : Result.void

// --- Errors -----------------------------------------------------------------------------------------------------

/** A `key=…` or `apiKey=…` query value, as a courier quoting a request URL would write it. */
const KEY_IN_QUERY = /\b((?:api[_-]?)?key)=(?:<redacted>|[^&\s"'<>]*)/gi

/** The courier's words, on one line, cut, with any key value quoted from a URL blanked out. */
export const quiet = (text: string): string => CourierAnswer.clean(text.replace(KEY_IN_QUERY, "$1=<redacted>"))

/** What the courier says in an error body: `Message` (its usual word), `message` or `error`, or a bare string. */
export const saidIn = (body: unknown): string | undefined => {
  if (typeof body === "string") return present(body) ? quiet(body) : undefined
  return Option.match(Schema.decodeUnknownOption(Wire.Refusal)(body), {
    onNone: () => undefined,
    onSome: (refusal) => {
      const words = "Message" in refusal ? refusal.Message : "message" in refusal ? refusal.message : refusal.error
      return present(words) ? quiet(words) : undefined
    }
  })
}

/** "Clé API invalide", "clé inconnue", "invalid API key": the key itself is wrong. */
const BAD_KEY =
  /(?<!\p{L})(?:cl[ée]|api\s*key)(?!\p{L})(?:\s+\S+){0,2}?\s+(?:invalide?|incorrecte?|inconnue?|expir[ée]e?|refus[ée]e?)(?!\p{L})|(?<!\p{L})(?:invalid|wrong|unknown|incorrect|expired)\s+(?:api\s*)?key(?!\p{L})/iu

/**
 * Whether the courier's words say the API key is wrong. A URL it quotes is not read, so "Requête invalide :
 * …?apiKey=…" stays a refusal of the request.
 */
const badKey = (words: string) => BAD_KEY.test(words.replace(/\bhttps?:\/\/\S+/gi, ""))

const succeeded = Schema.decodeUnknownOption(Schema.Struct({ success: Schema.Literal(true) }))

/**
 * Elogistia refuses in its own words (`{ "Message": "Cette commune n'existe pas" }`), inside an HTTP 200 or on a
 * 400 or 422; words about the key are a refused credential. A body claiming `success: true` is never a refusal.
 */
const answers = CourierAnswer.reader({
  credentials: "the API key",
  refusal: (status, body) => {
    if (!(status === 200 || status === 400 || status === 422) || Option.isSome(succeeded(body))) return undefined
    const words = saidIn(body)
    if (words === undefined) return undefined
    return badKey(words)
      ? new CourierError.CredentialsRejected({ message: `the courier refused the API key: ${words}` })
      : new CourierError.Refused({ message: `the courier said: ${words}` })
  },
  rejection: saidIn
})

const { decode } = answers

/** What a failed answer means. */
export const errorOf = answers.errorOf

// --- Responses --------------------------------------------------------------------------------------------------

/**
 * `insertCommande/` → the new parcel: its tracking number is `success`. The answer carries no status; the parcel
 * is waiting to be shipped ({@link Status.created}).
 */
export const fromInserted = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.flatMap(decode(Wire.Inserted, response), ({ success }) =>
    present(success)
      ? Result.succeed({ trackingNumber: success.trim(), rawStatus: Status.created })
      : Result.fail(new CourierError.BadResponse({ message: "the courier created a parcel without a tracking number" }))
  )

const ISO_LOCAL =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?:\.\d+)?$/
const FRENCH_LOCAL = /^(0[1-9]|[12]\d|3[01])\/(0[1-9]|1[0-2])\/(\d{4}) ([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/

/**
 * An ISO 8601 time with offset, in Algiers. Elogistia writes Algiers wall time without an offset
 * (`2023-04-17 12:19:43`; `17/04/2023 12:19` is read too); Algeria is UTC+01:00 all year, so the offset is exact. A
 * time with its own offset is converted. Anything else is `undefined`.
 */
export const algiersTimestamp = (raw: string): string | undefined => {
  const text = raw.trim()
  const iso = ISO_LOCAL.exec(text)
  if (iso !== null) return `${iso[1]}-${iso[2]}-${iso[3]}T${iso[4]}:${iso[5]}:${iso[6] ?? "00"}+01:00`
  const french = FRENCH_LOCAL.exec(text)
  if (french !== null)
    return `${french[3]}-${french[2]}-${french[1]}T${french[4]}:${french[5]}:${french[6] ?? "00"}+01:00`
  if (!ZONED.test(text)) return undefined
  return Option.getOrUndefined(Option.map(DateTime.make(text), AlgiersTime.formatIso))
}

const trackingRow = Schema.decodeUnknownOption(Wire.TrackingRow)

const unknownParcel = () =>
  new CourierError.Refused({ message: "trackingNumber: the courier does not know this tracking number" })

/**
 * History rows → the status events of `tracking`, and how many rows were the parcel's. Rows that name another parcel
 * are not ours; rows without a status (`Statut` empty: "Réception commande" and other log lines) are not statuses and
 * are left out. Labels are reported in the status table's spelling ({@link Status.spellingOf}); a row or a time the
 * collection does not document is a `BadResponse`.
 */
const historyOf = (
  tracking: string,
  rows: ReadonlyArray<unknown>
): Result.Result<{ readonly events: ReadonlyArray<CourierAdapter.RawEvent>; readonly ours: number }, Reason> => {
  const events: Array<CourierAdapter.RawEvent> = []
  let ours = 0
  for (const raw of rows) {
    const read = trackingRow(raw)
    if (Option.isNone(read)) {
      return Result.fail(
        new CourierError.BadResponse({ message: "the courier answered a tracking row it does not document" })
      )
    }
    const row = read.value
    if (present(row.Tracking) && row.Tracking.trim() !== tracking) continue
    ours += 1
    if (!present(row.Statut)) continue
    const timestamp = algiersTimestamp(row.Date)
    if (timestamp === undefined) {
      return Result.fail(
        new CourierError.BadResponse({ message: "the courier answered a status time it does not document" })
      )
    }
    events.push({ rawStatus: Status.spellingOf(row.Statut.trim()), timestamp })
  }
  return Result.succeed({ events, ours })
}

/**
 * `getTracking/` → the parcel's history, one event per status row ({@link historyOf}). An empty list, or rows of
 * other parcels only, mean the courier does not know it.
 */
export const fromTracking = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(decode(Wire.Listing, response), ({ body }) =>
    Result.flatMap(historyOf(tracking, body), ({ events, ours }) =>
      ours === 0 ? Result.fail(unknownParcel()) : Result.succeed(events)
    )
  )

// --- Batch tracking ----------------------------------------------------------------------------------------------

/** The most tracking numbers one `getManyTracking/` call carries, as the SDK promises its callers. */
export const MAX_BATCH = 100

/**
 * The tracking numbers of a batch, once each. More than {@link MAX_BATCH}, or one that is blank or holds a comma
 * (it would split into two in the comma-separated list), is refused before any call.
 */
export const checkBatch = (trackings: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, Reason> => {
  const unique = [...new Set(trackings.map((tracking) => tracking.trim()))]
  if (unique.length > MAX_BATCH) {
    return Result.fail(
      new CourierError.Refused({ message: `trackingNumbers: at most ${MAX_BATCH} tracking numbers in one call` })
    )
  }
  return unique.some((tracking) => tracking === "" || tracking.includes(","))
    ? Result.fail(new CourierError.Refused({ message: "trackingNumbers: a tracking number is blank or holds a comma" }))
    : Result.succeed(unique)
}

/** `getManyTracking/?tracking=a,b,c`: the numbers comma-separated, as the collection documents. */
export const batchQuery = (trackings: ReadonlyArray<string>) => ({ tracking: trackings.join(",") })

/**
 * `getManyTracking/` → the events of each asked parcel. An entry of a number that was not asked is ignored; a number
 * the courier does not know (no entry, or an entry without any history row) is left out; a known parcel whose rows
 * are all log lines maps to no events, as `getTracking/` does.
 */
export const fromManyTracking = (
  asked: ReadonlyArray<string>,
  response: Response
): Result.Result<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, Reason> =>
  Result.flatMap(decode(Wire.ManyTracking, response), (answer) => {
    const entries: ReadonlyArray<Wire.ManyTrackingEntry> = Array.isArray(answer)
      ? answer
      : (answer as { readonly body: ReadonlyArray<Wire.ManyTrackingEntry> }).body
    const wanted = new Set(asked)
    const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    for (const entry of entries) {
      const tracking = entry.tracking.trim()
      if (!wanted.has(tracking) || found.has(tracking)) continue
      const history = historyOf(tracking, entry.historique ?? [])
      if (Result.isFailure(history)) return Result.fail(history.failure)
      if (history.success.ours > 0) found.set(tracking, history.success.events)
    }
    return Result.succeed(found)
  })

// --- Cancel -------------------------------------------------------------------------------------------------------

/** "la commande a été supprimée avec succès", in any case, with or without accents. */
const DELETED = /supprim.*succ[eè]s/iu

const succeededFlag = Schema.decodeUnknownOption(Schema.Struct({ success: Schema.Literal(true) }))

/**
 * `deleteOrder/` → done, when the courier says the order was deleted: its bare string (the collection's sample) or
 * `{ success: true }` (the shape of its other action endpoints). Anything else is what it means: a refusal in the
 * courier's words, which {@link whyNotCancelled} may tell apart.
 */
export const fromDeleted = (response: Response): Result.Result<void, Reason> => {
  if (response.status === 200) {
    const said = Option.getOrUndefined(CourierAnswer.json(response.text))
    const words = Option.getOrUndefined(Schema.decodeUnknownOption(Wire.Deleted)(said))
    if (words !== undefined && DELETED.test(words)) return Result.void
    if (Option.isSome(succeededFlag(said))) return Result.void
  }
  return Result.fail(errorOf(response))
}

/** Where a parcel still can be cancelled, or the courier refused for a reason of its own (already cancelled). */
const NOT_PAST: ReadonlySet<string> = new Set(["created", "pending_pickup", "on_hold", "cancelled"])

/**
 * A refused `deleteOrder/`, and the parcel's history read just after it → why. The courier's words on a parcel past
 * the point where it can be cancelled are not documented, so the adapter does not guess from them: when the
 * parcel's latest status is past pickup (picked up, in transit, delivered, returned, …) the refusal is
 * `NotCancellable`, with the courier's words and the status; otherwise (still waiting for pickup, suspended,
 * already cancelled, a label the table does not know, a history that could not be read) it stays what it was.
 */
export const whyNotCancelled = (
  refusal: Reason,
  history: Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason>
): Reason => {
  if (refusal._tag !== "Refused" || Result.isFailure(history)) return refusal
  const latest = [...history.success].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp))[0]
  if (latest === undefined) return refusal
  const canonical = Status.statuses[latest.rawStatus]
  if (canonical === undefined || NOT_PAST.has(canonical)) return refusal
  return new CourierError.NotCancellable({
    message: `${refusal.message} (the parcel is "${latest.rawStatus}": past the point where it can be cancelled)`
  })
}

// --- Desks, communes, credentials ----------------------------------------------------------------------------------

/** `getAgences/?type=2`: the stop-desk agencies (type 2), all wilayas at once as the plugin reads them. */
export const agenciesQuery = { type: "2" } as const

/** `getMunicipalities/?wilaya=`: the communes of one wilaya. */
export const municipalitiesQuery = (wilaya: WilayaCode.WilayaCode) => ({ wilaya: String(wilaya) })

/** `getAgences/` → its rows (every wilaya's). */
export const fromAgencies = (response: Response): Result.Result<ReadonlyArray<Wire.Agency>, Reason> =>
  Result.map(decode(Wire.Agencies, response), ({ body }) => body)

/**
 * The desks of one wilaya among `getAgences/`'s rows. The office's name is its id (the plugin's choice: no other id
 * is shown); `insertCommande/` has no desk field, so a desk order names the desk's commune (README).
 */
export const desksOf = (
  wilaya: WilayaCode.WilayaCode,
  agencies: ReadonlyArray<Wire.Agency>
): ReadonlyArray<CourierAdapter.StopDesk> =>
  agencies
    .filter((agency) => agency["Code wilaya"] === wilaya && present(agency["Nom du bureau"]))
    .map((agency) => ({
      id: agency["Nom du bureau"].trim(),
      name: agency["Nom du bureau"].trim(),
      wilayaCode: wilaya,
      ...(present(agency.Commune) ? { communeName: agency.Commune.trim() } : {}),
      ...(present(agency.Adresse) ? { address: agency.Adresse.trim() } : {})
    }))

/**
 * `getMunicipalities/` and the wilaya's desks → its communes in the courier's spelling. Rows of another wilaya are
 * left out (the plugin filters them too). Every listed commune is taken as served at the door (the collection lists
 * deliverable communes; no per-commune flag is documented); one has a desk when a desk of `getAgences/` is in it,
 * names compared without case, accents or punctuation.
 */
export const fromMunicipalities = (
  wilaya: WilayaCode.WilayaCode,
  response: Response,
  desks: ReadonlyArray<CourierAdapter.StopDesk>
): Result.Result<ReadonlyArray<CourierAdapter.CourierCommune>, Reason> =>
  Result.map(decode(Wire.Municipalities, response), ({ body }) => {
    const withDesk = new Set(
      desks.flatMap((desk) => (desk.communeName === undefined ? [] : [Status.fold(desk.communeName)]))
    )
    return body
      .filter((row) => row.wilaya === wilaya && present(row.name))
      .map((row) => ({
        name: row.name.trim(),
        ...(row.Id === undefined || row.Id === null || String(row.Id).trim() === ""
          ? {}
          : { id: String(row.Id).trim() }),
        home: true,
        stopdesk: withDesk.has(Status.fold(row.name))
      }))
  })

/** `getWilayas/` → the key works: any list answer (its rows are not read). */
export const fromWilayas = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.Listing, response), () => undefined)

const zero = 0 as Dzd.Dzd

/**
 * `getShippingCost/` → the fees for the destination wilaya (Elogistia prices per wilaya: the origin and the commune
 * do not change them). A stop-desk price that is absent, null or 0 means there is no desk there. No return fee and
 * no fee on the collected cash are documented: both are 0.
 */
export const fromShippingCost = (
  rates: Shipment.RatesQuery,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.ShippingCost, response), (answer) => {
    const rows = Array.isArray(answer) ? answer : (answer as { readonly body: ReadonlyArray<Wire.CostRow> }).body
    const row = rows.find((candidate) => candidate.wilayaID === rates.toWilaya)
    if (row === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `the courier does not deliver to wilaya ${rates.toWilaya}: it is not in its price list`
        })
      )
    }
    const desk = row.stopdesk === undefined || row.stopdesk === null || row.stopdesk === 0 ? undefined : row.stopdesk
    const options = [
      Shipment.RateOption.make({ deliveryType: "home", tier: "economic", deliveryFee: row.home, returnFee: zero }),
      ...(desk === undefined
        ? []
        : [
            Shipment.RateOption.make({ deliveryType: "stopdesk", tier: "economic", deliveryFee: desk, returnFee: zero })
          ])
    ]
    return Shipment.economicRates(rates, options)
  })

/**
 * `printBordereau_10x15/` → the 10×15 cm label, a PDF answered as the body. Anything else is what it means: a
 * refusal in the courier's words (an unknown parcel), or an answer that is no label.
 */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> =>
  response.status === 200 && CourierAnswer.isPdf(response.bytes)
    ? Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
    : Result.fail(errorOf(response))
