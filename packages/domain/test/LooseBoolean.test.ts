import { assert, describe, it } from "@effect/vitest"
import { LooseBoolean } from "@tawsil/domain"
import { Schema } from "effect"

describe("LooseBoolean", () => {
  it("reads a body value as a boolean cast does: the string false is true", () => {
    for (const value of [true, 1, -1, "1", "true", "false", "no", "off", " ", "00", [0], {}]) {
      assert.isTrue(LooseBoolean.cast(value), JSON.stringify(value))
    }
    for (const value of [false, 0, "", "0", []]) assert.isFalse(LooseBoolean.cast(value), JSON.stringify(value))
    assert.isFalse(Schema.decodeUnknownSync(LooseBoolean.LooseBoolean)(false))
  })

  it("reads a query flag exactly as the spec writes it: true, 1, yes, on", () => {
    for (const raw of ["true", "1", "yes", "on"]) assert.isTrue(LooseBoolean.fromQuery(raw), raw)
    for (const raw of ["TRUE", "True", " yes", "yes ", "On", "ON", "false", "0", "no", "off", "", "y", "01"]) {
      assert.isFalse(LooseBoolean.fromQuery(raw), JSON.stringify(raw))
    }
    assert.isUndefined(LooseBoolean.fromQuery(undefined))
  })
})
