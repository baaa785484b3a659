/**
 * Pure translation between Tawsil's one request shape and the new ZR Express platform: the searches that turn a
 * wilaya code and a commune name into territory UUIDs, the workflow state a parcel must be created in, the parcel
 * body, and every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here: the adapter
 * sends what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Error messages are built from the courier's own words and status codes only, never from the request; the host
 * blanks the API key and tenant id out of every answer should a courier ever quote them back.
 */
import { type CourierAdapter, CourierAnswer, CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { AlgerianMobile, AlgiersTime, type Dzd, type WilayaCode } from "@tawsil/domain"
import { DateTime, Option, Result, Schema } from "effect"
import * as Names from "./internal/Names.ts"
import * as Status from "./ZrExpressNewStatus.ts"
import * as Wire from "./ZrExpressNewWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Requests ---------------------------------------------------------------------------------------------------

/** How many territories one search page asks for: every wilaya, or every commune of one, fits in one. */
export const PAGE_SIZE = 1000
/** A search stops after this many pages, whatever `hasNext` says. */
export const MAX_PAGES = 20

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/** The core has already checked the phones are Algerian mobiles; ZR wants the international form `+213…`. */
export const intlPhone = (phone: string): string =>
  Option.match(AlgerianMobile.normalize(phone), {
    onNone: () => phone.trim(),
    onSome: (national) => `+213${national.slice(1)}`
  })

/** A version 4 UUID from 16 random integers in [0, 256). */
export const uuidFrom = (bytes: ReadonlyArray<number>): string => {
  const hex = bytes.slice(0, 16).map((byte, index) => {
    const value = index === 6 ? (byte & 0x0f) | 0x40 : index === 8 ? (byte & 0x3f) | 0x80 : byte & 0xff
    return value.toString(16).padStart(2, "0")
  })
  const text = hex.join("")
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20, 32)}`
}

const eq = (field: string, value: string): Wire.Filter => ({ field, operator: "eq", value })

/** `POST territories/search`: the wilayas. */
export const wilayasSearch = (pageNumber: number): Wire.Search => ({
  pageNumber,
  pageSize: PAGE_SIZE,
  advancedFilter: { logic: "and", filters: [eq("level", "wilaya")] }
})

/** `POST territories/search`: the communes of one wilaya. */
export const communesSearch = (cityTerritoryId: string, pageNumber: number): Wire.Search => ({
  pageNumber,
  pageSize: PAGE_SIZE,
  advancedFilter: { logic: "and", filters: [eq("level", "commune"), eq("parentId", cityTerritoryId)] }
})

/** `POST workflows/search`: the tenant's parcel workflows and their states. */
export const workflowsSearch = (pageNumber: number): Wire.Search => ({ pageNumber, pageSize: 100 })

/** `POST workflows/search` for one item: the smallest read the platform has, to check the credentials. */
export const credentialsProbe: Wire.Search = { pageNumber: 1, pageSize: 1 }

/** `POST hubs/search`: every hub, a page at a time (pickup points are picked out of them). */
export const hubsSearch = (pageNumber: number): Wire.Search => ({ pageNumber, pageSize: PAGE_SIZE })

export interface Places {
  readonly cityTerritoryId: string
  readonly districtTerritoryId: string
}

/**
 * `POST parcels`, created straight in the ReadyToDispatch state (`stateId`), or without a state for a parcel held
 * undispatched (the platform creates it in OrderReceived; `dispatch` moves it on). The notes, when given, are the parcel's
 * `description`; otherwise the product list is. `hubId` is the pickup point of a stop-desk delivery (`stopDeskId`).
 * `declaredValue`, `freeShipping`, `isExchange` and `hasOpenPackage` have no field here and are not sent (README).
 */
export const toCreateParcel = (
  order: Shipment.ParcelOrder,
  ids: Places & { readonly stateId: string | undefined; readonly customerId: string }
): Wire.CreateParcel => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  return {
    customer: {
      customerId: ids.customerId,
      name: recipient.fullName,
      phone: {
        number1: intlPhone(recipient.phone),
        ...(present(recipient.phoneAlt) ? { number2: intlPhone(recipient.phoneAlt) } : {})
      }
    },
    deliveryAddress: {
      cityTerritoryId: ids.cityTerritoryId,
      districtTerritoryId: ids.districtTerritoryId,
      street: present(recipient.addressLine) ? recipient.addressLine : recipient.communeName
    },
    orderedProducts: [{ productName: order.productList, unitPrice: order.codAmount, quantity: 1, stockType: "none" }],
    deliveryType: stopdesk ? "pickup-point" : "home",
    ...(stopdesk && order.stopDeskId !== undefined ? { hubId: order.stopDeskId.trim() } : {}),
    description: present(order.notes) ? order.notes : order.productList,
    amount: order.codAmount,
    ...(present(order.reference) ? { externalId: order.reference } : {}),
    ...(order.weightKg === undefined ? {} : { weight: { weight: order.weightKg } }),
    ...(ids.stateId === undefined ? {} : { stateId: ids.stateId })
  }
}

/** `PATCH parcels/{id}/state`: to ReadyToDispatch. */
export const toUpdateState = (parcelId: string, stateId: string): Wire.UpdateState => ({
  parcelId,
  newStateId: stateId
})

/** The path of one parcel, by id or tracking number (both are read at `parcels/{…}`). */
export const parcelPath = (reference: string): `/${string}` => `/api/v1/parcels/${encodeURIComponent(reference)}`

/** A stop-desk parcel needs its pickup point: the hub's UUID (`POST hubs/search`), as `stopDeskId`. */
export const checkStopDesk = (order: Shipment.ParcelOrder): Result.Result<void, Reason> =>
  order.deliveryType === "stopdesk" &&
  (order.stopDeskId === undefined || !Schema.is(Wire.Uuid)(order.stopDeskId.trim()))
    ? Result.fail(
        new CourierError.Refused({
          message: "order.stopDeskId: a ZR Express stop-desk delivery needs the pickup point's hub id (a UUID)"
        })
      )
    : Result.void

/** The new ZR Express platform prices one tier. */
export const checkTier = (query: Shipment.RatesQuery): Result.Result<void, Reason> =>
  query.tier === "express"
    ? Result.fail(new CourierError.Refused({ message: "this courier has no express tier: ask for economic" }))
    : Result.void

// --- Responses --------------------------------------------------------------------------------------------------

/** `POST territories/search` → one page of territories. */
export const fromTerritories = (
  response: Response
): Result.Result<{ readonly items: ReadonlyArray<Wire.Territory>; readonly hasNext: boolean }, Reason> =>
  Result.map(decode(Wire.Territories, response), (page) => ({ items: page.items, hasNext: page.hasNext === true }))

/** `POST workflows/search` → one page of workflows. */
export const fromWorkflows = (
  response: Response
): Result.Result<{ readonly items: ReadonlyArray<Wire.Workflow>; readonly hasNext: boolean }, Reason> =>
  Result.map(decode(Wire.Workflows, response), (page) => ({ items: page.items, hasNext: page.hasNext === true }))

/** `POST hubs/search` → one page of hubs. */
export const fromHubs = (
  response: Response
): Result.Result<{ readonly items: ReadonlyArray<Wire.Hub>; readonly hasNext: boolean }, Reason> =>
  Result.map(decode(Wire.Hubs, response), (page) => ({ items: page.items, hasNext: page.hasNext === true }))

/** The wilaya territory of a wilaya code, if the courier has one. */
export const findWilaya = (territories: ReadonlyArray<Wire.Territory>, code: number): Wire.Territory | undefined =>
  territories.find((territory) => territory.level.toLowerCase() === "wilaya" && territory.code === code)

/** Text given, trimmed; `undefined` when blank. */
const given = (text: string | null | undefined): string | undefined => {
  const trimmed = clean(text ?? "")
  return trimmed === "" ? undefined : trimmed
}

/**
 * The pickup points among `hubs` whose address is in the wilaya territory `city` (its UUID, as the hub's
 * `address.cityTerritoryId`): a stop desk each, its `id` the hub UUID a pickup-point order sends as `hubId`. A hub
 * that is no pickup point (a sorting hub) is none.
 */
export const desksOf = (
  hubs: ReadonlyArray<Wire.Hub>,
  city: Wire.Territory,
  wilaya: WilayaCode.WilayaCode
): ReadonlyArray<CourierAdapter.StopDesk> =>
  hubs
    .filter(
      (hub) => hub.isPickupPoint === true && hub.address?.cityTerritoryId?.toLowerCase() === city.id.toLowerCase()
    )
    .map((hub) => {
      const communeName = given(hub.address?.district)
      const address = given(hub.address?.street)
      const phone = [hub.phone?.number1, hub.phone?.number2, hub.phone?.number3].map(given).find((n) => n !== undefined)
      return {
        id: hub.id,
        name: clean(hub.name),
        wilayaCode: wilaya,
        ...(communeName === undefined ? {} : { communeName }),
        ...(address === undefined ? {} : { address }),
        ...(phone === undefined ? {} : { phone })
      }
    })

/**
 * A wilaya's commune territories → the courier's communes: its name, its territory UUID (what a parcel's
 * `districtTerritoryId` takes; create looks it up from the name), and its delivery flags — home unless
 * `hasHomeDelivery` is false, a desk only when `hasPickupPoint` is true.
 */
export const communesOf = (territories: ReadonlyArray<Wire.Territory>): ReadonlyArray<CourierAdapter.CourierCommune> =>
  territories
    .filter((territory) => territory.level.toLowerCase() === "commune")
    .map((territory) => ({
      name: clean(territory.name),
      id: territory.id,
      home: territory.delivery?.hasHomeDelivery !== false,
      stopdesk: territory.delivery?.hasPickupPoint === true
    }))

/** `POST workflows/search` answered: the credentials work. */
export const fromCredentialsProbe = (response: Response): Result.Result<void, Reason> =>
  Result.map(fromWorkflows(response), () => undefined)

/**
 * `DELETE parcels/{id}` → done (any 2xx, with or without a body). A 409 is the platform refusing because of the
 * parcel's state — past the point it can be deleted: `NotCancellable`, in its words. Anything else reads as every
 * other answer does.
 */
export const fromDeleted = (response: Response): Result.Result<void, Reason> => {
  if (response.status >= 200 && response.status < 300) return Result.void
  const reason = errorOf(response)
  return Result.fail(
    response.status === 409 && reason._tag === "Refused"
      ? new CourierError.NotCancellable({ message: reason.message })
      : reason
  )
}

/** A place name compared without case, accents, spaces or punctuation (`Bab-Ezzouar` = `bab ezzouar`). */
export const normalizeName = Names.fold

/** The wilaya territory of a wilaya code. */
export const wilayaOf = (
  territories: ReadonlyArray<Wire.Territory>,
  code: number
): Result.Result<Wire.Territory, Reason> => {
  const wilaya = findWilaya(territories, code)
  return wilaya === undefined
    ? Result.fail(
        new CourierError.Refused({
          message: `order.recipient.wilayaCode: the courier has no territory for wilaya ${code}`
        })
      )
    : Result.succeed(wilaya)
}

/**
 * The commune territory named `name` among one wilaya's communes: by its French name compared without case, accents
 * or punctuation, or by its Arabic name. Only communes of that wilaya are candidates (36 commune names exist in
 * more than one wilaya).
 */
export const communeOf = (
  communes: ReadonlyArray<Wire.Territory>,
  name: string
): Result.Result<Wire.Territory, Reason> => {
  const wanted = normalizeName(name)
  const commune = communes.find(
    (territory) =>
      territory.level.toLowerCase() === "commune" &&
      (normalizeName(territory.name) === wanted ||
        (present(territory.nameArabic ?? undefined) && territory.nameArabic?.trim() === name.trim()))
  )
  return commune === undefined
    ? Result.fail(
        new CourierError.Refused({
          message: `order.recipient.communeName: the courier has no commune named "${clean(name, 100)}" in this wilaya`
        })
      )
    : Result.succeed(commune)
}

/** The id of the ReadyToDispatch state in the tenant's workflows, if it has one. */
export const readyStateOf = (workflows: ReadonlyArray<Wire.Workflow>): string | undefined =>
  workflows.flatMap((workflow) => workflow.states).find((state) => Status.isReadyToDispatch(state.name))?.id

/** No ReadyToDispatch state: a parcel could only be created stranded, so none is. */
export const noReadyState = new CourierError.Refused({
  message:
    "the courier's workflows have no ReadyToDispatch state, without which a parcel is never collected: " +
    "nothing was created; ask ZR Express to enable it on your account"
})

/** `POST parcels` → the new parcel's id. */
export const fromCreated = (response: Response): Result.Result<string, Reason> =>
  Result.map(decode(Wire.Created, response), (body) => body.id)

/** `GET parcels/{id}` → the parcel. */
export const fromParcel = (response: Response): Result.Result<Wire.Parcel, Reason> => decode(Wire.Parcel, response)

const unknownTracking = new CourierError.Refused({
  message: "trackingNumber: the courier does not know this tracking number"
})

/**
 * `GET parcels/{trackingNumber}` → the parcel, only if it is exactly the asked one: the same path also answers a
 * parcel by its id, and a 404 means the courier does not know it.
 */
export const fromTrackedParcel = (tracking: string, response: Response): Result.Result<Wire.Parcel, Reason> =>
  response.status === 404
    ? Result.fail(unknownTracking)
    : Result.flatMap(fromParcel(response), (parcel) =>
        parcel.trackingNumber === tracking ? Result.succeed(parcel) : Result.fail(unknownTracking)
      )

/** `POST parcels/labels/individual/pdf`: one parcel's label, as a PDF file. */
export const toLabels = (trackingNumber: string): Wire.LabelsRequest => ({ trackingNumbers: [trackingNumber] })

const noLabel = new CourierError.Refused({
  message: "trackingNumber: the courier made no label for this tracking number"
})

/**
 * `POST parcels/labels/individual/pdf` → the request for the parcel's label file: its `fileUrl` (the file named for
 * this number, else the only one), fetched from its storage host as it is. A number listed as failed, or no file,
 * is no label for it; a link that is not a plain https address is a bad answer.
 */
export const fromLabelFiles = (
  tracking: string,
  response: Response
): Result.Result<CourierHttp.CourierRequest, Reason> =>
  Result.flatMap(decode(Wire.LabelFiles, response), (body): Result.Result<CourierHttp.CourierRequest, Reason> => {
    const named = body.parcelLabelFiles.find((file) => file.trackingNumber?.trim() === tracking)
    const file = named ?? (body.parcelLabelFiles.length === 1 ? body.parcelLabelFiles[0] : undefined)
    if (file === undefined || (named === undefined && (body.failedTrackingNumbers ?? []).includes(tracking))) {
      return Result.fail(noLabel)
    }
    const request = CourierHttp.documentRequest(file.fileUrl)
    return request === undefined
      ? Result.fail(
          new CourierError.BadResponse({ message: "the courier linked its label at an address it cannot be read from" })
        )
      : Result.succeed(request)
  })

/**
 * The label file → the label: a PDF. An answer from the storage host that is not one (an expired signature's XML
 * error, a missing file) is a bad answer, never a label.
 */
export const fromLabelFile = (response: Response): Result.Result<CourierAdapter.Label, Reason> =>
  response.status === 200 && CourierAnswer.isPdf(response.bytes)
    ? Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
    : Result.fail(
        new CourierError.BadResponse({
          message:
            response.status === 200
              ? "the courier's label file is not a PDF"
              : `the courier's label file could not be read (HTTP ${response.status})`
        })
      )

/** `PATCH parcels/{id}/state` → done, when the parcel is now in the asked state. */
export const fromStateChanged = (stateId: string, response: Response): Result.Result<void, Reason> =>
  Result.flatMap(decode(Wire.StateChanged, response), (body) =>
    body.newStateId.toLowerCase() === stateId.toLowerCase()
      ? Result.void
      : Result.fail(new CourierError.BadResponse({ message: "the courier moved the parcel to another state" }))
  )

const LOCAL = /^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))[T ]((?:[01]\d|2[0-3]):[0-5]\d)(:[0-5]\d)?(?:\.\d+)?$/
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/

/**
 * An ISO 8601 time with offset, in Algiers. A time with an offset (ASP.NET writes UTC with `Z`) is converted; wall
 * time without one is read as Algiers time, UTC+01:00 all year. Fractions of a second are dropped. Anything else is
 * `undefined`.
 */
export const algiersTimestamp = (raw: string): string | undefined => {
  const text = raw.trim()
  const local = LOCAL.exec(text)
  if (local !== null) return `${local[1]}T${local[2]}${local[3] ?? ":00"}+01:00`
  if (!ZONED.test(text)) return undefined
  return Option.getOrUndefined(Option.map(DateTime.make(text), AlgiersTime.formatIso))
}

const undatable = new CourierError.BadResponse({ message: "the courier answered a state time it does not document" })

/** The instant of a state time, to the millisecond (wall time without an offset is Algiers time). */
const instantOf = (raw: string): number | undefined => {
  const text = raw.trim()
  const local = LOCAL.exec(text)
  const zoned = local !== null ? `${text.replace(" ", "T")}+01:00` : ZONED.test(text) ? text : undefined
  return zoned === undefined
    ? undefined
    : Option.getOrUndefined(Option.map(DateTime.make(zoned), DateTime.toEpochMillis))
}

/**
 * `GET parcels/{id}/state-history` → every state the parcel went through, as raw events, oldest first. Timestamps are
 * written to the second, and a parcel is created and made ready within one: the order is taken here, from the full
 * times (a newest-first list is turned round first, so that equal times keep the history's own order). A parcel
 * whose history is still empty reports its current state, at its last change.
 */
export const fromStateHistory = (
  parcel: Wire.Parcel,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(
    decode(Wire.StateHistory, response),
    (rows): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> => {
      const entries =
        rows.length > 0
          ? rows.map((row) =>
              "newState" in row
                ? { rawStatus: Status.spellingOf(row.newState.name), at: row.createdAt }
                : { rawStatus: Status.spellingOf(row.stateName), at: row.stateDate }
            )
          : [
              {
                rawStatus: Status.spellingOf(parcel.state.name),
                at: parcel.lastStateUpdateAt ?? parcel.createdAt ?? ""
              }
            ]
      const dated: Array<{ readonly rawStatus: string; readonly timestamp: string; readonly instant: number }> = []
      for (const { rawStatus, at } of entries) {
        const timestamp = algiersTimestamp(at)
        const instant = instantOf(at)
        if (timestamp === undefined || instant === undefined) return Result.fail(undatable)
        dated.push({ rawStatus, timestamp, instant })
      }
      const newestFirst = dated.length > 1 && dated[0]!.instant > dated.at(-1)!.instant
      return Result.succeed(
        (newestFirst ? dated.reverse() : dated)
          .sort((a, b) => a.instant - b.instant)
          .map(({ rawStatus, timestamp }) => ({ rawStatus, timestamp }))
      )
    }
  )

const zero = 0 as Dzd.Dzd

/**
 * The destination's row of the rate table: the commune's own row when it has one, else its wilaya's (by territory
 * id when the wilaya was looked up, else by wilaya code).
 */
export const rateFor = (
  rates: ReadonlyArray<Wire.Rate>,
  destination: { readonly wilaya: number; readonly cityTerritoryId?: string; readonly districtTerritoryId?: string }
): Wire.Rate | undefined => {
  const byId = (id: string | undefined) =>
    id === undefined ? undefined : rates.find((rate) => rate.toTerritoryId.toLowerCase() === id.toLowerCase())
  return (
    byId(destination.districtTerritoryId) ??
    byId(destination.cityTerritoryId) ??
    rates.find(
      (rate) => rate.toTerritoryLevel.toLowerCase() === "wilaya" && rate.toTerritoryCode === destination.wilaya
    )
  )
}

/**
 * `GET delivery-pricing/rates` → the fees to the destination: `home` to the door, `pickup-point` to a stop desk
 * (absent: none there), `return` for a parcel that comes back (0 when absent), each at its `discountedPrice` when the
 * account has one. No fee on collected cash is documented.
 */
export const fromRates = (
  query: Shipment.RatesQuery,
  destination: { readonly cityTerritoryId?: string; readonly districtTerritoryId?: string },
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Rates, response), (body): Result.Result<Shipment.RatesResult, Reason> => {
    const rate = rateFor(body.rates, { wilaya: query.toWilaya, ...destination })
    if (rate === undefined) {
      return Result.fail(
        new CourierError.Refused({
          message: `the courier does not deliver to wilaya ${query.toWilaya}: it is not in its rate table`
        })
      )
    }
    // The price the account pays: the documented `discountedPrice` where it has a discount, else `price`.
    const price = (type: string) => {
      const entry = rate.deliveryPrices.find((candidate) => candidate.deliveryType.toLowerCase() === type)
      return entry === undefined ? undefined : (entry.discountedPrice ?? entry.price)
    }
    const home = price("home")
    const desk = price("pickup-point")
    const returnFee = price("return") ?? zero
    const options = [
      ...(home === undefined
        ? []
        : [Shipment.RateOption.make({ deliveryType: "home", tier: "economic", deliveryFee: home, returnFee })]),
      ...(desk === undefined
        ? []
        : [Shipment.RateOption.make({ deliveryType: "stopdesk", tier: "economic", deliveryFee: desk, returnFee })])
    ]
    return Shipment.economicRates(query, options)
  })

// --- Errors -----------------------------------------------------------------------------------------------------

/** ZR's field names (compared without case), where they have an obvious counterpart in the request. */
const ourFields: Readonly<Record<string, string>> = {
  "customer.name": "order.recipient.fullName",
  "customer.phone.number1": "order.recipient.phone",
  "customer.phone.number2": "order.recipient.phoneAlt",
  "deliveryaddress.cityterritoryid": "order.recipient.wilayaCode",
  "deliveryaddress.districtterritoryid": "order.recipient.communeName",
  "deliveryaddress.street": "order.recipient.addressLine",
  hubid: "order.stopDeskId",
  amount: "order.codAmount",
  description: "order.productList",
  externalid: "order.reference",
  "weight.weight": "order.weightKg",
  deliverytype: "order.deliveryType"
}

const fieldName = (field: string) => {
  const key = field
    .replace(/^\$\./, "")
    .replace(/\[\d+\]/g, "")
    .toLowerCase()
  return ourFields[key] ?? (key.startsWith("orderedproducts") ? "order.productList" : field)
}

/** The courier's own words in a problem-details body. */
const refusalOf = (body: unknown): string | undefined => {
  const problem = Schema.decodeUnknownOption(Wire.Problem)(body)
  if (Option.isNone(problem)) return undefined
  const { title, detail, errors } = problem.value
  const listed =
    errors === undefined || errors === null
      ? []
      : Array.isArray(errors)
        ? errors.map((entry) => {
            const said = entry.reason ?? entry.description ?? entry.message ?? entry.code ?? ""
            return entry.name ? `${fieldName(entry.name)}: ${said}` : said
          })
        : Object.entries(errors).map(([field, messages]) => `${fieldName(field)}: ${messages.join(" ")}`)
  const said = clean(
    [...listed, ...(listed.length === 0 ? [detail ?? "", title ?? ""] : [])].filter(present).join("; "),
    600
  )
  return said === "" ? undefined : said
}

/** ZR answers problem details; it refuses with 400, 409 or 422, in the problem's words. */
const answers = CourierAnswer.reader({
  credentials: "the API key or tenant",
  refusal: (status, body) => {
    const said = status === 400 || status === 409 || status === 422 ? refusalOf(body) : undefined
    return said === undefined ? undefined : new CourierError.Refused({ message: said })
  }
})

const { decode } = answers

/** What a failed answer means. */
export const errorOf = answers.errorOf

/**
 * `POST parcels` succeeded but the parcel could not be read back or put in ReadyToDispatch: it exists on the caller's
 * account, and the hub will not collect it. Whatever went wrong, the caller gets a refusal naming the parcel —
 * never a retryable error, since retrying the create would make a second parcel.
 */
export const notReady = (parcel: string, reason: Reason): CourierError.Refused =>
  CourierError.unfinishedCreate(
    parcel,
    {
      failed: "it is not ready to dispatch",
      consequence: "it exists on your account and the hub will not collect it",
      remedy: "Set it to ReadyToDispatch or delete it in the courier's dashboard"
    },
    reason
  )

/**
 * What dispatching a parcel in the state `name` takes: a parcel still being created (a state the table maps to
 * `created`) is moved to ReadyToDispatch (`"move"`); one in ReadyToDispatch or past it is dispatched already, and
 * answers its state as is — it is never moved back; a cancelled parcel, or one in a state the table does not know,
 * is refused.
 */
export const dispatchStep = (name: string): Result.Result<"move" | { readonly rawStatus: string }, Reason> => {
  const state = Status.spellingOf(name)
  if (Status.isReadyToDispatch(state)) return Result.succeed({ rawStatus: state })
  const status = Object.hasOwn(Status.statuses, state) ? Status.statuses[state] : undefined
  if (status === "created") return Result.succeed("move")
  if (status === "cancelled") {
    return Result.fail(new CourierError.Refused({ message: "the parcel is cancelled: it cannot be dispatched" }))
  }
  if (status === undefined) {
    return Result.fail(
      new CourierError.Refused({
        message: `the parcel is in a state this adapter does not know (${CourierAnswer.clean(name, 80)}): dispatch it in the courier's dashboard`
      })
    )
  }
  return Result.succeed({ rawStatus: state })
}
