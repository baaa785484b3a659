/**
 * The new ZR Express platform (`https://api.zrexpress.app/api/v1/…`), one courier, authenticated with the merchant's
 * tenant id (`X-Tenant`) and API key (`X-Api-Key`). Addresses are territory UUIDs, looked up from the platform
 * (`territories/search`) and cached per tenant; a parcel is created straight in the ReadyToDispatch workflow state
 * (its id from `workflows/search`, cached too), read back for its tracking number, and moved to ReadyToDispatch if
 * the platform created it anywhere else — a parcel left in OrderReceived is never collected. Tracking reads the
 * parcel's state history, prices come from the tenant's rate table. A label is a PDF file behind an expiring signed
 * link on ZR's storage host, fetched from there. The key and tenant id never appear in an error message. A parcel can
 * also be held in OrderReceived and dispatched later (`dispatch`), and the platform's Svix-signed webhooks are read
 * by `push` (ZrExpressPush.ts).
 */
import { CourierAdapter, type CourierError, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Effect, Random, Redacted, type Result, Schema } from "effect"
import * as TenantCache from "./internal/TenantCache.ts"
import * as Mapping from "./ZrExpressNewMapping.ts"
import * as Status from "./ZrExpressNewStatus.ts"
import type * as Wire from "./ZrExpressNewWire.ts"
import * as Push from "./ZrExpressPush.ts"

/**
 * The merchant's API key and tenant id, named as the public dzship catalogue names them. The key: 8–1024 visible
 * ASCII characters (no length is documented; some accounts use a JWT), so that it can only ever be one header value.
 * The tenant id is a UUID.
 */
export const Credentials = Schema.Struct({
  apiKey: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 1024, { message: "Expected a ZR Express API key of 8 to 1024 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: "Expected a ZR Express API key without spaces or control characters"
      })
    )
  ),
  tenantId: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
        message: "Expected a ZR Express tenant id, a UUID"
      })
    )
  )
})
export type Credentials = typeof Credentials.Type

export const origin = "https://api.zrexpress.app"

/**
 * Where ZR keeps its label files: Azure Blob Storage (research §1.4: "a file on Azure Blob behind a SAS URL that
 * expires"). Which account is not documented, so any Blob host.
 */
export const labelHosts = ["*.blob.core.windows.net"]

/**
 * `zrexpress` is the legacy ZR Express on Procolis (adapters/procolis), as the public dzship catalogue keys it; this
 * platform takes research §2's `zrexpress_new`, and answers to dzship's `zrexpressnew` too.
 */
export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  {
    key: "zrexpress_new",
    name: "ZR Express (new platform)",
    aliases: ["zrexpressnew"],
    endpoint: { origin },
    documents: labelHosts
  }
]

/** Territory UUIDs change when ZR redraws its map, which is rare: a day. Empty answers are not kept. */
const territories = TenantCache.make<ReadonlyArray<Wire.Territory>>({
  ttl: "24 hours",
  capacity: 4096,
  keep: (items) => items.length > 0
})

/** The ReadyToDispatch state id of a tenant's workflow: six hours, and forgotten when the courier refuses it. */
const readyStates = TenantCache.make<string>({ ttl: "6 hours", capacity: 1024 })

/**
 * One call to the courier with the tenant and key headers (the core blanks them out of any answer that echoes
 * them).
 */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        accept: "application/json",
        "X-Tenant": Redacted.value(credentials.tenantId),
        "X-Api-Key": Redacted.value(credentials.apiKey)
      }
    })
  )

/** Every page of a search, up to `Mapping.MAX_PAGES`. */
const searchAll = <A>(
  credentials: Credentials,
  path: `/${string}`,
  body: (pageNumber: number) => Wire.Search,
  read: (
    response: CourierHttp.CourierResponse
  ) => Result.Result<{ readonly items: ReadonlyArray<A>; readonly hasNext: boolean }, CourierError.CourierErrorReason>
) =>
  Effect.gen(function* () {
    const items: Array<A> = []
    for (let pageNumber = 1; pageNumber <= Mapping.MAX_PAGES; pageNumber++) {
      const response = yield* send(credentials, { method: "POST", path, json: body(pageNumber) })
      const page = yield* Effect.fromResult(read(response))
      items.push(...page.items)
      if (!page.hasNext) break
    }
    return items as ReadonlyArray<A>
  })

/** The tenant's wilaya territories, from its cache or the platform. */
const wilayaTerritories = (credentials: Credentials) =>
  territories.get(
    Redacted.value(credentials.tenantId),
    "wilayas",
    searchAll(credentials, "/api/v1/territories/search", Mapping.wilayasSearch, Mapping.fromTerritories)
  )

/** The commune territories of one wilaya territory, from the tenant's cache or the platform. */
const communeTerritories = (credentials: Credentials, cityTerritoryId: string) =>
  territories.get(
    Redacted.value(credentials.tenantId),
    `communes:${cityTerritoryId}`,
    searchAll(
      credentials,
      "/api/v1/territories/search",
      (page) => Mapping.communesSearch(cityTerritoryId, page),
      Mapping.fromTerritories
    )
  )

/** The territory UUIDs of a wilaya code and a commune name, from the tenant's cache or the platform. */
const placesOf = Effect.fnUntraced(function* (credentials: Credentials, wilayaCode: number, communeName: string) {
  const city = yield* Effect.fromResult(Mapping.wilayaOf(yield* wilayaTerritories(credentials), wilayaCode))
  const communes = yield* communeTerritories(credentials, city.id)
  const district = yield* Effect.fromResult(Mapping.communeOf(communes, communeName))
  return { cityTerritoryId: city.id, districtTerritoryId: district.id }
})

/** The tenant's ReadyToDispatch state id; refused when its workflows have none (nothing is created then). */
const readyStateOf = (credentials: Credentials) =>
  readyStates.get(
    Redacted.value(credentials.tenantId),
    "ready",
    Effect.flatMap(
      searchAll(credentials, "/api/v1/workflows/search", Mapping.workflowsSearch, Mapping.fromWorkflows),
      (workflows) => {
        const id = Mapping.readyStateOf(workflows)
        return id === undefined ? Effect.fail(Mapping.noReadyState) : Effect.succeed(id)
      }
    )
  )

const randomBytes = Effect.forEach(Array.from({ length: 16 }), () => Random.nextIntBetween(0, 256, { halfOpen: true }))

const isReady = Status.isReadyToDispatch

/**
 * `POST parcels` in ReadyToDispatch, the parcel read back for its tracking number, and moved to ReadyToDispatch if
 * the platform put it elsewhere. Held undispatched (`dispatch: false`), it is created without a state — the
 * platform's OrderReceived, which the hub does not collect — and answered in the state it is in.
 */
export const create = Effect.fn("ZrExpressNew.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials, dispatch: dispatchNow }: CourierAdapter.Context<Credentials>
) {
  const tenant = Redacted.value(credentials.tenantId)
  yield* Effect.fromResult(Mapping.checkStopDesk(order))
  const places = yield* placesOf(credentials, order.recipient.wilayaCode, order.recipient.communeName)
  const held = dispatchNow === false
  const stateId = held ? undefined : yield* readyStateOf(credentials)
  const customerId = Mapping.uuidFrom(yield* randomBytes)
  const parcelId = yield* send(credentials, {
    method: "POST",
    path: "/api/v1/parcels",
    json: Mapping.toCreateParcel(order, { ...places, stateId, customerId })
  }).pipe(
    Effect.flatMap((created) => Effect.fromResult(Mapping.fromCreated(created))),
    // A refusal may come from an id that went stale in the cache: the next create looks them up again.
    Effect.tapError((reason) =>
      Effect.sync(() => {
        if (reason._tag !== "Refused") return
        if (stateId !== undefined) readyStates.invalidate(tenant, "ready")
        territories.invalidate(tenant, "wilayas")
        territories.invalidate(tenant, `communes:${places.cityTerritoryId}`)
      })
    )
  )
  // From here the parcel exists: whatever fails is a refusal naming it, never a retryable error.
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(parcelId) }).pipe(
    Effect.flatMap((response) => Effect.fromResult(Mapping.fromParcel(response))),
    Effect.mapError((reason) => Mapping.notReady(parcelId, reason))
  )
  if (stateId === undefined) {
    return {
      trackingNumber: parcel.trackingNumber,
      courierReference: parcelId,
      rawStatus: Status.spellingOf(parcel.state.name)
    }
  }
  if (!isReady(parcel.state.name)) {
    yield* toReady(credentials, parcelId, stateId).pipe(
      Effect.mapError((reason) => Mapping.notReady(parcel.trackingNumber, reason))
    )
  }
  return { trackingNumber: parcel.trackingNumber, courierReference: parcelId, rawStatus: Status.readyToDispatch }
})

/** `PATCH parcels/{id}/state` to ReadyToDispatch; a refusal forgets the cached state id. */
const toReady = (credentials: Credentials, parcelId: string, stateId: string) =>
  send(credentials, {
    method: "PATCH",
    path: `${Mapping.parcelPath(parcelId)}/state`,
    json: Mapping.toUpdateState(parcelId, stateId)
  }).pipe(
    Effect.flatMap((response) => Effect.fromResult(Mapping.fromStateChanged(stateId, response))),
    Effect.tapError((reason) =>
      Effect.sync(() =>
        reason._tag === "Refused" ? readyStates.invalidate(Redacted.value(credentials.tenantId), "ready") : undefined
      )
    )
  )

/**
 * A parcel created undispatched, by tracking number, moved to ReadyToDispatch so that the hub collects it: read
 * first (`GET parcels/{trackingNumber}`); one already ReadyToDispatch or past it answers its state and is not moved.
 */
export const dispatch = Effect.fn("ZrExpressNew.dispatch")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(trackingNumber) }).pipe(
    Effect.flatMap((response) => Effect.fromResult(Mapping.fromTrackedParcel(trackingNumber, response)))
  )
  const step = yield* Effect.fromResult(Mapping.dispatchStep(parcel.state.name))
  if (step !== "move") return step
  yield* toReady(credentials, parcel.id, yield* readyStateOf(credentials))
  return { rawStatus: Status.readyToDispatch }
})

export const track = Effect.fn("ZrExpressNew.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(trackingNumber) }).pipe(
    Effect.flatMap((response) => Effect.fromResult(Mapping.fromTrackedParcel(trackingNumber, response)))
  )
  const history = yield* send(credentials, { method: "GET", path: `${Mapping.parcelPath(parcel.id)}/state-history` })
  return yield* Effect.fromResult(Mapping.fromStateHistory(parcel, history))
})

export const rates = Effect.fn("ZrExpressNew.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  // A commune has its own price when the table lists it; finding its row takes its territory UUIDs.
  const destination = query.toCommune === undefined ? {} : yield* placesOf(credentials, query.toWilaya, query.toCommune)
  const response = yield* send(credentials, { method: "GET", path: "/api/v1/delivery-pricing/rates" })
  return yield* Effect.fromResult(Mapping.fromRates(query, destination, response))
})

/**
 * The label: `POST parcels/labels/individual/pdf` for the parcel's file, then that file, a PDF behind a pre-signed
 * link on ZR's storage host (a document host the manifest declares): fetched by a bare GET, without the key or
 * tenant, and never handed out (the link's signature is a credential until it expires).
 */
export const label = Effect.fn("ZrExpressNew.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const files = yield* send(credentials, {
    method: "POST",
    path: "/api/v1/parcels/labels/individual/pdf",
    json: Mapping.toLabels(trackingNumber)
  })
  const file = yield* Effect.fromResult(Mapping.fromLabelFiles(trackingNumber, files))
  const http = yield* CourierHttp.CourierHttp
  return yield* Effect.fromResult(Mapping.fromLabelFile(yield* http.request(file)))
})

/**
 * The pickup points of a wilaya: its territory (cached), then every hub (`POST hubs/search`, paged), those that are
 * pickup points with their address in that territory. A wilaya the platform does not list has none.
 */
export const stopDesks = Effect.fn("ZrExpressNew.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const city = Mapping.findWilaya(yield* wilayaTerritories(credentials), wilaya)
  if (city === undefined) return []
  const hubs = yield* searchAll(credentials, "/api/v1/hubs/search", Mapping.hubsSearch, Mapping.fromHubs)
  return Mapping.desksOf(hubs, city, wilaya)
})

/** A wilaya's communes: the commune territories create looks names up in (`territories/search`, cached). */
export const communes = Effect.fn("ZrExpressNew.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const city = Mapping.findWilaya(yield* wilayaTerritories(credentials), wilaya)
  if (city === undefined) return []
  return Mapping.communesOf(yield* communeTerritories(credentials, city.id))
})

/**
 * `DELETE parcels/{id}`: the parcel's UUID is read first (`GET parcels/{trackingNumber}`, as `track` reads it; an
 * unknown number is refused there). The platform's 409 (the parcel is past deleting) is `NotCancellable`.
 */
export const cancel = Effect.fn("ZrExpressNew.cancel")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(trackingNumber) }).pipe(
    Effect.flatMap((response) => Effect.fromResult(Mapping.fromTrackedParcel(trackingNumber, response)))
  )
  const response = yield* send(credentials, { method: "DELETE", path: Mapping.parcelPath(parcel.id) })
  return yield* Effect.fromResult(Mapping.fromDeleted(response))
})

/** One workflow, one page (`POST workflows/search`, courier-dz's credentials test): reads, creates nothing. */
export const checkCredentials = Effect.fn("ZrExpressNew.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/api/v1/workflows/search",
    json: Mapping.credentialsProbe
  })
  return yield* Effect.fromResult(Mapping.fromCredentialsProbe(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "zrexpress_new",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  operations: { create, dispatch, track, rates, label, cancel, stopDesks, communes, checkCredentials },
  push: Push.push
})
