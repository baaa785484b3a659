import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Pixels } from "../src/Pixels.ts"
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
