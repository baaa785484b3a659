import { assert, describe, it } from "@effect/vitest"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"

const decode = Schema.decodeUnknownResult(WilayaCode.WilayaCode)

describe("WilayaCode", () => {
  it("accepts the integers 1 to 58", () => {
    for (const code of [1, 16, 31, 58]) {
      assert.deepStrictEqual(decode(code), Result.succeed(code as WilayaCode.WilayaCode))
    }
  })

  it("refuses anything else with one message", () => {
    for (const input of [0, 59, -16, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "16", null, undefined]) {
      const result = decode(input)
      assert.isTrue(Result.isFailure(result), `${String(input)} is not a wilaya code`)
      if (Result.isFailure(result)) {
        assert.strictEqual(result.failure.message, "Expected a wilaya code, an integer from 1 to 58")
      }
    }
  })
})
