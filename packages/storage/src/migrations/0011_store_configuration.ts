import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The store's own configuration (`@tawsil/storefront`: `Settings`, `Design`, `HomeSections`, `HomeLayout`), each
 * recorded in the change history as a whole (`store.settings`, `store.design`, `store.home_sections`,
 * `store.home_layout`).
 *
 * - `stores.contact`, `social_links`, `currency_display`: the settings beside the profile's columns (name,
 *   description, language, logo, favicon, banner): how buyers reach the store, its social pages, how prices show.
 *   Objects; a key missing reads as its default (none, or `DA` after the amount without decimals).
 * - The design stays in `stores.theme` (colours, fonts, corners, buttons, product images), which the theme switch
 *   also writes (its three palette colours); a key missing reads as its default.
 * - `stores.home_sections`: the theme's standard home page sections, shown or hidden, with their settings; a
 *   section missing reads as its default.
 * - `stores.home_layout`: the merchant's own home page, `{ sections: [...], last_section_id }`; a section's id is
 *   `last_section_id + 1` when added, so an id is never given twice in a store.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE stores
      ADD COLUMN contact jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(contact) = 'object'),
      ADD COLUMN social_links jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(social_links) = 'object'),
      ADD COLUMN currency_display jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(currency_display) = 'object'),
      ADD COLUMN home_sections jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(home_sections) = 'object'),
      ADD COLUMN home_layout jsonb NOT NULL DEFAULT '{"sections": [], "last_section_id": 0}'
        CHECK (jsonb_typeof(home_layout) = 'object')`
})
