/**
 * The Procolis platform (`https://procolis.com/api_v1/…`): the API of legacy ZR Express, also used by ABEX, Leopard,
 * Colilog and Flash Delivery, each merchant with their own token and key. One origin for all five couriers; the
 * caller's credentials decide whose account a call reaches. A parcel is created in one call, confirmed on the way
 * (`Confrimee` 1: straight to "prêt à expédier"); the answer comes on HTTP 200 either way, so `MessageRetour` decides.
 * Tracking reads the parcel's current situation (`lire`, one parcel or up to 100 in one call), prices come from
 * `tarification`, the credentials are checked through `token`. Procolis has no label, cancel, desk or commune
 * endpoint. The token and key travel as headers and never in an error message.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { Effect, Random, Redacted, Schema } from "effect"
import * as Mapping from "./ProcolisMapping.ts"
import * as Status from "./ProcolisStatus.ts"

const secret = (name: string) =>
  Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 512, { message: `Expected a Procolis ${name} of 8 to 512 characters` }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: `Expected a Procolis ${name} without spaces or control characters`
      })
    )
  )

/**
 * The merchant's Procolis API token and key (ZR's "Développement / API" page), named as the public dzship catalogue
 * names them. No length is documented (integrations show 64 and 32 hexadecimal characters): 8–512 visible ASCII
 * characters, so that each can only ever be one header value.
 */
export const Credentials = Schema.Struct({ token: secret("token"), key: secret("key") })
export type Credentials = typeof Credentials.Type

/** Every Procolis courier is reached at the same origin; the credentials pick the account. */
export const origin = "https://procolis.com"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "zrexpress", name: "ZR Express", aliases: [], endpoint: { origin } },
  { key: "abex", name: "ABEX Express", aliases: ["abexexpress"], endpoint: { origin } },
  { key: "leopard_express", name: "Leopard Express", aliases: ["leopardexpress"], endpoint: { origin } },
  { key: "colilog", name: "Colilog Express", aliases: [], endpoint: { origin } },
  { key: "flash_delivery", name: "Flash Delivery", aliases: ["flashdelivery"], endpoint: { origin } }
]

/**
 * Whether `add_colis` confirms the parcel itself (`Confrimee` 1, as CourierDZ, courier-dz and dzship describe it)
 * or leaves it "en préparation" for a `pret` call (courier-dz only). The README lists this under "Unverified".
 */
export const CONFIRM_ON_CREATE = true

/**
 * One call to the courier with the token and key headers (the core blanks them out of any answer that echoes
 * them).
 */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        accept: "application/json",
        token: Redacted.value(credentials.token),
        key: Redacted.value(credentials.key)
      }
    })
  )

/** A fresh tracking number: Procolis lets the sender choose it, and refuses a second parcel with the same one. */
const newTracking = Effect.map(
  Effect.forEach(Array.from({ length: Mapping.TRACKING_SYMBOLS }), () =>
    Random.nextIntBetween(0, 36, { halfOpen: true })
  ),
  Mapping.trackingFrom
)

/** The create flow, with the confirmation inside `add_colis` or as a separate `pret` call. */
export const createWith = (options: { readonly confirmOnCreate: boolean }) =>
  Effect.fn("Procolis.create")(function* (
    order: Shipment.ParcelOrder,
    { credentials }: CourierAdapter.Context<Credentials>
  ) {
    const tracking = yield* newTracking
    const added = yield* send(credentials, {
      method: "POST",
      path: "/api_v1/add_colis",
      json: Mapping.toAddColis(Mapping.toColis(order, tracking, { confirmed: options.confirmOnCreate }))
    })
    yield* Effect.fromResult(Mapping.fromColisResults(tracking, added))
    if (!options.confirmOnCreate) {
      yield* send(credentials, { method: "POST", path: "/api_v1/pret", json: Mapping.trackingList(tracking) }).pipe(
        Effect.flatMap((confirmed) => Effect.fromResult(Mapping.fromColisResults(tracking, confirmed))),
        Effect.mapError((reason) => Mapping.notConfirmed(tracking, reason))
      )
    }
    return { trackingNumber: tracking, rawStatus: Status.confirmed }
  })

export const create = createWith({ confirmOnCreate: CONFIRM_ON_CREATE })

export const track = Effect.fn("Procolis.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/api_v1/lire",
    json: Mapping.trackingList(trackingNumber)
  })
  return yield* Effect.fromResult(Mapping.fromLire(trackingNumber, response))
})

export const rates = Effect.fn("Procolis.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  const response = yield* send(credentials, { method: "POST", path: "/api_v1/tarification", json: {} })
  return yield* Effect.fromResult(Mapping.fromTarification(query, response))
})

/** `POST lire` with every asked parcel in one `Colis` list: a number the courier does not know is left out. */
export const trackBatch = Effect.fn("Procolis.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const asked = yield* Effect.fromResult(Mapping.checkBatch(trackingNumbers))
  if (asked.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  const response = yield* send(credentials, { method: "POST", path: "/api_v1/lire", json: Mapping.batchList(asked) })
  return yield* Effect.fromResult(Mapping.fromLireBatch(asked, response))
})

/** `GET token`: the platform's own credential test ("Accès activé"); creates nothing. */
export const checkCredentials = Effect.fn("Procolis.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/api_v1/token" })
  return yield* Effect.fromResult(Mapping.fromTokenStatus(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "procolis",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  operations: { create, track, rates, trackBatch, checkCredentials }
})
