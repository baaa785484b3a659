/**
 * The merchant's own home page: sections of any type, in order (recorded as `store.home_layout`, every write an
 * update of the whole layout, answering its `change_id`; an undo is refused with 409 `layout_changed` while a later
 * layout change stands).
 */
import { HomeLayout } from "@tawsil/storefront"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import { reasons } from "../profile/Api.ts"

const { Data, Id } = Endpoint
const writes = [...Errors.writes, ...reasons.classes]
const scope = "store:write"

export class HomeLayoutGroup extends HttpApiGroup.make("homeLayout")
  .add(
    /** Cached 30 s per key. `in_use`: the storefront's home page is this layout (a section shows). */
    HttpApiEndpoint.get("getHomeLayout", "/v1/store/home-layout", {
      success: Data(HomeLayout.Layout),
      error: [...Errors.reads, ...reasons.classes]
    })
      .annotate(Endpoint.RequiredScope, "store:read")
      .annotate(Endpoint.ReadCached, true),
    /** At most 30 sections; ids are never given twice in a store. */
    Endpoint.post("addLayoutSection", "/v1/store/home-layout/sections", {
      payload: HomeLayout.SectionAdd,
      success: Data(HomeLayout.SectionWritten).pipe(HttpApiSchema.status(201)),
      error: writes,
      scope
    }),
    /** Only sent keys change (a list is replaced whole); the type cannot change. */
    Endpoint.patch("updateLayoutSection", "/v1/store/home-layout/sections/:id", {
      params: Id,
      payload: HomeLayout.SectionPatch,
      success: Data(HomeLayout.SectionWritten),
      error: writes,
      scope
    }),
    Endpoint.del("removeLayoutSection", "/v1/store/home-layout/sections/:id", {
      params: Id,
      success: Data(HomeLayout.SectionRemoved),
      error: writes,
      scope
    }),
    /** Answers the whole layout after the move. */
    Endpoint.post("moveLayoutSection", "/v1/store/home-layout/move", {
      payload: HomeLayout.SectionMove,
      success: Data(HomeLayout.LayoutMoved),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "home layout",
      description:
        "The merchant's own home page: sections of any type, in order (cached 30 s). Every write is recorded as an " +
        "update of the whole store.home_layout and answers its change_id; undo newest first (409 layout_changed)."
    })
  ) {}
