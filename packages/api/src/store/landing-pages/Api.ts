/** Landing pages (spec store-api-core "Landing page"); the list is cached 30 s. */
import { LandingPage, LandingPageError } from "@tawsil/catalogue"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

export const reasons = Reasons.of(LandingPageError.LandingPageErrorReason, {
  InvalidLandingPage: "bad_request",
  LandingPageNotFound: "not_found"
})

const { Data, Id, ListOf, listQuery } = Endpoint
const { reads, writes } = Errors
const scope = "landing_pages:write"

export class LandingPagesGroup extends HttpApiGroup.make("landingPages")
  .add(
    HttpApiEndpoint.get("listLandingPages", "/v1/landing-pages", {
      query: { ...listQuery, status: Schema.optionalKey(Schema.String) },
      success: ListOf(LandingPage.LandingPageSummary),
      error: reads
    }).annotate(Endpoint.ReadCached, true),
    HttpApiEndpoint.get("getLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      success: Data(LandingPage.LandingPage),
      error: reads
    }),
    Endpoint.post("createLandingPage", "/v1/landing-pages", {
      payload: LandingPage.LandingPageCreateBody,
      success: Data(LandingPage.LandingPage),
      error: writes,
      scope
    }),
    Endpoint.patch("updateLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      payload: LandingPage.LandingPageUpdateBody,
      success: Data(LandingPage.LandingPage),
      error: writes,
      scope
    }),
    Endpoint.post("publishLandingPage", "/v1/landing-pages/:id/publish", {
      params: Id,
      success: Data(LandingPage.LandingPage),
      error: writes,
      scope
    }),
    Endpoint.del("deleteLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      success: Data(LandingPage.LandingPageDeleted),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(OpenApi.annotations({ title: "landing pages", description: "Landing pages (list cached 30 s)." })) {}
