/**
 * The shipping API's definition (spec: shipping-service.md): interface version 1.1.0, tag `shipping` for create,
 * track and rates, tag `reference` for couriers, wilayas and communes. Definitions only: no handlers, no services.
 */
import { CatalogueEntry, Shipment, ShippingError } from "@tawsil/courier"
import { FieldIssues, StoreText, WilayaCode } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"
import * as Parameters from "../Parameters.ts"
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
  timeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 30000 }))),
  /**
   * Create only. `false` sends `order.recipient.communeName` exactly as written, unchecked: for a commune the
   * reference data lacks. By default the commune is resolved first (422 `unknown_commune` with suggestions).
   */
  resolveCommune: Schema.optionalKey(Schema.Boolean)
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
export const BatchTrackRequest = Schema.Struct({
  ...call,
  /** 1 to 100 tracking numbers of this courier: one result each, in this order. */
  trackingNumbers: Schema.Array(Shipment.TrackingNumber).check(Schema.isMinLength(1), Schema.isMaxLength(100))
}).annotate({ identifier: "BatchTrackRequest" })
/** The most orders (and labels) one batch call takes. */
export const BATCH_LIMIT = 100

/**
 * One order of a batch: the single create's `order`, with `reference` required — it is the order's idempotency key,
 * so a batch sent again creates nothing twice (docs/api/README.md "Batches").
 */
export const BatchOrder = Schema.Struct({
  ...Shipment.ParcelOrder.fields,
  reference: Schema.String.check(Schema.isBetweenLength(1, 64), StoreText.storable())
}).annotate({ identifier: "BatchOrder" })

/** Each order of a batch has its own reference: a second one is refused where it stands (`orders.<i>.reference`). */
const distinctReferences = Schema.makeFilter<ReadonlyArray<{ readonly reference: string }>>((orders) => {
  const first = new Map<string, number>()
  const issues: Array<Schema.FilterIssue> = []
  for (const [index, { reference }] of orders.entries()) {
    const earlier = first.get(reference)
    if (earlier === undefined) first.set(reference, index)
    else {
      issues.push({
        path: [index, "reference"],
        issue: `orders.${earlier} has this reference: each order needs its own`
      })
    }
  }
  return issues.length === 0 ? undefined : issues
})

export const BatchCreateRequest = Schema.Struct({
  ...call,
  /** 1 to 100 orders for this courier and these credentials: one result each, in this order. */
  orders: Schema.Array(BatchOrder).check(Schema.isMinLength(1), Schema.isMaxLength(BATCH_LIMIT), distinctReferences)
}).annotate({ identifier: "BatchCreateRequest" })
export const LabelBatchRequest = Schema.Struct({
  ...call,
  /** 1 to 100 tracking numbers of this courier: their labels in this order. */
  trackingNumbers: Schema.Array(Shipment.TrackingNumber).check(Schema.isMinLength(1), Schema.isMaxLength(BATCH_LIMIT))
}).annotate({ identifier: "LabelBatchRequest" })
export const CancelRequest = Schema.Struct({ ...call, trackingNumber: Shipment.TrackingNumber }).annotate({
  identifier: "CancelRequest"
})
export const StopDesksRequest = Schema.Struct({ ...call, wilayaCode: WilayaCode.WilayaCode }).annotate({
  identifier: "StopDesksRequest"
})
/** dzship's `POST /v1/desks` request: the same call as {@link StopDesksRequest}, under dzship's name. */
export const DesksRequest = Schema.Struct({ ...call, wilayaCode: WilayaCode.WilayaCode }).annotate({
  identifier: "DesksRequest"
})
export const CredentialsCheckRequest = Schema.Struct(call).annotate({ identifier: "CredentialsCheckRequest" })
export const ResolveCommuneRequest = Schema.Struct({
  /** Optional: with a courier that lists its communes, its own entry for the commune too. */
  courier: Schema.optionalKey(call.courier),
  credentials: call.credentials,
  options: call.options,
  wilayaCode: WilayaCode.WilayaCode,
  communeName: Schema.String.check(Schema.isBetweenLength(1, 100))
}).annotate({ identifier: "ResolveCommuneRequest" })
export const CompareRatesRequest = Schema.Struct({
  /** 1 to 20 couriers, each with its own credentials (none for `sandbox`); the same courier may appear twice. */
  couriers: Schema.Array(Schema.Struct(call).annotate({ identifier: "ComparedCourier" })).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(20)
  ),
  query: Shipment.RatesQuery,
  /** The whole comparison's deadline (1000–30000, default 15000): a courier that has not answered is timed out. */
  timeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 30000 })))
}).annotate({ identifier: "CompareRatesRequest" })

/**
 * The request paths that hold a wilaya code: a wilaya of the 2026 division there is refused with the code couriers
 * deliver it as (`Wilayas.shipAsMessage`), not only as out of range.
 */
export const wilayaPaths = [
  "order.recipient.wilayaCode",
  /** A desk list's or a commune's wilaya (`/v1/desks`, `/v1/stop-desks`, `/v1/communes/resolve`). */
  "wilayaCode",
  "options.fromWilaya",
  "query.fromWilaya",
  "query.toWilaya"
] as const

/** One item's failure inside a batch answer: the code and message the single call would have answered. */
export const ItemError = Schema.Struct({ code: Schema.String, message: Schema.String }).annotate({
  identifier: "ItemError"
})
export const TrackFailure = Schema.Struct({ trackingNumber: Schema.String, error: ItemError }).annotate({
  identifier: "TrackFailure"
})
export const BatchTrackResult = Schema.Struct({
  results: Schema.Array(Schema.Union([Shipment.TrackResult, TrackFailure]))
}).annotate({ identifier: "BatchTrackResult" })
/**
 * One order's failure inside a batch create: the `error` object the single create would have answered for it, with
 * that answer's `status` and, where it would have sent `Retry-After`, `retryAfterSeconds`.
 */
export const CreateItemError = Schema.Struct({
  status: Schema.Int,
  code: Schema.String,
  message: Schema.String,
  fields: Schema.optionalKey(FieldIssues.FieldIssues),
  suggestions: Schema.optionalKey(Schema.Array(ShippingError.CommuneSuggestion)),
  retryAfterSeconds: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "CreateItemError" })
export const CreateFailure = Schema.Struct({ reference: Schema.String, error: CreateItemError }).annotate({
  identifier: "CreateFailure"
})
export const BatchCreateResult = Schema.Struct({
  /** One per order, in the order sent: the parcel (made now, or by an earlier call with the same order), or why not. */
  results: Schema.Array(Schema.Union([Shipment.ParcelCreated, CreateFailure])),
  /** How many results are parcels, and how many failures. */
  created: Schema.Int,
  failed: Schema.Int
}).annotate({ identifier: "BatchCreateResult" })
export const LabelFailure = Schema.Struct({
  /** The parcel's place in `trackingNumbers`. */
  index: Schema.Int,
  trackingNumber: Schema.String,
  error: ItemError
}).annotate({ identifier: "LabelFailure" })
export const LabelBatchResult = Schema.Struct({
  /**
   * The labels that could be had, merged into one PDF in the order asked, base64-encoded; absent when none could.
   * `application/pdf` once decoded.
   */
  pdf: Schema.optionalKey(Schema.Uint8ArrayFromBase64),
  /** The merged PDF's pages: the sum of `labels[].pages`. */
  pageCount: Schema.Int,
  /** Each parcel in the PDF, in its order, with how many pages its label took. */
  labels: Schema.Array(Schema.Struct({ index: Schema.Int, trackingNumber: Schema.String, pages: Schema.Int })),
  /** The parcels whose label is not in the PDF, and why: the code and message the single label call would answer. */
  errors: Schema.Array(LabelFailure)
}).annotate({ identifier: "LabelBatchResult" })
export const StopDesk = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  wilayaCode: Schema.Int,
  communeName: Schema.optionalKey(Schema.String),
  address: Schema.optionalKey(Schema.String),
  phone: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "StopDesk" })
/** A desk as dzship's `POST /v1/desks` answers it: a {@link StopDesk} without `phone`. */
export const Desk = Schema.Struct({
  /** Send as `order.stopDeskId`. */
  id: Schema.String,
  name: Schema.String,
  wilayaCode: Schema.Int,
  /** When the courier names it: send as `order.recipient.communeName`. */
  communeName: Schema.optionalKey(Schema.String),
  address: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Desk" })
export const CredentialsCheck = Schema.Struct({
  courier: Schema.String,
  valid: Schema.Boolean,
  /** Why the courier refused them, in its words. */
  message: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CredentialsCheck" })
export const CommuneResolution = Schema.Struct({
  wilayaCode: Schema.Int,
  nameFr: Schema.String,
  nameAr: Schema.String,
  /** The name sent was the commune's, up to case, accents and separators: nothing was corrected. */
  exact: Schema.Boolean,
  /** With a courier: its entry for the commune (absent when it does not list it), and what it delivers there. */
  courier: Schema.optionalKey(
    Schema.Struct({
      key: Schema.String,
      listed: Schema.Boolean,
      name: Schema.optionalKey(Schema.String),
      id: Schema.optionalKey(Schema.String),
      home: Schema.Boolean,
      stopdesk: Schema.Boolean
    })
  )
}).annotate({ identifier: "CommuneResolution" })
/** `index`: the courier's place in the request's `couriers`, which tells apart one courier asked twice. */
export const Quote = Schema.Union([
  Schema.Struct({ index: Schema.Int, courier: Schema.String, rates: Shipment.RatesResult }),
  Schema.Struct({ index: Schema.Int, courier: Schema.String, error: ItemError })
]).annotate({ identifier: "Quote" })
export const RatesComparison = Schema.Struct({
  /** Priced couriers, cheapest `total` first, then the failures (code `courier_timeout` past the deadline). */
  quotes: Schema.Array(Quote)
}).annotate({ identifier: "RatesComparison" })

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
      error: [...courierErrors, Errors.ServiceUnavailableResponse, Errors.InFlightResponse]
    }),
    /**
     * One parcel (`trackingNumber`: its timeline), or up to 100 (`trackingNumbers`: one result or failure each, in
     * order), through the courier's batch read where it has one (`capabilities.trackBatch`).
     */
    /**
     * 1 to 100 parcels for one courier account in one call: one result per order, in order — the parcel, or the
     * failure its single create would have answered (a failure of an order is not a failure of the call). Each
     * order's `reference` is its idempotency key: the same order again within 24 h answers its first parcel. Through
     * the courier's bulk create where it has one (`capabilities.createBatch`), else one create per order, a few at a
     * time under the account's pace.
     */
    HttpApiEndpoint.post("createOrders", "/v1/orders/batch", {
      payload: BatchCreateRequest,
      success: BatchCreateResult,
      error: [...courierErrors, Errors.ServiceUnavailableResponse, Errors.InFlightResponse]
    }),
    HttpApiEndpoint.post("track", "/v1/track", {
      payload: Schema.Union([TrackRequest, BatchTrackRequest]),
      success: Schema.Union([Shipment.TrackResult, BatchTrackResult]),
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
    }),
    /**
     * The labels of 1 to 100 parcels merged into one PDF, in the order asked, for one print: a JSON answer with the
     * PDF in base64 (`pdf`) and, beside it, each parcel whose label could not be had with why (`errors`).
     */
    HttpApiEndpoint.post("labels", "/v1/labels/batch", {
      payload: LabelBatchRequest,
      success: LabelBatchResult,
      error: courierErrors
    }),
    /**
     * Cancels a parcel where the courier allows it (most only before pickup): 409 `not_cancellable` with the
     * courier's words after that. The `Idempotency-Key` works as on create.
     */
    HttpApiEndpoint.post("cancel", "/v1/cancel", {
      payload: CancelRequest,
      headers: { "idempotency-key": Schema.optionalKey(Schema.String) },
      success: Shipment.ParcelCancelled,
      error: [...courierErrors, Errors.Conflict, Errors.ServiceUnavailableResponse]
    }),
    /** The courier's desks in a wilaya: send one's `id` as `order.stopDeskId`. */
    HttpApiEndpoint.post("stopDesks", "/v1/stop-desks", {
      payload: StopDesksRequest,
      success: Schema.Array(StopDesk),
      error: courierErrors
    }),
    /**
     * The same desks in dzship's shape (`POST /v1/desks`, dzship 1.2's `desks()`): `[{ id, name, wilayaCode,
     * communeName?, address? }]`, for clients written against dzship.
     */
    HttpApiEndpoint.post("desks", "/v1/desks", {
      payload: DesksRequest,
      success: Schema.Array(Desk),
      error: courierErrors
    }),
    /** Whether the courier accepts these credentials, through its cheapest read; creates nothing. */
    HttpApiEndpoint.post("checkCredentials", "/v1/credentials/check", {
      payload: CredentialsCheckRequest,
      success: CredentialsCheck,
      error: courierErrors
    }),
    /**
     * The commune a name means in a wilaya, however it is spelled, or 422 `unknown_commune` with up to five
     * suggestions; with a courier, its own entry and whether it delivers there at home and at a desk.
     */
    HttpApiEndpoint.post("resolveCommune", "/v1/communes/resolve", {
      payload: ResolveCommuneRequest,
      success: CommuneResolution,
      error: courierErrors
    }),
    /** One parcel priced with several couriers at once, under one deadline; a slow courier is timed out alone. */
    HttpApiEndpoint.post("compareRates", "/v1/rates/compare", {
      payload: CompareRatesRequest,
      success: RatesComparison,
      error: [Errors.InvalidInput, Errors.RateLimitedResponse]
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

/** `GET /v1/wilayas?all=`: whether the list holds the 11 wilayas of the 2026 division too. */
export const listsAll = (all: string | undefined) => all === "1" || all === "true"

export class ReferenceGroup extends HttpApiGroup.make("reference")
  .add(
    HttpApiEndpoint.get("couriers", "/v1/couriers", {
      query: {
        platform: Schema.optionalKey(Schema.String),
        q: Schema.optionalKey(Schema.String)
      },
      success: Schema.Array(CatalogueEntry.CatalogueEntry)
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

export class ShippingApi extends Parameters.described(
  HttpApi.make("shipping")
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
    )
) {}
