/**
 * Elogistia (`https://api.elogistia.com/<endpoint>/`): one courier, one API, every field in the query string — the
 * merchant's API key too, named `apiKey` on parcel operations and `key` on catalogue reads. A parcel is created in
 * one call (`insertCommande/`), tracked from its history (`getTracking/`), priced from the per-wilaya price list
 * (`getShippingCost/`) and labelled 10×15 cm (`printBordereau_10x15/`); up to 100 are tracked in one call
 * (`getManyTracking/`), one is cancelled with `deleteOrder/`, desks come from `getAgences/`, communes from
 * `getMunicipalities/`, and `getWilayas/` checks the key.
 *
 * The API demands the key in the URL, so this is the one module that puts it there, at the moment of the request
 * ({@link send}); nothing else ever holds it unredacted. The host never logs request URLs, blanks the caller's
 * credentials out of every answer and failure, and never follows a redirect; the mapping never quotes a key value
 * from the courier's words. Tests prove it with a canary key, through the app.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Effect, Redacted, Result, Schema } from "effect"
import * as Mapping from "./ElogistiaMapping.ts"
import * as Status from "./ElogistiaStatus.ts"

/**
 * The merchant's API key, from the Elogistia dashboard, named as the public dzship client names it. No format is
 * documented (integrations show 32 to 64 letters and digits): 8–512 letters, digits, `-`, `_` or `.`, so that it
 * is one query value needing no escaping, written the same way in the URL as in the caller's request.
 */
export const Credentials = Schema.Struct({
  apiKey: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 512, { message: "Expected an Elogistia API key of 8 to 512 characters" }),
      Schema.isPattern(/^[A-Za-z0-9._-]+$/, {
        message: "Expected an Elogistia API key of letters, digits, '-', '_' or '.'"
      })
    )
  )
})
export type Credentials = typeof Credentials.Type

export const origin = "https://api.elogistia.com"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "elogistia", name: "Elogistia", aliases: [], endpoint: { origin } }
]

/**
 * The courier's documented limit ("Taux limite" in its Postman collection, as a public integration quotes it: 100
 * requests a minute), taken to be per API key; the core paces every request of an account under it.
 */
export const rateLimits = [{ limit: 100, window: "1 minute" }] as const

/** Which query parameter carries the key: `apiKey` on parcel operations, `key` on catalogue reads. */
type KeyParameter = "apiKey" | "key"

/**
 * One call, the key in the query parameter the endpoint expects. The key is taken out of its `Redacted` here and
 * nowhere else; the request holds it only on its way to the transport.
 */
const send = (
  credentials: Credentials,
  keyParameter: KeyParameter,
  request: {
    readonly method: "GET" | "POST"
    readonly path: `/${string}/`
    readonly query: Readonly<Record<string, string>>
  }
) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      method: request.method,
      path: request.path,
      query: { ...request.query, [keyParameter]: Redacted.value(credentials.apiKey) },
      headers: { accept: "application/json" }
    })
  )

export const create = Effect.fn("Elogistia.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, "apiKey", {
    method: "POST",
    path: "/insertCommande/",
    query: Mapping.query(Mapping.toInsertCommande(order))
  })
  return yield* Effect.fromResult(Mapping.fromInserted(response))
})

export const track = Effect.fn("Elogistia.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, "apiKey", {
    method: "GET",
    path: "/getTracking/",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromTracking(trackingNumber, response))
})

export const rates = Effect.fn("Elogistia.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  const response = yield* send(credentials, "key", { method: "GET", path: "/getShippingCost/", query: {} })
  return yield* Effect.fromResult(Mapping.fromShippingCost(query, response))
})

export const label = Effect.fn("Elogistia.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, "apiKey", {
    method: "GET",
    path: "/printBordereau_10x15/",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

/**
 * Up to 100 parcels in one call: `getManyTracking/?tracking=a,b,c` answers each known parcel with its history; a
 * number the courier does not know is left out.
 */
export const trackBatch = Effect.fn("Elogistia.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const asked = yield* Effect.fromResult(Mapping.checkBatch(trackingNumbers))
  if (asked.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  const response = yield* send(credentials, "apiKey", {
    method: "GET",
    path: "/getManyTracking/",
    query: Mapping.batchQuery(asked)
  })
  return yield* Effect.fromResult(Mapping.fromManyTracking(asked, response))
})

/**
 * `deleteOrder/?tracking=`. A refusal is told apart by the parcel's history, read just after it
 * ({@link Mapping.whyNotCancelled}): past pickup, it is `NotCancellable` in the courier's words; otherwise it stays
 * what the courier said.
 */
export const cancel = Effect.fn("Elogistia.cancel")(function* (
  trackingNumber: string,
  context: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(context.credentials, "apiKey", {
    method: "GET",
    path: "/deleteOrder/",
    query: { tracking: trackingNumber }
  })
  const deleted = Mapping.fromDeleted(response)
  if (Result.isSuccess(deleted)) return
  if (deleted.failure._tag !== "Refused") return yield* Effect.fail(deleted.failure)
  const history = yield* Effect.result(track(trackingNumber, context))
  return yield* Effect.fail(Mapping.whyNotCancelled(deleted.failure, history))
})

/** The stop-desk agencies of `getAgences/?type=2` that are in the wilaya. */
export const stopDesks = Effect.fn("Elogistia.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, "key", {
    method: "GET",
    path: "/getAgences/",
    query: Mapping.agenciesQuery
  })
  const agencies = yield* Effect.fromResult(Mapping.fromAgencies(response))
  return Mapping.desksOf(wilaya, agencies)
})

/** `getMunicipalities/?wilaya=`, each commune flagged with a desk when `getAgences/` lists one in it. */
export const communes = Effect.fn("Elogistia.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  context: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(context.credentials, "key", {
    method: "GET",
    path: "/getMunicipalities/",
    query: Mapping.municipalitiesQuery(wilaya)
  })
  const desks = yield* stopDesks(wilaya, context)
  return yield* Effect.fromResult(Mapping.fromMunicipalities(wilaya, response, desks))
})

/** The cheapest read: `getWilayas/` (courier-dz's and the integrations' own credential test). Creates nothing. */
export const checkCredentials = Effect.fn("Elogistia.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, "key", { method: "GET", path: "/getWilayas/", query: {} })
  return yield* Effect.fromResult(Mapping.fromWilayas(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "elogistia",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  rateLimits,
  operations: { create, track, rates, label, cancel, trackBatch, stopDesks, communes, checkCredentials }
})
