/**
 * Subscriptions to order events, signed deliveries (docs/webhooks.md), the delivery log and manual redelivery.
 */
import { Subscription, WebhookError } from "@tawsil/webhooks"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

export const reasons = Reasons.of(WebhookError.WebhookErrorReason, {
  InvalidWebhook: "bad_request",
  UrlRefused: "bad_request",
  TooManyWebhooks: "bad_request",
  WebhookNotFound: "not_found",
  DeliveryNotFound: "not_found"
})

const { Data, Id, ListOf, listQuery } = Endpoint
const { keyed, reads, writes } = Errors
const scope = "webhooks:write"

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("listWebhooks", "/v1/webhooks", {
      success: Data(Subscription.WebhookList),
      error: keyed
    }).annotate(Endpoint.RequiredScope, "webhooks:read"),
    /** The answer's `secret` (`whsec_…`) is shown this once; a replay answers `secret: null`. */
    Endpoint.post("createWebhook", "/v1/webhooks", {
      payload: Subscription.CreateBody,
      success: Data(Subscription.WebhookWithSecret),
      error: writes,
      scope
    }).annotate(Endpoint.StoredAs, Subscription.replaySafe),
    /** `rotate_secret: true` answers the new `secret` once; the previous one keeps signing for 24 h. */
    Endpoint.patch("updateWebhook", "/v1/webhooks/:id", {
      params: Id,
      payload: Subscription.PatchBody,
      success: Data(Subscription.WebhookWithSecret),
      error: writes,
      scope
    }).annotate(Endpoint.StoredAs, Subscription.replaySafe),
    Endpoint.del("deleteWebhook", "/v1/webhooks/:id", {
      params: Id,
      success: Data(Subscription.WebhookDeleted),
      error: writes,
      scope
    }),
    /** The delivery log, newest first: each delivery's attempts (status, latency, error). */
    HttpApiEndpoint.get("listWebhookDeliveries", "/v1/webhooks/:id/deliveries", {
      params: Id,
      query: listQuery,
      success: ListOf(Subscription.Delivery),
      error: reads
    }).annotate(Endpoint.RequiredScope, "webhooks:read"),
    /** Due now, with one more attempt when none was left; the same event id and body. */
    Endpoint.post("retryWebhookDelivery", "/v1/webhooks/:id/deliveries/:delivery_id/retry", {
      params: { ...Id, delivery_id: Id.id },
      success: Data(Subscription.Delivery),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "webhooks",
      description:
        "Subscriptions to order.created, order.confirmed and order.shipped, signed deliveries (docs/webhooks.md), " +
        "the delivery log and manual redelivery."
    })
  ) {}
