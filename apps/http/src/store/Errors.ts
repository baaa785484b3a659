/**
 * The store API's errors on the wire: `{ error: { code, message, retry_after? }, meta: { request_id, api_version } }`
 * (spec "Response envelope"), one class per status with the spec's code. Only these reach the wire.
 *
 * Every reason of every store domain module is mapped here to its class — so to its status and code — explicitly,
 * in one table per module (`reasons`); a test walks each module's reason union and fails on one without a row.
 */
import { AccessError } from "@tawsil/access"
import { LandingPageError, ProductError, StoreProfileError } from "@tawsil/catalogue"
import { ChangeError, type Entity } from "@tawsil/changes"
import type { Idempotency } from "@tawsil/idempotency"
import { OrderError } from "@tawsil/orders"
import { PromoError } from "@tawsil/promos"
import { SigningError } from "@tawsil/signing"
import { PixelError, ThemeError } from "@tawsil/storefront"
import { TrackerError } from "@tawsil/tracker"
import { WebhookError } from "@tawsil/webhooks"
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type * as Edge from "../Edge.ts"

export const API_VERSION = "v1"

export const Meta = Schema.Struct({ request_id: Schema.String, api_version: Schema.Literal(API_VERSION) })
export type Meta = typeof Meta.Type

export const metaOf = (requestId: string): Meta => ({ request_id: requestId, api_version: API_VERSION })

const fields = <const Code extends string>(code: Code) => ({
  error: Schema.Struct({
    code: Schema.Literal(code),
    message: Schema.String,
    /** Seconds to wait before retrying (429, 409); also sent as `Retry-After`. */
    retry_after: Schema.optionalKey(Schema.Int)
  }),
  meta: Meta
})

/** 400: invalid JSON, missing or malformed `Idempotency-Key`, a body or parameter that breaks a rule. */
export class BadRequest extends Schema.Error<BadRequest>("StoreBadRequest")(fields("bad_request"), {
  httpApiStatus: 400,
  description: "Invalid JSON, missing or malformed Idempotency-Key, validation"
}) {}

/** 401: missing, malformed, unknown, revoked or inactive key; a public key where a platform key is needed. */
export class Unauthorized extends Schema.Error<Unauthorized>("StoreUnauthorized")(fields("unauthorized"), {
  httpApiStatus: 401,
  description: "Missing, malformed, unknown or revoked key"
}) {}

/** 402: the monthly request quota is used up. */
export class QuotaExceeded extends Schema.Error<QuotaExceeded>("StoreQuotaExceeded")(fields("quota_exceeded"), {
  httpApiStatus: 402,
  description: "Monthly request quota used up"
}) {}

/** 403: plan not Enterprise, key not pilot-enrolled, missing scope, key management without a platform key. */
export class Forbidden extends Schema.Error<Forbidden>("StoreForbidden")(fields("forbidden"), {
  httpApiStatus: 403,
  description: "Plan not Enterprise, key not pilot-enrolled, missing scope, key management with a public key"
}) {}

/** 404: unknown id, or another store's. */
export class NotFound extends Schema.Error<NotFound>("StoreNotFound")(fields("not_found"), {
  httpApiStatus: 404,
  description: "Unknown id, or another store's"
}) {}

/** 405: a method the route reserves. */
export class MethodNotAllowed extends Schema.Error<MethodNotAllowed>("StoreMethodNotAllowed")(
  fields("method_not_allowed"),
  { httpApiStatus: 405, description: "Reserved until the store settings write lands" }
) {}

/** 409: a write with this `Idempotency-Key` is still running; retry after `retry_after` seconds. */
export class IdempotencyInFlight extends Schema.Error<IdempotencyInFlight>("StoreIdempotencyInFlight")(
  fields("idempotency_in_flight"),
  { httpApiStatus: 409, description: "A write with this Idempotency-Key is still running" }
) {}

/** 422: the `Idempotency-Key` was first used with another method, path or body. */
export class IdempotencyKeyReuse extends Schema.Error<IdempotencyKeyReuse>("StoreIdempotencyKeyReuse")(
  fields("idempotency_key_reuse"),
  { httpApiStatus: 422, description: "Idempotency-Key first used with another request" }
) {}

/** 429: the per-minute budget is spent; honour `Retry-After`. */
export class RateLimited extends Schema.Error<RateLimited>("StoreRateLimited")(fields("rate_limited"), {
  httpApiStatus: 429,
  description: "Per-minute budget spent; honour Retry-After"
}) {}

// --- configuration (store-api-config.md): promo codes, themes, pixels, change history ---------------------------

/** 403: The theme or style needs a higher plan; the message names both plans. */
export class PlanRequired extends Schema.Error<PlanRequired>("StorePlanRequired")(fields("plan_required"), {
  httpApiStatus: 403,
  description: "The theme or style needs a higher plan; the message names both plans"
}) {}

/** 404: No active theme with this key. */
export class ThemeNotFound extends Schema.Error<ThemeNotFound>("StoreThemeNotFound")(fields("theme_not_found"), {
  httpApiStatus: 404,
  description: "No active theme with this key"
}) {}

/** 404: No active variant style with this key. */
export class StyleNotFound extends Schema.Error<StyleNotFound>("StoreStyleNotFound")(fields("style_not_found"), {
  httpApiStatus: 404,
  description: "No active variant style with this key"
}) {}

/** 404: The store was deleted. */
export class StoreNotFound extends Schema.Error<StoreNotFound>("StoreStoreNotFound")(fields("store_not_found"), {
  httpApiStatus: 404,
  description: "The store was deleted"
}) {}

/** 409: The Promo codes add-on is not active on the store. */
export class AddonInactive extends Schema.Error<AddonInactive>("StoreAddonInactive")(fields("addon_inactive"), {
  httpApiStatus: 409,
  description: "The Promo codes add-on is not active on the store"
}) {}

/** 409: Another promo code of the store has this text. */
export class CodeExists extends Schema.Error<CodeExists>("StoreCodeExists")(fields("code_exists"), {
  httpApiStatus: 409,
  description: "Another promo code of the store has this text"
}) {}

/** 409: The plan allows no more pixels of this type. */
export class LimitReached extends Schema.Error<LimitReached>("StoreLimitReached")(fields("limit_reached"), {
  httpApiStatus: 409,
  description: "The plan allows no more pixels of this type"
}) {}

/** 409: A pixel with the same type and pixel_id exists. */
export class PixelExists extends Schema.Error<PixelExists>("StorePixelExists")(fields("pixel_exists"), {
  httpApiStatus: 409,
  description: "A pixel with the same type and pixel_id exists"
}) {}

/** 409: The change was undone already. */
export class AlreadyUndone extends Schema.Error<AlreadyUndone>("StoreAlreadyUndone")(fields("already_undone"), {
  httpApiStatus: 409,
  description: "The change was undone already"
}) {}

/** 409: The home layout changed after this change; undo newest first. */
export class LayoutChanged extends Schema.Error<LayoutChanged>("StoreLayoutChanged")(fields("layout_changed"), {
  httpApiStatus: 409,
  description: "The home layout changed after this change; undo newest first"
}) {}

/** 413: Body over 1 MB. */
export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("StorePayloadTooLarge")(
  fields("payload_too_large"),
  {
    httpApiStatus: 413,
    description: "Body over 1 MB"
  }
) {}

/** 422: code missing, outside 2 to 30 characters, or a character outside A-Z 0-9 - _. */
export class InvalidCode extends Schema.Error<InvalidCode>("StoreInvalidCode")(fields("invalid_code"), {
  httpApiStatus: 422,
  description: "code missing, outside 2 to 30 characters, or a character outside A-Z 0-9 - _"
}) {}

/** 422: discount_type missing or not percentage/fixed. */
export class InvalidDiscountType extends Schema.Error<InvalidDiscountType>("StoreInvalidDiscountType")(
  fields("invalid_discount_type"),
  {
    httpApiStatus: 422,
    description: "discount_type missing or not percentage/fixed"
  }
) {}

/** 422: discount_value missing, not a number, 0 or less, or above 100 for a percentage. */
export class InvalidDiscountValue extends Schema.Error<InvalidDiscountValue>("StoreInvalidDiscountValue")(
  fields("invalid_discount_value"),
  {
    httpApiStatus: 422,
    description: "discount_value missing, not a number, 0 or less, or above 100 for a percentage"
  }
) {}

/** 422: min_order_amount not a number. */
export class InvalidMinOrderAmount extends Schema.Error<InvalidMinOrderAmount>("StoreInvalidMinOrderAmount")(
  fields("invalid_min_order_amount"),
  {
    httpApiStatus: 422,
    description: "min_order_amount not a number"
  }
) {}

/** 422: max_uses not a number or below 1. */
export class InvalidMaxUses extends Schema.Error<InvalidMaxUses>("StoreInvalidMaxUses")(fields("invalid_max_uses"), {
  httpApiStatus: 422,
  description: "max_uses not a number or below 1"
}) {}

/** 422: starts_at unreadable. */
export class InvalidStartsAt extends Schema.Error<InvalidStartsAt>("StoreInvalidStartsAt")(
  fields("invalid_starts_at"),
  {
    httpApiStatus: 422,
    description: "starts_at unreadable"
  }
) {}

/** 422: expires_at unreadable. */
export class InvalidExpiresAt extends Schema.Error<InvalidExpiresAt>("StoreInvalidExpiresAt")(
  fields("invalid_expires_at"),
  {
    httpApiStatus: 422,
    description: "expires_at unreadable"
  }
) {}

/** 422: expires_at not in the future. */
export class ExpiresAtInPast extends Schema.Error<ExpiresAtInPast>("StoreExpiresAtInPast")(
  fields("expires_at_in_past"),
  {
    httpApiStatus: 422,
    description: "expires_at not in the future"
  }
) {}

/** 422: expires_at not after starts_at. */
export class InvalidDateWindow extends Schema.Error<InvalidDateWindow>("StoreInvalidDateWindow")(
  fields("invalid_date_window"),
  {
    httpApiStatus: 422,
    description: "expires_at not after starts_at"
  }
) {}

/** 422: theme missing, over 50 characters or a bad character. */
export class InvalidTheme extends Schema.Error<InvalidTheme>("StoreInvalidTheme")(fields("invalid_theme"), {
  httpApiStatus: 422,
  description: "theme missing, over 50 characters or a bad character"
}) {}

/** 422: style missing, empty or over 50 characters. */
export class InvalidStyle extends Schema.Error<InvalidStyle>("StoreInvalidStyle")(fields("invalid_style"), {
  httpApiStatus: 422,
  description: "style missing, empty or over 50 characters"
}) {}

/** 422: pixel_type missing or not one of the seven. */
export class InvalidPixelType extends Schema.Error<InvalidPixelType>("StoreInvalidPixelType")(
  fields("invalid_pixel_type"),
  {
    httpApiStatus: 422,
    description: "pixel_type missing or not one of the seven"
  }
) {}

/** 422: pixel_id not in its platform's format. */
export class InvalidPixelId extends Schema.Error<InvalidPixelId>("StoreInvalidPixelId")(fields("invalid_pixel_id"), {
  httpApiStatus: 422,
  description: "pixel_id not in its platform's format"
}) {}

/** 422: The cleaned access token breaks a rule. */
export class InvalidAccessToken extends Schema.Error<InvalidAccessToken>("StoreInvalidAccessToken")(
  fields("invalid_access_token"),
  {
    httpApiStatus: 422,
    description: "The cleaned access token breaks a rule"
  }
) {}

/** 422: pixel_type, type or pixel_id sent on PATCH. */
export class ImmutableField extends Schema.Error<ImmutableField>("StoreImmutableField")(fields("immutable_field"), {
  httpApiStatus: 422,
  description: "pixel_type, type or pixel_id sent on PATCH"
}) {}

/** 422: Write refused after the checks passed; the message gives the reason. */
export class PixelWriteFailed extends Schema.Error<PixelWriteFailed>("StorePixelWriteFailed")(
  fields("pixel_write_failed"),
  {
    httpApiStatus: 422,
    description: "Write refused after the checks passed; the message gives the reason"
  }
) {}

/** 422: This kind of change cannot be undone. */
export class NotUndoable extends Schema.Error<NotUndoable>("StoreNotUndoable")(fields("not_undoable"), {
  httpApiStatus: 422,
  description: "This kind of change cannot be undone"
}) {}

/** 422: The change created something or holds no values. */
export class NothingToRestore extends Schema.Error<NothingToRestore>("StoreNothingToRestore")(
  fields("nothing_to_restore"),
  {
    httpApiStatus: 422,
    description: "The change created something or holds no values"
  }
) {}

/** 422: The item no longer exists. */
export class RestoreTargetMissing extends Schema.Error<RestoreTargetMissing>("StoreRestoreTargetMissing")(
  fields("restore_target_missing"),
  {
    httpApiStatus: 422,
    description: "The item no longer exists"
  }
) {}

/** The envelope of an error that carries more than `code` and `message` (`extra`, beside them in `error`). */
const fieldsWith = <const Code extends string, const Extra extends Schema.Struct.Fields>(code: Code, extra: Extra) => ({
  error: Schema.Struct({
    code: Schema.Literal(code),
    message: Schema.String,
    retry_after: Schema.optionalKey(Schema.Int),
    ...extra
  }),
  meta: Meta
})

/** What a 100% confirmation refusal carries beside its message (spec "100% discount flow"). */
const confirmation = {
  /** Single use; send it back with the same body and a new `Idempotency-Key`. */
  confirm_token: Schema.String,
  /** Seconds the token stays valid: 600. */
  confirm_token_expires_in: Schema.Int,
  /** `promo.full_discount:new` on create, `promo.full_discount:<id>` on update. */
  action: Schema.String,
  will_change: PromoError.WillChange
}

/** 422: the write would make a 100% code; nothing written; approve with `confirm_token`. */
export class ConfirmationRequired extends Schema.Error<ConfirmationRequired>("StoreConfirmationRequired")(
  fieldsWith("confirmation_required", confirmation),
  { httpApiStatus: 422, description: "A 100% discount needs confirmation: repeat with confirm_token" }
) {}

/** 422: the token sent is expired, used or for another write; nothing written; here is a fresh one. */
export class ConfirmationStale extends Schema.Error<ConfirmationStale>("StoreConfirmationStale")(
  fieldsWith("confirmation_stale", confirmation),
  { httpApiStatus: 422, description: "Expired, used or mismatched confirm_token; a fresh one is given" }
) {}

export const Failure = Schema.Union([
  BadRequest,
  Unauthorized,
  QuotaExceeded,
  Forbidden,
  NotFound,
  MethodNotAllowed,
  IdempotencyInFlight,
  IdempotencyKeyReuse,
  RateLimited,
  PlanRequired,
  ThemeNotFound,
  StyleNotFound,
  StoreNotFound,
  AddonInactive,
  CodeExists,
  LimitReached,
  PixelExists,
  AlreadyUndone,
  LayoutChanged,
  PayloadTooLarge,
  InvalidCode,
  InvalidDiscountType,
  InvalidDiscountValue,
  InvalidMinOrderAmount,
  InvalidMaxUses,
  InvalidStartsAt,
  InvalidExpiresAt,
  ExpiresAtInPast,
  InvalidDateWindow,
  InvalidTheme,
  InvalidStyle,
  InvalidPixelType,
  InvalidPixelId,
  InvalidAccessToken,
  ImmutableField,
  PixelWriteFailed,
  NotUndoable,
  NothingToRestore,
  RestoreTargetMissing,
  ConfirmationRequired,
  ConfirmationStale
])
export type Failure = typeof Failure.Type

type FailureClass = (typeof Failure.members)[number]

/** Each class's status and code, as the spec names them. */
const wire = new Map<FailureClass, { readonly status: number; readonly code: string }>([
  [BadRequest, { status: 400, code: "bad_request" }],
  [Unauthorized, { status: 401, code: "unauthorized" }],
  [QuotaExceeded, { status: 402, code: "quota_exceeded" }],
  [Forbidden, { status: 403, code: "forbidden" }],
  [NotFound, { status: 404, code: "not_found" }],
  [MethodNotAllowed, { status: 405, code: "method_not_allowed" }],
  [IdempotencyInFlight, { status: 409, code: "idempotency_in_flight" }],
  [IdempotencyKeyReuse, { status: 422, code: "idempotency_key_reuse" }],
  [RateLimited, { status: 429, code: "rate_limited" }],
  [PlanRequired, { status: 403, code: "plan_required" }],
  [ThemeNotFound, { status: 404, code: "theme_not_found" }],
  [StyleNotFound, { status: 404, code: "style_not_found" }],
  [StoreNotFound, { status: 404, code: "store_not_found" }],
  [AddonInactive, { status: 409, code: "addon_inactive" }],
  [CodeExists, { status: 409, code: "code_exists" }],
  [LimitReached, { status: 409, code: "limit_reached" }],
  [PixelExists, { status: 409, code: "pixel_exists" }],
  [AlreadyUndone, { status: 409, code: "already_undone" }],
  [LayoutChanged, { status: 409, code: "layout_changed" }],
  [PayloadTooLarge, { status: 413, code: "payload_too_large" }],
  [InvalidCode, { status: 422, code: "invalid_code" }],
  [InvalidDiscountType, { status: 422, code: "invalid_discount_type" }],
  [InvalidDiscountValue, { status: 422, code: "invalid_discount_value" }],
  [InvalidMinOrderAmount, { status: 422, code: "invalid_min_order_amount" }],
  [InvalidMaxUses, { status: 422, code: "invalid_max_uses" }],
  [InvalidStartsAt, { status: 422, code: "invalid_starts_at" }],
  [InvalidExpiresAt, { status: 422, code: "invalid_expires_at" }],
  [ExpiresAtInPast, { status: 422, code: "expires_at_in_past" }],
  [InvalidDateWindow, { status: 422, code: "invalid_date_window" }],
  [InvalidTheme, { status: 422, code: "invalid_theme" }],
  [InvalidStyle, { status: 422, code: "invalid_style" }],
  [InvalidPixelType, { status: 422, code: "invalid_pixel_type" }],
  [InvalidPixelId, { status: 422, code: "invalid_pixel_id" }],
  [InvalidAccessToken, { status: 422, code: "invalid_access_token" }],
  [ImmutableField, { status: 422, code: "immutable_field" }],
  [PixelWriteFailed, { status: 422, code: "pixel_write_failed" }],
  [NotUndoable, { status: 422, code: "not_undoable" }],
  [NothingToRestore, { status: 422, code: "nothing_to_restore" }],
  [RestoreTargetMissing, { status: 422, code: "restore_target_missing" }],
  [ConfirmationRequired, { status: 422, code: "confirmation_required" }],
  [ConfirmationStale, { status: 422, code: "confirmation_stale" }]
])

/** The declared failures of the endpoints: every keyed call, reads, writes. */
export const keyed = [Unauthorized, QuotaExceeded, Forbidden, RateLimited] as const
export const reads = [...keyed, BadRequest, NotFound] as const
export const writes = [...reads, IdempotencyInFlight, IdempotencyKeyReuse] as const

/** The failures of promo code writes (beyond `writes`), in the spec's order. */
export const promoWrites = [
  AddonInactive,
  CodeExists,
  InvalidCode,
  InvalidDiscountType,
  InvalidDiscountValue,
  InvalidMinOrderAmount,
  InvalidMaxUses,
  InvalidStartsAt,
  InvalidExpiresAt,
  ExpiresAtInPast,
  InvalidDateWindow,
  ConfirmationRequired,
  ConfirmationStale
] as const

/** The failures of the theme switches (beyond `writes`). */
export const themeWrites = [
  PlanRequired,
  ThemeNotFound,
  StyleNotFound,
  StoreNotFound,
  InvalidTheme,
  InvalidStyle
] as const

/** The failures of pixel writes (beyond `writes`), in the spec's order. */
export const pixelWrites = [
  InvalidPixelType,
  InvalidPixelId,
  LimitReached,
  PixelExists,
  InvalidAccessToken,
  ImmutableField,
  PixelWriteFailed,
  PayloadTooLarge
] as const

/** The change history's own refusals (beyond `writes`). */
export const changeFailures = [
  AlreadyUndone,
  LayoutChanged,
  NotUndoable,
  NothingToRestore,
  RestoreTargetMissing
] as const

/**
 * The failures of an undo (beyond `writes`): the engine's, and those of every registered entity's writes (the
 * original write's code, spec "Errors").
 */
export const undoWrites = [...changeFailures, ...promoWrites, ...themeWrites, ...pixelWrites] as const

/** What an undo may answer besides its success: a write's failures, the engine's and every entity's. */
export type UndoFailure = InstanceType<(typeof writes)[number]> | InstanceType<(typeof undoWrites)[number]>

/** A domain error of one of the store's modules. */
export type DomainError =
  | AccessError.AccessError
  | OrderError.OrderError
  | ProductError.ProductError
  | LandingPageError.LandingPageError
  | StoreProfileError.StoreProfileError
  | WebhookError.WebhookError
  | SigningError.SigningError
  | TrackerError.TrackerError
  | ChangeError.ChangeError
  | PromoError.PromoError
  | ThemeError.ThemeError
  | PixelError.PixelError

/** Each module's reasons, each to the class (status and code) it is answered with. */
export const reasons = {
  AccessError: {
    MissingKey: Unauthorized,
    MalformedKey: Unauthorized,
    InvalidKey: Unauthorized,
    PublicKeyNotAccepted: Unauthorized,
    PublicKeyRequired: Unauthorized,
    NotEnterprise: Forbidden,
    NotPilotEnrolled: Forbidden,
    MissingScope: Forbidden,
    PlatformKeyRequired: Forbidden,
    AppTokenRefused: Forbidden,
    RateLimited: RateLimited,
    QuotaExhausted: QuotaExceeded,
    InvalidKeyRequest: BadRequest,
    TooManyKeys: BadRequest,
    KeyNotFound: NotFound,
    InvalidHistoryRange: BadRequest
  } satisfies Record<AccessError.AccessErrorReason["_tag"], FailureClass>,
  OrderError: {
    InvalidOrder: BadRequest,
    InvalidStatusChange: BadRequest,
    IllegalTransition: BadRequest,
    ConcurrentChange: BadRequest,
    MonthlyCapReached: BadRequest,
    OrderNotFound: NotFound,
    CustomerNotFound: NotFound
  } satisfies Record<OrderError.OrderErrorReason["_tag"], FailureClass>,
  ProductError: {
    InvalidProduct: BadRequest,
    ProductNotFound: NotFound
  } satisfies Record<ProductError.ProductErrorReason["_tag"], FailureClass>,
  LandingPageError: {
    InvalidLandingPage: BadRequest,
    LandingPageNotFound: NotFound
  } satisfies Record<LandingPageError.LandingPageErrorReason["_tag"], FailureClass>,
  StoreProfileError: {
    StoreNotFound: NotFound
  } satisfies Record<StoreProfileError.StoreProfileErrorReason["_tag"], FailureClass>,
  WebhookError: {
    InvalidWebhook: BadRequest,
    UrlRefused: BadRequest,
    TooManyWebhooks: BadRequest,
    WebhookNotFound: NotFound,
    DeliveryNotFound: NotFound
  } satisfies Record<WebhookError.WebhookErrorReason["_tag"], FailureClass>,
  // Every way a signature fails is the caller's credentials failing: 401, each with its own message.
  SigningError: {
    MissingHeader: Unauthorized,
    MalformedTimestamp: Unauthorized,
    TimestampOutOfWindow: Unauthorized,
    MalformedNonce: Unauthorized,
    NonceReused: Unauthorized,
    MalformedSignature: Unauthorized,
    SignatureMismatch: Unauthorized
  } satisfies Record<SigningError.SigningErrorReason["_tag"], FailureClass>,
  TrackerError: {
    InvalidSignup: BadRequest,
    InvalidEvent: BadRequest
  } satisfies Record<TrackerError.TrackerErrorReason["_tag"], FailureClass>,
  ChangeError: {
    ChangeNotFound: NotFound,
    MissingEntityScope: Forbidden,
    NothingToRestore: NothingToRestore,
    AlreadyUndone: AlreadyUndone,
    LaterChangeExists: LayoutChanged,
    RestoreTargetMissing: RestoreTargetMissing,
    NotUndoable: NotUndoable
  } satisfies Record<ChangeError.ChangeErrorReason["_tag"], FailureClass>,
  PromoError: {
    InvalidPromoBody: BadRequest,
    AddonInactive: AddonInactive,
    CodeExists: CodeExists,
    InvalidCode: InvalidCode,
    InvalidDiscountType: InvalidDiscountType,
    InvalidDiscountValue: InvalidDiscountValue,
    InvalidMinOrderAmount: InvalidMinOrderAmount,
    InvalidMaxUses: InvalidMaxUses,
    InvalidStartsAt: InvalidStartsAt,
    InvalidExpiresAt: InvalidExpiresAt,
    ExpiresAtInPast: ExpiresAtInPast,
    InvalidDateWindow: InvalidDateWindow,
    ConfirmationRequired: ConfirmationRequired,
    ConfirmationStale: ConfirmationStale,
    PromoNotFound: NotFound
  } satisfies Record<PromoError.PromoErrorReason["_tag"], FailureClass>,
  ThemeError: {
    InvalidTheme: InvalidTheme,
    InvalidStyle: InvalidStyle,
    ThemeNotFound: ThemeNotFound,
    StyleNotFound: StyleNotFound,
    PlanRequired: PlanRequired,
    StoreNotFound: StoreNotFound
  } satisfies Record<ThemeError.ThemeErrorReason["_tag"], FailureClass>,
  PixelError: {
    InvalidPixelBody: BadRequest,
    InvalidPixelType: InvalidPixelType,
    InvalidPixelId: InvalidPixelId,
    LimitReached: LimitReached,
    PixelExists: PixelExists,
    InvalidAccessToken: InvalidAccessToken,
    ImmutableField: ImmutableField,
    PixelWriteFailed: PixelWriteFailed,
    PixelNotFound: NotFound
  } satisfies Record<PixelError.PixelErrorReason["_tag"], FailureClass>
} as const

/** The reason unions the tables above answer, by module: what the mapping test walks. */
export const reasonUnions = {
  AccessError: AccessError.AccessErrorReason,
  OrderError: OrderError.OrderErrorReason,
  ProductError: ProductError.ProductErrorReason,
  LandingPageError: LandingPageError.LandingPageErrorReason,
  StoreProfileError: StoreProfileError.StoreProfileErrorReason,
  WebhookError: WebhookError.WebhookErrorReason,
  SigningError: SigningError.SigningErrorReason,
  TrackerError: TrackerError.TrackerErrorReason,
  ChangeError: ChangeError.ChangeErrorReason,
  PromoError: PromoError.PromoErrorReason,
  ThemeError: ThemeError.ThemeErrorReason,
  PixelError: PixelError.PixelErrorReason
} as const

const make = (
  failure: FailureClass,
  message: string,
  requestId: string,
  retryAfter?: number,
  details: Readonly<Record<string, unknown>> = {}
): Failure =>
  new failure({
    error: {
      code: wire.get(failure)!.code,
      message,
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
      ...details
    },
    meta: metaOf(requestId)
  } as never)

/** What a reason carries beside its message, under the wire's names (the 100% confirmation's token and terms). */
const detailsOf = (reason: DomainError["reason"]): Readonly<Record<string, unknown>> => {
  switch (reason._tag) {
    case "ConfirmationRequired":
    case "ConfirmationStale":
      return {
        confirm_token: reason.confirmToken,
        confirm_token_expires_in: reason.expiresIn,
        action: reason.action,
        will_change: reason.willChange
      }
    default:
      return {}
  }
}

type Instance<C> = C extends abstract new (...args: ReadonlyArray<never>) => infer I ? I : never
type Tables = typeof reasons

/** The wire failures a module's error can become, by its reasons' rows. */
export type FailureOf<E> = E extends { readonly _tag: infer Tag extends keyof Tables }
  ? Instance<Tables[Tag][keyof Tables[Tag]]>
  : never

/** A domain error as the wire failure of this request. */
export const fromDomain = <E extends DomainError>(error: E, requestId: string): FailureOf<E> => {
  const reason = error.reason
  const table = reasons[error._tag] as Readonly<Record<string, FailureClass>>
  return make(
    table[reason._tag]!,
    reason.message,
    requestId,
    reason._tag === "RateLimited" ? reason.retryAfterSeconds : undefined,
    detailsOf(reason)
  ) as FailureOf<E>
}

/**
 * An entity's refusal of the values an undo writes back, answered as the original write would be (spec "Errors":
 * "4xx original write's code"); `undefined` for an error of a module this API has no table for (a defect).
 */
export const fromEntity = (error: Entity.EntityError, requestId: string): Failure | undefined =>
  Object.hasOwn(reasons, error._tag) ? fromDomain(error as DomainError, requestId) : undefined

/** A failure of our own making (an id that is not one, a reserved method). */
export const failure = <C extends FailureClass>(failure: C, message: string, requestId: string): InstanceType<C> =>
  make(failure, message, requestId) as InstanceType<C>

/** The idempotency store's refusals, as the store API answers them. */
export const fromIdempotency = (
  error: Idempotency.KeyReused | Idempotency.InFlight | Idempotency.InvalidKey,
  requestId: string
): BadRequest | IdempotencyKeyReuse | IdempotencyInFlight => {
  switch (error._tag) {
    case "KeyReused":
      return failure(IdempotencyKeyReuse, error.message, requestId)
    case "InFlight":
      return make(IdempotencyInFlight, error.message, requestId, error.retryAfterSeconds) as IdempotencyInFlight
    case "InvalidKey":
      return failure(
        BadRequest,
        error.reason === "missing"
          ? "Idempotency-Key header is required on POST, PATCH and DELETE"
          : "Idempotency-Key must be 1 to 64 characters among A-Z a-z 0-9 _ - : .",
        requestId
      )
  }
}

export const isFailure = Schema.is(Failure)

const encodeFailure = Schema.encodeSync(Failure)

/** The status and body a failure is sent with (what the idempotency record keeps of it). */
export const rendered = (failure: Failure): { readonly status: number; readonly body: string } => ({
  status: wire.get(failure.constructor as FailureClass)!.status,
  body: JSON.stringify(encodeFailure(failure))
})

/** A failure as its response, with `Retry-After` (and the rate-limit headers of a 429) where it says when. */
export const respond = (failure: Failure, headers: Readonly<Record<string, string>>) => {
  const { status, body } = rendered(failure)
  const retryAfter = failure.error.retry_after
  return HttpServerResponse.text(body, {
    status,
    contentType: "application/json",
    headers: {
      ...headers,
      ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
      ...(status === 429 ? { "ratelimit-remaining": "0", "ratelimit-reset": String(retryAfter) } : {})
    }
  })
}

/** Errors the HTTP layer itself produces (unknown route, body too large…), in this envelope. */
export const envelope: Edge.Envelope = {
  codes: {
    400: "bad_request",
    401: "unauthorized",
    402: "quota_exceeded",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "idempotency_key_reuse",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable"
  },
  render: (error, requestId) => ({ error, meta: metaOf(requestId) })
}
