/**
 * The store API's errors on the wire: `{ error: { code, message, retry_after? }, meta: { request_id, api_version } }`
 * (spec "Response envelope"), one class per status with the spec's code. Only these reach the wire.
 *
 * Every reason of every store domain module is mapped here to its class — so to its status and code — explicitly,
 * in one table per module (`reasons`); a test walks each module's reason union and fails on one without a row.
 */
import { AccessError } from "@tawsil/access"
import { LandingPageError, ProductError, StoreProfileError } from "@tawsil/catalogue"
import type { Idempotency } from "@tawsil/idempotency"
import { OrderError } from "@tawsil/orders"
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

export const Failure = Schema.Union([
  BadRequest,
  Unauthorized,
  QuotaExceeded,
  Forbidden,
  NotFound,
  MethodNotAllowed,
  IdempotencyInFlight,
  IdempotencyKeyReuse,
  RateLimited
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
  [RateLimited, { status: 429, code: "rate_limited" }]
])

/** The declared failures of the endpoints: every keyed call, reads, writes. */
export const keyed = [Unauthorized, QuotaExceeded, Forbidden, RateLimited] as const
export const reads = [...keyed, BadRequest, NotFound] as const
export const writes = [...reads, IdempotencyInFlight, IdempotencyKeyReuse] as const

/** A domain error of one of the store's modules. */
export type DomainError =
  | AccessError.AccessError
  | OrderError.OrderError
  | ProductError.ProductError
  | LandingPageError.LandingPageError
  | StoreProfileError.StoreProfileError

/** Each module's reasons, each to the class (status and code) it is answered with. */
export const reasons = {
  AccessError: {
    MissingKey: Unauthorized,
    MalformedKey: Unauthorized,
    InvalidKey: Unauthorized,
    PublicKeyNotAccepted: Unauthorized,
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
  } satisfies Record<StoreProfileError.StoreProfileErrorReason["_tag"], FailureClass>
} as const

/** The reason unions the tables above answer, by module: what the mapping test walks. */
export const reasonUnions = {
  AccessError: AccessError.AccessErrorReason,
  OrderError: OrderError.OrderErrorReason,
  ProductError: ProductError.ProductErrorReason,
  LandingPageError: LandingPageError.LandingPageErrorReason,
  StoreProfileError: StoreProfileError.StoreProfileErrorReason
} as const

const make = (failure: FailureClass, message: string, requestId: string, retryAfter?: number): Failure =>
  new failure({
    error: {
      code: wire.get(failure)!.code,
      message,
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter })
    },
    meta: metaOf(requestId)
  } as never)

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
    reason._tag === "RateLimited" ? reason.retryAfterSeconds : undefined
  ) as FailureOf<E>
}

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
    500: "internal_error"
  },
  render: (error, requestId) => ({ error, meta: metaOf(requestId) })
}
