/**
 * The Yalidine engine: one API (`/v1/…`) behind six courier networks — Yalidine, Yalitec, Guepex, Economiqua,
 * Easy & Speed and We Can — each on its own pinned origin, with its own accounts. Every request carries the
 * caller's `X-API-ID` and `X-API-TOKEN`. A parcel is created in one call (no follow-up step: it is "En préparation"
 * until the courier collects it), tracked by its whole history (every page), priced per destination commune, and
 * its label is read from the public link the courier gives each parcel. It can also be deleted while still "En
 * préparation" (cancel), tracked a hundred at a time, and the network's centers (stop desks) and communes listed.
 * The documented quotas (5 a second, 50 a minute, 1 000 an hour, 10 000 a day, per account) are declared, for the
 * core to pace every account under. The engine also pushes status, payment and deletion events to a merchant's
 * webhook, signed, after a CRC challenge (`push`, YalidinePush.ts).
 */
import { CourierAdapter, type CourierError, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Clock, Effect, Redacted, Result, Schema } from "effect"
import * as Mapping from "./YalidineMapping.ts"
import * as Push from "./YalidinePush.ts"
import * as Status from "./YalidineStatus.ts"

/**
 * The caller's API id and token, from the courier's Developer Dashboard. No length is documented (the docs show a
 * 20-digit id and 32 to 64-character tokens): 8–256 visible ASCII characters each, so that each can only ever be
 * one header value.
 */
const Secret = (what: string) =>
  Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 256, { message: `Expected a Yalidine ${what} of 8 to 256 characters` }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: `Expected a Yalidine ${what} without spaces or control characters`
      })
    )
  )

export const Credentials = Schema.Struct({ apiId: Secret("API id"), apiToken: Secret("API token") })
export type Credentials = typeof Credentials.Type

/**
 * A network on its API host `api.<domain>`: its label links are on its own domain (the docs' are on `yalidine.app`,
 * the API's on `api.yalidine.app`), so that domain and its subdomains are its document hosts.
 */
const network = (
  key: string,
  name: string,
  aliases: ReadonlyArray<string>,
  domain: string
): CourierAdapter.CourierManifest => ({
  key,
  name,
  aliases,
  endpoint: { origin: `https://api.${domain}` },
  documents: [domain, `*.${domain}`]
})

/** One engine, six networks: each has its own API host and accounts (research §1.1, §2; dzship keys). */
export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  network("yalidine", "Yalidine", [], "yalidine.app"),
  network("yalitec", "Yalitec", [], "yalitec.me"),
  network("guepex", "Guepex", ["goupex"], "guepex.app"),
  network("economiqua", "Economiqua", [], "economiqua.app"),
  network("easyandspeed", "Easy & Speed", ["easy_and_speed", "easy_speed"], "easyandspeed.app"),
  network("wecan", "We Can Services", ["wecan_services", "wecanservices"], "wecanservices.me")
]

/** The documented default quotas of every account (§1.1 "Rate limits"). */
export const rateLimits = [
  { limit: 5, window: "1 second" },
  { limit: 50, window: "1 minute" },
  { limit: 1000, window: "1 hour" },
  { limit: 10000, window: "1 day" }
] as const

/**
 * One authenticated call (the core blanks the credentials out of any answer that echoes them).
 */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest, accept = "application/json") =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        accept,
        "x-api-id": Redacted.value(credentials.apiId),
        "x-api-token": Redacted.value(credentials.apiToken)
      }
    })
  )

export const create = Effect.fn("Yalidine.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials, fromWilaya }: CourierAdapter.Context<Credentials>
) {
  const origin = yield* Effect.fromResult(Mapping.originOf(fromWilaya))
  const orderId = Mapping.orderIdOf(order, yield* Clock.currentTimeMillis)
  const parcel = yield* Effect.fromResult(Mapping.toParcel(order, origin, orderId))
  const response = yield* send(credentials, { method: "POST", path: "/v1/parcels/", json: [parcel] })
  const created = yield* Effect.fromResult(Mapping.fromCreated(orderId, response))
  return {
    trackingNumber: created.tracking,
    ...(created.labelUrl === undefined ? {} : { labelUrl: created.labelUrl }),
    rawStatus: Status.created
  }
})

export const rates = Effect.fn("Yalidine.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials, fromWilaya }: CourierAdapter.Context<Credentials>
) {
  const origin = yield* Effect.fromResult(Mapping.originOf(query.fromWilaya, fromWilaya))
  const response = yield* send(credentials, {
    method: "GET",
    path: "/v1/fees/",
    query: Mapping.feesQuery(origin, query.toWilaya)
  })
  return yield* Effect.fromResult(Mapping.fromFees(query, response))
})

/**
 * Every row of a list, page after page (`page_size` 1000, following `has_more`), never cut short: a list past
 * `MAX_PAGES` pages is a bad response.
 */
const everyRow = <A>(
  credentials: Credentials,
  path: `/${string}`,
  filter: Readonly<Record<string, string>>,
  read: (response: CourierHttp.CourierResponse) => Result.Result<Mapping.Page<A>, CourierError.CourierErrorReason>
) =>
  Effect.gen(function* () {
    const rows: Array<A> = []
    for (let page = 1; page <= Mapping.MAX_PAGES; page++) {
      const response = yield* send(credentials, { method: "GET", path, query: Mapping.pageQuery(filter, page) })
      const { rows: more, hasMore } = yield* Effect.fromResult(read(response))
      rows.push(...more)
      if (!hasMore) return rows as ReadonlyArray<A>
    }
    return yield* Effect.fail(Mapping.tooManyPages)
  })

/**
 * The parcel's whole history, every page of `GET /v1/histories/{tracking}` (a parcel's history runs past the 100
 * rows of a default page), exactly this tracking number's rows. A parcel with no history yet answers its current
 * status instead, read from the parcel itself; that second call also tells an unknown tracking number apart.
 */
export const track = Effect.fn("Yalidine.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const tracking = yield* Effect.fromResult(Mapping.checkTracking(trackingNumber))
  const rows = yield* everyRow(credentials, Mapping.historiesPath(tracking), {}, Mapping.fromHistoryPage)
  const events = Mapping.fromHistories(tracking, rows)
  if (events !== undefined) return events
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(tracking) })
  return yield* Effect.fromResult(Mapping.fromParcel(tracking, parcel))
})

/**
 * `POST /v1/parcels/` with every order of the batch in one array (the endpoint's documented form, one request against
 * the account's quotas): each parcel's result read by its `order_id`. An order the mapping refuses is not sent, and
 * a parcel the courier refuses is refused alone.
 */
export const createBatch = Effect.fn("Yalidine.createBatch")(function* (
  orders: ReadonlyArray<Shipment.ParcelOrder>,
  { credentials, fromWilaya }: CourierAdapter.Context<Credentials>
) {
  const origin = yield* Effect.fromResult(Mapping.originOf(fromWilaya))
  const now = yield* Clock.currentTimeMillis
  const mapped = orders.map((order) => {
    const orderId = Mapping.orderIdOf(order, now)
    return { orderId, parcel: Mapping.toParcel(order, origin, orderId) }
  })
  const toSend = mapped.flatMap(({ orderId, parcel }) => (Result.isSuccess(parcel) ? [{ orderId, parcel }] : []))
  const answered =
    toSend.length === 0
      ? []
      : yield* Effect.fromResult(
          Mapping.fromCreatedBatch(
            toSend.map(({ orderId }) => orderId),
            yield* send(credentials, {
              method: "POST",
              path: "/v1/parcels/",
              json: toSend.map(({ parcel }) => Result.getOrThrow(parcel))
            })
          )
        )
  let next = 0
  return mapped.map(({ parcel }): Result.Result<CourierAdapter.CreatedParcel, CourierError.CourierErrorReason> => {
    if (Result.isFailure(parcel)) return Result.fail(parcel.failure)
    return Result.map(answered[next++]!, (created) => ({
      trackingNumber: created.tracking,
      ...(created.labelUrl === undefined ? {} : { labelUrl: created.labelUrl }),
      rawStatus: Status.created
    }))
  })
})

/**
 * The parcel's label, from the link the courier gives it (`GET /v1/parcels/{tracking}`, its `label`): on the API's
 * own `/labels/{tracking}` (the 2026 docs), the PDF there; elsewhere (the docs' `yalidine.app/app/bordereau.php?…`),
 * the link is fetched as it is from the network's own domain (a document host: a bare GET, no credentials), and
 * its PDF is the label. A link that answers no PDF, or lies off the network's domain, is refused naming its host:
 * the label is then that link, which the create answered as `labelUrl`.
 */
export const label = Effect.fn("Yalidine.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const tracking = yield* Effect.fromResult(Mapping.checkTracking(trackingNumber))
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(tracking) })
  const link = yield* Effect.fromResult(Mapping.labelLinkOf(tracking, parcel))
  const path = Mapping.labelPathOf(link, tracking)
  if (path !== undefined) {
    const response = yield* send(credentials, { method: "GET", path }, "application/pdf")
    return yield* Effect.fromResult(Mapping.fromLabel(response))
  }
  const document = CourierHttp.documentRequest(link)
  if (document === undefined) return yield* Effect.fail(Mapping.labelElsewhere(link))
  const http = yield* CourierHttp.CourierHttp
  const response = yield* http
    .request(document)
    .pipe(Effect.catchTag("BlockedEgress", () => Effect.fail(Mapping.labelElsewhere(link))))
  return yield* Effect.fromResult(Mapping.fromLinkedLabel(link, response))
})

/**
 * The histories of up to 100 parcels in one list (`GET /v1/histories/?tracking=a,b`); the parcels with no history
 * yet are read in one more list (`GET /v1/parcels/?tracking=…`) for their current status. A number the courier
 * does not know is in neither, and is left out.
 */
export const trackBatch = Effect.fn("Yalidine.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const asked = yield* Effect.fromResult(Mapping.checkBatch(trackingNumbers))
  if (asked.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  const history = yield* everyRow(credentials, "/v1/histories/", Mapping.trackingFilter(asked), Mapping.fromHistoryPage)
  const events = Mapping.eventsByTracking(asked, history)
  const unseen = asked.filter((tracking) => !events.has(tracking))
  if (unseen.length === 0) return events
  const parcels = yield* everyRow(credentials, "/v1/parcels/", Mapping.trackingFilter(unseen), Mapping.fromParcelPage)
  for (const [tracking, current] of Mapping.currentByTracking(unseen, parcels)) events.set(tracking, current)
  return events
})

/**
 * `DELETE /v1/parcels/{tracking}`: Yalidine deletes a parcel only while it is "En préparation". When it answers
 * `deleted: false`, the parcel is read to say why (past preparation: `NotCancellable`; unknown: `Refused`).
 */
export const cancel = Effect.fn("Yalidine.cancel")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const tracking = yield* Effect.fromResult(Mapping.checkTracking(trackingNumber))
  const response = yield* send(credentials, { method: "DELETE", path: Mapping.parcelPath(tracking) })
  if (yield* Effect.fromResult(Mapping.fromDeleted(tracking, response))) return
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(tracking) })
  return yield* Effect.fail(Mapping.whyNotDeleted(tracking, parcel))
})

/** `GET /v1/centers/?wilaya_id=`: the wilaya's centers, the stop desks an order names by `stopdesk_id`. */
export const stopDesks = Effect.fn("Yalidine.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const centers = yield* everyRow(credentials, "/v1/centers/", Mapping.wilayaFilter(wilaya), Mapping.fromCenterPage)
  return Mapping.toStopDesks(wilaya, centers)
})

/** `GET /v1/communes/?wilaya_id=`: the names create expects, with `is_deliverable` and `has_stop_desk`. */
export const communes = Effect.fn("Yalidine.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const rows = yield* everyRow(credentials, "/v1/communes/", Mapping.wilayaFilter(wilaya), Mapping.fromCommunePage)
  return Mapping.toCommunes(wilaya, rows)
})

/** `GET /v1/wilayas/?page_size=1`: the docs' own test of a new API id and token; reads one row, creates nothing. */
export const checkCredentials = Effect.fn("Yalidine.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: "/v1/wilayas/",
    query: Mapping.credentialCheckQuery
  })
  return yield* Effect.fromResult(Mapping.fromCredentialCheck(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "yalidine",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  // Payment statuses arrive only by push (`parcel_payment_updated`): history rows carry none.
  codStatuses: Status.codStatuses,
  codTracked: false,
  operations: { create, createBatch, track, rates, label, cancel, trackBatch, stopDesks, communes, checkCredentials },
  push: Push.push,
  rateLimits
})
