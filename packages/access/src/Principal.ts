/**
 * Who is calling, once `Access.authenticate` (or, for a signed call, `PublicAccess.authenticate`) has verified the
 * credentials: a platform key, an installed-app token or a public key, the store it is bound to, and what it may
 * do. Holds no secret.
 */
import { Ids } from "@tawsil/domain"
import { Schema } from "effect"

export class Principal extends Schema.Class<Principal>("@tawsil/access/Principal")({
  kind: Schema.Literals(["platform_key", "app_token", "public_key"]),
  store: Schema.Struct({
    id: Ids.StoreId,
    name: Schema.String,
    slug: Schema.String,
    /** `free`, `pro`, `unlimited` or `enterprise`; any other name is treated as not Enterprise. */
    plan: Schema.String
  }),
  /**
   * The key's id (`twpk_live_…`); for an app token `app_` and the first 16 hex of the token's SHA-256, which names
   * the token without revealing it. Unique per credential: scope caches by it.
   */
  keyId: Schema.String,
  /** `platform` for a platform key, `app` for an installed-app token, `public` for a public key (signed calls). */
  keyType: Schema.Literals(["platform", "app", "public"]),
  name: Schema.String,
  scopes: Schema.Array(Schema.String),
  pilot: Schema.Boolean,
  rateLimitTier: Schema.String,
  /**
   * A platform key made from the dashboard (here: by the admin CLI), which may skip the 100% promo confirmation;
   * false for keys minted through `POST /v1/keys` and for app tokens.
   */
  dashboardKey: Schema.Boolean
}) {}

/** The store's per-minute budget after this call; `-1` in `limit` and `remaining` when the limit is unlimited. */
export class RateLimitState extends Schema.Class<RateLimitState>("@tawsil/access/RateLimitState")({
  limit: Schema.Int,
  remaining: Schema.Int,
  /** Seconds until the window (a wall-clock minute of the database clock) resets, 1 to 60. */
  resetSeconds: Schema.Int
}) {}
