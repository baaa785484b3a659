import { assert, describe, it } from "@effect/vitest"
import { BodyFields } from "@tawsil/domain"
import { Option } from "effect"

describe("BodyFields", () => {
  it("reads the fields of a JSON object, and nothing of an array, null or a scalar", () => {
    assert.deepStrictEqual(
      BodyFields.fieldsOf(JSON.parse('{"name":"Dar","logo":null}')),
      Option.some({ name: "Dar", logo: null })
    )
    assert.deepStrictEqual(BodyFields.fieldsOf({}), Option.some({}))
    for (const value of [[], [{ name: "Dar" }], null, undefined, 0, "name", true]) {
      assert.isTrue(Option.isNone(BodyFields.fieldsOf(value)), JSON.stringify(value))
    }
  })

  it("counts a field as sent when the body holds it, even as null, and not when it is absent or undefined", () => {
    const fields = { name: "Dar", description: null, logo: undefined }
    assert.isTrue(BodyFields.sent(fields, "name"))
    assert.isTrue(BodyFields.sent(fields, "description"))
    assert.isFalse(BodyFields.sent(fields, "logo"))
    assert.isFalse(BodyFields.sent(fields, "banner"))
    assert.isFalse(BodyFields.sent(JSON.parse('{"__proto__":{"name":"x"}}'), "name"))
  })
})
