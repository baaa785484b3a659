/**
 * Who am I, keys, usage and quotas (spec store-api-core "Key", "Usage and quota"), and how every refusal of the
 * access rules is answered — `Gate` and `Signed` answer them on every keyed or signed call.
 */
import { AccessError, Keys, Usage } from "@tawsil/access"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Every access refusal: 401 for the credentials, 403 for the gates, 400 and 404 for key management. */
export const reasons = Reasons.of(AccessError.AccessErrorReason, {
  MissingKey: "unauthorized",
  MalformedKey: "unauthorized",
  InvalidKey: "unauthorized",
  PublicKeyNotAccepted: "unauthorized",
  PublicKeyRequired: "unauthorized",
  NotEnterprise: "forbidden",
  NotPilotEnrolled: "forbidden",
  MissingScope: "forbidden",
  PlatformKeyRequired: "forbidden",
  AppTokenRefused: "forbidden",
  QuotaExhausted: "quota_exceeded",
  InvalidKeyRequest: "bad_request",
  TooManyKeys: "bad_request",
  KeyNotFound: "not_found",
  InvalidHistoryRange: "bad_request"
})

export const Whoami = Schema.Struct({
  auth: Schema.Literals(["platform_key", "app_token"]),
  key: Schema.NullOr(
    Schema.Struct({
      key_id: Schema.String,
      type: Schema.String,
      name: Schema.String,
      rate_limit_tier: Schema.String
    })
  ),
  store: Schema.Struct({ id: Schema.Int, name: Schema.String, slug: Schema.String }),
  plan: Schema.String,
  pilot: Schema.Boolean,
  scopes: Schema.Array(Schema.String)
}).annotate({ identifier: "Whoami" })

const { Data } = Endpoint
const { keyed, reads, writes } = Errors

export class AccessGroup extends HttpApiGroup.make("access")
  .add(
    HttpApiEndpoint.get("whoami", "/v1/whoami", { success: Data(Whoami), error: keyed }),
    HttpApiEndpoint.get("listKeys", "/v1/keys", { success: Data(Keys.KeyList), error: keyed }).annotate(
      Endpoint.KeyManagement,
      true
    ),
    Endpoint.post("createKey", "/v1/keys", {
      payload: Schema.Struct({
        type: Schema.optionalKey(Schema.Literals(["platform", "public"])),
        name: Schema.optionalKey(Schema.String)
      }),
      success: Data(Keys.CreatedKey),
      error: writes
    })
      .annotate(Endpoint.KeyManagement, true)
      .annotate(Endpoint.StoredAs, Keys.replaySafe),
    Endpoint.del("revokeKey", "/v1/keys/:key_id", {
      params: { key_id: Schema.String },
      success: Data(Keys.RevokedKey),
      error: writes
    }).annotate(Endpoint.KeyManagement, true),
    HttpApiEndpoint.get("usage", "/v1/usage", { success: Data(Usage.Usage), error: keyed }).annotate(
      Endpoint.RequiredScope,
      "usage:read"
    ),
    HttpApiEndpoint.get("usageHistory", "/v1/usage/history", {
      query: {
        /** Date or date-time; default 7 days before now (Algiers time); inclusive; floored to the hour. */
        from: Schema.optionalKey(Schema.String),
        /** Date or date-time; default now; exclusive; floored to the hour. At most 90 days after `from`. */
        to: Schema.optionalKey(Schema.String)
      },
      success: Data(Usage.UsageHistory),
      error: reads
    }).annotate(Endpoint.RequiredScope, "usage:read"),
    HttpApiEndpoint.get("quotas", "/v1/quotas", { success: Data(Usage.Quotas), error: keyed }).annotate(
      Endpoint.RequiredScope,
      "usage:read"
    )
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(OpenApi.annotations({ title: "access", description: "Who am I, keys, usage and quotas." })) {}
