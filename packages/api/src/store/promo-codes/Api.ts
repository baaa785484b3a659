/**
 * Codes buyers enter at checkout (spec store-api-config "Promo codes"); writes need the Promo codes add-on.
 * Recorded as `promo_code`.
 */
import { PromoCode, PromoError } from "@tawsil/promos"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Every other reason is named after its code (`AddonInactive` → `addon_inactive`). */
export const reasons = Reasons.of(PromoError.PromoErrorReason, {
  InvalidPromoBody: "bad_request",
  PromoNotFound: "not_found"
})

const { Data, Id, listQuery } = Endpoint
const writes = [...Errors.writes, ...reasons.classes]
const scope = "promos:write"

export class PromoCodesGroup extends HttpApiGroup.make("promoCodes")
  .add(
    HttpApiEndpoint.get("listPromoCodes", "/v1/promo-codes", {
      query: {
        /** `true`, `1`, `yes`, `on`: active codes; any other value: inactive; omitted: all. */
        is_active: Schema.optionalKey(Schema.String),
        ...listQuery
      },
      success: Data(PromoCode.PromoCodeList),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, "promos:read"),
    Endpoint.post("createPromoCode", "/v1/promo-codes", {
      payload: PromoCode.PromoCodeBody,
      success: Data(PromoCode.PromoCode).pipe(HttpApiSchema.status(201)),
      error: writes,
      scope
    }),
    Endpoint.patch("updatePromoCode", "/v1/promo-codes/:id", {
      params: Id,
      payload: PromoCode.PromoCodePatchBody,
      success: Data(PromoCode.PromoCode),
      error: writes,
      scope
    }),
    Endpoint.del("deletePromoCode", "/v1/promo-codes/:id", {
      params: Id,
      success: Data(PromoCode.PromoCodeDeleted),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "promo codes",
      description: "Codes buyers enter at checkout; writes need the Promo codes add-on. Recorded as promo_code."
    })
  ) {}
