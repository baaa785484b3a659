/**
 * Pure translation between Tawsil's one request shape and the Yalidine engine's API: the create body, the paths
 * and queries of tracking, fees and labels, and every answer read back — a result, or the `CourierErrorReason` it
 * means. No HTTP client here: the adapter sends what this builds and hands back what it got, so every rule is
 * tested without a network.
 *
 * Error messages are built from the courier's own words and status codes only, never from the request; the host
 * blanks the caller's API id and token out of every answer should a courier ever quote them back.
 */
import {
  type CourierAdapter,
  CourierAnswer,
  CourierError,
  CourierHttp,
  Redaction,
  RetryAfter,
  Shipment,
  WilayaNames
} from "@tawsil/courier"
import { AlgerianMobile, type Dzd, type WilayaCode } from "@tawsil/domain"
import { NameFolding } from "@tawsil/reference"
import { Option, Result, Schema } from "effect"
import * as Wire from "./YalidineWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const { clean } = CourierAnswer

// --- Requests ---------------------------------------------------------------------------------------------------

/**
 * A wilaya as Yalidine names it: `from_wilaya_name` and `to_wilaya_name` must match `GET /v1/wilayas/`, by id, the
 * official code. The SDK's French names (`WilayaNames`) spell the docs' examples (Adrar, Oum El Bouaghi, Batna,
 * Béjaïa, Tébessa, Alger, Sétif) as they do (README "Unverified": a spelling that differs is one exception here).
 */
export const wilayaName = (code: WilayaCode.WilayaCode): string => WilayaNames.frenchOf(code)

/** The sender's wilaya: Yalidine needs it to create a parcel and to price one, and has no account default. */
export const originOf = (
  ...candidates: ReadonlyArray<WilayaCode.WilayaCode | undefined>
): Result.Result<WilayaCode.WilayaCode, Reason> => {
  const origin = candidates.find((code) => code !== undefined)
  return origin === undefined
    ? Result.fail(
        new CourierError.Refused({
          message: "this courier needs the wilaya parcels ship from: send options.fromWilaya (e.g. 16 for Alger)"
        })
      )
    : Result.succeed(origin)
}

/** The core has already checked the phones are Algerian mobiles; Yalidine wants the national form `0XXXXXXXXX`. */
const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/** `Amina Ben Ali` → `Amina` / `Ben Ali`; a one-word name fills both (Yalidine requires both). */
export const splitName = (fullName: string): { readonly firstname: string; readonly familyname: string } => {
  const [first = "", ...rest] = fullName.trim().split(/\s+/)
  return { firstname: first, familyname: rest.length > 0 ? rest.join(" ") : first }
}

/**
 * The `order_id` of a create: the caller's reference, or one made from the clock when there is none (it only has
 * to be unique within the request; it is how the answer names the parcel's result).
 */
export const orderIdOf = (order: Shipment.ParcelOrder, nowMillis: number): string =>
  present(order.reference) ? order.reference.trim() : `tawsil-${nowMillis.toString(36)}`

/**
 * The service a call without a tier gets: economic, the one every single-tier courier's option is, and the cheaper
 * of Yalidine's two. A parcel is created in the tier it was quoted in.
 */
export const DEFAULT_TIER: Shipment.Tier = "economic"

export const tierOf = (tier: Shipment.Tier | undefined): Shipment.Tier => tier ?? DEFAULT_TIER

/**
 * `POST /v1/parcels/`, one parcel, in the order's tier (`economic`: {@link DEFAULT_TIER} unless the order asks for
 * express). Yalidine has no field for `notes` or `hasOpenPackage`, and needs sizes the order does not carry: they
 * are sent as 0 (README). A stop desk is a numeric center id.
 */
export const toParcel = (
  order: Shipment.ParcelOrder,
  origin: WilayaCode.WilayaCode,
  orderId: string
): Result.Result<Wire.Parcel, Reason> => {
  const { recipient } = order
  const stopdesk = order.deliveryType === "stopdesk"
  const center = order.stopDeskId?.trim()
  if (stopdesk && (center === undefined || !/^\d{1,12}$/.test(center))) {
    return Result.fail(
      new CourierError.Refused({
        message: "order.stopDeskId: a stop-desk delivery needs the Yalidine center id (digits, from its centers list)"
      })
    )
  }
  const phones = [recipient.phone, ...(present(recipient.phoneAlt) ? [recipient.phoneAlt] : [])].map(
    AlgerianMobile.nationalOrAsSent
  )
  return Result.succeed({
    order_id: orderId,
    from_wilaya_name: wilayaName(origin),
    ...splitName(recipient.fullName),
    contact_phone: phones.join(","),
    // A stop-desk parcel has no street address to give; neither may a home delivery in a village: the commune
    // stands in, as the address is required.
    address: present(recipient.addressLine) ? recipient.addressLine.trim() : recipient.communeName,
    to_commune_name: recipient.communeName,
    to_wilaya_name: wilayaName(recipient.wilayaCode),
    product_list: order.productList,
    price: order.codAmount,
    do_insurance: order.declaredValue !== undefined && order.declaredValue > 0,
    declared_value: order.declaredValue ?? 0,
    length: 0,
    width: 0,
    height: 0,
    weight: Math.ceil(order.weightKg ?? 0),
    freeshipping: order.freeShipping === true,
    is_stopdesk: stopdesk,
    economic: tierOf(order.tier) === "economic",
    ...(stopdesk ? { stopdesk_id: Number(center) } : {}),
    has_exchange: order.isExchange === true,
    ...(order.isExchange === true ? { product_to_collect: order.productList } : {})
  })
}

/**
 * A tracking number as Yalidine issues them (`yal-123456`): letters, digits and dashes. Anything else is refused
 * before a call, so that a tracking number can only ever be one path segment.
 */
export const checkTracking = (tracking: string): Result.Result<string, Reason> =>
  /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(tracking)
    ? Result.succeed(tracking)
    : Result.fail(new CourierError.Refused({ message: "trackingNumber: not a tracking number this courier issues" }))

export const historiesPath = (tracking: string): `/${string}` => `/v1/histories/${encodeURIComponent(tracking)}`
export const parcelPath = (tracking: string): `/${string}` => `/v1/parcels/${encodeURIComponent(tracking)}`

/** `GET /v1/fees/`: both wilayas are required. */
export const feesQuery = (from: WilayaCode.WilayaCode, to: WilayaCode.WilayaCode) => ({
  from_wilaya_id: String(from),
  to_wilaya_id: String(to)
})

/** The most rows a list answer gives per page (the docs: `page_size` 1–1000, 100 by default). */
export const PAGE_SIZE = 1000

/** The most pages a list is followed for: 10 000 rows, a hundred parcels' histories with room to spare. */
export const MAX_PAGES = 10

/** The most tracking numbers one batch reads (`?tracking=a,b,…`), as the SDK promises. */
export const MAX_BATCH = 100

/** One page of a list: the filter, the largest page size, and the page number (from 1). */
export const pageQuery = (filter: Readonly<Record<string, string>>, page: number) => ({
  ...filter,
  page_size: String(PAGE_SIZE),
  page: String(page)
})

/**
 * The tracking numbers of a batch, each checked like a single one (so none can carry a comma into the list), once
 * each; more than {@link MAX_BATCH} is refused before any call.
 */
export const checkBatch = (trackings: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, Reason> => {
  if (trackings.length > MAX_BATCH) {
    return Result.fail(
      new CourierError.Refused({ message: `trackingNumbers: at most ${MAX_BATCH} tracking numbers in one call` })
    )
  }
  const unique = [...new Set(trackings)]
  const wrong = unique.find((tracking) => Result.isFailure(checkTracking(tracking)))
  return wrong === undefined
    ? Result.succeed(unique)
    : Result.fail(
        new CourierError.Refused({
          message: "trackingNumbers: one of them is not a tracking number this courier issues"
        })
      )
}

/** `?tracking=a,b,c`: the filter that reads (or deletes) several parcels in one call. */
export const trackingFilter = (trackings: ReadonlyArray<string>) => ({ tracking: trackings.join(",") })

/** `GET /v1/centers/` and `GET /v1/communes/` of one wilaya. */
export const wilayaFilter = (wilaya: WilayaCode.WilayaCode) => ({ wilaya_id: String(wilaya) })

/** The cheapest read there is: the first wilaya of `GET /v1/wilayas/` (the docs' own credential test). */
export const credentialCheckQuery = { page_size: "1" } as const

// --- Responses --------------------------------------------------------------------------------------------------

/**
 * The label link the create answer gives, passed on as `labelUrl`: the documented way to a parcel's label, a public
 * link ("anyone with this link can see the label, even without logging in"), often with the label's own token
 * (`bordereau.php?tracking=…&token=…`), which is the label's, not the caller's API credentials. It is dropped when
 * it is not https, carries user info, or quotes one of the caller's credentials (the core blanks them out of every
 * answer: a link that held one holds the placeholder now).
 */
export const publicLabelUrl = (link: string | null | undefined): string | undefined => {
  if (link === null || link === undefined) return undefined
  const url = URL.parse(link.trim())
  if (url === null || url.protocol !== "https:" || url.username !== "" || url.password !== "") return undefined
  return link.includes(Redaction.PLACEHOLDER) ? undefined : url.href
}

/**
 * Where a parcel's label link can be read: the 2026 form, `<the API's own host>/labels/<tracking>`, is a path on the
 * origin the adapter is pinned to; any other (the docs' `https://yalidine.app/app/bordereau.php?…`) is on a host the
 * adapter may not call, and the label is the link itself (`labelUrl`). Read from the parcel, never guessed: the docs
 * show no label endpoint of the API.
 */
export const labelPathOf = (link: string, tracking: string): `/${string}` | undefined => {
  const url = URL.parse(link.trim())
  const expected: `/${string}` = `/labels/${encodeURIComponent(tracking)}`
  return url !== null &&
    url.protocol === "https:" &&
    /^api\./.test(url.hostname) &&
    url.pathname === expected &&
    url.search === ""
    ? expected
    : undefined
}

/**
 * `POST /v1/parcels/` → the tracking number and, when it embeds no secret, the label link. A parcel refused inside
 * an HTTP 200 (`success: false`) is a refusal, never a success.
 */
export const fromCreated = (
  orderId: string,
  response: Response
): Result.Result<{ readonly tracking: string; readonly labelUrl: string | undefined }, Reason> =>
  Result.flatMap(decode(Wire.Created, response), (results) => createdOf(results, orderId))

/**
 * `POST /v1/parcels/` with many parcels → each parcel's result, by `order_id`, in the order asked: the answer is read
 * once, and a parcel refused among valid ones is refused alone (the 2026 docs create the valid ones).
 */
export const fromCreatedBatch = (
  orderIds: ReadonlyArray<string>,
  response: Response
): Result.Result<
  ReadonlyArray<Result.Result<{ readonly tracking: string; readonly labelUrl: string | undefined }, Reason>>,
  Reason
> => Result.map(decode(Wire.Created, response), (results) => orderIds.map((orderId) => createdOf(results, orderId)))

const createdOf = (
  results: typeof Wire.Created.Type,
  orderId: string
): Result.Result<{ readonly tracking: string; readonly labelUrl: string | undefined }, Reason> => {
  const result = Object.hasOwn(results, orderId) ? results[orderId] : undefined
  if (result === undefined) {
    return Result.fail(
      new CourierError.BadResponse({ message: "the courier's create answer has no result for the parcel sent" })
    )
  }
  if (!result.success) {
    const said = clean(result.message ?? "")
    return Result.fail(
      new CourierError.Refused({
        message: said === "" ? "the courier refused the parcel without giving a reason" : said
      })
    )
  }
  const tracking = result.tracking?.trim() ?? ""
  if (tracking === "") {
    return Result.fail(new CourierError.BadResponse({ message: "the courier created the parcel but gave no tracking" }))
  }
  return Result.succeed({ tracking, labelUrl: publicLabelUrl(result.label) })
}

/** Algeria keeps UTC+01:00 all year, so Yalidine's Algiers wall-clock time has one fixed offset. */
export const timestampOf = (local: string): string => `${local.slice(0, 10)}T${local.slice(11)}+01:00`

/**
 * Every page of `GET /v1/histories/{tracking}` → the parcel's events: only rows of exactly this tracking number (a
 * list answer may hold others), every one of them (`Alerte résolue` too: unmapped, it reads `unknown`).
 * `undefined` when no row is this parcel's: a parcel with no history yet, or no such parcel.
 */
export const fromHistories = (
  tracking: string,
  rows: ReadonlyArray<Wire.History>
): ReadonlyArray<CourierAdapter.RawEvent> | undefined => {
  const own = rows.filter((row) => row.tracking === tracking)
  return own.length === 0
    ? undefined
    : own.map((row) => ({ rawStatus: row.status, timestamp: timestampOf(row.date_status) }))
}

/**
 * `GET /v1/parcels/{tracking}` → the parcel's current status as its one event (a parcel with no history yet), or
 * a refusal when the courier has no parcel of exactly this tracking number.
 */
export const fromParcel = (
  tracking: string,
  response: Response
): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.flatMap(decode(Wire.List(Wire.ParcelRow), response), ({ data }) => {
    const parcel = data.find((row) => row.tracking === tracking)
    return parcel === undefined
      ? Result.fail(new CourierError.Refused({ message: "trackingNumber: the courier has no parcel with this number" }))
      : Result.succeed([{ rawStatus: parcel.last_status, timestamp: timestampOf(parcel.date_last_status) }])
  })

const zero = 0 as Dzd.Dzd

/** The fee for one delivery type and tier, or undefined where the courier offers none. */
const feeOf = (commune: Wire.CommuneFees, deliveryType: Shipment.DeliveryType, tier: Shipment.Tier) => {
  const fee =
    tier === "express"
      ? deliveryType === "home"
        ? commune.express_home
        : commune.express_desk
      : deliveryType === "home"
        ? commune.economic_home
        : commune.economic_desk
  return fee ?? undefined
}

/**
 * `GET /v1/parcels/{tracking}` → the parcel's label link, or a refusal when the courier has no parcel of exactly
 * this tracking number, or gives it no link.
 */
export const labelLinkOf = (tracking: string, response: Response): Result.Result<string, Reason> =>
  Result.flatMap(decode(Wire.List(Wire.ParcelRow), response), ({ data }) => {
    const parcel = data.find((row) => row.tracking === tracking)
    if (parcel === undefined) {
      return Result.fail(
        new CourierError.Refused({ message: "trackingNumber: the courier has no parcel with this number" })
      )
    }
    const link = parcel.label?.trim() ?? ""
    return link === ""
      ? Result.fail(new CourierError.Refused({ message: "the courier gives this parcel no label link yet" }))
      : Result.succeed(link)
  })

/**
 * A label link off the network's own domain, or one that answers no PDF: the label is that link, the create
 * answer's `labelUrl`.
 */
export const labelElsewhere = (link: string, status?: number): Reason => {
  const host = URL.parse(link)?.hostname ?? "another host"
  return new CourierError.Refused({
    message:
      status === undefined
        ? `this courier serves the label only at the parcel's public link on ${host}, which Tawsil does not call: it is the labelUrl the create answered`
        : `the parcel's public label link on ${host} answered no PDF (HTTP ${status}): the label is that link, the labelUrl the create answered`
  })
}

/** The answer of a parcel's label link on the network's domain: its PDF, else the link is the label. */
export const fromLinkedLabel = (link: string, response: Response): Result.Result<CourierAdapter.Label, Reason> =>
  response.status === 200 && CourierAnswer.isPdf(response.bytes)
    ? Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
    : Result.fail(labelElsewhere(link, response.status))

/**
 * The destination commune to price: the one the query names (compared by folded name, so accents and case do not
 * matter), else the wilaya's first by Yalidine's numbering — its seat, `<wilaya>01` (README "Unverified").
 */
const communeFor = (
  fees: Wire.Fees,
  query: Shipment.RatesQuery
): Result.Result<Wire.CommuneFees, CourierError.Refused> => {
  const communes = Object.values(fees.per_commune).sort((a, b) => a.commune_id - b.commune_id)
  if (communes.length === 0) {
    return Result.fail(
      new CourierError.Refused({
        message: `the courier does not deliver to wilaya ${query.toWilaya}: it lists no fees`
      })
    )
  }
  if (query.toCommune === undefined) return Result.succeed(communes[0]!)
  const wanted = NameFolding.fold(query.toCommune)
  const commune = communes.find((candidate) => NameFolding.fold(candidate.commune_name) === wanted)
  return commune === undefined
    ? Result.fail(
        new CourierError.Refused({
          message: `query.toCommune: the courier lists no commune of that name in wilaya ${query.toWilaya}`
        })
      )
    : Result.succeed(commune)
}

/**
 * `GET /v1/fees/` → the fees of the asked delivery type and tier to the destination commune (economic unless the
 * query asks for express: {@link DEFAULT_TIER}, the tier a create without one is made in), every option offered
 * there, the return fee of the route, and the courier's fee on the cash: `cod_percentage` of `codAmount`, rounded to
 * the dinar.
 */
export const fromFees = (query: Shipment.RatesQuery, response: Response): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(decode(Wire.Fees, response), (fees) =>
    Result.flatMap(communeFor(fees, query), (commune) => {
      const options = (["express", "economic"] as const).flatMap((tier) =>
        (["home", "stopdesk"] as const).flatMap((deliveryType) => {
          const deliveryFee = feeOf(commune, deliveryType, tier)
          return deliveryFee === undefined
            ? []
            : [Shipment.RateOption.make({ deliveryType, tier, deliveryFee, returnFee: fees.retour_fee })]
        })
      )
      const tier = tierOf(query.tier)
      const asked = options.find((option) => option.deliveryType === query.deliveryType && option.tier === tier)
      if (asked === undefined) {
        return Result.fail(
          new CourierError.Refused({
            message: `the courier offers no ${tier} ${query.deliveryType === "home" ? "home" : "stop-desk"} delivery to ${commune.commune_name}`
          })
        )
      }
      const codFee = Math.round(((query.codAmount ?? 0) * fees.cod_percentage) / 100) as Dzd.Dzd
      return Result.succeed(
        Shipment.RatesResult.make({
          deliveryType: asked.deliveryType,
          tier,
          deliveryFee: asked.deliveryFee,
          returnFee: asked.returnFee,
          codFee: query.codAmount === undefined ? zero : codFee,
          total: (asked.deliveryFee + (query.codAmount === undefined ? 0 : codFee)) as Dzd.Dzd,
          currency: "DZD",
          options
        })
      )
    })
  )

/** `GET /labels/{tracking}` (the 2026 link) answers the PDF itself; 404 is no label; anything else on 200 is none. */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status === 404) {
    return Result.fail(
      new CourierError.Refused({ message: "trackingNumber: the courier has no label for this number" })
    )
  }
  if (response.status !== 200) return Result.fail(errorOf(response))
  return CourierAnswer.isPdf(response.bytes)
    ? Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
    : Result.fail(new CourierError.BadResponse({ message: "the courier answered a label that is not a PDF" }))
}

/** One page of a list: its rows and whether another page follows. */
export interface Page<A> {
  readonly rows: ReadonlyArray<A>
  readonly hasMore: boolean
}

const pageOf = <A>(list: { readonly has_more?: boolean; readonly data: ReadonlyArray<A> }): Page<A> => ({
  rows: list.data,
  hasMore: list.has_more === true
})

/** A page of `GET /v1/histories/?tracking=a,b`. */
export const fromHistoryPage = (response: Response): Result.Result<Page<Wire.History>, Reason> =>
  Result.map(decode(Wire.List(Wire.History), response), pageOf)

/** A page of `GET /v1/parcels/?tracking=a,b`. */
export const fromParcelPage = (response: Response): Result.Result<Page<Wire.ParcelRow>, Reason> =>
  Result.map(decode(Wire.List(Wire.ParcelRow), response), pageOf)

/** A page of `GET /v1/centers/?wilaya_id=`. */
export const fromCenterPage = (response: Response): Result.Result<Page<Wire.Center>, Reason> =>
  Result.map(decode(Wire.List(Wire.Center), response), pageOf)

/** A page of `GET /v1/communes/?wilaya_id=`. */
export const fromCommunePage = (response: Response): Result.Result<Page<Wire.CommuneRow>, Reason> =>
  Result.map(decode(Wire.List(Wire.CommuneRow), response), pageOf)

/** A list longer than {@link MAX_PAGES} pages: never answered cut short. */
export const tooManyPages = new CourierError.BadResponse({
  message: `the courier's list runs past ${MAX_PAGES * PAGE_SIZE} rows: not read cut short`
})

/**
 * History rows of a batch → the events of each asked parcel that has any: only rows of exactly an asked tracking
 * number (a list answer may hold others), every one of them (`Alerte résolue` too, as in `track`).
 */
export const eventsByTracking = (
  asked: ReadonlyArray<string>,
  rows: ReadonlyArray<Wire.History>
): Map<string, ReadonlyArray<CourierAdapter.RawEvent>> => {
  const wanted = new Set(asked)
  const events = new Map<string, Array<CourierAdapter.RawEvent>>()
  for (const row of rows) {
    if (!wanted.has(row.tracking)) continue
    const list = events.get(row.tracking) ?? []
    events.set(row.tracking, list)
    list.push({ rawStatus: row.status, timestamp: timestampOf(row.date_status) })
  }
  return events
}

/**
 * Parcel rows of a batch → the current status of each asked parcel as its one event (parcels with no history yet).
 * A number the courier does not know has no row, and is left out.
 */
export const currentByTracking = (
  asked: ReadonlyArray<string>,
  rows: ReadonlyArray<Wire.ParcelRow>
): Map<string, ReadonlyArray<CourierAdapter.RawEvent>> => {
  const wanted = new Set(asked)
  return new Map(
    rows
      .filter((row) => wanted.has(row.tracking))
      .map((row) => [row.tracking, [{ rawStatus: row.last_status, timestamp: timestampOf(row.date_last_status) }]])
  )
}

const isSet = (flag: Wire.Flag) => flag === true || flag === 1

/**
 * `DELETE /v1/parcels/{tracking}` → whether the courier deleted exactly this parcel. `false` does not say why
 * (not "En préparation" any more, unknown, already deleted): the adapter reads the parcel to tell ({@link
 * whyNotDeleted}).
 */
export const fromDeleted = (tracking: string, response: Response): Result.Result<boolean, Reason> =>
  Result.flatMap(decode(Wire.Deleted, response), (answer) => {
    const decision = (Array.isArray(answer) ? answer : Object.values(answer)).find((row) => row.tracking === tracking)
    return decision === undefined
      ? Result.fail(new CourierError.BadResponse({ message: "the courier's delete answer says nothing of the parcel" }))
      : Result.succeed(isSet(decision.deleted))
  })

/** The one status in which Yalidine deletes a parcel (the docs: "only possible if its last status is en préparation"). */
export const DELETABLE_STATUS = "En préparation"

/**
 * After `deleted: false`, `GET /v1/parcels/{tracking}` → why: a parcel past "En préparation" cannot be cancelled
 * (`NotCancellable`, naming its status); no such parcel is a refusal on the tracking number; a parcel still in
 * preparation that was not deleted is a refusal without a known reason.
 */
export const whyNotDeleted = (tracking: string, response: Response): Reason => {
  const read = decode(Wire.List(Wire.ParcelRow), response)
  if (Result.isFailure(read)) return read.failure
  const parcel = read.success.data.find((row) => row.tracking === tracking)
  if (parcel === undefined) {
    return new CourierError.Refused({ message: "trackingNumber: the courier has no parcel with this number" })
  }
  return parcel.last_status === DELETABLE_STATUS
    ? new CourierError.Refused({ message: "the courier did not delete the parcel, and gave no reason" })
    : new CourierError.NotCancellable({
        message: `the courier deletes a parcel only while it is "${DELETABLE_STATUS}"; this one is "${clean(parcel.last_status, 80)}"`
      })
}

/** Centers → the wilaya's stop desks (only rows of exactly this wilaya; the center id is the order's `stopDeskId`). */
export const toStopDesks = (
  wilaya: WilayaCode.WilayaCode,
  centers: ReadonlyArray<Wire.Center>
): ReadonlyArray<CourierAdapter.StopDesk> =>
  centers
    .filter((center) => center.wilaya_id === wilaya)
    .map((center) => {
      const commune = clean(center.commune_name ?? "")
      const address = clean(center.address ?? "")
      return {
        id: String(center.center_id),
        name: clean(center.name),
        wilayaCode: wilaya,
        ...(commune === "" ? {} : { communeName: commune }),
        ...(address === "" ? {} : { address })
      }
    })
    .filter((desk) => desk.name !== "")

/** Communes → the wilaya's communes as Yalidine spells them: `is_deliverable` → home, `has_stop_desk` → desk. */
export const toCommunes = (
  wilaya: WilayaCode.WilayaCode,
  rows: ReadonlyArray<Wire.CommuneRow>
): ReadonlyArray<CourierAdapter.CourierCommune> =>
  rows
    .filter((row) => row.wilaya_id === wilaya)
    .map((row) => ({
      name: row.name,
      id: String(row.id),
      home: isSet(row.is_deliverable),
      stopdesk: isSet(row.has_stop_desk)
    }))

/** `GET /v1/wilayas/` answered its list: the credentials work. */
export const fromCredentialCheck = (response: Response): Result.Result<void, Reason> =>
  Result.map(decode(Wire.List(Wire.WilayaRow), response), () => undefined)

// --- Errors -----------------------------------------------------------------------------------------------------

const messageOf = (body: Wire.ErrorBody): string =>
  clean("message" in body ? body.message : typeof body.error === "string" ? body.error : body.error.message)

/** Yalidine refuses with 400 or 422 and its words; a refused parcel is answered inside a 200 (`success: false`). */
const answers = CourierAnswer.reader({
  credentials: "the API id and token",
  refusal: (status, body) => {
    const error = Schema.decodeUnknownOption(Wire.ErrorBody)(body)
    // A 404 or 405 is this adapter calling something the API does not have: not a refusal.
    const said = (status === 400 || status === 422) && Option.isSome(error) ? messageOf(error.value) : ""
    return said === "" ? undefined : new CourierError.Refused({ message: said })
  },
  retryAfter: (headers) => retryAfter(headers)
})

const { decode } = answers

/** What a failed (or undocumented) answer means. */
export const errorOf = answers.errorOf

/** How long each quota's window lasts, for a 429 that names no `Retry-After`. */
const quotaWindows: ReadonlyArray<readonly [header: string, seconds: number]> = [
  [Wire.quotaHeaders.day, 86_400],
  [Wire.quotaHeaders.hour, 3_600],
  [Wire.quotaHeaders.minute, 60],
  [Wire.quotaHeaders.second, 1]
]

/**
 * How long a 429 asks to wait: the SDK's `RetryAfter.seconds` (`Retry-After` in seconds, at least 1), with Yalidine's
 * own fallback when it names none: the longest window among the quota headers that read 0 (a day, an hour, a minute
 * or a second: Yalidine resets each a full window after its first request); else 60.
 */
export const retryAfter = (headers: Readonly<Record<string, string>>): number => {
  const spent = quotaWindows.find(([name]) => {
    const left = CourierHttp.header(headers, name)?.trim()
    return left !== undefined && /^\d+$/.test(left) && Number(left) === 0
  })
  return RetryAfter.seconds(headers, spent?.[1])
}
