/**
 * The store's design: colours, fonts, corners, buttons, product pictures, read with the theme choices (recorded as
 * `store.design`). The theme itself is switched in `themes/`.
 */
import { Design } from "@tawsil/storefront"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import { reasons } from "../profile/Api.ts"

export class DesignGroup extends HttpApiGroup.make("design")
  .add(
    /** Cached 30 s per key: after a write or a theme switch, the same key may read the old design that long. */
    HttpApiEndpoint.get("getDesign", "/v1/store/design", {
      success: Endpoint.Data(Design.DesignView),
      error: [...Errors.reads, ...reasons.classes]
    })
      .annotate(Endpoint.RequiredScope, "store:read")
      .annotate(Endpoint.ReadCached, true),
    /** Only sent fields change (`colors` colour by colour); the theme choices sent here are ignored. */
    Endpoint.patch("updateDesign", "/v1/store/design", {
      payload: Design.DesignPatch,
      success: Endpoint.Data(Design.DesignView),
      error: [...Errors.writes, ...reasons.classes],
      scope: "store:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "design",
      description:
        "The store's colours, fonts, corners, buttons and product pictures, with the theme choices (cached 30 s). " +
        "Writes are recorded as store.design."
    })
  ) {}
