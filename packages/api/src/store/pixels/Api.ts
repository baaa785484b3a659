/**
 * Tracking pixels (spec store-api-config "Tracking pixels"): seven platforms, write-only access tokens, plan
 * limits. Recorded as `pixels`.
 */
import { Pixel, PixelError } from "@tawsil/storefront"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Every other reason is named after its code (`InvalidPixelId` → `invalid_pixel_id`). */
export const reasons = Reasons.of(PixelError.PixelErrorReason, {
  InvalidPixelBody: "bad_request",
  PixelNotFound: "not_found"
})

const { Data, Id, listQuery } = Endpoint
const writes = [...Errors.writes, ...reasons.classes, Errors.PayloadTooLarge]
const scope = "pixels:write"

export class PixelsGroup extends HttpApiGroup.make("pixels")
  .add(
    HttpApiEndpoint.get("listPixels", "/v1/pixels", {
      query: {
        /** One of the seven types, any letter case; an unknown type gives an empty list. */
        pixel_type: Schema.optionalKey(Schema.String),
        ...listQuery
      },
      success: Data(Pixel.PixelList),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, "pixels:read"),
    Endpoint.post("createPixel", "/v1/pixels", {
      payload: Pixel.PixelCreateBody,
      success: Data(Pixel.Pixel).pipe(HttpApiSchema.status(201)),
      error: writes,
      scope
    }),
    Endpoint.patch("updatePixel", "/v1/pixels/:id", {
      params: Id,
      payload: Pixel.PixelPatchBody,
      success: Data(Pixel.Pixel),
      error: writes,
      scope
    }),
    /** Also deletes the pixel's assignments. */
    Endpoint.del("deletePixel", "/v1/pixels/:id", {
      params: Id,
      success: Data(Pixel.PixelDeleted),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "pixels",
      description: "Tracking pixels: seven platforms, write-only access tokens, plan limits. Recorded as pixels."
    })
  ) {}
