/**
 * Every reason of every domain module reaches the wire through an explicit row of its API's `Errors.ts`: the test
 * walks each reason union the packages export and fails on a reason without a row, or a row without a reason.
 */
import { describe, expect, it } from "@effect/vitest"
import * as AccessPackage from "@tawsil/access"
import * as CataloguePackage from "@tawsil/catalogue"
import * as ChangesPackage from "@tawsil/changes"
import { CourierError } from "@tawsil/courier"
import * as OrdersPackage from "@tawsil/orders"
import * as PromosPackage from "@tawsil/promos"
import { Gateway } from "@tawsil/shipping"
import * as SigningPackage from "@tawsil/signing"
import * as StorefrontPackage from "@tawsil/storefront"
import * as TrackerPackage from "@tawsil/tracker"
import * as WebhooksPackage from "@tawsil/webhooks"
import type { Schema } from "effect"
import * as ShippingErrors from "../src/shipping/Errors.ts"
import * as StoreErrors from "../src/store/Errors.ts"

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
    expect(Object.keys(StoreErrors.reasonUnions).sort()).toEqual(Object.keys(exported).sort())
    for (const [module, union] of Object.entries(exported)) {
      const rows = StoreErrors.reasons[module as keyof typeof StoreErrors.reasons]
      expect(Object.keys(rows).sort(), module).toEqual(tagsOf(union))
      for (const failure of Object.values(rows)) expect(StoreErrors.Failure.members).toContain(failure)
    }
  })

  it("gives every store failure its status and code", () => {
    // The 100% confirmation's failures carry its token and terms: made from their reasons below.
    const withDetails: ReadonlyArray<unknown> = [StoreErrors.ConfirmationRequired, StoreErrors.ConfirmationStale]
    for (const failure of StoreErrors.Failure.members.filter((member) => !withDetails.includes(member))) {
      const rendered = StoreErrors.rendered(StoreErrors.failure(failure, "a message", "req_0"))
      expect(rendered.status).toBeGreaterThanOrEqual(400)
      expect(rendered.status).toBeLessThan(500)
      expect(JSON.parse(rendered.body)).toMatchObject({
        error: { message: "a message" },
        meta: { request_id: "req_0", api_version: "v1" }
      })
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
      const rendered = StoreErrors.rendered(StoreErrors.fromDomain(error, "req_1"))
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
    expect(Object.keys(ShippingErrors.gatewayFailures).sort()).toEqual(tagsOf(Gateway.GatewayError))
    expect(Object.keys(ShippingErrors.courierFailures).sort()).toEqual(tagsOf(CourierError.CourierErrorReason))
  })

  it("lets no package attach an HTTP status to an error", () => {
    for (const union of Object.values(reasonUnionsOf(storePackages))) {
      for (const member of union.members) {
        expect(JSON.stringify(member.ast.annotations ?? {})).not.toMatch(/httpApiStatus/)
      }
    }
  })
})
