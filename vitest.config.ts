import { configDefaults, defineConfig } from "vitest/config"

/**
 * Three kinds of test, told apart by file name:
 * - `X.test.ts`, project `memory`: no database, no child process (a loopback fake courier on a socket is fine);
 * - `X.db.test.ts`, project `database`: the embedded database (PGlite), or PostgreSQL with `DATABASE_URL`;
 * - `X.process.test.ts`, project `process`: spawns processes (the app as `npm start` runs it, the admin CLI, npm,
 *   tsc, node).
 * `npm test` runs the three; `npm run test:quick` the first two.
 */
const all = "{packages,adapters,apps}/*/test/**/"
const databaseFiles = `${all}*.db.test.ts`
const processFiles = `${all}*.process.test.ts`

/** The store API's handler tests in memory: no socket, no database, no state outside their own layers. */
const sharedModules = "apps/http/test/store/**/*.test.ts"

const notMemory = [databaseFiles, processFiles]

export default defineConfig({
  // Sibling workspace packages resolve to their TypeScript sources through this export condition.
  ssr: { resolve: { conditions: ["@tawsil/source"] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers only queue behind PGlite's start-up.
    maxWorkers: 2,
    reporters: ["default", "./scripts/summaryReporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "memory",
          include: [`${all}*.test.ts`],
          exclude: [...configDefaults.exclude, sharedModules, ...notMemory]
        }
      },
      {
        extends: true,
        // Each file would otherwise import the whole app again (about 1.3 s each); they share one module graph.
        test: {
          name: "memory-store",
          include: [sharedModules],
          exclude: [...configDefaults.exclude, ...notMemory],
          isolate: false
        }
      },
      {
        extends: true,
        test: { name: "database", include: [databaseFiles] }
      },
      {
        extends: true,
        test: {
          name: "process",
          include: [processFiles],
          // The app as `npm start` runs it is the built one: built first, for the tests that start it.
          globalSetup: ["./scripts/buildApp.ts"]
        }
      }
    ]
  }
})
