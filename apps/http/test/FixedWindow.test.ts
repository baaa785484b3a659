/** The shipping API's per-client window: counts, refusals with the time left, new windows, and the sweep. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as FixedWindow from "../src/shipping/FixedWindow.ts"

describe("FixedWindow", () => {
  it("admits `limit` requests in a window, then tells how long until it closes", () => {
    const windows = FixedWindow.make({ limit: 3, windowMillis: 60_000 })
    assert.deepStrictEqual(
      [1_000, 2_000, 3_000, 4_000, 30_000].map((now) => windows.take("a", now)),
      [0, 0, 0, 57_000, 31_000]
    )
    // The window closes 60 s after its first request; the next request opens a new one.
    assert.strictEqual(windows.take("a", 61_000), 0)
    assert.strictEqual(windows.take("a", 61_001), 0)
  })

  it("keeps each client's window apart", () => {
    const windows = FixedWindow.make({ limit: 1, windowMillis: 60_000 })
    assert.strictEqual(windows.take("a", 0), 0)
    assert.strictEqual(windows.take("b", 10), 0)
    assert.strictEqual(windows.take("a", 20), 59_980)
    assert.strictEqual(windows.take("b", 20), 59_990)
  })

  it("sweeps closed windows, at most once per window length", () => {
    const windows = FixedWindow.make({ limit: 5, windowMillis: 1_000 })
    for (let client = 0; client < 100; client++) windows.take(`c${client}`, client)
    assert.strictEqual(windows.size(), 100)
    // 1 100 ms: the first 100 windows opened at 0–99 ms have closed; the sweep (due at 1 000 ms) drops them.
    windows.take("late", 1_100)
    assert.strictEqual(windows.size(), 1)
  })

  it("never admits more than `limit` requests per window, whatever the timing (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.tuple(fc.constantFrom("a", "b"), fc.integer({ min: 0, max: 500 })), { maxLength: 60 }),
        (limit, steps) => {
          const windows = FixedWindow.make({ limit, windowMillis: 1_000 })
          const opened = new Map<string, { at: number; admitted: number }>()
          let now = 0
          for (const [client, gap] of steps) {
            now += gap
            const wait = windows.take(client, now)
            const window = opened.get(client)
            if (window === undefined || now >= window.at + 1_000) {
              assert.strictEqual(wait, 0)
              opened.set(client, { at: now, admitted: 1 })
            } else if (window.admitted < limit) {
              assert.strictEqual(wait, 0)
              window.admitted++
            } else {
              assert.strictEqual(wait, window.at + 1_000 - now)
            }
          }
        }
      )
    )
  })
})
