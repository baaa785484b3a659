/**
 * The theme's standard home page: hero, categories, featured products, testimonials, questions and trust badges,
 * each shown or hidden with its settings (recorded as `store.home_sections`).
 */
import { HomeSections } from "@tawsil/storefront"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import { reasons } from "../profile/Api.ts"

export class HomeSectionsGroup extends HttpApiGroup.make("homeSections")
  .add(
    /** Cached 30 s per key. */
    HttpApiEndpoint.get("getHomeSections", "/v1/store/home-sections", {
      success: Endpoint.Data(HomeSections.HomeSectionsValues),
      error: [...Errors.reads, ...reasons.classes]
    })
      .annotate(Endpoint.RequiredScope, "store:read")
      .annotate(Endpoint.ReadCached, true),
    /** The sections to change, each with the keys to change; a list is replaced whole. */
    Endpoint.patch("updateHomeSections", "/v1/store/home-sections", {
      payload: HomeSections.HomeSectionsPatch,
      success: Endpoint.Data(HomeSections.HomeSectionsValues),
      error: [...Errors.writes, ...reasons.classes],
      scope: "store:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "home sections",
      description:
        "The theme's standard home page sections, shown or hidden, with their settings (cached 30 s). Writes are " +
        "recorded as store.home_sections."
    })
  ) {}
