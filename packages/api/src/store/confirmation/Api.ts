/**
 * The confirmation workflow of pending orders (docs/confirmation.md): attempts and their outcomes, signed one-time
 * links the customer answers on a page of the public listener, and the store's timeout. The page's two routes take
 * no key: the link's signed token is their only credential, and they answer HTML.
 */
import { ConfirmationError, ConfirmationViews } from "@tawsil/orders"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as OrdersApi from "../orders/Api.ts"
import * as Reasons from "../Reasons.ts"

/** The order's own refusals as the orders' endpoints answer them; the workflow's as 400, a missing key 503. */
export const reasons = Reasons.of(ConfirmationError.ConfirmationErrorReason, {
  ...OrdersApi.reasons.codes,
  // Only an order create refuses a banned phone (docs/risk.md); kept to the codes these endpoints declare.
  CustomerBanned: "bad_request",
  InvalidConfirmation: "bad_request",
  NotAwaitingConfirmation: "bad_request",
  LinksUnavailable: "unavailable"
})

const { Data, Id } = Endpoint

/** The page, in the language asked (`?lang=ar|fr`, else `Accept-Language`, else Arabic). */
const Page = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" })).annotate({
  description: "The confirmation page (HTML, Arabic or French)"
})

/**
 * The link's token rides in the query string (and, posted, in the form body), never in the path: access logs and
 * traces keep paths and drop query strings.
 */
const pageQuery = {
  token: Schema.optionalKey(Schema.String),
  lang: Schema.optionalKey(Schema.String)
}

export class ConfirmationGroup extends HttpApiGroup.make("confirmation")
  .add(
    /**
     * Records an attempt to confirm a pending order: `no_answer`, `busy`, `postponed` (with `postponed_until`),
     * `fake`, `duplicate`, `customer_cancelled` or `confirmed`, with an optional note. `confirmed` moves the order to
     * `confirmed`; `customer_cancelled`, `fake` and `duplicate` cancel it (its events fire as for PATCH). Answers the
     * order with its confirmation. 400 when the order is not pending.
     */
    Endpoint.post("recordConfirmationAttempt", "/v1/orders/:id/confirmation-attempts", {
      params: Id,
      payload: ConfirmationViews.AttemptBody,
      success: Data(ConfirmationViews.OrderWithConfirmation),
      error: [...Errors.writes, ...reasons.classes],
      scope: "orders:write"
    }),
    /**
     * A signed one-time link for the order's customer (`expires_in` seconds, 86 400 by default): a page on the
     * public listener showing the order's lines and total, with Confirm and Cancel. 400 when the order is not
     * pending; 503 when no secret key is configured.
     */
    Endpoint.post("createConfirmationLink", "/v1/orders/:id/confirmation-link", {
      params: Id,
      payload: ConfirmationViews.LinkBody,
      success: Data(ConfirmationViews.Link),
      error: [...Errors.writes, ...reasons.classes],
      scope: "orders:write"
    }),
    /** The store's confirmation timeout: off (`timeout_minutes` null) unless set. */
    HttpApiEndpoint.get("getConfirmationSettings", "/v1/confirmation/settings", {
      success: Data(ConfirmationViews.Settings),
      error: Errors.reads
    }),
    /**
     * Sets the timeout: after `timeout_minutes` from its creation, a pending order created since the timeout was
     * turned on and still unanswered (not postponed past now) is cancelled (`cancel`) or flagged (`flag`), once.
     */
    Endpoint.patch("updateConfirmationSettings", "/v1/confirmation/settings", {
      payload: ConfirmationViews.SettingsBody,
      success: Data(ConfirmationViews.Settings),
      error: [...Errors.writes, ...reasons.classes],
      scope: "orders:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "confirmation",
      description: "Confirming pending orders: attempts, signed one-time links, the timeout (docs/confirmation.md)."
    })
  ) {}

export class ConfirmationPageGroup extends HttpApiGroup.make("confirmationPage")
  .add(
    /**
     * The customer's page of a confirmation link (`?token=`); a used or expired link says so (410), an order that
     * left pending too (409), anything else is not a valid link (404).
     */
    HttpApiEndpoint.get("showConfirmationPage", "/v1/confirm", { query: pageQuery, success: Page }),
    /**
     * The customer's answer: a form body `token=…&answer=confirm` or `answer=cancel`. The link is spent; the order
     * moves (and its events fire). Answers the page saying what was recorded.
     */
    HttpApiEndpoint.post("answerConfirmationPage", "/v1/confirm", { query: pageQuery, success: Page })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "confirmation page",
      description: "The customer's confirmation page, reached by a signed one-time link; no key (docs/confirmation.md)."
    })
  ) {}
