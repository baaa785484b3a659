/**
 * Maystro Delivery: one courier on its own Django REST API (`https://backend.maystro-delivery.com/api/…`). Maystro
 * takes the destination commune as its own numeric id, so `create` and `rates` first look the caller's commune name
 * up in Maystro's list for the wilaya (`shared/communes/`), kept for a day by {@link make}'s cache. Maystro refuses a
 * second order for the same customer name and phone on the same day; that refusal reaches the caller as Maystro
 * words it (README "Duplicates"). Also: the communes of a wilaya (the same cached list), cancel (`PATCH
 * shared/status/{id}/` to 50, refused past pickup) and the key check (`shared/wilayas/`). The caller's API key travels
 * as `Authorization: Token <key>` (DRF's scheme, not Bearer) and is never put in an error message. Maystro's webhooks
 * (its orders' JSON, base64-encoded twice) are read by `push` (MaystroPush.ts).
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Duration, Effect, Redacted, Result, Schema } from "effect"
import * as CommuneCache from "./internal/CommuneCache.ts"
import * as Mapping from "./MaystroMapping.ts"
import * as Push from "./MaystroPush.ts"
import * as Status from "./MaystroStatus.ts"

/**
 * The caller's Maystro API key (`apiKey`, as the dzship catalogue names it). DRF tokens are 40 hex characters; no
 * length is documented, so 10–512 visible ASCII characters, so that it can only ever be one header value.
 */
export const Credentials = Schema.Struct({
  apiKey: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(10, 512, { message: "Expected a Maystro API key of 10 to 512 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, { message: "Expected a Maystro API key without spaces or control characters" })
    )
  )
})
export type Credentials = typeof Credentials.Type

export const origin = "https://backend.maystro-delivery.com"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "maystro", name: "Maystro Delivery", aliases: ["maystro_delivery"], endpoint: { origin } }
]

/** How long a wilaya's commune list is kept: ids change only with the territorial division. */
export const COMMUNES_TTL = Duration.hours(24)

/** One call to Maystro with the caller's key (the core blanks it out of any answer that echoes it). */
const send = (apiKey: Redacted.Redacted<string>, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: { accept: "application/json", authorization: `Token ${Redacted.value(apiKey)}` }
    })
  )

/** The adapter, with its own commune cache (tests make fresh ones; the host loads {@link adapter}). */
export const make = (options: { readonly communesTtl?: Duration.Input } = {}) => {
  const cache = CommuneCache.make(options.communesTtl ?? COMMUNES_TTL)

  /** The wilaya's communes with Maystro's ids, from the cache or from `shared/communes/`. */
  const communesOf = (apiKey: Redacted.Redacted<string>, wilaya: number) =>
    cache.get(
      wilaya,
      send(apiKey, { method: "GET", path: "/api/shared/communes/", query: Mapping.communesQuery(wilaya) }).pipe(
        Effect.flatMap((response) => Effect.fromResult(Mapping.fromCommunes(response)))
      )
    )

  const create = Effect.fn("Maystro.create")(function* (
    order: Shipment.ParcelOrder,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    yield* Effect.fromResult(Mapping.checkOrder(order))
    const { wilayaCode, communeName } = order.recipient
    const communes = yield* communesOf(credentials.apiKey, wilayaCode)
    const commune = yield* Effect.fromResult(Mapping.communeIdOf(communes, communeName, wilayaCode))
    const created = yield* send(credentials.apiKey, {
      method: "POST",
      path: "/api/stores/orders/",
      json: Mapping.toCreateOrder(order, commune)
    })
    return yield* Effect.fromResult(Mapping.fromCreated(created))
  })

  const track = Effect.fn("Maystro.track")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const id = yield* Effect.fromResult(Mapping.orderId(trackingNumber))
    const response = yield* send(credentials.apiKey, { method: "GET", path: `/api/stores/history_order/${id}` })
    return yield* Effect.fromResult(Mapping.fromHistory(response))
  })

  const rates = Effect.fn("Maystro.rates")(function* (
    query: Shipment.RatesQuery,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const communes = yield* communesOf(credentials.apiKey, query.toWilaya)
    // Prices are per commune; without one, the wilaya's first commune stands for all (README "Unverified").
    const commune = yield* Effect.fromResult(
      query.toCommune === undefined
        ? Mapping.firstCommuneOf(communes, query.toWilaya)
        : Mapping.communeIdOf(communes, query.toCommune, query.toWilaya)
    )
    // One price per option, one after the other: Maystro prices one option per call.
    const prices = yield* Effect.forEach(Mapping.priceOptions, ([deliveryType, tier]) =>
      send(credentials.apiKey, {
        method: "GET",
        path: "/api/stores/delivery_price/",
        query: Mapping.priceQuery(commune, deliveryType, tier)
      }).pipe(
        Effect.flatMap((response) => Effect.fromResult(Mapping.fromPrice(response))),
        Effect.map((price) => [deliveryType, tier, price] as const)
      )
    )
    return yield* Effect.fromResult(Mapping.toRates(query, prices))
  })

  const label = Effect.fn("Maystro.label")(function* (
    trackingNumber: string,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const id = yield* Effect.fromResult(Mapping.orderId(trackingNumber))
    const response = yield* send(credentials.apiKey, {
      method: "POST",
      path: "/api/delivery/starter/v2/starter_bordureau/",
      json: Mapping.labelRequest(id)
    })
    return yield* Effect.fromResult(Mapping.fromLabel(response))
  })

  /**
   * `PATCH shared/status/{id}/` to 50 (aborted), as courier-dz cancels. A refusal is told apart by the order's
   * history, read just after it ({@link Mapping.whyNotCancelled}): past pickup, it is `NotCancellable` in Maystro's
   * words; otherwise it stays what Maystro said.
   */
  const cancel = Effect.fn("Maystro.cancel")(function* (
    trackingNumber: string,
    context: CourierAdapter.Context<Credentials>
  ) {
    const id = yield* Effect.fromResult(Mapping.orderId(trackingNumber))
    const response = yield* send(context.credentials.apiKey, {
      method: "PATCH",
      path: `/api/shared/status/${id}/`,
      json: Mapping.abortRequest
    })
    const aborted = Mapping.fromAborted(response)
    if (Result.isSuccess(aborted)) return
    if (aborted.failure._tag !== "Refused") return yield* Effect.fail(aborted.failure)
    const history = yield* Effect.result(track(trackingNumber, context))
    return yield* Effect.fail(Mapping.whyNotCancelled(aborted.failure, history))
  })

  /** `GET shared/communes/?wilaya=` (the cache `create` reads): Maystro's spelling, with its ids. */
  const communes = Effect.fn("Maystro.communes")(function* (
    wilaya: WilayaCode.WilayaCode,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    return Mapping.toCourierCommunes(yield* communesOf(credentials.apiKey, wilaya))
  })

  /**
   * `GET shared/wilayas/?country=1`, courier-dz's key test (README "Unverified": another source reads
   * `base/wilayas/`). Creates nothing.
   */
  const checkCredentials = Effect.fn("Maystro.checkCredentials")(function* (
    // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
    _: void,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const response = yield* send(credentials.apiKey, {
      method: "GET",
      path: "/api/shared/wilayas/",
      query: Mapping.wilayasQuery
    })
    return yield* Effect.fromResult(Mapping.fromWilayas(response))
  })

  return CourierAdapter.define<Credentials>({
    platform: "maystro",
    couriers,
    credentials: Credentials,
    statuses: Status.statuses,
    operations: { create, track, rates, label, cancel, communes, checkCredentials },
    push: Push.push
  })
}

export const adapter = make()
