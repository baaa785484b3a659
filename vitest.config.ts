import { configDefaults, defineConfig } from "vitest/config"

/** The store API's handler tests in memory: no socket, no database, no state outside their own layers. */
const memory = ["apps/http/test/store/**/*.test.ts"]

export default defineConfig({
  // Sibling workspace packages resolve to their TypeScript sources through this export condition.
  ssr: { resolve: { conditions: ["@tawsil/source"] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers only queue behind PGlite's start-up.
    maxWorkers: 2,
    reporters: ["default", "./scripts/summaryReporter.ts"],
    // The app as `npm start` runs it is the built one: built first, for the tests that start it.
    globalSetup: ["./scripts/buildApp.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "tawsil",
          include: ["{packages,adapters,apps}/*/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...memory]
        }
      },
      {
        extends: true,
        // Each file would otherwise import the whole app again (about 1.3 s each); they share one module graph.
        test: { name: "memory", include: memory, isolate: false }
      }
    ]
  }
})
