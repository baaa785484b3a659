/**
 * The app's V8 heap setting (`V8Heap.ts`): allocation-site pretenuring off unless the command line names it, set
 * before any other module of the app is evaluated. What it saves is measured, not asserted (docs/benchmarks.md).
 * Importing the module sets the flag in this test worker too: a collector heuristic, which no test depends on.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { pretenuringFlag } from "../src/V8Heap.ts"

describe("V8Heap", () => {
  it("turns allocation-site pretenuring off by default", () => {
    assert.strictEqual(pretenuringFlag([]), "--no-allocation-site-pretenuring")
    assert.strictEqual(
      pretenuringFlag(["--conditions=@tawsil/source", "--trace-gc"]),
      "--no-allocation-site-pretenuring"
    )
  })

  it("leaves V8's setting to a command line that names it, either way and in either spelling", () => {
    for (const argument of [
      "--allocation-site-pretenuring",
      "--no-allocation-site-pretenuring",
      "--allocation_site_pretenuring",
      "--no-allocation_site_pretenuring"
    ]) {
      assert.strictEqual(pretenuringFlag(["--enable-source-maps", argument]), undefined, argument)
    }
  })

  it("is the app's first import, so that it runs before any other module allocates", () => {
    const main = readFileSync(fileURLToPath(new URL("../src/main.ts", import.meta.url)), "utf8")
    const imports = [...main.matchAll(/^import\b[^"]*"([^"]+)"/gm)].map((match) => match[1])
    assert.strictEqual(imports[0], "./V8Heap.ts")
  })
})
