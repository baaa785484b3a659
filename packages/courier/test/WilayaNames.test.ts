import { assert, describe, it } from "@effect/vitest"
import type { WilayaCode } from "@tawsil/domain"
import * as WilayaNames from "../src/WilayaNames.ts"

describe("WilayaNames", () => {
  it("names the 58 wilayas couriers deliver to, each once, in the order of their codes", () => {
    assert.lengthOf(WilayaNames.FRENCH, 58)
    assert.strictEqual(new Set(WilayaNames.FRENCH).size, 58)
    for (const [code, name] of [
      [1, "Adrar"],
      [4, "Oum El Bouaghi"],
      [6, "Béjaïa"],
      [12, "Tébessa"],
      [16, "Alger"],
      [19, "Sétif"],
      [58, "El Meniaa"]
    ] as const) {
      assert.strictEqual(WilayaNames.frenchOf(code as WilayaCode.WilayaCode), name)
      assert.strictEqual(WilayaNames.codeOf(name), code)
    }
  })

  it("reads back every name as its code, and nothing else", () => {
    for (const [index, name] of WilayaNames.FRENCH.entries()) assert.strictEqual(WilayaNames.codeOf(name), index + 1)
    assert.isUndefined(WilayaNames.codeOf("alger"))
    assert.isUndefined(WilayaNames.codeOf("Aflou"))
  })
})
