/**
 * Every reason of every domain module reaches the wire: the store's reasons by name or by an override beside the
 * resource that answers them, the shipping API's through an explicit row of its `Errors.ts`. The test walks each
 * reason union the packages export and fails on a reason without a code, or a module without its reasons.
 */
import { describe, expect, it } from "@effect/vitest"
import * as AccessPackage from "@tawsil/access"
import * as ShippingReasons from "@tawsil/api/shipping/Reasons"
import * as AccessApi from "@tawsil/api/store/access/Api"
import * as CategoriesApi from "@tawsil/api/store/categories/Api"
import * as ChangesApi from "@tawsil/api/store/changes/Api"
import * as ConfirmationApi from "@tawsil/api/store/confirmation/Api"
import * as LandingPageSectionsApi from "@tawsil/api/store/landing-page-sections/Api"
import * as LandingPagesApi from "@tawsil/api/store/landing-pages/Api"
import * as OrdersApi from "@tawsil/api/store/orders/Api"
import * as PixelsApi from "@tawsil/api/store/pixels/Api"
import * as ProductsApi from "@tawsil/api/store/products/Api"
import * as ProfileApi from "@tawsil/api/store/profile/Api"
import * as PromoCodesApi from "@tawsil/api/store/promo-codes/Api"
import type * as StoreReasons from "@tawsil/api/store/Reasons"
import * as RiskApi from "@tawsil/api/store/risk/Api"
import * as ShippingApi from "@tawsil/api/store/shipping/Api"
import * as StockApi from "@tawsil/api/store/stock/Api"
import * as ThemesApi from "@tawsil/api/store/themes/Api"
import * as TrackerApi from "@tawsil/api/store/tracker/Api"
import * as WebhooksApi from "@tawsil/api/store/webhooks/Api"
import * as CataloguePackage from "@tawsil/catalogue"
import * as ChangesPackage from "@tawsil/changes"
import { CourierError } from "@tawsil/courier"
import * as OrdersPackage from "@tawsil/orders"
import * as PromosPackage from "@tawsil/promos"
import { Gateway } from "@tawsil/shipping"
import * as SigningPackage from "@tawsil/signing"
import * as StoreShippingPackage from "@tawsil/store-shipping"
import * as StorefrontPackage from "@tawsil/storefront"
import * as TrackerPackage from "@tawsil/tracker"
import * as WebhooksPackage from "@tawsil/webhooks"
import type { Schema } from "effect"
import * as ShippingErrors from "../src/shipping/Errors.ts"
import * as StoreErrors from "../src/store/Errors.ts"

/** How the store API answers each module's reasons, by the module's error name. */
const storeReasons: Record<string, StoreReasons.Any> = {
  AccessError: AccessApi.reasons,
  OrderError: OrdersApi.reasons,
  ConfirmationError: ConfirmationApi.reasons,
  ProductError: ProductsApi.reasons,
  CategoryError: CategoriesApi.reasons,
  StockError: StockApi.reasons,
  LandingPageError: LandingPagesApi.reasons,
  PageSectionError: LandingPageSectionsApi.reasons,
  StoreConfigError: ProfileApi.reasons,
  WebhookError: WebhooksApi.reasons,
  SigningError: TrackerApi.signingReasons,
  TrackerError: TrackerApi.reasons,
  ChangeError: ChangesApi.reasons,
  PromoError: PromoCodesApi.reasons,
  ThemeError: ThemesApi.reasons,
  PixelError: PixelsApi.reasons,
  StoreShippingError: ShippingApi.reasons,
  RiskError: RiskApi.reasons
}

/** The tags of a union of tagged error classes. */
const tagsOf = (union: { readonly members: ReadonlyArray<Schema.Top> }) =>
  union.members.map((member) => (member as unknown as { readonly identifier: string }).identifier).sort()

/** Every `<Module>ErrorReason` union a package exports, by module error name (`OrderErrorReason` → `OrderError`). */
const reasonUnionsOf = (packages: ReadonlyArray<Record<string, unknown>>) => {
  const found: Record<string, { readonly members: ReadonlyArray<Schema.Top> }> = {}
  for (const namespaces of packages) {
    for (const namespace of Object.values(namespaces)) {
      for (const [name, value] of Object.entries(namespace as Record<string, unknown>)) {
        if (
          name.endsWith("ErrorReason") &&
          value !== null &&
          (typeof value === "object" || typeof value === "function") &&
          "members" in value
        ) {
          found[name.slice(0, -"Reason".length)] = value as { readonly members: ReadonlyArray<Schema.Top> }
        }
      }
    }
  }
  return found
}

/** The packages whose errors the store API answers. */
const storePackages = [
  AccessPackage,
  CataloguePackage,
  OrdersPackage,
  ChangesPackage,
  PromosPackage,
  StorefrontPackage,
  StoreShippingPackage,
  WebhooksPackage,
  SigningPackage,
  TrackerPackage
] as const

describe("error mapping", () => {
  it("maps every reason of every store module to a wire failure, and nothing else", () => {
    const exported = reasonUnionsOf(storePackages)
    // The admin CLI's errors are answered by the admin listener, not the store API.
    delete exported.AdminError
    // A checkout's refusals of a promo code are the storefront's to answer (no store API endpoint redeems).
    delete exported.RedemptionError
    expect(Object.keys(storeReasons).sort()).toEqual(Object.keys(exported).sort())
    for (const [module, union] of Object.entries(exported)) {
      const codes = storeReasons[module]!.codes as Record<string, StoreErrors.Code>
      expect(Object.keys(codes).sort(), module).toEqual(tagsOf(union))
      for (const code of Object.values(codes)) expect(Object.keys(StoreErrors.codes)).toContain(code)
    }
  })

  it("answers a reason named after a wire code with that code, unless the module overrides it", () => {
    expect(PromoCodesApi.reasons.codes.AddonInactive).toBe("addon_inactive")
    expect(PromoCodesApi.reasons.codes.PromoNotFound).toBe("not_found")
    expect(ChangesApi.reasons.codes.LaterChangeExists).toBe("layout_changed")
    // The store configuration's deleted store is any unknown resource; the theme switches' is `store_not_found`.
    expect(ProfileApi.reasons.codes.StoreNotFound).toBe("not_found")
    expect(ThemesApi.reasons.codes.StoreNotFound).toBe("store_not_found")
  })

  it("sends every wire code with its status, in the envelope, through the class of that status", () => {
    for (const [code, [status]] of Object.entries(StoreErrors.codes)) {
      const failure = StoreErrors.make(code as StoreErrors.Code, "req_0", "a message")
      expect(failure).toBeInstanceOf(StoreErrors.classOf(code as StoreErrors.Code))
      const rendered = StoreErrors.rendered(failure)
      expect(rendered.status).toBe(status)
      expect(JSON.parse(rendered.body)).toEqual({
        error: { code, message: "a message" },
        meta: { request_id: "req_0", api_version: "v1" }
      })
    }
    // One class per status, each answering exactly its status's codes.
    const statuses = new Set(Object.values(StoreErrors.codes).map(([status]) => status))
    expect(StoreErrors.Failure.members.length).toBe(statuses.size)
  })

  it("gives the spec's statuses to the reasons whose categories once disagreed with it", () => {
    // store-api-core "Errors": invalid transition, concurrent status change and the monthly cap are 400.
    for (const tag of ["IllegalTransition", "ConcurrentChange", "MonthlyCapReached"] as const) {
      expect(StoreErrors.codes[OrdersApi.reasons.codes[tag]][0]).toBe(400)
    }
  })

  it("puts the 100% confirmation's token and terms in its error body", () => {
    const terms = { confirmToken: "t0k3n", expiresIn: 600, action: "promo.full_discount:new" }
    const willChange = {
      action: "Create promo code FREE to make orders free",
      code: "FREE",
      discount: "100%",
      reversible: true,
      note: "n"
    }
    for (const [Reason, code] of [
      [PromosPackage.PromoError.ConfirmationRequired, "confirmation_required"],
      [PromosPackage.PromoError.ConfirmationStale, "confirmation_stale"]
    ] as const) {
      const error = PromosPackage.PromoError.fail(new Reason({ message: "confirm", ...terms, willChange }))
      const rendered = StoreErrors.rendered(PromoCodesApi.reasons.answer(error.reason, "req_1"))
      expect(rendered.status).toBe(422)
      expect(JSON.parse(rendered.body)).toEqual({
        error: {
          code,
          message: "confirm",
          confirm_token: "t0k3n",
          confirm_token_expires_in: 600,
          action: "promo.full_discount:new",
          will_change: willChange
        },
        meta: { request_id: "req_1", api_version: "v1" }
      })
    }
  })

  it("maps every failure of the shipping gateway and every courier reason to the wire", () => {
    expect(Object.keys(ShippingErrors.gateway.codes).sort()).toEqual(tagsOf(Gateway.GatewayError))
    expect(Object.keys(ShippingReasons.courier.codes).sort()).toEqual(tagsOf(CourierError.CourierErrorReason))
  })

  it("lets no package attach an HTTP status to an error", () => {
    for (const union of Object.values(reasonUnionsOf(storePackages))) {
      for (const member of union.members) {
        expect(JSON.stringify(member.ast.annotations ?? {})).not.toMatch(/httpApiStatus/)
      }
    }
  })
})
