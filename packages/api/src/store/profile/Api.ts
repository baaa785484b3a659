/**
 * The store's profile and settings (spec store-api-core "Store"; store-api-config "Recorded entities":
 * `store.settings`): `GET /v1/store`, cached 30 s, and `PATCH /v1/store`, recorded.
 */
import { Settings, Store, StoreConfigError } from "@tawsil/storefront"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/**
 * How the store configuration's refusals are answered — the settings', the design's and the home page's (one module,
 * `StoreConfigError`): a body breaking a rule is the core's 400 with the field's message; a deleted store reads as
 * any unknown resource (`store_not_found` is the theme switches' code), and so does an unknown layout section.
 */
export const reasons = Reasons.of(StoreConfigError.StoreConfigErrorReason, {
  InvalidBody: "bad_request",
  StoreNotFound: "not_found",
  SectionNotFound: "not_found"
})

export class StoreGroup extends HttpApiGroup.make("store")
  .add(
    /** Any key (spec core: the store's reads need no scope); cached 30 s per key. */
    HttpApiEndpoint.get("getStore", "/v1/store", {
      success: Endpoint.Data(Store.Store),
      error: [...Errors.reads, ...reasons.classes]
    }).annotate(Endpoint.ReadCached, true),
    /**
     * Only sent fields change (`contact`, `social_links`, `currency` key by key); fields only shown and unknown
     * fields are ignored. Recorded as `store.settings`; a read with the same key may show the old values for 30 s.
     */
    Endpoint.patch("updateStore", "/v1/store", {
      payload: Settings.SettingsPatch,
      success: Endpoint.Data(Store.Store),
      error: [...Errors.writes, ...reasons.classes],
      scope: "store:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "store",
      description: "The store's profile and settings (cached 30 s). Writes are recorded as store.settings."
    })
  ) {}
