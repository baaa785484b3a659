/**
 * The shipping API's definition (spec: shipping-service.md): interface version 1.1.0, tag `shipping` for create,
 * track and rates, tag `reference` for couriers, wilayas and communes. Definitions only: no handlers, no services.
 */
import { Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { Catalogue } from "@tawsil/shipping"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"
import * as Errors from "./Errors.ts"

/** The caller's own credentials for the courier: 1 to 8 string fields, never stored. Omitted for `sandbox`. */
const Credentials = Schema.Record(
  Schema.String.check(Schema.isBetweenLength(1, 64)),
  Schema.String.check(Schema.isBetweenLength(1, 2048))
).check(Schema.isBetweenProperties(1, 8))

const Options = Schema.Struct({
  /** Tenant address, for the generic platform key only (`https://<tenant>.ecotrack.dz`). */
  baseUrl: Schema.optionalKey(Schema.String.check(Schema.isBetweenLength(1, 2048))),
  fromWilaya: Schema.optionalKey(WilayaCode.WilayaCode),
  /** Bounds each courier call; default 15000. */
  timeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 30000 })))
})

const call = {
  courier: Schema.String.check(Schema.isBetweenLength(1, 64)),
  credentials: Schema.optionalKey(Credentials),
  options: Schema.optionalKey(Options)
}

export const CreateOrderRequest = Schema.Struct({ ...call, order: Shipment.ParcelOrder }).annotate({
  identifier: "CreateOrderRequest"
})
export const TrackRequest = Schema.Struct({ ...call, trackingNumber: Shipment.TrackingNumber }).annotate({
  identifier: "TrackRequest"
})
export const LabelRequest = Schema.Struct({ ...call, trackingNumber: Shipment.TrackingNumber }).annotate({
  identifier: "LabelRequest"
})
export const RatesRequest = Schema.Struct({ ...call, query: Shipment.RatesQuery }).annotate({
  identifier: "RatesRequest"
})

const courierErrors = [
  Errors.InvalidInput,
  Errors.Unprocessable,
  Errors.RateLimitedResponse,
  Errors.CourierFailed
] as const

export class ShippingGroup extends HttpApiGroup.make("shipping")
  .add(
    HttpApiEndpoint.post("createOrder", "/v1/orders", {
      payload: CreateOrderRequest,
      /**
       * Optional. The same key with the same request within 24 h answers the first parcel again, creating none; with
       * another request it is refused (422). 1–64 of `A-Z a-z 0-9 _ - : .`.
       */
      headers: { "idempotency-key": Schema.optionalKey(Schema.String) },
      success: Shipment.ParcelCreated,
      error: [...courierErrors, Errors.OverloadedResponse, Errors.InFlightResponse]
    }),
    HttpApiEndpoint.post("track", "/v1/track", {
      payload: TrackRequest,
      success: Shipment.TrackResult,
      error: courierErrors
    }),
    HttpApiEndpoint.post("rates", "/v1/rates", {
      payload: RatesRequest,
      success: Shipment.RatesResult,
      error: courierErrors
    }),
    /** The parcel's label as the courier renders it (a PDF), for couriers whose `capabilities.label` is true. */
    HttpApiEndpoint.post("label", "/v1/labels", {
      payload: LabelRequest,
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/pdf" })),
      error: courierErrors
    })
  )
  .middleware(Errors.ClientRateLimit)
  .annotateMerge(OpenApi.annotations({ title: "shipping", description: "Create, track and price parcels." })) {}

/** A wilaya as the reference endpoints answer it: the public dzship client's `Wilaya`. */
export const WilayaDto = Wilayas.Wilaya
export const CommuneDto = Schema.Struct({
  wilayaCode: Schema.Int,
  nameFr: Schema.String,
  nameAr: Schema.String
}).annotate({ identifier: "Commune" })

const CodeParam = Schema.NumberFromString.check(Schema.isInt())

export class ReferenceGroup extends HttpApiGroup.make("reference")
  .add(
    HttpApiEndpoint.get("couriers", "/v1/couriers", {
      query: {
        platform: Schema.optionalKey(Schema.String),
        q: Schema.optionalKey(Schema.String)
      },
      success: Schema.Array(Catalogue.CatalogueEntry)
    }),
    HttpApiEndpoint.get("wilayas", "/v1/wilayas", {
      query: {
        /** French, Latin or Arabic name, any case, accents and spacing; a number is a code. */
        q: Schema.optionalKey(Schema.String),
        /** One wilaya by code (1–69); `?16` is shorthand for `?code=16`. Either answers one object, not a list. */
        code: Schema.optionalKey(CodeParam),
        /**
         * `1`: the list also holds the 11 wilayas of the 2026 division, which couriers do not accept yet
         * (`courierSupported: false`, `shipAs`: the code to send them instead).
         */
        all: Schema.optionalKey(Schema.Literals(["1", "true", "0", "false"]))
      },
      success: Schema.Union([WilayaDto, Schema.Array(WilayaDto)]),
      error: Errors.NotFound
    }),
    HttpApiEndpoint.get("communes", "/v1/communes", {
      query: {
        /** The wilaya's code; `?16` is shorthand for `?wilaya=16`. */
        wilaya: Schema.optionalKey(CodeParam),
        q: Schema.optionalKey(Schema.String)
      },
      success: Schema.Array(CommuneDto),
      error: [Errors.InvalidInput, Errors.Unavailable]
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "reference", description: "Couriers, wilayas and communes." })) {}

export class ShippingApi extends HttpApi.make("shipping")
  .add(ShippingGroup)
  .add(ReferenceGroup)
  .add(HealthGroup)
  .middleware(Errors.Validation)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Tawsil shipping API",
      version: "1.1.0",
      description: "One request shape to create, track and price cash-on-delivery parcels with Algerian couriers."
    })
  ) {}
