/**
 * Mylerz (Algeria): one courier on its ASP.NET Web API (`https://integration.algeria.mylerz.net`), reached with a
 * bearer token that an OAuth password grant (`POST /token`, the merchant's username and password) issues. The token
 * is kept per account (a digest of the username and password, never the credentials) until it expires, less a
 * minute; a call refused with a kept token (401) drops it, logs in once more and is sent again — a request refused at
 * the door was not processed, so even a create is safe to repeat — while a call refused right after a login fails
 * with the refusal. Mylerz takes the destination as its city (the wilaya) and zone (the commune) codes, so `create`
 * first reads its cities and zones (`api/packages/GetCityZoneList`, kept per account for a day). Parcels are tracked
 * one or many at a time by barcode (`api/packages/TrackPackages`, their histories), cancelled
 * (`api/packages/CancelPackage`) and labelled (`api/packages/GetAWB`, the PDF's bytes). Mylerz documents no desks and
 * no price endpoint: neither `stopDesks` nor `rates` is declared, and the host answers 400 `unsupported` without a
 * request. `checkCredentials` is a login.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { AlgiersTime, type WilayaCode } from "@tawsil/domain"
import { DateTime, Duration, Effect, Redacted, Schema } from "effect"
import * as AccountCache from "./internal/AccountCache.ts"
import * as Mapping from "./MylerzMapping.ts"
import * as Status from "./MylerzStatus.ts"
import type * as Wire from "./MylerzWire.ts"

const field = (what: string) =>
  Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(1, 200, { message: `Expected a Mylerz ${what} of 1 to 200 characters` }),
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      Schema.isPattern(/^[^\u0000-\u001f\u007f]+$/, {
        message: `Expected a Mylerz ${what} without control characters`
      })
    )
  )

/** The merchant's Mylerz username and password, as its official plugin asks for them. */
export const Credentials = Schema.Struct({ username: field("username"), password: field("password") })
export type Credentials = typeof Credentials.Type

export const origin = "https://integration.algeria.mylerz.net"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "mylerz", name: "Mylerz", aliases: ["mylerz_dz", "mylerz_express"], endpoint: { origin } }
]

/**
 * No limit is documented: this is a conservative guess (README "Unverified"), one request a second on average,
 * logins included.
 */
export const rateLimits = [{ limit: 60, window: "1 minute" }] as const

/** How long an account's cities and zones are kept: codes change only with the territorial division. */
export const CITIES_TTL = Duration.hours(24)

/** How many accounts' tokens, and cities, are kept at most; the oldest goes first. */
export const CAPACITY = 2_000

interface Kept {
  readonly token: Redacted.Redacted<string>
  readonly keepMillis: number
}

/** When Mylerz may collect a parcel created now: the next day, in Algiers time. */
const pickupDueDate = Effect.map(AlgiersTime.now, (now) => AlgiersTime.formatIso(DateTime.add(now, { days: 1 })))

/** The adapter, with its own token and city caches (tests make fresh ones; the host loads {@link adapter}). */
export const make = (options: { readonly citiesTtl?: Duration.Input } = {}) => {
  const tokens = AccountCache.make<Kept>({ ttlOf: (kept) => kept.keepMillis, capacity: CAPACITY })
  const citiesTtl = Duration.toMillis(Duration.fromInputUnsafe(options.citiesTtl ?? CITIES_TTL))
  const cities = AccountCache.make<ReadonlyArray<Wire.City>>({ ttlOf: () => citiesTtl, capacity: CAPACITY })

  const accountOf = (credentials: Credentials) => AccountCache.digest(credentials.username, credentials.password)

  /** `POST /token`: a new token for the account. */
  const login = (credentials: Credentials) =>
    Effect.flatMap(CourierHttp.CourierHttp, (http) =>
      http.request({
        method: "POST",
        path: "/token",
        headers: { accept: "application/json" },
        form: Mapping.tokenForm(Redacted.value(credentials.username), Redacted.value(credentials.password))
      })
    ).pipe(
      Effect.flatMap((response) => Effect.fromResult(Mapping.fromToken(response))),
      Effect.map(({ token, keepMillis }): Kept => ({ token: Redacted.make(token), keepMillis }))
    )

  /**
   * One API call with the account's token: the kept one, else a login's. Refused (401) with a kept token, the token
   * is dropped and the call sent once more with a new one; refused right after a login, the refusal stands.
   */
  const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
    Effect.gen(function* () {
      const http = yield* CourierHttp.CourierHttp
      const account = accountOf(credentials)
      const withToken = (kept: Kept) =>
        http.request({
          ...request,
          headers: { accept: "application/json", authorization: `Bearer ${Redacted.value(kept.token)}` }
        })
      const first = yield* tokens.get(account, login(credentials))
      const response = yield* withToken(first.value)
      if (response.status !== 401 || first.fresh) return response
      yield* tokens.drop(account, first.value)
      const renewed = yield* tokens.get(account, login(credentials))
      return yield* withToken(renewed.value)
    })

  /** Every city Mylerz serves with its zones, from the cache or from `GetCityZoneList`. */
  const citiesOf = (credentials: Credentials) =>
    Effect.map(
      cities.get(
        accountOf(credentials),
        send(credentials, { method: "GET", path: "/api/packages/GetCityZoneList" }).pipe(
          Effect.flatMap((response) => Effect.fromResult(Mapping.fromCities(response)))
        )
      ),
      ({ value }) => value
    )

  /** The histories of some barcodes, in one `TrackPackages` call. */
  const histories = (credentials: Credentials, barcodes: ReadonlyArray<string>) =>
    send(credentials, {
      method: "POST",
      path: "/api/packages/TrackPackages",
      json: Mapping.barcodesBody(barcodes)
    }).pipe(Effect.flatMap((response) => Effect.fromResult(Mapping.fromTracked(response))))

  const create = Effect.fn("Mylerz.create")(function* (
    order: Shipment.ParcelOrder,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    yield* Effect.fromResult(Mapping.checkOrder(order))
    const { wilayaCode, communeName } = order.recipient
    const { city, zone } = yield* Effect.fromResult(
      Mapping.zoneOf(Mapping.cityOf(yield* citiesOf(credentials), wilayaCode), communeName, wilayaCode)
    )
    const created = yield* send(credentials, {
      method: "POST",
      path: "/api/Orders/AddOrders",
      json: [Mapping.toOrder(order, city, zone, yield* pickupDueDate)]
    })
    return yield* Effect.fromResult(Mapping.fromCreated(created))
  })

  const track = Effect.fn("Mylerz.track")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const barcode = yield* Effect.fromResult(Mapping.barcodeOf(trackingNumber))
    return yield* Effect.fromResult(Mapping.trackedOne(yield* histories(credentials, [barcode]), barcode))
  })

  /** Up to 100 barcodes in one `TrackPackages` call; a number that is no barcode is left out, unsent. */
  const trackBatch = Effect.fn("Mylerz.trackBatch")(function* (
    trackingNumbers: ReadonlyArray<string>,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const barcodes = [...new Set(trackingNumbers.filter((number) => Mapping.barcodeOf(number)._tag === "Success"))]
    if (barcodes.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    const found = yield* histories(credentials, barcodes)
    return new Map([...found].filter(([barcode]) => barcodes.includes(barcode)))
  })

  const cancel = Effect.fn("Mylerz.cancel")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const barcode = yield* Effect.fromResult(Mapping.barcodeOf(trackingNumber))
    const response = yield* send(credentials, {
      method: "POST",
      path: "/api/packages/CancelPackage",
      json: Mapping.barcodesBody([barcode])
    })
    return yield* Effect.fromResult(Mapping.fromCancelled(response))
  })

  const label = Effect.fn("Mylerz.label")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const barcode = yield* Effect.fromResult(Mapping.barcodeOf(trackingNumber))
    const response = yield* send(credentials, {
      method: "POST",
      path: "/api/packages/GetAWB",
      json: { Barcode: barcode }
    })
    return yield* Effect.fromResult(Mapping.fromAwb(response))
  })

  /** The zones of the wilaya's city, as Mylerz names them, with their codes; none where it lists no city. */
  const communes = Effect.fn("Mylerz.communes")(function* (
    wilaya: WilayaCode.WilayaCode,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    return Mapping.toCommunes(Mapping.cityOf(yield* citiesOf(credentials), wilaya))
  })

  /** A login, which creates nothing; the token it gets is kept for the calls that follow. */
  const checkCredentials = Effect.fn("Mylerz.checkCredentials")(function* (
    // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's `Operation<void, …>`: the check takes no input
    _: void,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    yield* tokens.put(accountOf(credentials), yield* login(credentials))
  })

  return CourierAdapter.define<Credentials>({
    platform: "mylerz",
    couriers,
    credentials: Credentials,
    statuses: Status.statuses,
    rateLimits,
    operations: { create, track, trackBatch, cancel, label, communes, checkCredentials }
  })
}

export const adapter = make()
