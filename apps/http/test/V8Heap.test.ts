/**
 * The app's V8 heap setting (`V8Heap.ts`): allocation-site pretenuring off unless the command line names it, set
 * before any other module of the app is evaluated. What it saves is measured, not asserted (docs/benchmarks.md).
 * The module is imported at run time, which puts this file in project `memory-isolated` (a fresh worker per file):
 * importing it sets the flag in the worker that imports it, and no other test file should run under it.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const { pretenuringFlag } = await import("../src/V8Heap.ts")

describe("V8Heap", () => {
  it("turns allocation-site pretenuring off by default", () => {
    assert.strictEqual(pretenuringFlag([]), "--no-allocation-site-pretenuring")
    for (const others of [["--conditions=@tawsil/source", "--trace-gc"], ["--trace-pretenuring"]]) {
      assert.strictEqual(pretenuringFlag(others), "--no-allocation-site-pretenuring", others.join(" "))
    }
    assert.strictEqual(pretenuringFlag(["--allocation-site-pretenuring-x"]), "--no-allocation-site-pretenuring")
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

  it("is the first module the app's entry point loads, so that it runs before any other module allocates", () => {
    const main = readFileSync(fileURLToPath(new URL("../src/main.ts", import.meta.url)), "utf8")
    // Every statement that loads a module (type-only imports are erased), in order.
    const loads = [...main.matchAll(/^(?:import(?!\s+type\b)|export\b[^;]*?\bfrom)[^"']*["']([^"']+)["']/gm)].map(
      (match) => match[1]
    )
    assert.isAbove(loads.length, 1)
    assert.strictEqual(loads[0], "./V8Heap.ts")
  })
})
