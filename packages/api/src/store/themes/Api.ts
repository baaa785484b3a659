/**
 * Storefront theme, fast-checkout form theme and variant style, by plan (spec store-api-config "Themes").
 * Recorded as `store.theme`.
 */
import { ThemeError, Themes } from "@tawsil/storefront"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Every reason is named after its code. */
export const reasons = Reasons.of(ThemeError.ThemeErrorReason, {})

const { Data } = Endpoint
const writes = [...Errors.writes, ...reasons.classes]
const scope = "store:write"

export class ThemesGroup extends HttpApiGroup.make("themes")
  .add(
    /** The whole list in one answer; never cached. */
    HttpApiEndpoint.get("listThemes", "/v1/themes", {
      success: Data(Themes.ThemeList),
      error: [...Errors.reads, ...reasons.classes]
    }).annotate(Endpoint.RequiredScope, "store:read"),
    Endpoint.post("switchTheme", "/v1/store/theme", {
      payload: Themes.ThemeBody,
      success: Data(Themes.ThemeSwitched),
      error: writes,
      scope
    }),
    Endpoint.post("switchFastCheckoutTheme", "/v1/store/fast-checkout-theme", {
      payload: Themes.ThemeBody,
      success: Data(Themes.FastCheckoutSwitched),
      error: writes,
      scope
    }),
    Endpoint.post("switchVariantStyle", "/v1/store/variant-style", {
      payload: Themes.StyleBody,
      success: Data(Themes.VariantStyleSwitched),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "themes",
      description: "Storefront theme, fast-checkout form theme and variant style, by plan. Recorded as store.theme."
    })
  ) {}
