import { globSync, readFileSync } from "node:fs"
import { configDefaults, defineConfig } from "vitest/config"
import ProjectOrder from "./scripts/projectOrder.ts"

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

/**
 * Files in the memory and database projects share one module graph per worker (`isolate: false`): importing effect
 * and the app again for every file was half of the memory project's time (115 s against 38 s alone) and a third of the
 * database project's (200 s against 127 s). A memory file that replaces a module (`vi.mock`) or imports one at run time
 * for what its evaluation does (`import(…)`: a hostile plugin's import-time escape) needs a graph of its own, where
 * the module is evaluated afresh (project `memory-isolated`); database files do neither.
 */
const isolated = globSync(`${all}*.test.ts`).filter(
  (file) => !/\.(db|process)\.test\.ts$/.test(file) && /vi\.mock\(|[^\w.]import\(/.test(readFileSync(file, "utf8"))
)

const notMemory = [databaseFiles, processFiles]

export default defineConfig({
  // Sibling workspace packages resolve to their TypeScript sources through this export condition.
  ssr: { resolve: { conditions: ["@tawsil/source"] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Three on a two-core machine: a file that waits on a child process, a socket or a courier's pacing leaves its
    // core idle for part of its run (two workers kept 1.3 of the 2 cores busy); a third fills it, a fourth only
    // contends (`npm test` 356 s on two, 318 s on three, 338 s on four: docs/benchmarks.md).
    maxWorkers: 3,
    reporters: ["default", "./scripts/summaryReporter.ts"],
    // The process project first, then the database and memory ones (scripts/projectOrder.ts).
    sequence: { sequencer: ProjectOrder },
    projects: [
      {
        extends: true,
        test: {
          name: "memory",
          include: [`${all}*.test.ts`],
          exclude: [...configDefaults.exclude, ...notMemory, ...isolated],
          isolate: false
        }
      },
      {
        extends: true,
        test: { name: "memory-isolated", include: isolated }
      },
      {
        extends: true,
        test: { name: "database", include: [databaseFiles], isolate: false }
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
