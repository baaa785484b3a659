/**
 * One app for the single-platform suites (`platforms/*.ts`, run by `Platforms.db.test.ts`): each suite starts its
 * courier's fake and names the origins it stands for; the app, in this process with trace logs, reaches every fake
 * only through TAWSIL_COURIER_ORIGINS. A suite's canary test checks the bodies and the fake at once and leaves what
 * needs the app stopped — its log lines and every database row — to `stopAndCheck`, the file's last test.
 */
import { assert } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { type AppInProcess, everyRow, startApp } from "./AppInProcess.ts"

export class Platforms extends Context.Service<
  Platforms,
  {
    readonly app: AppInProcess
    readonly dataDir: string
    /** Checks to run once the app has stopped, given every row of its database as text. */
    readonly afterStop: Array<(everything: string) => void>
  }
>()("test/couriers/Platforms") {}

/**
 * The couriers' pinned origins each platform's fake stands for, by fake: the one table of every harness that points
 * couriers at their loopback fakes (this app's suites, `ParcelOperations.db.test.ts`, `CouriersCheckHarness.ts`).
 * Yalidine's fake serves the whole engine (Yalidine's API, its site's label links, Guepex); ZR's its label files on
 * its storage host too (a document host it declares).
 */
export const pinnedOrigins = {
  yalidine: ["https://api.yalidine.app", "https://yalidine.app", "https://api.guepex.app"],
  ecotrack: ["https://platform.dhd-dz.com", "https://*.ecotrack.dz"],
  noest: ["https://app.noest-dz.com"],
  zr: ["https://api.zrexpress.app", "https://*.blob.core.windows.net"],
  maystro: ["https://backend.maystro-delivery.com"],
  procolis: ["https://procolis.com"],
  near: ["https://api.neardelivery.app"],
  mdm: ["https://api.mdm.express"],
  ecom: ["https://ecom-dz.net"],
  elogistia: ["https://api.elogistia.com"],
  colivraison: ["https://api.colivraison.express"],
  zimou: ["https://zimou.express"]
} as const satisfies Record<string, ReadonlyArray<string>>

export type Faked = keyof typeof pinnedOrigins

/** `pinned=fake` for each of `fakes` (named as in {@link pinnedOrigins}), as `TAWSIL_COURIER_ORIGINS` takes them. */
export const originsOf = (fakes: { readonly [K in Faked]?: { readonly origin: string } }): ReadonlyArray<string> =>
  (Object.keys(fakes) as Array<Faked>).flatMap((name) =>
    pinnedOrigins[name].map((pinned) => `${pinned}=${fakes[name]!.origin}`)
  )

/** The app, its courier origins `pinned=fake` as the suites' fakes give them. */
export const layer = <R>(origins: Effect.Effect<ReadonlyArray<string>, never, R>) =>
  Layer.effect(
    Platforms,
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.migratedDataDir
      const app = yield* startApp(
        {
          DATA_DIR: dataDir,
          TAWSIL_COURIER_ORIGINS: (yield* origins).join(","),
          SHIPPING_RATE_LIMIT_PER_MINUTE: "100000",
          LOG_LEVEL: "trace"
        },
        // On a busy two-core machine the embedded database's start-up alone can take 30 s.
        { within: 90_000 }
      )
      return { app, dataDir, afterStop: [] }
    })
  )

/** Stops the app, reads every row of its database, and runs every check the suites left for then. */
export const stopAndCheck = Effect.gen(function* () {
  const { app, dataDir, afterStop } = yield* Platforms
  yield* app.stop
  const everything = yield* everyRow(dataDir)
  assert.include(app.stdout(), "courier adapters loaded", "the app's log was captured")
  assert.isNotEmpty(afterStop, "the suites' canary tests ran")
  for (const check of afterStop) check(everything)
})

/**
 * What a fake received, as `METHOD path`, split into the calls a test expects in full and the reference lookups the
 * adapter keeps in a cache (a wilaya's communes, a city list). The app's adapters are the ones discovery imports, one
 * instance per module graph: another file of the same worker may have filled those caches first, so a lookup may be
 * missing here, but never repeated beyond what the test allows.
 */
export const besideCachedLookups = (
  requests: ReadonlyArray<{ readonly method: string; readonly path: string }>,
  cached: ReadonlyArray<string>
) => {
  const sent = requests.map(({ method, path }) => `${method} ${path}`)
  return {
    calls: sent.filter((call) => !cached.includes(call)),
    lookups: (call: string) => sent.filter((each) => each === call).length
  }
}
