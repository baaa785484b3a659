/**
 * A landing page's sections (docs/store-api-config.md, "Landing page sections"): list and read (`landing_pages:read`),
 * create, PATCH, delete and reorder (`landing_pages:write`). Recorded as `lp.section`. Never cached.
 */
import { PageSection, PageSectionError } from "@tawsil/catalogue"
import { Ids } from "@tawsil/domain"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Every other reason is named after its code (`InvalidSettings` → `invalid_settings`). */
export const reasons = Reasons.of(PageSectionError.PageSectionErrorReason, {
  InvalidSectionBody: "bad_request",
  PageNotFound: "not_found",
  SectionNotFound: "not_found"
})

const { Data, Id } = Endpoint
/** The page's id and the section's: all digits (else 400). */
const SectionPath = { id: Ids.PathId, section_id: Ids.PathId }
const reads = [...Errors.reads, ...reasons.classes]
const writes = [...Errors.writes, ...reasons.classes]
const scope = "landing_pages:write"

export class LandingPageSectionsGroup extends HttpApiGroup.make("landingPageSections")
  .add(
    HttpApiEndpoint.get("listLandingPageSections", "/v1/landing-pages/:id/sections", {
      params: Id,
      success: Data(PageSection.PageSectionList),
      error: reads
    }).annotate(Endpoint.RequiredScope, "landing_pages:read"),
    HttpApiEndpoint.get("getLandingPageSection", "/v1/landing-pages/:id/sections/:section_id", {
      params: SectionPath,
      success: Data(PageSection.PageSection),
      error: reads
    }).annotate(Endpoint.RequiredScope, "landing_pages:read"),
    Endpoint.post("createLandingPageSection", "/v1/landing-pages/:id/sections", {
      params: Id,
      payload: PageSection.PageSectionCreateBody,
      success: Data(PageSection.PageSection).pipe(HttpApiSchema.status(201)),
      error: writes,
      scope
    }),
    Endpoint.patch("updateLandingPageSection", "/v1/landing-pages/:id/sections/:section_id", {
      params: SectionPath,
      payload: PageSection.PageSectionPatchBody,
      success: Data(PageSection.PageSection),
      error: writes,
      scope
    }),
    Endpoint.del("deleteLandingPageSection", "/v1/landing-pages/:id/sections/:section_id", {
      params: SectionPath,
      success: Data(PageSection.PageSectionDeleted),
      error: writes,
      scope
    }),
    Endpoint.post("reorderLandingPageSections", "/v1/landing-pages/:id/sections/reorder", {
      params: Id,
      payload: PageSection.PageSectionReorderBody,
      success: Data(PageSection.PageSectionList),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "landing page sections",
      description:
        "The blocks of a landing page, top first: hero, product showcase, benefits, testimonials, FAQ, countdown, " +
        "order form… Writes are recorded as lp.section (a reorder as lp:<page id>). Never cached."
    })
  ) {}
