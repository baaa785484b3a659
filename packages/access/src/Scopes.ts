/**
 * Scopes (spec "Scopes"): the full default set each key type is minted with, and the scopes the spec enforces.
 * Read endpoints of store, products, orders, customers and landing pages take any active pilot-enrolled key.
 */
import { Schema } from "effect"
import type { KeyType } from "./Credentials.ts"

export const PLATFORM_DEFAULTS: ReadonlyArray<string> = [
  "store:read",
  "store:write",
  "products:read",
  "products:write",
  "orders:read",
  "orders:write",
  "customers:read",
  "landing_pages:read",
  "landing_pages:write",
  "webhooks:read",
  "webhooks:write",
  "usage:read"
]

export const PUBLIC_DEFAULTS: ReadonlyArray<string> = ["signups:write", "events:write"]

/**
 * What a platform key made from the dashboard carries (spec store-api-config "Authentication"): the core defaults
 * plus the configuration scopes. Keys the admin CLI makes stand for dashboard keys; keys minted through
 * `POST /v1/keys` get `PLATFORM_DEFAULTS` only. Scopes are frozen when a key is made.
 */
export const DASHBOARD_PLATFORM: ReadonlyArray<string> = [
  ...PLATFORM_DEFAULTS,
  "promos:read",
  "promos:write",
  "pixels:read",
  "pixels:write",
  "shipping:read",
  "shipping:write",
  "cod:read",
  "cod:write"
]

/**
 * The scopes this document's endpoints check. An endpoint names its scope only when the spec enforces it;
 * `Access.authorize` checks whatever scope it is given.
 */
export const ENFORCED: ReadonlyArray<string> = [
  "products:write",
  "orders:write",
  "landing_pages:write",
  "landing_pages:read",
  "webhooks:write",
  "webhooks:read",
  "usage:read",
  "store:read",
  "store:write",
  "promos:read",
  "promos:write",
  "pixels:read",
  "pixels:write",
  "cod:read",
  "cod:write"
]

/** Where a key was made: from the dashboard (here the admin CLI), or through `POST /v1/keys`. */
export type CreatedVia = "dashboard" | "api"

/** The scopes a key of this type is minted with, whatever the minting key's own scopes. */
export const defaultsFor = (type: KeyType, createdVia: CreatedVia = "api"): ReadonlyArray<string> =>
  type === "public" ? PUBLIC_DEFAULTS : createdVia === "dashboard" ? DASHBOARD_PLATFORM : PLATFORM_DEFAULTS

/** A scope's shape: `resource:read` or `resource:write`. */
export const Scope = Schema.String.check(
  Schema.isPattern(/^[a-z][a-z_]{0,39}:(read|write)$/, {
    message: "Expected a scope such as orders:write (resource:read or resource:write)"
  })
)
