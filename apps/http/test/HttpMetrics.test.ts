import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import * as HttpMetrics from "../src/HttpMetrics.ts"
import * as PrometheusText from "./PrometheusText.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

/** The metric families docs/operations.md documents, and those it says appear later (at their first event). */
const documented = () => {
  const rows = readFileSync(Path.join(ROOT, "docs/operations.md"), "utf8")
    .split("\n")
    .filter((line) => /^\| `[a-z_]+` \| (counter|gauge|histogram) \|/.test(line))
  return rows.map((row) => ({ name: /`([a-z_]+)`/.exec(row)![1]!, later: /appears at/.test(row) }))
}

describe("HttpMetrics.zero", () => {
  it.effect("puts every documented family on /metrics from the start, at zero", () =>
    Effect.gen(function* () {
      yield* HttpMetrics.zero
      const families = PrometheusText.parse(PrometheusMetrics.formatUnsafe(yield* Effect.context<never>()))
      const names = new Set(families.keys())
      const expected = documented()
      assert.isAtLeast(expected.length, 14)
      for (const { name, later } of expected) {
        if (later) assert.isFalse(names.has(name), `${name} is documented as appearing at its first event`)
        else assert.isTrue(names.has(name), `${name} is on /metrics before its first event`)
      }
      // Nothing counted: every sample is zero.
      for (const family of families.values()) {
        for (const sample of family.samples) assert.strictEqual(sample.value, 0, `${sample.name} starts at 0`)
      }
      // The closed label sets are there one by one: a rate over a reason that never happened reads 0, not absent.
      const refusals = families.get("tawsil_store_limit_refusals_total")!
      assert.sameMembers(
        refusals.samples.map((sample) => sample.labels.reason),
        ["minute", "signed_minute", "month"]
      )
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})
