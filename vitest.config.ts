import { defineConfig } from "vitest/config"

export default defineConfig({
  // Sibling workspace packages resolve to their TypeScript sources through this export condition.
  ssr: { resolve: { conditions: ["@tawsil/source"] } },
  test: {
    include: ["{packages,adapters,apps}/*/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers only queue behind PGlite's start-up.
    maxWorkers: 2,
    reporters: ["default", "./scripts/summaryReporter.ts"]
  }
})
