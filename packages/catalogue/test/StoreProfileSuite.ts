/**
 * The contract of `StoreProfile` and its `StoreProfileStore` (spec "Store"), run against every implementation,
 * each holding the stores of `stores` below.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Effect, Schema } from "effect"
import * as Store from "../src/Store.ts"
import { StoreProfile } from "../src/StoreProfile.ts"

const theme = new Store.Theme({
  primary_color: "#0f766e",
  secondary_color: "#f97316",
  background_color: "#fafafa",
  font_family: "Tajawal"
})

const record = (
  id: number,
  domains: Pick<Store.StoreRecord, "subdomain" | "custom_domain" | "custom_domain_verified">
): Store.StoreRecord =>
  new Store.StoreRecord({
    id: Ids.StoreId.make(id),
    name: `Boutique ${id}`,
    slug: `boutique-${id}`,
    language: id % 2 === 0 ? "fr" : "ar",
    description: id === 1 ? "Artisanat de Kabylie" : null,
    logo: id === 1 ? "stores/1/logo.png" : null,
    favicon: null,
    banner: id === 1 ? "stores/1/banner.jpg" : null,
    theme,
    ...domains,
    hide_branding: id === 1,
    // 23:30 UTC is already the next day in Algiers.
    created_at: DateTime.makeUnsafe("2026-03-01T23:30:00Z")
  })

/** The stores every implementation holds. */
export const stores: ReadonlyArray<Store.StoreRecord> = [
  record(1, { subdomain: "kabylie", custom_domain: "boutique.example.dz", custom_domain_verified: true }),
  record(2, { subdomain: "amina", custom_domain: "amina.example.dz", custom_domain_verified: false }),
  record(3, { subdomain: null, custom_domain: null, custom_domain_verified: false }),
  record(4, { subdomain: null, custom_domain: "pending.example.dz", custom_domain_verified: false })
]

const encode = Schema.encodeEffect(Store.Store)

export const StoreProfileSuite = (it: Vitest.MethodsNonLive<StoreProfile>) => {
  it.effect("answers the store with every field of the spec, created_at in Algiers ISO time", () =>
    Effect.gen(function* () {
      const profile = yield* StoreProfile
      const wire = yield* encode(yield* profile.get(Ids.StoreId.make(1)))
      assert.deepStrictEqual(wire, {
        id: 1,
        name: "Boutique 1",
        slug: "boutique-1",
        language: "ar",
        description: "Artisanat de Kabylie",
        logo: "stores/1/logo.png",
        favicon: null,
        banner: "stores/1/banner.jpg",
        theme: {
          primary_color: "#0f766e",
          secondary_color: "#f97316",
          background_color: "#fafafa",
          font_family: "Tajawal"
        },
        subdomain: "kabylie",
        custom_domain: "boutique.example.dz",
        custom_domain_verified: true,
        public_url: "https://boutique.example.dz",
        hide_branding: true,
        created_at: "2026-03-02T00:30:00+01:00"
      })
    })
  )

  it.effect("public_url: the verified custom domain, else the subdomain, else null", () =>
    Effect.gen(function* () {
      const profile = yield* StoreProfile
      const urls = yield* Effect.forEach([1, 2, 3, 4], (id) =>
        Effect.map(profile.get(Ids.StoreId.make(id)), (store) => store.public_url)
      )
      assert.deepStrictEqual(urls, ["https://boutique.example.dz", "https://amina.tawsil.store", null, null])
    })
  )

  it.effect("an unknown store is NotFound", () =>
    Effect.gen(function* () {
      const profile = yield* StoreProfile
      const error = yield* Effect.flip(profile.get(Ids.StoreId.make(999)))
      assert.strictEqual(error.reason._tag, "StoreNotFound")
    })
  )
}
