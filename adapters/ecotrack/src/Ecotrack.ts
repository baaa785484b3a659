/**
 * The Ecotrack platform: one API (`/api/v1/…`) behind many couriers, each a tenant on its own origin. The generic
 * key `ecotrack` serves any `https://<tenant>.ecotrack.dz` the caller names in `options.baseUrl`; named tenants have
 * pinned origins. A parcel is created in two calls — `create/order`, then `valid/order`, without which the courier
 * never sees it; held undispatched, it is created without the second, which `dispatch` makes later. The caller's API token travels as `Authorization: Bearer` and as the `api_token` query parameter
 * on every call (some endpoints read only the latter), and is never put in an error message. Also: batch tracking
 * (`get/trackings/info`), desks and communes (`get/communes`), the token check (`validate/token`), and cancel
 * (`delete/order`), which Ecotrack allows only before validation: a parcel held undispatched. The documented 50
 * requests a minute per token is declared, for the core to pace every token under.
 */
import { CourierAdapter, type CourierError, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Effect, Redacted, Result, Schema } from "effect"
import * as Mapping from "./EcotrackMapping.ts"
import * as Status from "./EcotrackStatus.ts"

/**
 * The caller's Ecotrack API token. No length is documented (Laravel tokens are usually 60 characters): 10–512
 * visible ASCII characters, so that it can only ever be one header value.
 */
export const Credentials = Schema.Struct({
  token: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(10, 512, { message: "Expected an Ecotrack API token of 10 to 512 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: "Expected an Ecotrack API token without spaces or control characters"
      })
    )
  )
})
export type Credentials = typeof Credentials.Type

/** The tenant domain of the generic `ecotrack` key (the core checks `options.baseUrl` against it). */
export const tenantDomain = "ecotrack.dz"

/**
 * Said of a tenant whose host only courier-dz and uften give: two catalogues that share one origin (the "Vargo
 * census"), so in effect one source (research §2, §6.4).
 */
const oneSource = "Host from courier-dz and uften only, two catalogues with one common origin"

/** A named tenant, pinned to its origin. Keys are the dzship catalogue's; other spellings are aliases. */
const tenant = (
  key: string,
  name: string,
  origin: string,
  aliases: ReadonlyArray<string> = [],
  unverified: ReadonlyArray<string> = []
): CourierAdapter.CourierManifest => ({
  key,
  name,
  aliases,
  endpoint: { origin },
  ...(unverified.length > 0 ? { unverified } : {})
})

/** Said of a tenant no source gives a host for: pinned to the platform's pattern, as 75 of the 77 known tenants are. */
const fromPatternNote = (key: string) =>
  `Host from the platform's naming pattern (https://${key}.ecotrack.dz), unverified: no source publishes it; use ecotrack with options.baseUrl if it fails`

/** A tenant pinned to `https://<key>.ecotrack.dz`, the platform's naming pattern. */
const fromPattern = (key: string, name: string, aliases: ReadonlyArray<string>) =>
  tenant(key, name, `https://${key}.ecotrack.dz`, aliases, [fromPatternNote(key)])

/**
 * Every Ecotrack tenant of research §2 (§1.2 for the two on their own domains), after the generic key. Doubtful
 * hosts were resolved one way each (adapters/ecotrack/README.md "Unverified"); a caller whose tenant answers
 * elsewhere can use `ecotrack` with `options.baseUrl`.
 */
export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "ecotrack", name: "Ecotrack (any tenant)", aliases: [], endpoint: { tenantDomain } },
  tenant(
    "andersondelivery",
    "Anderson Delivery",
    "https://anderson-ecommerce.ecotrack.dz",
    ["anderson", "anderson_delivery"],
    ["Host anderson-ecommerce (courier-dz, its logo path, unrelated code) chosen over anderson (CourierDZ, uften)"]
  ),
  tenant("areex", "Areex", "https://areex.ecotrack.dz", ["areex_delivery"]),
  tenant("baconsult", "BA Consult", "https://bacexpress.ecotrack.dz", ["ba_consult", "bacexpress"]),
  tenant("conexlog", "Conexlog", "https://app.conexlog-dz.com"),
  tenant("coyoteexpress", "Coyote Express", "https://coyoteexpressdz.ecotrack.dz", ["coyote_express", "coyote"]),
  tenant(
    "dhd",
    "DHD",
    "https://platform.dhd-dz.com",
    ["dhd_livraison"],
    ["Pinned to platform.dhd-dz.com: dhd.ecotrack.dz (CourierDZ, uften) answers 301 there, turning POSTs into GETs"]
  ),
  tenant("distazero", "Distazero", "https://distazero.ecotrack.dz"),
  tenant("e48hrlivraison", "48Hr Livraison", "https://48hr.ecotrack.dz", ["e48hr", "e48hr_livraison"]),
  tenant("fretdirect", "FRET.Direct", "https://fret.ecotrack.dz", ["fret_direct"]),
  tenant("golivri", "GOLIVRI", "https://golivri.ecotrack.dz"),
  tenant("msmgo", "MSM Go", "https://msmgo.ecotrack.dz", ["msm_go"]),
  tenant("packers", "Packers", "https://packers.ecotrack.dz"),
  tenant("prest", "Prest", "https://prest.ecotrack.dz"),
  tenant("rblivraison", "RB Livraison", "https://rblivraison.ecotrack.dz", ["rb_livraison"]),
  tenant("rexlivraison", "Rex Livraison", "https://rex.ecotrack.dz", ["rex_livraison"]),
  tenant("rocketdelivery", "Rocket Delivery", "https://rocket.ecotrack.dz", ["rocket_delivery", "rocket"]),
  tenant("salvadelivery", "Salva Delivery", "https://salvadelivery.ecotrack.dz", ["salva_delivery"]),
  tenant("speeddelivery", "Speed Delivery", "https://speeddelivery.ecotrack.dz", ["speed_delivery"]),
  tenant("tslexpress", "TSL Express", "https://tsl.ecotrack.dz", ["tsl_express"]),
  tenant(
    "worldexpress",
    "WorldExpress",
    "https://worldexpress.ecotrack.dz",
    ["world_express"],
    ["Host worldexpress (CourierDZ, uften) chosen over world-express (courier-dz)"]
  ),
  tenant("swiftexpress", "Swift Express", "https://swift.ecotrack.dz", ["swift", "swift_express"]),
  tenant("allolivraison", "AlloLivraison", "https://allolivraison.ecotrack.dz", ["allo_livraison"], [oneSource]),
  tenant("samex", "Samex", "https://samex.ecotrack.dz", [], [oneSource]),
  tenant("sbl", "SBL Express", "https://sbl.ecotrack.dz", ["sbl_express"], [oneSource]),
  tenant("weeweedelivery", "Wee Wee Delivery", "https://weeweedelivery.ecotrack.dz", ["weewee_delivery"], [oneSource]),
  tenant("jaguar", "Jaguar Livraison", "https://jaguar.ecotrack.dz", ["jaguar_livraison"], [oneSource]),
  tenant("rj360express", "RJ 360 Express", "https://rj360express.ecotrack.dz", ["rj360_express"], [oneSource]),
  tenant("expediachrono", "Expedia Chrono", "https://expediachrono.ecotrack.dz", ["expedia_chrono"], [oneSource]),
  tenant(
    "marsexpress",
    "Mars Express",
    "https://marsexpress.ecotrack.dz",
    ["mars_express"],
    [oneSource, "Not in the dzship catalogue: key chosen in its spelling style"]
  ),
  tenant("lynx", "Lynx Express", "https://lynx.ecotrack.dz", ["lynx_express"], [oneSource]),
  tenant(
    "ecorapideexpress",
    "Eco Rapide Express",
    "https://ecorapide-express.ecotrack.dz",
    ["eco_rapide_express"],
    [oneSource]
  ),
  tenant("navexdelivery", "Navex Delivery", "https://navexdelivery.ecotrack.dz", ["navex_delivery"]),
  tenant("rmexpress", "RM Express", "https://rmexpress.ecotrack.dz", ["rm_express"], [oneSource]),
  tenant("rihalexpress", "Rihal Express", "https://rihalexpress.ecotrack.dz", ["rihal_express"], [oneSource]),
  tenant(
    "atlasexpress",
    "Atlas Express",
    "https://atlaexpress.ecotrack.dz",
    ["atlas_express"],
    [oneSource, "Host spelled atlaexpress (sic) by both sources"]
  ),
  tenant("boogi", "Boogi Technologie", "https://boogi.ecotrack.dz", [], [oneSource]),
  tenant("chronorex", "Chronorex Express", "https://chronorex.ecotrack.dz", ["chronorex_express"], [oneSource]),
  tenant("cirtaexpress", "Cirta Express", "https://cirtaexpress.ecotrack.dz", ["cirta_express"], [oneSource]),
  tenant("colireli", "ColiReli", "https://colireli.ecotrack.dz"),
  tenant("colizone", "Colizone", "https://colizone.ecotrack.dz", [], [oneSource]),
  tenant("gsecommerce", "GS Ecommerce", "https://gsecommerce.ecotrack.dz", ["gs_ecommerce"], [oneSource]),
  tenant("joexpress", "Jo Express", "https://joexpress.ecotrack.dz", ["jo_express"], [oneSource]),
  tenant("omexpress", "Om Courrier Express", "https://omexpress.ecotrack.dz", ["om_express"], [oneSource]),
  tenant("ontimeexpress", "On Time Express", "https://ontime.ecotrack.dz", ["on_time_express", "ontime"], [oneSource]),
  tenant("pdex", "PDEX (Package Delivery Express)", "https://pdex.ecotrack.dz"),
  tenant(
    "quickdeliverydz",
    "Quick Delivery DZ",
    "https://quickdelivery.ecotrack.dz",
    ["quick_delivery", "quickdelivery"],
    [oneSource]
  ),
  tenant("rsexpress", "RS Express", "https://rsexpress.ecotrack.dz", ["rs_express"], [oneSource]),
  tenant("rutaexpress", "Ruta Express", "https://rutaexpress.ecotrack.dz", ["ruta_express"], [oneSource]),
  tenant("tawsilstar", "Tawsil Star", "https://tawsil.ecotrack.dz", ["tawsil_star"], [oneSource]),
  tenant("univerdelivery", "Univer Delivery", "https://univerdelivery.ecotrack.dz", ["univer_delivery"], [oneSource]),
  tenant("vitrans", "Vitrans", "https://vitrans.ecotrack.dz", [], [oneSource]),
  tenant("aranex", "Aranex", "https://aranex.ecotrack.dz", [], [oneSource]),
  tenant("bfkexpress", "BFK Express", "https://bfkexpress.ecotrack.dz", ["bfk_express"], [oneSource]),
  tenant(
    "hhdexpress",
    "HHD Express",
    "https://hhdexpress.ecotrack.dz",
    ["hdd_express", "hhd_express", "hddexpress"],
    [oneSource, "Key hhdexpress (dzship, DZBuild: HHD Express); courier-dz and uften spell the key hdd_express"]
  ),
  tenant("medexpress", "Med Express", "https://medexpress.ecotrack.dz", ["med_express"], [oneSource]),
  tenant("alania", "Alania Express", "https://alania.ecotrack.dz", ["alania_express"], [oneSource]),
  tenant(
    "championlogistics",
    "Champion Logistics",
    "https://champion.ecotrack.dz",
    ["champion_logistics", "champion"],
    [oneSource]
  ),
  tenant("colex", "Colex", "https://colex.ecotrack.dz", [], [oneSource]),
  tenant("delivromail", "Delivro Mail", "https://delivromail.ecotrack.dz", ["delivro_mail"], [oneSource]),
  tenant(
    "elguidedelivery",
    "El Guide Delivery",
    "https://elguidedelivery.ecotrack.dz",
    ["elguide_delivery"],
    [oneSource]
  ),
  tenant(
    "fasthorse",
    "Fast Horse Express",
    "https://fasthorse.ecotrack.dz",
    ["fast_horse_express", "fast_horse"],
    [oneSource]
  ),
  tenant("fzdelivery", "FZ Delivery", "https://fzdelivery.ecotrack.dz", ["fz_delivery"], [oneSource]),
  tenant("imir", "Imir Logistics", "https://imir.ecotrack.dz", ["imir_logistics"], [oneSource]),
  tenant(
    "lihlihexpress",
    "LIH LIH Express",
    "https://lihlihexpress.ecotrack.dz",
    ["lihlih_express"],
    [
      oneSource,
      "One integration calls another API for it (Bearer token, packages/create, packages/history/{tracking}): it may have left Ecotrack or run both"
    ]
  ),
  tenant("mazaya", "Mazaya Logistics", "https://mazaya.ecotrack.dz", ["mazaya_logistics"], [oneSource]),
  tenant("ovred", "Ovred", "https://ovred.ecotrack.dz"),
  tenant("speedmail", "Speed Mail", "https://speedmail.ecotrack.dz", ["speed_mail"], [oneSource]),
  tenant("windelivery", "Win Delivery", "https://windelivery.ecotrack.dz", ["win_delivery"], [oneSource]),
  tenant(
    "amana",
    "AMANA Speed",
    "https://amana.ecotrack.dz",
    ["amana_speed"],
    [oneSource, "Whether El Amana Delivery (no API found) is this courier is not known"]
  ),
  tenant("zinyatec", "Zinya Tec", "https://zinyatec.ecotrack.dz", ["zinya_tec"], [oneSource]),
  tenant(
    "sultancolisexpress",
    "Sultan Colis Express",
    "https://sultancolisexpress.ecotrack.dz",
    ["sultan_colis_express"],
    [oneSource]
  ),
  tenant("majorex", "Major Express", "https://majorex.ecotrack.dz", ["major_ex", "major_express"], [oneSource]),
  tenant("redex", "Red Ex", "https://redex.ecotrack.dz", ["red_ex"], [oneSource]),
  tenant(
    "monohub",
    "Mono Hub",
    "https://mono2.ecotrack.dz",
    ["mono_hub"],
    ["Host mono2 (a 2026 integration note, unrelated code) chosen over mono (CourierDZ, uften)"]
  ),
  tenant("negmarexpress", "Negmar Express", "https://negmar.ecotrack.dz", ["negmar_express"]),
  tenant(
    "ultraexpress",
    "Ultra Express",
    "https://ultraexpress.ecotrack.dz",
    ["ultra_express"],
    ["Host not found in any source: guessed from the dzship key; use ecotrack with options.baseUrl if it fails"]
  ),
  tenant(
    "assildelivery",
    "Assil Delivery",
    "https://assildelivery.ecotrack.dz",
    ["assil_delivery"],
    ["Host not found in any source: guessed from the dzship key; use ecotrack with options.baseUrl if it fails"]
  ),
  // dzship's second wave (research peer-landscape §1, rows 7-12): no host is published for any of them.
  fromPattern("abdelivery", "AB Delivery", ["ab_delivery"]),
  fromPattern("oksbox", "OKS Box", ["oks_box"]),
  fromPattern("oneexpress", "One Express", ["one_express"]),
  fromPattern("royaumedelivery", "Royaume Delivery", ["royaume_delivery", "royaume"]),
  fromPattern("siexpress", "SI Express", ["si_express"]),
  fromPattern("wassimexpress", "Wassim Express", ["wassim_express"])
]

/**
 * One call to the courier, authenticated both ways Ecotrack reads a token. An answer that echoes the token (a debug
 * page quoting the request URL) reaches the mapping with it blanked out by the core.
 */
const send = (token: Redacted.Redacted<string>, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      query: { ...request.query, api_token: Redacted.value(token) },
      // Without `accept: application/json` Laravel answers validation errors with a redirect to an HTML page.
      headers: { accept: "application/json", authorization: `Bearer ${Redacted.value(token)}` }
    })
  )

/** `POST valid/order`: makes the parcel visible to the courier and asks it to collect the parcel. */
const validate = (token: Redacted.Redacted<string>, tracking: string) =>
  send(token, { method: "POST", path: "/api/v1/valid/order", query: Mapping.validationQuery(tracking) }).pipe(
    Effect.flatMap((validated) => Effect.fromResult(Mapping.fromValidated(validated)))
  )

/** `create/order`, then `valid/order` — unless held undispatched (`dispatch: false`): then created only. */
export const create = Effect.fn("Ecotrack.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials, dispatch: dispatchNow }: CourierAdapter.Context<Credentials>
) {
  const created = yield* send(credentials.token, {
    method: "POST",
    path: "/api/v1/create/order",
    json: Mapping.toCreateOrder(order)
  })
  const tracking = yield* Effect.fromResult(Mapping.fromCreated(created))
  if (dispatchNow === false) return { trackingNumber: tracking, rawStatus: Status.unvalidated }
  yield* validate(credentials.token, tracking).pipe(Effect.mapError((reason) => Mapping.notValidated(tracking, reason)))
  return { trackingNumber: tracking, rawStatus: Status.validated }
})

/**
 * `POST create/orders` with every order of the batch (up to 100, one request against the account's 50 a minute), then
 * `valid/order` for each parcel it made, four at a time, as `create` validates its one: a parcel made but not
 * validated is refused naming it (`Mapping.notValidated`), never retryable. An order the courier refused is refused
 * alone.
 */
export const createBatch = Effect.fn("Ecotrack.createBatch")(function* (
  orders: ReadonlyArray<Shipment.ParcelOrder>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const answered = yield* send(credentials.token, {
    method: "POST",
    path: "/api/v1/create/orders",
    json: Mapping.toCreateOrders(orders)
  })
  const created = yield* Effect.fromResult(
    Mapping.fromCreatedBatch(
      orders.map((order) => order.reference ?? ""),
      answered
    )
  )
  return yield* Effect.forEach(
    created,
    (
      result
    ): Effect.Effect<
      Result.Result<CourierAdapter.CreatedParcel, CourierError.CourierErrorReason>,
      never,
      CourierHttp.CourierHttp
    > =>
      Result.isFailure(result)
        ? Effect.succeed(Result.fail(result.failure))
        : validate(credentials.token, result.success).pipe(
            Effect.mapError((reason) => Mapping.notValidated(result.success, reason)),
            Effect.as({ trackingNumber: result.success, rawStatus: Status.validated }),
            Effect.result
          ),
    { concurrency: 4 }
  )
})

/**
 * `POST valid/order` of a parcel held undispatched. Ecotrack validates once: a parcel validated already is refused
 * with its `10001` ("not modifiable"), in its words.
 */
export const dispatch = Effect.fn("Ecotrack.dispatch")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* validate(credentials.token, trackingNumber)
  return { rawStatus: Status.validated }
})

export const track = Effect.fn("Ecotrack.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "GET",
    path: "/api/v1/get/tracking/info",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromTracking(response))
})

export const rates = Effect.fn("Ecotrack.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  const response = yield* send(credentials.token, { method: "GET", path: "/api/v1/get/fees" })
  return yield* Effect.fromResult(Mapping.fromFees(query, response))
})

export const label = Effect.fn("Ecotrack.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "GET",
    path: "/api/v1/get/order/label",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

/**
 * `GET get/trackings/info` for some numbers: the events of those the courier knows. The courier refuses the whole
 * call (422) for a number it does not know: the numbers it names are left out and the others asked again; when it
 * names none, the numbers are asked in two halves, down to the one it refuses alone.
 */
const readBatch = (
  token: Redacted.Redacted<string>,
  trackings: ReadonlyArray<string>
): Effect.Effect<
  Map<string, ReadonlyArray<CourierAdapter.RawEvent>>,
  CourierError.CourierErrorReason,
  CourierHttp.CourierHttp
> =>
  Effect.gen(function* () {
    if (trackings.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
    const response = yield* send(token, {
      method: "GET",
      path: "/api/v1/get/trackings/info",
      query: Mapping.trackingsQuery(trackings)
    })
    const answer = yield* Effect.fromResult(Mapping.fromTrackings(trackings, response))
    switch (answer._tag) {
      case "Found":
        return answer.events
      case "Unknown": {
        const unknown = new Set(answer.trackings)
        return yield* readBatch(
          token,
          trackings.filter((tracking) => !unknown.has(tracking))
        )
      }
      case "SomeUnknown": {
        if (trackings.length === 1) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
        const half = Math.ceil(trackings.length / 2)
        const first = yield* readBatch(token, trackings.slice(0, half))
        const second = yield* readBatch(token, trackings.slice(half))
        return new Map([...first, ...second])
      }
    }
  })

/**
 * `GET get/trackings/info`: up to 100 parcels in one call; a number the courier does not know is left out (a 422
 * for one of them costs one more call, or a few, {@link readBatch}).
 */
export const trackBatch = Effect.fn("Ecotrack.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const asked = yield* Effect.fromResult(Mapping.checkBatch(trackingNumbers))
  return yield* readBatch(credentials.token, asked)
})

/**
 * `DELETE delete/order`: Ecotrack deletes an order only before `valid/order`, so what can be cancelled is a parcel
 * held undispatched (or left unvalidated by a create whose validation failed, or made in the dashboard); a validated
 * one answers `NotCancellable` (10001).
 */
export const cancel = Effect.fn("Ecotrack.cancel")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "DELETE",
    path: "/api/v1/delete/order",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromDeleted(response))
})

/** The communes of a wilaya with a desk, from `get/communes` (the station code a desk order sends). */
export const stopDesks = Effect.fn("Ecotrack.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "GET",
    path: "/api/v1/get/communes",
    query: Mapping.communesQuery(wilaya)
  })
  return yield* Effect.fromResult(Mapping.fromDesks(wilaya, response))
})

/** `GET get/communes?wilaya_id=`: the tenant's communes, in the spelling `create/order` expects. */
export const communes = Effect.fn("Ecotrack.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "GET",
    path: "/api/v1/get/communes",
    query: Mapping.communesQuery(wilaya)
  })
  return yield* Effect.fromResult(Mapping.fromCommunes(wilaya, response))
})

/** `GET validate/token`: the platform's own token check (it reads `api_token` from the query); creates nothing. */
export const checkCredentials = Effect.fn("Ecotrack.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, { method: "GET", path: "/api/v1/validate/token" })
  return yield* Effect.fromResult(Mapping.fromTokenCheck(response))
})

/**
 * The documented limit of every API token: 50 requests a minute (the Postman collection, as an integrator's audit
 * and courier-dz quote it). The 1 500 an hour and 15 000 a day one summary adds are not declared: no second source.
 */
export const rateLimits = [{ limit: 50, window: "1 minute" }] as const

export const adapter = CourierAdapter.define<Credentials>({
  platform: "ecotrack",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  operations: {
    create,
    createBatch,
    dispatch,
    track,
    rates,
    label,
    cancel,
    trackBatch,
    stopDesks,
    communes,
    checkCredentials
  },
  rateLimits
})
