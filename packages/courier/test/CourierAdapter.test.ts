import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Result, Schema } from "effect"
import { define, InvalidAdapter } from "../src/CourierAdapter.ts"
import * as Push from "../src/Push.ts"

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

  describe("capabilities", () => {
    const push: Push.Push = {
      secret: Schema.RedactedFromValue(Schema.String),
      receive: () => Result.succeed(Push.events([]))
    }
    const create = () => Effect.succeed({ trackingNumber: "T1", rawStatus: "held" })
    const dispatch = () => Effect.succeed({ rawStatus: "ready" })

    it("say push exactly when the adapter declares push, and dispatch when it implements it", () => {
      const plain = define(base)
      assert.isFalse(plain.capabilities.push)
      assert.isFalse(plain.capabilities.dispatch)
      assert.strictEqual(plain.push, undefined)
      const full = define({ ...base, push, operations: { ...base.operations, create, dispatch } })
      assert.isTrue(full.capabilities.push)
      assert.isTrue(full.capabilities.dispatch)
      assert.strictEqual(full.push, push)
    })

    it("say tracking sees the cash when cash statuses are declared, unless they come only by push", () => {
      assert.isFalse(define(base).codTracked)
      assert.isTrue(define({ ...base, codStatuses: { paid: "remitted" } }).codTracked)
      assert.isFalse(define({ ...base, codStatuses: { paid: "remitted" }, codTracked: false }).codTracked)
    })

    it("refuse dispatch without create, and a push without its receive or secret, at define time", () => {
      assert.throws(
        () => define({ ...base, operations: { ...base.operations, dispatch } }),
        InvalidAdapter,
        /dispatch without create/
      )
      assert.throws(
        () => define({ ...base, push: { secret: push.secret } as unknown as Push.Push }),
        InvalidAdapter,
        /push needs a secret schema and a receive function/
      )
      assert.throws(
        () => define({ ...base, push: { receive: push.receive } as unknown as Push.Push }),
        InvalidAdapter,
        /push needs a secret schema and a receive function/
      )
    })
  })
})
