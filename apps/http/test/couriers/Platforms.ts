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
