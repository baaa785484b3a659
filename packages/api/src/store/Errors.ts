/**
 * The store API's errors on the wire: `{ error: { code, message, retry_after? }, meta: { request_id, api_version } }`
 * (spec "Response envelope"). Only these reach the wire; how they are sent is the app's
 * (`apps/http/src/store/Errors.ts`).
 *
 * `codes` is the one table of wire codes — status and default message — in the order of the specs' error tables;
 * there is one wire class per status, whose `code` is one of that status's codes. How a domain module's reasons
 * reach these codes is `Reasons.ts`.
 */

import { CommuneSuggestion } from "@tawsil/courier/ShippingError"
import { PromoError } from "@tawsil/promos"
import { Schema } from "effect"

export const API_VERSION = "v1"

export const Meta = Schema.Struct({ request_id: Schema.String, api_version: Schema.Literal(API_VERSION) })
export type Meta = typeof Meta.Type

export const metaOf = (requestId: string): Meta => ({ request_id: requestId, api_version: API_VERSION })

/** Every wire code: its status, and the message it carries when the reason gives none. */
export const codes = {
  // store-api-core.md "Errors"
  bad_request: [400, "Invalid JSON, malformed or missing Idempotency-Key, or a value that breaks a rule"],
  unauthorized: [401, "Missing, malformed, unknown or revoked key"],
  quota_exceeded: [402, "Monthly request quota used up until the 1st of next month"],
  forbidden: [
    403,
    "Plan not Enterprise, key not pilot-enrolled, missing scope, or key management without a platform key"
  ],
  not_found: [404, "Unknown id, or another store's"],
  method_not_allowed: [405, "This method is not allowed on this route; Allow names the ones that are"],
  rate_limited: [429, "Per-minute budget spent; honour Retry-After"],
  // both specs: every write's Idempotency-Key
  idempotency_in_flight: [409, "A write with this Idempotency-Key is still running"],
  idempotency_key_reuse: [422, "This Idempotency-Key was first used with another method, path or body"],
  // store-api-config.md "Errors"
  plan_required: [403, "The theme or style needs a higher plan"],
  theme_not_found: [404, "No active theme with this key"],
  style_not_found: [404, "No active variant style with this key"],
  store_not_found: [404, "The store was deleted"],
  addon_inactive: [409, "The Promo codes add-on is not active on the store"],
  code_exists: [409, "Another promo code of the store has this text"],
  limit_reached: [409, "The plan allows no more pixels of this type, or the landing page holds 50 sections"],
  pixel_exists: [409, "A pixel with the same type and pixel_id exists"],
  already_undone: [409, "The change was undone already"],
  layout_changed: [409, "The home layout changed after this change; undo newest first"],
  has_subcategories: [409, "The category has subcategories: move or delete them first"],
  payload_too_large: [413, "Body over 1 MB"],
  invalid_code: [422, "code missing, outside 2 to 30 characters, or a character outside A-Z 0-9 - _"],
  invalid_discount_type: [422, "discount_type missing or not percentage/fixed"],
  invalid_discount_value: [
    422,
    "discount_value missing, not a number, 0 or less, above 100 for a percentage or above 100000000"
  ],
  invalid_min_order_amount: [422, "min_order_amount not a number, below 0 or above 100000000"],
  invalid_max_uses: [422, "max_uses not a number or below 1"],
  invalid_starts_at: [422, "starts_at unreadable"],
  invalid_expires_at: [422, "expires_at unreadable"],
  expires_at_in_past: [422, "expires_at not in the future"],
  invalid_date_window: [422, "expires_at not after starts_at"],
  confirmation_required: [422, "A 100% discount needs confirmation: repeat with confirm_token"],
  confirmation_stale: [422, "Expired, used or mismatched confirm_token; a fresh one is given"],
  invalid_theme: [422, "theme missing, over 50 characters or a bad character"],
  invalid_style: [422, "style missing, empty or over 50 characters"],
  invalid_pixel_type: [422, "pixel_type missing or not one of the seven"],
  invalid_pixel_id: [422, "pixel_id breaks the syntax rule"],
  invalid_access_token: [422, "The cleaned access token breaks a rule"],
  immutable_field: [422, "pixel_type, type or pixel_id sent on a pixel PATCH; type or position on a section PATCH"],
  pixel_write_failed: [422, "Write refused after the checks passed; the message gives the reason"],
  not_undoable: [422, "This kind of change cannot be undone"],
  nothing_to_restore: [422, "The change created something or holds no values"],
  restore_target_missing: [422, "The item no longer exists"],
  // landing page sections (docs/store-api-config.md, "Landing page sections")
  invalid_section_type: [422, "type missing or not one of the section types"],
  invalid_position: [422, "position not a whole number from 1 to the end of the page"],
  invalid_settings: [422, "settings not a JSON object within the bounds (64 KB, 8 levels, text, numbers, keys)"],
  invalid_section_order: [422, "section_ids does not list every section of the page exactly once"],
  // shipping rates and settings (docs/store-api-config.md, "Shipping rates and settings")
  snapshot_too_large: [422, "The values this rate write would record pass 256 KB; it did not run"],
  // a courier's failure during a rate sync: the shipping API's codes for it (docs/api/README.md)
  unknown_courier: [400, "No courier of GET /v1/couriers has this key or alias"],
  invalid_credentials: [400, "The credentials do not fit the courier: fields missing, extra or malformed"],
  blocked_egress: [400, "base_url is not accepted for this courier"],
  unsupported: [400, "The courier does not offer this operation"],
  courier_refused: [422, "The courier refused the request; its message is passed on"],
  credentials_rejected: [422, "The courier refused the credentials"],
  courier_unreachable: [502, "The courier could not be reached, or did not answer in time"],
  courier_error: [502, "The courier answered something that cannot be read"],
  // a parcel's own checks, as the shipping API answers them (docs/api/README.md)
  invalid_phone: [422, "The recipient's phone is not an Algerian mobile"],
  unknown_commune: [422, "The commune is not one of the wilaya's; suggestions lists the nearest"],
  commune_not_served: [422, "The courier does not deliver to the commune that way"],
  not_cancellable: [409, "The courier will not cancel the parcel any more (picked up, shipped)"],
  // orders shipped through the store's courier accounts (docs/cod-loop.md)
  not_shippable: [409, "Only a confirmed or processing order can be shipped"],
  shipment_exists: [409, "The order has a shipment already"],
  no_shipment: [404, "The order has no shipment"],
  already_dispatched: [409, "The parcel was dispatched already"],
  account_in_use: [409, "The courier account carries parcels still on their way"],
  parcel_pending: [409, "An earlier attempt at this order's parcel is unsettled at the courier; retry later"],
  // the ban list (docs/risk.md)
  customer_banned: [422, "The customer's phone is banned and the store refuses its orders"],
  // courier push (docs/cod-loop.md, "Push")
  invalid_signature: [401, "The courier's signature is missing or does not verify"],
  stale_request: [401, "The signed request is outside its time window: replayed, or a clock far off"],
  // any call, while the service's database cannot be reached (docs/operations.md "Health"), or a courier account's
  // call while no secret key is configured (docs/operations.md "Secret key")
  unavailable: [503, "A part of the service this call needs is unavailable: the database for a moment, or a secret key"]
} as const satisfies Record<string, readonly [number, string]>

export type Code = keyof typeof codes
type Status = (typeof codes)[Code][0]
type CodesOf<S extends Status> = { readonly [C in Code]: (typeof codes)[C][0] extends S ? C : never }[Code]

const codesOf = <S extends Status>(status: S) =>
  (Object.keys(codes) as Array<Code>).filter((code) => codes[code][0] === status) as Array<CodesOf<S>>

/** The envelope of a status: one of its codes, a message, `retry_after` where the answer says when (429, 409, 503). */
const envelopeOf = <S extends Status, const Extra extends Schema.Struct.Fields = Record<never, never>>(
  status: S,
  extra?: Extra
) => ({
  error: Schema.Struct({
    code: Schema.Literals(codesOf(status)),
    message: Schema.String,
    /** Seconds to wait before retrying (429, 409, 503); also sent as `Retry-After`. */
    retry_after: Schema.optionalKey(Schema.Int),
    ...(extra as Extra)
  }),
  meta: Meta
})

const optionsOf = (status: Status) => ({
  httpApiStatus: status,
  description: codesOf(status)
    .map((code) => `\`${code}\`: ${codes[code][1]}`)
    .join(". ")
})

/** What a 100% confirmation refusal carries beside its message (spec "100% discount flow"), and an unknown commune. */
const unprocessableDetails = {
  /** Single use; send it back with the same body and a new `Idempotency-Key`. */
  confirm_token: Schema.optionalKey(Schema.String),
  /** Seconds the token stays valid: 600. */
  confirm_token_expires_in: Schema.optionalKey(Schema.Int),
  /** `promo.full_discount:new` on create, `promo.full_discount:<id>` on update. */
  action: Schema.optionalKey(Schema.String),
  will_change: Schema.optionalKey(PromoError.WillChange),
  /** `unknown_commune`: the wilaya's communes nearest to the name sent. */
  suggestions: Schema.optionalKey(Schema.Array(CommuneSuggestion))
}

export class BadRequest extends Schema.Error<BadRequest>("StoreBadRequest")(envelopeOf(400), optionsOf(400)) {}
export class Unauthorized extends Schema.Error<Unauthorized>("StoreUnauthorized")(envelopeOf(401), optionsOf(401)) {}
export class QuotaExceeded extends Schema.Error<QuotaExceeded>("StoreQuotaExceeded")(envelopeOf(402), optionsOf(402)) {}
export class Forbidden extends Schema.Error<Forbidden>("StoreForbidden")(envelopeOf(403), optionsOf(403)) {}
export class NotFound extends Schema.Error<NotFound>("StoreNotFound")(envelopeOf(404), optionsOf(404)) {}
export class MethodNotAllowed extends Schema.Error<MethodNotAllowed>("StoreMethodNotAllowed")(
  envelopeOf(405),
  optionsOf(405)
) {}
export class Conflict extends Schema.Error<Conflict>("StoreConflict")(envelopeOf(409), optionsOf(409)) {}
export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("StorePayloadTooLarge")(
  envelopeOf(413),
  optionsOf(413)
) {}
export class Unprocessable extends Schema.Error<Unprocessable>("StoreUnprocessable")(
  envelopeOf(422, unprocessableDetails),
  optionsOf(422)
) {}
export class RateLimited extends Schema.Error<RateLimited>("StoreRateLimited")(envelopeOf(429), optionsOf(429)) {}
export class BadGateway extends Schema.Error<BadGateway>("StoreBadGateway")(envelopeOf(502), optionsOf(502)) {}
export class Unavailable extends Schema.Error<Unavailable>("StoreUnavailable")(envelopeOf(503), optionsOf(503)) {}

/** The wire class of each status. */
const classes = {
  400: BadRequest,
  401: Unauthorized,
  402: QuotaExceeded,
  403: Forbidden,
  404: NotFound,
  405: MethodNotAllowed,
  409: Conflict,
  413: PayloadTooLarge,
  422: Unprocessable,
  429: RateLimited,
  502: BadGateway,
  503: Unavailable
} as const satisfies Record<Status, unknown>

type Classes = typeof classes
export type FailureClass = Classes[Status]
export type FailureOfCode<C extends Code> = InstanceType<Classes[(typeof codes)[C][0]]>

export const Failure = Schema.Union(Object.values(classes) as ReadonlyArray<FailureClass>)
export type Failure = InstanceType<FailureClass>
export const isFailure = Schema.is(Failure)

/** The wire class that answers a code. */
export const classOf = <C extends Code>(code: C): Classes[(typeof codes)[C][0]] =>
  classes[codes[code][0]] as Classes[(typeof codes)[C][0]]

/** What an answer may carry beside `code` and `message` (`retry_after`, a confirmation's token and terms). */
export type Details = Omit<Partial<Unprocessable["error"]>, "code" | "message">

/** The failure `code` of this request; its message is the code's default unless one is given. */
export const make = <C extends Code>(
  code: C,
  requestId: string,
  message: string = codes[code][1],
  details: Details = {}
): FailureOfCode<C> =>
  new (classOf(code) as unknown as new (fields: unknown) => FailureOfCode<C>)({
    error: { code, message, ...details },
    meta: metaOf(requestId)
  })

/** The declared failures of the endpoints: every keyed call (each may meet a database that cannot be reached), reads, writes. */
export const keyed = [Unauthorized, QuotaExceeded, Forbidden, RateLimited, Unavailable] as const
export const reads = [...keyed, BadRequest, NotFound] as const
export const writes = [...reads, Conflict, Unprocessable] as const
