/**
 * The shipping tools: the shipping API's calls an agent needs to quote, create, follow and cancel parcels, each
 * answered by one call of `@tawsil/client`'s shipping client. They need no store key.
 *
 * Courier credentials are a call's argument, as in the API: decoded into `Redacted` values, revealed only into the
 * request body sent to the shipping API, never kept, logged or answered. Tools that create or cancel a parcel are
 * marked destructive and their descriptions tell the agent to ask the user first; a create takes a required
 * `idempotencyKey`, so an agent's retry never creates a second parcel.
 */
import { Api as ShippingApi } from "@tawsil/api/shipping"
import { ShippingClient } from "@tawsil/client"
import { CatalogueEntry, Shipment } from "@tawsil/courier"
import { Cache, Effect, Redacted, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { Apis } from "./Apis.ts"
import * as ToolFailure from "./ToolFailure.ts"
import * as ToolSchemas from "./ToolSchemas.ts"

const ASK_FIRST =
  "Ask the user first: say what will happen (courier, recipient, amount) and call it only once they agree."

/** Courier credentials, as the shipping API takes them: 1 to 8 fields, each value `Redacted` once decoded. */
export const Credentials = Schema.Record(
  Schema.String.check(Schema.isBetweenLength(1, 64)),
  Schema.RedactedFromValue(Schema.String.check(Schema.isBetweenLength(1, 2048)))
)
  .check(Schema.isBetweenProperties(1, 8))
  .annotate({
    description:
      "The courier account's own credentials: the fields list_couriers names in requiredCredentials, each a " +
      "string; omit for sandbox. Used for this call only: never stored, logged or repeated."
  })

const Courier = Schema.String.check(Schema.isBetweenLength(1, 64)).annotate({
  description: "A courier's key from list_couriers (sandbox for tests)"
})

const callFields = {
  courier: Courier,
  credentials: Schema.optionalKey(Credentials),
  options: Schema.optionalKey(ShippingApi.CreateOrderRequest.fields.options.schema)
}

const readOnly = <T extends Tool.Any>(tool: T): T =>
  tool
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, true) as T

export const ListCouriers = readOnly(
  Tool.make("list_couriers", {
    description:
      "Lists the couriers this Tawsil deployment ships with: each one's key, the credentials it needs and what it " +
      "can do (create, track, rates, label, cancel, stop desks).",
    parameters: Schema.Struct({
      platform: Schema.optionalKey(Schema.String.annotate({ description: "Only this platform's couriers" })),
      q: Schema.optionalKey(Schema.String.annotate({ description: "A name or alias to look for" }))
    }),
    success: Schema.Struct({ couriers: Schema.Array(CatalogueEntry.CatalogueEntry) }),
    failure: ToolFailure.ToolFailure
  }).annotate(Tool.Title, "List couriers")
).annotate(Tool.OpenWorld, false)

export const ResolveCommune = readOnly(
  Tool.make("resolve_commune", {
    description:
      "Finds the commune a name means in a wilaya, however it is spelled (an ambiguous or unknown name is refused " +
      "with suggestions); with a courier, whether it delivers there at home and at a desk.",
    parameters: Schema.Struct({
      wilayaCode: ShippingApi.ResolveCommuneRequest.fields.wilayaCode,
      communeName: ShippingApi.ResolveCommuneRequest.fields.communeName,
      courier: Schema.optionalKey(Courier),
      credentials: callFields.credentials,
      options: callFields.options
    }),
    success: ShippingApi.CommuneResolution,
    failure: ToolFailure.ToolFailure
  }).annotate(Tool.Title, "Resolve a commune")
)

export const CompareRates = readOnly(
  Tool.make("compare_rates", {
    description:
      "Prices one parcel with one or several couriers at once (each with its own credentials) and answers the " +
      "quotes, cheapest first; a courier that fails or is too slow is listed with its error.",
    parameters: Schema.Struct({
      couriers: Schema.Array(Schema.Struct(callFields)).check(Schema.isMinLength(1), Schema.isMaxLength(20)),
      query: Shipment.RatesQuery,
      timeoutMs: ShippingApi.CompareRatesRequest.fields.timeoutMs
    }),
    success: ShippingApi.RatesComparison,
    failure: ToolFailure.ToolFailure
  }).annotate(Tool.Title, "Compare rates")
)

export const CreateParcel = Tool.make("create_parcel", {
  description:
    "Creates a parcel at the courier: a real shipment the courier will pick up and charge for (sandbox creates " +
    `test parcels only). ${ASK_FIRST} idempotencyKey is required: the same key with the same arguments within 24 ` +
    "hours answers the first parcel again and creates none, so retry with the same key, never a new one.",
  parameters: Schema.Struct({
    ...callFields,
    order: Shipment.ParcelOrder,
    idempotencyKey: ToolSchemas.IdempotencyKey
  }),
  success: Shipment.ParcelCreated,
  failure: ToolFailure.ToolFailure
})
  .annotate(Tool.Title, "Create a parcel")
  .annotate(Tool.Readonly, false)
  .annotate(Tool.Destructive, true)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.OpenWorld, true)

export const TrackParcels = readOnly(
  Tool.make("track_parcels", {
    description:
      "Where parcels of one courier are: each one's canonical status, its cash on delivery and its events, or its " +
      "error, in the order asked (1 to 100 tracking numbers).",
    parameters: Schema.Struct({
      ...callFields,
      trackingNumbers: ShippingApi.BatchTrackRequest.fields.trackingNumbers
    }),
    success: ShippingApi.BatchTrackResult,
    failure: ToolFailure.ToolFailure
  }).annotate(Tool.Title, "Track parcels")
)

export const CancelParcel = Tool.make("cancel_parcel", {
  description:
    "Cancels a parcel where the courier still allows it (most only before pickup; after that the courier's refusal " +
    `is answered). ${ASK_FIRST} An idempotencyKey makes a retry safe.`,
  parameters: Schema.Struct({
    ...callFields,
    trackingNumber: Shipment.TrackingNumber,
    idempotencyKey: Schema.optionalKey(ToolSchemas.IdempotencyKey)
  }),
  success: Shipment.ParcelCancelled,
  failure: ToolFailure.ToolFailure
})
  .annotate(Tool.Title, "Cancel a parcel")
  .annotate(Tool.Readonly, false)
  .annotate(Tool.Destructive, true)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.OpenWorld, true)

export const ListStopDesks = readOnly(
  Tool.make("list_stop_desks", {
    description:
      "The courier's stop desks in a wilaya, where a recipient collects the parcel: send one's id as the order's " +
      "stopDeskId with deliveryType stopdesk.",
    parameters: Schema.Struct({ ...callFields, wilayaCode: ShippingApi.StopDesksRequest.fields.wilayaCode }),
    success: Schema.Struct({ desks: Schema.Array(ShippingApi.StopDesk) }),
    failure: ToolFailure.ToolFailure
  }).annotate(Tool.Title, "List stop desks")
)

export const GetLabel = readOnly(
  Tool.make("get_label", {
    description: "The parcel's label as the courier renders it: a PDF, base64-encoded.",
    parameters: Schema.Struct({ ...callFields, trackingNumber: Shipment.TrackingNumber }),
    success: ToolSchemas.Pdf,
    failure: ToolFailure.ToolFailure
  }).annotate(Tool.Title, "Get a parcel's label")
)

export const ShippingTools = Toolkit.make(
  ListCouriers,
  ResolveCommune,
  CompareRates,
  CreateParcel,
  TrackParcels,
  CancelParcel,
  ListStopDesks,
  GetLabel
)

/** The credentials as the request body carries them: the one place they are revealed. */
const reveal = (credentials: Readonly<Record<string, Redacted.Redacted<string>>> | undefined) =>
  credentials === undefined
    ? {}
    : { credentials: Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, Redacted.value(v)])) }

/** A courier call's common part, as the request body carries it. */
const callOf = (params: {
  readonly courier: string
  readonly credentials?: Readonly<Record<string, Redacted.Redacted<string>>>
  readonly options?: typeof callFields.options.Type
}) => ({
  courier: params.courier,
  ...reveal(params.credentials),
  ...(params.options === undefined ? {} : { options: params.options })
})

const call = ToolFailure.call("shipping")

export const layerHandlers = ShippingTools.toLayer(
  Effect.gen(function* () {
    const apis = yield* Apis
    // One client per base URL (the app's mount knows its URL only once it listens).
    const clients = yield* Cache.make({ capacity: 4, lookup: (baseUrl: string) => ShippingClient.make({ baseUrl }) })
    const client = Effect.flatMap(apis.shippingUrl, (url) => Cache.get(clients, url))
    return ShippingTools.of({
      list_couriers: (params) =>
        Effect.flatMap(client, (shipping) => shipping.reference.couriers({ query: params })).pipe(
          Effect.map((couriers) => ({ couriers })),
          call
        ),
      resolve_commune: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.resolveCommune({
            payload: {
              wilayaCode: params.wilayaCode,
              communeName: params.communeName,
              ...(params.courier === undefined ? {} : callOf({ ...params, courier: params.courier }))
            }
          })
        ).pipe(call),
      compare_rates: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.compareRates({
            payload: {
              couriers: params.couriers.map(callOf),
              query: params.query,
              ...(params.timeoutMs === undefined ? {} : { timeoutMs: params.timeoutMs })
            }
          })
        ).pipe(call),
      create_parcel: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.createOrder({
            payload: { ...callOf(params), order: params.order },
            headers: { "idempotency-key": params.idempotencyKey }
          })
        ).pipe(call),
      track_parcels: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.track({ payload: { ...callOf(params), trackingNumbers: params.trackingNumbers } })
        ).pipe(
          // A list asked answers a list (`BatchTrackResult`).
          Effect.map((answer) => ("results" in answer ? answer : { results: [answer] })),
          call
        ),
      cancel_parcel: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.cancel({
            payload: { ...callOf(params), trackingNumber: params.trackingNumber },
            ...(params.idempotencyKey === undefined ? {} : { headers: { "idempotency-key": params.idempotencyKey } })
          })
        ).pipe(call),
      list_stop_desks: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.stopDesks({ payload: { ...callOf(params), wilayaCode: params.wilayaCode } })
        ).pipe(
          Effect.map((desks) => ({ desks })),
          call
        ),
      get_label: (params) =>
        Effect.flatMap(client, (shipping) =>
          shipping.shipping.label({ payload: { ...callOf(params), trackingNumber: params.trackingNumber } })
        ).pipe(Effect.map(ToolSchemas.pdfOf), call)
    })
  })
)
