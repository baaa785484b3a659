import { assert, describe, it } from "@effect/vitest"
import * as RetryAfter from "../src/RetryAfter.ts"

describe("RetryAfter", () => {
  const cases: ReadonlyArray<readonly [string, Readonly<Record<string, string>>, number | undefined]> = [
    ["delta-seconds", { "retry-after": "17" }, 17],
    ["any letter case, padded", { "Retry-After": " 5 " }, 5],
    ["zero waits a second", { "retry-after": "0" }, 1],
    ["six digits at most", { "retry-after": "999999" }, 999_999],
    ["more is not read", { "retry-after": "1000000" }, undefined],
    ["an HTTP date is not read", { "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }, undefined],
    ["a negative number", { "retry-after": "-3" }, undefined],
    ["a fraction", { "retry-after": "1.5" }, undefined],
    ["absent", {}, undefined]
  ]

  for (const [name, headers, expected] of cases) {
    it(`given: ${name}`, () => {
      assert.strictEqual(RetryAfter.given(headers), expected)
      assert.strictEqual(RetryAfter.seconds(headers), expected ?? RetryAfter.DEFAULT_SECONDS)
      assert.strictEqual(RetryAfter.seconds(headers, 30), expected ?? 30)
    })
  }
})
