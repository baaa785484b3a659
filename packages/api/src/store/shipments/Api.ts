/**
 * Orders meet parcels (docs/cod-loop.md): the store's courier accounts, an order shipped through one of them, its
 * label, cancel and dispatch, and the receiver of courier push.
 *
 * Courier failures are answered with the shipping API's codes for them in this API's envelope
 * (`../shipping/Api.ts`'s `courierFailure`); an order's own refusals with the orders' codes.
 */
import { OrderError, OrderViews } from "@tawsil/orders"
import * as CourierAccount from "@tawsil/shipments/CourierAccount"
import * as Parcel from "@tawsil/shipments/Parcel"
import * as ShipmentsError from "@tawsil/shipments/ShipmentsError"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"
import { courierClasses } from "../shipping/Api.ts"

/** A courier account's refusals; `CourierFailed` is refined per failure by `courierFailure`. */
export const reasons = Reasons.of(ShipmentsError.ShipmentsErrorReason, {
  InvalidShipmentsBody: "bad_request",
  AccountNotFound: "not_found",
  SecretsUnavailable: "unavailable",
  CourierFailed: "courier_error",
  Busy: "unavailable"
})

/** An order's refusals around its shipment, by name where they are named after a code. */
export const orderReasons = Reasons.of(OrderError.OrderErrorReason, {
  InvalidOrder: "bad_request",
  InvalidStatusChange: "bad_request",
  IllegalTransition: "bad_request",
  ConcurrentChange: "bad_request",
  MonthlyCapReached: "bad_request",
  OrderNotFound: "not_found",
  CustomerNotFound: "not_found"
})

const { Data, Id } = Endpoint
const shipmentErrors = [...Errors.writes, ...reasons.classes, ...orderReasons.classes, ...courierClasses]

export class ShipmentsGroup extends HttpApiGroup.make("shipments")
  .add(
    HttpApiEndpoint.get("listCourierAccounts", "/v1/shipping/accounts", {
      success: Data(CourierAccount.List),
      error: Errors.keyed
    }).annotate(Endpoint.RequiredScope, "shipping:read"),
    /**
     * Keeps the store's credentials at a courier (the fields `GET /v1/couriers` names; for couriers that push, the
     * webhook secret their dashboard shows). Checked with the courier's credential check where it has one (422
     * `credentials_rejected` with its words; nothing stored). Sealed at rest under a key outside the database (503
     * `unavailable` when the operator set none), never shown again: the answer shows a fingerprint. The shipping
     * API still takes credentials per call and stores none: an account is the store's opt-in.
     */
    Endpoint.post("createCourierAccount", "/v1/shipping/accounts", {
      payload: CourierAccount.CreateBody,
      success: Data(CourierAccount.View),
      error: [...Errors.writes, ...reasons.classes, ...courierClasses],
      scope: "shipping:write"
    }).annotate(Endpoint.CallsOut, true),
    /** 409 `account_in_use` while parcels shipped through it are still on their way. */
    Endpoint.del("deleteCourierAccount", "/v1/shipping/accounts/:id", {
      params: Id,
      success: Data(CourierAccount.Deleted),
      error: [...Errors.writes, ...reasons.classes],
      scope: "shipping:write"
    }),
    /**
     * Ships a `confirmed` or `processing` order through one of the store's courier accounts: the parcel is built from
     * the order (recipient, commune resolved as the shipping API resolves it, the order number as reference, the
     * total as cash on delivery, the lines as product list) and created at the courier; the order goes to `shipped`
     * (`processing` with `dispatch: false`) and is followed from then on. A courier failure answers the shipping
     * API's code for it and changes nothing.
     */
    Endpoint.post("shipOrder", "/v1/orders/:id/shipment", {
      params: Id,
      payload: Parcel.ShipBody,
      success: Data(OrderViews.OrderDetail),
      error: shipmentErrors,
      scope: "orders:write"
    }).annotate(Endpoint.CallsOut, true),
    /** The parcel's label as the courier renders it (a PDF), through the order's courier account. */
    HttpApiEndpoint.get("getShipmentLabel", "/v1/orders/:id/shipment/label", {
      params: Id,
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/pdf" })),
      error: [...Errors.reads, ...reasons.classes, ...orderReasons.classes, ...courierClasses]
    }),
    /**
     * Cancels the parcel where the courier still allows it (409 `not_cancellable` with its words after that), then
     * the order goes to `cancelled` and its stock comes back.
     */
    Endpoint.post("cancelShipment", "/v1/orders/:id/shipment/cancel", {
      params: Id,
      success: Data(OrderViews.OrderDetail),
      error: shipmentErrors,
      scope: "orders:write"
    }).annotate(Endpoint.CallsOut, true),
    /** Hands a parcel shipped with `dispatch: false` to the courier; the order goes to `shipped`. */
    Endpoint.post("dispatchShipment", "/v1/orders/:id/shipment/dispatch", {
      params: Id,
      success: Data(OrderViews.OrderDetail),
      error: shipmentErrors,
      scope: "orders:write"
    }).annotate(Endpoint.CallsOut, true)
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "shipments",
      description:
        "Courier accounts, and orders shipped through them: the parcel created at the courier, its label, cancel " +
        "and dispatch. docs/cod-loop.md."
    })
  ) {}

/** What a courier's push is answered: how many events the request carried, and how many were new. */
export const PushAcknowledged = Schema.Struct({ received: Schema.Int, recorded: Schema.Int }).annotate({
  identifier: "CourierPushAcknowledged"
})

const accountId = { account_id: Endpoint.Id.id }

/** The receivers' refusals: no key here, the courier's signature decides. */
const hookErrors = [Errors.BadRequest, Errors.Unauthorized, Errors.NotFound, Errors.PayloadTooLarge, Errors.Unavailable]

export class CourierHooksGroup extends HttpApiGroup.make("courierHooks")
  .add(
    /**
     * A courier's push for one courier account (Yalidine engine, ZR Express, Maystro): authenticated by the courier's
     * signature with the account's webhook secret, nothing else. Each event is recorded once and applied to its
     * parcel before this answers; a repeat is acknowledged and changes nothing. 401 `invalid_signature` or
     * `stale_request`, 400 for a body that is not the courier's, 404 for an unknown account, 413 over 1 MB.
     */
    HttpApiEndpoint.post("receiveCourierPush", "/v1/hooks/couriers/:account_id", {
      params: accountId,
      success: PushAcknowledged,
      error: hookErrors
    }),
    /** A courier's subscription challenge (Yalidine's `crc_token`), answered as the courier expects. */
    HttpApiEndpoint.get("answerCourierChallenge", "/v1/hooks/couriers/:account_id", {
      params: accountId,
      success: Schema.Unknown.annotate({ description: 'The courier\'s expected answer (Yalidine: {"crc_token": …})' }),
      error: hookErrors
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "courier hooks",
      description: "Receivers of courier push, authenticated by the courier's signature (docs/cod-loop.md)."
    })
  ) {}
