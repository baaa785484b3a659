import { assert, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Design } from "../src/Design.ts"
import { HomeLayout } from "../src/HomeLayout.ts"
import { HomeSections } from "../src/HomeSections.ts"
import { Pixels } from "../src/Pixels.ts"
import { Settings } from "../src/Settings.ts"
import * as Store from "../src/Store.ts"
import { initialDesign } from "../src/StorefrontStore.ts"
import { backends, Fixtures, memory, sql } from "./Backends.ts"
import { StoreConfigSuite } from "./StoreConfigSuite.ts"
import { StorefrontSuite } from "./StorefrontSuite.ts"

layer(memory)("Storefront (memory)", (it) => {
  StorefrontSuite(it)
  StoreConfigSuite(it)
})

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `Storefront (sql, ${backend.name})`,
    (it) => {
      StorefrontSuite(it)
      StoreConfigSuite(it)

      it.effect("GET /v1/store's store: every field of the row, public_url, created_at in Algiers ISO time", () =>
        Effect.gen(function* () {
          const client = yield* SqlClient.SqlClient
          const settings = yield* Settings
          const [row] = yield* client<{ readonly id: number }>`
            INSERT INTO stores (name, slug, language, description, logo, banner, theme, subdomain, custom_domain,
              custom_domain_verified, hide_branding, created_at, contact)
            VALUES ('Boutique 1', 'boutique-profile-1', 'fr', 'Artisanat de Kabylie', 'stores/1/logo.png',
              'stores/1/banner.jpg',
              '{"primary_color":"#0f766e","secondary_color":"#f97316","background_color":"#fafafa","font_family":"Tajawal"}',
              'kabylie-profile', 'boutique-profile.example.dz', true, true, '2026-03-01T23:30:00Z',
              '{"phone":"0555123456"}')
            RETURNING id`
          const wire = Schema.encodeSync(Store.Store)(yield* settings.get(Ids.StoreId.make(row!.id)))
          assert.deepStrictEqual(wire, {
            id: row!.id,
            name: "Boutique 1",
            slug: "boutique-profile-1",
            language: "fr",
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
            contact: { phone: "0555123456", whatsapp: null, email: null, address: null, wilaya_id: null },
            social_links: { facebook: null, instagram: null, tiktok: null, youtube: null },
            currency: { symbol: "DA", position: "after", decimals: 0 },
            subdomain: "kabylie-profile",
            custom_domain: "boutique-profile.example.dz",
            custom_domain_verified: true,
            public_url: "https://boutique-profile.example.dz",
            hide_branding: true,
            // 23:30 UTC is already the next day in Algiers.
            created_at: "2026-03-02T00:30:00+01:00"
          })
        })
      )

      it.effect("a row written before a configuration key existed reads that key's default", () =>
        Effect.gen(function* () {
          const client = yield* SqlClient.SqlClient
          const [row] = yield* client<{ readonly id: number }>`
            INSERT INTO stores (name, slug, theme, home_sections, home_layout)
            VALUES ('Partielle', 'partielle-config', '{"primary_color":"#111111"}', '{"faq":{"enabled":true}}', '{}')
            RETURNING id`
          const id = Ids.StoreId.make(row!.id)
          const design = yield* (yield* Design).get(id)
          assert.deepStrictEqual(design.colors, { ...initialDesign.colors, primary_color: "#111111" })
          assert.deepStrictEqual(design.font_family, "Cairo")
          assert.deepStrictEqual((yield* (yield* Settings).get(id)).theme.font_family, "Cairo")
          assert.deepStrictEqual((yield* (yield* HomeSections).get(id)).faq, { enabled: true, title: null, items: [] })
          assert.deepStrictEqual(yield* (yield* HomeLayout).get(id), { sections: [], in_use: false })
        })
      )

      it.effect("a write the database refuses after every check passed is pixel_write_failed", () =>
        Effect.gen(function* () {
          const pixels = yield* Pixels
          const fixtures = yield* Fixtures
          const client = yield* SqlClient.SqlClient
          // A rule of the database the service does not know: this one pixel id is refused by a trigger.
          yield* client.unsafe(`
            CREATE FUNCTION refuse_pixel() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NEW.pixel_id = 'GTM-REFUSED1' THEN
                RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = 'pixel refused by the platform';
              END IF;
              RETURN NEW;
            END $$`)
          yield* client.unsafe(
            "CREATE TRIGGER refuse_pixel BEFORE INSERT ON pixels FOR EACH ROW EXECUTE FUNCTION refuse_pixel()"
          )
          const store = yield* fixtures.newStore()
          const refused = yield* Effect.flip(
            fixtures.transaction(
              pixels.create({ storeId: store, keyId: null }, { pixel_type: "gtm", pixel_id: "GTM-REFUSED1" })
            )
          )
          assert.strictEqual(refused.reason._tag, "PixelWriteFailed")
          assert.include(refused.message, "pixel refused by the platform")
          yield* fixtures.transaction(
            pixels.create({ storeId: store, keyId: null }, { pixel_type: "gtm", pixel_id: "GTM-ACCEPTED1" })
          )
        })
      )
    }
  )
}
