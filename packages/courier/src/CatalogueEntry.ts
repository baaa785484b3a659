/**
 * A courier as a Tawsil host offers it (spec "Courier catalogue entry", `GET /v1/couriers`): its key, name and
 * aliases, the credentials it needs, what it can do and where it is reached. The host builds one per courier from
 * the adapters' manifests (`Catalogue` of `@tawsil/shipping`); the API contract names it without installing the host.
 */
import { Schema } from "effect"

export class CatalogueEntry extends Schema.Class<CatalogueEntry>("CatalogueEntry")({
  key: Schema.String,
  name: Schema.String,
  platform: Schema.String,
  aliases: Schema.Array(Schema.String),
  requiredCredentials: Schema.Array(Schema.String),
  /**
   * What the courier can do through Tawsil. `trackBatch`: the platform tracks up to 100 parcels in one call (every
   * courier with `track` accepts `trackingNumbers`; the others are tracked one by one). `createBatch`: the platform
   * creates up to 100 parcels in one call (`POST /v1/orders/batch` works for every courier with `create`; the others
   * are created one by one, a few at a time). `communes`: the courier's
   * own commune list, so orders go out in its spelling and `POST /v1/communes/resolve` says what it delivers where.
   * `dispatch`: the platform separates creating a parcel from handing it over, so a store can ship an order
   * undispatched (cancellable until dispatched) and dispatch it later. `push`: the courier pushes tracking events,
   * which a store receives with the webhook secret of its courier account.
   */
  capabilities: Schema.Struct({
    create: Schema.Boolean,
    track: Schema.Boolean,
    rates: Schema.Boolean,
    label: Schema.Boolean,
    cancel: Schema.Boolean,
    dispatch: Schema.Boolean,
    trackBatch: Schema.Boolean,
    createBatch: Schema.Boolean,
    stopDesks: Schema.Boolean,
    communes: Schema.Boolean,
    checkCredentials: Schema.Boolean,
    push: Schema.Boolean
  }),
  /** The pinned origin, or `https://<tenant>.<domain>` for a generic platform key. */
  endpoint: Schema.String,
  /** True for a generic platform key: the caller names the tenant in `options.baseUrl`. */
  requiresBaseUrl: Schema.Boolean,
  /** For a generic platform key: the domain every tenant's `baseUrl` must be under. */
  tenantDomain: Schema.optionalKey(Schema.String)
}) {}
