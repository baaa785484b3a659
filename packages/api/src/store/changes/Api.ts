/**
 * The change history (spec store-api-config "Change history"): recorded configuration writes, newest first, and
 * their undo. Installed-app tokens get 403. An undo the entity's own rules refuse is answered as the original
 * write would be (spec "Errors": "4xx original write's code"), through that entity's reasons.
 */
import { Change, ChangeError, type Entity } from "@tawsil/changes"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as CategoriesApi from "../categories/Api.ts"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as LandingPageSectionsApi from "../landing-page-sections/Api.ts"
import * as PixelsApi from "../pixels/Api.ts"
import * as ProfileApi from "../profile/Api.ts"
import * as PromoCodesApi from "../promo-codes/Api.ts"
import * as Reasons from "../Reasons.ts"
import * as ShippingApi from "../shipping/Api.ts"
import * as StockApi from "../stock/Api.ts"
import * as ThemesApi from "../themes/Api.ts"

export const reasons = Reasons.of(ChangeError.ChangeErrorReason, {
  ChangeNotFound: "not_found",
  MissingEntityScope: "forbidden",
  LaterChangeExists: "layout_changed"
})

/** The reasons of each recorded entity's module, by its error's tag: a new recorded entity is one more line here. */
const entityReasons: Readonly<Record<string, Reasons.Any>> = {
  PromoError: PromoCodesApi.reasons,
  CategoryError: CategoriesApi.reasons,
  StockError: StockApi.reasons,
  PageSectionError: LandingPageSectionsApi.reasons,
  ThemeError: ThemesApi.reasons,
  StoreConfigError: ProfileApi.reasons,
  PixelError: PixelsApi.reasons,
  StoreShippingError: ShippingApi.reasons
}

/** An entity's refusal of the values an undo writes back; `undefined` for a module without reasons here (a defect). */
export const entityFailure = (error: Entity.EntityError, requestId: string): Errors.Failure | undefined => {
  const module = entityReasons[error._tag]
  return module === undefined ? undefined : (module.answer(error.reason as never, requestId) as Errors.Failure)
}

const { Data, Id, ListOf } = Endpoint
const undoFailures = [...reasons.classes, ...Object.values(entityReasons).flatMap((module) => module.classes)]

export class ChangesGroup extends HttpApiGroup.make("changes")
  .add(
    HttpApiEndpoint.get("listChanges", "/v1/changes", {
      query: {
        /** One of the recorded entities (`promo_code`, `pixels`, `store.theme`, …); any other value is ignored. */
        entity: Schema.optionalKey(Schema.String),
        /** Default 25, clamped to 1..100. */
        limit: Schema.optionalKey(Schema.String),
        cursor: Schema.optionalKey(Schema.String)
      },
      success: ListOf(Change.ChangeListItem),
      error: Errors.reads
    })
      .annotate(Endpoint.RequiredScope, "store:read")
      .annotate(Endpoint.NoAppTokens, true),
    /** Needs `store:read` and the entity's read scope; a pixel's token shows as the mask. */
    HttpApiEndpoint.get("getChange", "/v1/changes/:id", {
      params: Id,
      success: Data(Change.ChangeDetail),
      error: [...Errors.reads, ...reasons.classes]
    })
      .annotate(Endpoint.RequiredScope, "store:read")
      .annotate(Endpoint.NoAppTokens, true),
    /** Needs the entity's undo scope (not `store:read`). Read the item again for the restored values. */
    Endpoint.post("undoChange", "/v1/changes/:id/undo", {
      params: Id,
      success: Data(Change.Undone),
      error: [...Errors.writes, ...undoFailures]
    }).annotate(Endpoint.NoAppTokens, true)
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "changes",
      description: "Recorded configuration writes, newest first, and their undo. Installed-app tokens get 403."
    })
  ) {}
