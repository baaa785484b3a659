import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { define, InvalidAdapter } from "../src/CourierAdapter.ts"

const base = {
  platform: "alpha",
  couriers: [{ key: "alpha", name: "Alpha", aliases: [], endpoint: { origin: "https://api.alpha.dz" } }],
  statuses: {},
  operations: { track: () => Effect.succeed([]) }
}

describe("CourierAdapter", () => {
  describe("rateLimits", () => {
    it("are none unless declared", () => {
      assert.deepStrictEqual(define(base).rateLimits, [])
    })

    it("are exposed as declared, each window a Duration", () => {
      const adapter = define({
        ...base,
        rateLimits: [
          { limit: 5, window: "1 second" },
          { limit: 50, window: Duration.minutes(1) },
          { limit: 1000, window: 3_600_000 }
        ]
      })
      assert.deepStrictEqual(
        adapter.rateLimits.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
        [
          [5, 1000],
          [50, 60_000],
          [1000, 3_600_000]
        ]
      )
    })

    it("survive being declared again from the adapter itself (as discovery re-checks a loaded adapter)", () => {
      const adapter = define({ ...base, rateLimits: [{ limit: 5, window: "1 second" }] })
      assert.deepStrictEqual(define(adapter as Parameters<typeof define>[0]).rateLimits, adapter.rateLimits)
    })

    it.each<readonly [string, { readonly limit: number; readonly window: Duration.Input }, string]>([
      ["a zero limit", { limit: 0, window: "1 second" }, "positive integer"],
      ["a negative limit", { limit: -5, window: "1 second" }, "positive integer"],
      ["a fractional limit", { limit: 2.5, window: "1 second" }, "positive integer"],
      ["a limit that is not a number", { limit: Number.NaN, window: "1 second" }, "positive integer"],
      ["an infinite limit", { limit: Number.POSITIVE_INFINITY, window: "1 second" }, "positive integer"],
      ["a zero window", { limit: 5, window: 0 }, "positive whole number of milliseconds"],
      ["a negative window", { limit: 5, window: -1000 }, "positive whole number of milliseconds"],
      ["a fractional window", { limit: 5, window: 1.5 }, "positive whole number of milliseconds"],
      ["an infinite window", { limit: 5, window: "Infinity" }, "positive whole number of milliseconds"],
      ["a window that is no duration", { limit: 5, window: "soon" as Duration.Input }, "positive whole number"]
    ])("refuse %s at define time", (_name, rateLimit, says) => {
      try {
        define({ ...base, rateLimits: [{ limit: 5, window: "1 second" }, rateLimit] })
        assert.fail("define accepted it")
      } catch (error) {
        assert.instanceOf(error, InvalidAdapter)
        assert.include((error as InvalidAdapter).message, says)
      }
    })
  })
})
