/**
 * Why a webhook operation of the store API failed: `WebhookError`, whose `reason` names the rule and carries the
 * message the caller reads. Transport-agnostic: the store API decides each reason's status (docs/api lists them).
 */
import { Schema } from "effect"

/** A subscription body that breaks a rule (a field's type, an unknown event). */
export class InvalidWebhook extends Schema.TaggedError<InvalidWebhook>()("InvalidWebhook", {
  message: Schema.String
}) {}

/** A URL the SSRF rules refuse (`WebhookUrl`): the message says which rule. */
export class UrlRefused extends Schema.TaggedError<UrlRefused>()("UrlRefused", { message: Schema.String }) {}

/** The store already holds as many subscriptions as it may. */
export class TooManyWebhooks extends Schema.TaggedError<TooManyWebhooks>()("TooManyWebhooks", {
  message: Schema.String
}) {}

/** No such subscription in the store. */
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", {
  message: Schema.String
}) {}

/** No such delivery of the subscription. */
export class DeliveryNotFound extends Schema.TaggedError<DeliveryNotFound>()("DeliveryNotFound", {
  message: Schema.String
}) {}

export const WebhookErrorReason = Schema.Union([
  InvalidWebhook,
  UrlRefused,
  TooManyWebhooks,
  WebhookNotFound,
  DeliveryNotFound
])
export type WebhookErrorReason = typeof WebhookErrorReason.Type

export class WebhookError extends Schema.TaggedError<WebhookError>()("WebhookError", { reason: WebhookErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: WebhookErrorReason) => new WebhookError({ reason })
