import { assert, describe, it } from "@effect/vitest"
import { MetricSeries } from "@tawsil/tracing"
import { Effect, Metric } from "effect"

const hitsWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.counter("test_metric_series_hits", { description: "hits by outcome", incremental: true, attributes })

describe("MetricSeries.series", () => {
  it("makes one metric per attribute set, once", () => {
    const hits = MetricSeries.series(hitsWith)
    assert.strictEqual(hits({ outcome: "ok" }), hits({ outcome: "ok" }))
    assert.notStrictEqual(hits({ outcome: "ok" }), hits({ outcome: "failed" }))
  })

  it.effect("counts in the same series as `Metric.withAttributes` does", () =>
    Effect.gen(function* () {
      const hits = MetricSeries.series(hitsWith)
      yield* Metric.update(hits({ outcome: "ok" }), 1)
      yield* Metric.update(hits({ outcome: "ok" }), 1)
      yield* Metric.update(Metric.withAttributes(hitsWith(), { outcome: "ok" }), 1)
      yield* Metric.update(hits({ outcome: "failed" }), 1)
      const series = (yield* Metric.snapshot).filter((snapshot) => snapshot.id === "test_metric_series_hits")
      const counts = Object.fromEntries(
        series.map((snapshot) => [
          (snapshot.attributes as Record<string, string>).outcome,
          (snapshot.state as { count: number }).count
        ])
      )
      assert.deepStrictEqual(counts, { ok: 3, failed: 1 })
    })
  )
})
