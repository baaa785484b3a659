/**
 * MDM Express: one courier on its own JSON API (`https://api.mdm.express/api/…`), reached with the merchant's key in
 * an `x-api-key` header. MDM takes the destination commune as its own city id, so `create` first looks the caller's
 * commune name up in MDM's cities of the wilaya (`api/geo/cities`), kept per account for a day by {@link make}'s
 * cache. An order is tracked by the tracking id create answers (`api/v2/orders/{t}/status-history`), and labelled
 * through the parcel MDM made for it: the order names the parcel, `api/prints/parcel-slips` prints its slip, and
 * `api/prints/files/{fileId}` answers the PDF. MDM documents no price endpoint, so there is no `rates`: the host
 * answers 400 `unsupported` without a request. The reference reads: `stopDesks` (`api/v2/shipping/companies/offices`,
 * placed by their city among the wilaya's cities), `communes` (the cities, with whether an office is in each) and
 * `checkCredentials` (`api/geo/countries`). No cancel or batch tracking endpoint is documented: neither is declared.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Duration, Effect, Redacted, Schema } from "effect"
import * as CityCache from "./internal/CityCache.ts"
import * as Mapping from "./MdmMapping.ts"
import * as Status from "./MdmStatus.ts"

/**
 * The caller's MDM API key (`apiKey`, as the dzship catalogue names it). No format is documented, so 8–512 visible
 * ASCII characters: it can only ever be one header value.
 */
export const Credentials = Schema.Struct({
  apiKey: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 512, { message: "Expected an MDM API key of 8 to 512 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, { message: "Expected an MDM API key without spaces or control characters" })
    )
  )
})
export type Credentials = typeof Credentials.Type

export const origin = "https://api.mdm.express"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "mdm", name: "MDM Express", aliases: [], endpoint: { origin } }
]

/**
 * No limit is documented: this is a conservative guess (README "Unverified"), one request a second on average,
 * that a merchant's creates and tracks stay well within.
 */
export const rateLimits = [{ limit: 60, window: "1 minute" }] as const

/** How long a wilaya's cities are kept: ids change only with the territorial division. */
export const CITIES_TTL = Duration.hours(24)

/** How many (account, wilaya) lists are kept at most; the oldest goes first. */
export const CITIES_CAPACITY = 2_000

/** One call to MDM with the caller's key (the core blanks it out of any answer that echoes it). */
const send = (apiKey: Redacted.Redacted<string>, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({ ...request, headers: { accept: "application/json", "x-api-key": Redacted.value(apiKey) } })
  )

/** The adapter, with its own city cache (tests make fresh ones; the host loads {@link adapter}). */
export const make = (
  options: { readonly citiesTtl?: Duration.Input; readonly cache?: CityCache.CityCache | undefined } = {}
) => {
  const cache = options.cache ?? CityCache.make({ ttl: options.citiesTtl ?? CITIES_TTL, capacity: CITIES_CAPACITY })

  /** The wilaya's cities with MDM's ids, from the cache or from `api/geo/cities`. */
  const citiesOf = (apiKey: Redacted.Redacted<string>, wilaya: number) =>
    cache.get(
      apiKey,
      wilaya,
      send(apiKey, { method: "GET", path: "/api/geo/cities", query: Mapping.citiesQuery(wilaya) }).pipe(
        Effect.flatMap((response) => Effect.fromResult(Mapping.fromCities(response)))
      )
    )

  /** The order as MDM holds it: its status and the parcel it made. */
  const orderOf = (apiKey: Redacted.Redacted<string>, trackingId: string) =>
    send(apiKey, { method: "GET", path: `/api/v2/orders/${trackingId}` }).pipe(
      Effect.flatMap((response) => Effect.fromResult(Mapping.fromOrder(response)))
    )

  const create = Effect.fn("Mdm.create")(function* (
    order: Shipment.ParcelOrder,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    yield* Effect.fromResult(Mapping.checkOrder(order))
    const { wilayaCode, communeName } = order.recipient
    const cities = yield* citiesOf(credentials.apiKey, wilayaCode)
    const cityId = yield* Effect.fromResult(Mapping.cityIdOf(cities, communeName, wilayaCode))
    const created = yield* send(credentials.apiKey, {
      method: "POST",
      path: "/api/v2/orders",
      json: Mapping.toCreateOrder(order, cityId)
    })
    return yield* Effect.fromResult(Mapping.fromCreated(created))
  })

  const track = Effect.fn("Mdm.track")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const trackingId = yield* Effect.fromResult(Mapping.trackingIdOf(trackingNumber))
    const response = yield* send(credentials.apiKey, {
      method: "GET",
      path: `/api/v2/orders/${trackingId}/status-history`
    })
    const events = yield* Effect.fromResult(Mapping.fromHistory(response))
    if (events.length > 0) return events
    // An order whose history is still empty has a status all the same: the order itself says it.
    return yield* Effect.fromResult(Mapping.currentEvent(yield* orderOf(credentials.apiKey, trackingId)))
  })

  const label = Effect.fn("Mdm.label")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const trackingId = yield* Effect.fromResult(Mapping.trackingIdOf(trackingNumber))
    const parcel = yield* Effect.fromResult(Mapping.parcelOf(yield* orderOf(credentials.apiKey, trackingId)))
    const printed = yield* send(credentials.apiKey, {
      method: "POST",
      path: "/api/prints/parcel-slips",
      json: Mapping.slipRequest(parcel)
    })
    const fileId = yield* Effect.fromResult(Mapping.fromSlip(printed))
    const file = yield* send(credentials.apiKey, { method: "GET", path: `/api/prints/files/${fileId}` })
    return yield* Effect.fromResult(Mapping.fromLabelFile(file))
  })

  /** Every office MDM lists (`api/v2/shipping/companies/offices`); no wilaya filter is documented. */
  const officesOf = (apiKey: Redacted.Redacted<string>) =>
    send(apiKey, { method: "GET", path: "/api/v2/shipping/companies/offices", query: Mapping.officesQuery }).pipe(
      Effect.flatMap((response) => Effect.fromResult(Mapping.fromOffices(response)))
    )

  /**
   * The offices of a wilaya: its cities (the cache create uses, else `api/geo/cities`), then the offices, kept where
   * their city is one of them. A wilaya MDM lists no city of has none, asked in one call.
   */
  const stopDesks = Effect.fn("Mdm.stopDesks")(function* (
    wilaya: WilayaCode.WilayaCode,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const cities = yield* citiesOf(credentials.apiKey, wilaya)
    if (cities.length === 0) return []
    return Mapping.toStopDesks(wilaya, cities, yield* officesOf(credentials.apiKey))
  })

  /** The wilaya's cities in MDM's spelling, with their ids; an office in a city makes it a desk commune. */
  const communes = Effect.fn("Mdm.communes")(function* (
    wilaya: WilayaCode.WilayaCode,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const cities = yield* citiesOf(credentials.apiKey, wilaya)
    if (cities.length === 0) return []
    return Mapping.toCommunes(cities, yield* officesOf(credentials.apiKey))
  })

  /** `GET api/geo/countries`: the shortest list MDM documents (one country); creates nothing, caches nothing. */
  const checkCredentials = Effect.fn("Mdm.checkCredentials")(function* (
    // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's `Operation<void, …>`: the check takes no input
    _: void,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const response = yield* send(credentials.apiKey, { method: "GET", path: "/api/geo/countries" })
    return yield* Effect.fromResult(Mapping.fromCountries(response))
  })

  return CourierAdapter.define<Credentials>({
    platform: "mdm",
    couriers,
    credentials: Credentials,
    statuses: Status.statuses,
    rateLimits,
    operations: { create, track, label, stopDesks, communes, checkCredentials }
  })
}

export const adapter = make()
