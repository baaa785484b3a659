/**
 * The ordered schema migrations of Tawsil's database, one file per step in `migrations/`, numbered.
 *
 * The same migrations run on the embedded database and on a real server; write SQL that PostgreSQL 15 accepts
 * (the embedded PGlite is PostgreSQL 18). Effect's Migrator runs the pending ones in one transaction after
 * `LOCK TABLE … IN ACCESS EXCLUSIVE MODE` on the migrations table, so when several instances start at once on one
 * database exactly one of them migrates and the others wait for it, then find nothing left to do.
 */
import { Effect, Layer } from "effect"
import { Migrator, type SqlClient, type SqlError } from "effect/sql"
import appInstances from "./migrations/0001_app_instances.ts"
import idempotency from "./migrations/0002_idempotency.ts"
import storeApi from "./migrations/0003_store_api.ts"
import installationSecret from "./migrations/0004_installation_secret.ts"
import webhooks from "./migrations/0005_webhooks.ts"
import signingNonces from "./migrations/0006_signing_nonces.ts"
import tracker from "./migrations/0007_tracker.ts"
import changeHistory from "./migrations/0008_change_history.ts"
import promoCodes from "./migrations/0009_promo_codes.ts"
import storefront from "./migrations/0010_storefront.ts"
import storeConfiguration from "./migrations/0011_store_configuration.ts"
import categoriesStock from "./migrations/0012_categories_stock.ts"
import storeShipping from "./migrations/0013_store_shipping.ts"
import landingPageSections from "./migrations/0014_landing_page_sections.ts"
import fieldLevelChanges from "./migrations/0015_field_level_changes.ts"
import orderShipments from "./migrations/0016_order_shipments.ts"
import shipments from "./migrations/0017_shipments.ts"
import rateSyncProgress from "./migrations/0018_rate_sync_progress.ts"
import pushApplier from "./migrations/0019_push_applier.ts"
import codLedger from "./migrations/0020_cod_ledger.ts"
import orderConfirmation from "./migrations/0021_order_confirmation.ts"
import customerRisk from "./migrations/0022_customer_risk.ts"

export const TABLE = "tawsil_migrations"

export const loader = Migrator.fromRecord({
  "0001_app_instances": appInstances,
  "0002_idempotency": idempotency,
  "0003_store_api": storeApi,
  "0004_installation_secret": installationSecret,
  "0005_webhooks": webhooks,
  "0006_signing_nonces": signingNonces,
  "0007_tracker": tracker,
  "0008_change_history": changeHistory,
  "0009_promo_codes": promoCodes,
  "0010_storefront": storefront,
  "0011_store_configuration": storeConfiguration,
  "0012_categories_stock": categoriesStock,
  "0013_store_shipping": storeShipping,
  "0014_landing_page_sections": landingPageSections,
  "0015_field_level_changes": fieldLevelChanges,
  "0016_order_shipments": orderShipments,
  "0017_shipments": shipments,
  "0018_rate_sync_progress": rateSyncProgress,
  "0019_push_applier": pushApplier,
  "0020_cod_ledger": codLedger,
  "0021_order_confirmation": orderConfirmation,
  "0022_customer_risk": customerRisk
})

/** Runs the pending migrations and returns the ones it ran, as `[id, name]`. */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = Migrator.make({})({ loader, table: TABLE }).pipe(
  Effect.tap((ran) =>
    ran.length === 0
      ? Effect.logInfo("database schema is up to date")
      : Effect.logInfo("migrations applied").pipe(
          Effect.annotateLogs(
            "migrations",
            ran.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)
          )
        )
  ),
  Effect.withSpan("Migrations.run")
)

/** Runs the migrations when the layer is built; fails the layer (and so the start) if one fails. */
export const layer: Layer.Layer<never, Migrator.MigrationError | SqlError.SqlError, SqlClient.SqlClient> =
  Layer.effectDiscard(run)
