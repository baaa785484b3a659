import { assert, describe, it } from "@effect/vitest"
import { Duration, Result } from "effect"
import * as RetryPolicy from "../src/RetryPolicy.ts"

const millis = (delays: ReadonlyArray<Duration.Duration>) => delays.map((delay) => Duration.toMillis(delay))

describe("RetryPolicy", () => {
  it("reads WEBHOOK_RETRY_DELAYS; missing delays double the one before", () => {
    assert.deepStrictEqual(
      millis(Result.getOrThrow(RetryPolicy.parseDelays("30s,5m,1h,6h"))),
      [30_000, 300_000, 3_600_000, 21_600_000]
    )
    assert.deepStrictEqual(millis(Result.getOrThrow(RetryPolicy.parseDelays("100ms"))), [100, 200, 400, 800])
    assert.deepStrictEqual(millis(Result.getOrThrow(RetryPolicy.parseDelays(" 1s , 2s "))), [1000, 2000, 4000, 8000])
    assert.deepStrictEqual(
      millis(RetryPolicy.defaultDelays),
      millis(Result.getOrThrow(RetryPolicy.parseDelays("30s,5m,1h,6h")))
    )
    assert.isAbove(
      millis(RetryPolicy.defaultDelays).reduce((a, b) => a + b),
      6 * 3_600_000,
      "the default spans hours"
    )
    for (const bad of ["", "1s,,2s", "1s,2s,3s,4s,5s", "0s", "-1s", "1.5s", "10", "1w", "8d", "1 s"]) {
      assert.isTrue(Result.isFailure(RetryPolicy.parseDelays(bad)), JSON.stringify(bad))
    }
  })

  it("gives up after the fifth attempt, and retries before it with the attempt's delay ±20 %", () => {
    const delays = Result.getOrThrow(RetryPolicy.parseDelays("10s,20s,40s,80s"))
    const next = (attempt: number, random: number, succeeded = false) =>
      RetryPolicy.next({ succeeded, attempt, maxAttempts: RetryPolicy.MAX_ATTEMPTS, delays, random })
    assert.deepStrictEqual(next(1, 0.5, true), { status: "succeeded" })
    assert.deepStrictEqual(next(5, 0.5), { status: "failed" })
    assert.deepStrictEqual(next(1, 0.5), { status: "pending", retryInMillis: 10_000 })
    assert.deepStrictEqual(next(4, 0.5), { status: "pending", retryInMillis: 80_000 })
    assert.deepStrictEqual(next(2, 0), { status: "pending", retryInMillis: 16_000 })
    assert.deepStrictEqual(next(2, 0.999999), { status: "pending", retryInMillis: 24_000 })
    // A manual retry past the fifth attempt that fails again is given up at once (its budget was one).
    assert.deepStrictEqual(RetryPolicy.next({ succeeded: false, attempt: 6, maxAttempts: 6, delays, random: 0.5 }), {
      status: "failed"
    })
  })
})
