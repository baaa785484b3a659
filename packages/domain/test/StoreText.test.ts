import { assert, describe, it } from "@effect/vitest"
import { StoreText } from "@tawsil/domain"
import { Schema } from "effect"
import * as fc from "fast-check"

const decode = Schema.decodeUnknownResult(StoreText.StoreText)

/** What PostgreSQL refuses or alters: a NUL character, a UTF-16 surrogate without its other half. */
const unstorable = ["\u0000", "a\u0000b", "\ud800", "x\udc00", "🇩🇿\ud83d", "\udbff\ud800"]

describe("StoreText", () => {
  it("keeps any well-formed text without NUL, other control characters and astral characters included", () => {
    for (const text of ["", "Amina", "زبون جديد", "🇩🇿", "\u0001\u001f\u007f", "tab\there", "\ud83d\ude00", "\ufeff"]) {
      assert.isTrue(StoreText.isStorable(text), JSON.stringify(text))
      assert.isTrue(decode(text)._tag === "Success", JSON.stringify(text))
    }
  })

  it("refuses a NUL character and a lone surrogate wherever they are", () => {
    for (const text of unstorable) {
      assert.isFalse(StoreText.isStorable(text), JSON.stringify(text))
      assert.isTrue(decode(text)._tag === "Failure", JSON.stringify(text))
    }
  })

  it("fails with the field's own message when one is given", () => {
    const Name = Schema.String.check(StoreText.storable({ message: "name is required (1-255 chars)" }))
    const result = Schema.decodeUnknownResult(Name)("Ami\u0000ne")
    assert.isTrue(result._tag === "Failure" && result.failure.message.includes("name is required (1-255 chars)"))
  })

  it("is the same rule as a round trip through UTF-8 without NUL", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        const roundTrips = new TextDecoder().decode(new TextEncoder().encode(text)) === text
        assert.strictEqual(StoreText.isStorable(text), roundTrips && !text.includes("\u0000"))
      })
    )
  })

  it("makes any text storable: NUL and lone surrogates replaced, cut without splitting a pair", () => {
    assert.strictEqual(StoreText.toStorable("a\u0000b\ud800c\udc00", 100), "a\ufffdb\ufffdc\ufffd")
    assert.strictEqual(StoreText.toStorable("Livré 🇩🇿", 100), "Livré 🇩🇿")
    assert.strictEqual(StoreText.toStorable("ab😀", 3), "ab")
    assert.strictEqual(StoreText.toStorable("ab😀", 4), "ab😀")
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.integer({ min: 1, max: 80 }), (text, max) => {
        const kept = StoreText.toStorable(text, max)
        assert.isTrue(StoreText.isStorable(kept), JSON.stringify(kept))
        assert.isAtMost(kept.length, max)
        if (StoreText.isStorable(text) && text.length <= max) assert.strictEqual(kept, text)
      })
    )
  })

  it("checks every string and key of a JSON value bound for jsonb", () => {
    assert.isTrue(StoreText.isStorableJson({ a: ["x", 1, null, { "clé 🇩🇿": true }], b: 1e308 }))
    assert.isTrue(StoreText.isStorableJson(null))
    for (const bad of unstorable) {
      assert.isFalse(StoreText.isStorableJson(bad))
      assert.isFalse(StoreText.isStorableJson({ a: [1, { b: bad }] }), `value ${JSON.stringify(bad)}`)
      assert.isFalse(StoreText.isStorableJson({ a: { [bad]: 1 } }), `key ${JSON.stringify(bad)}`)
    }
    // Iterative: nesting deeper than the call stack is fine.
    let deep: unknown = "\u0000"
    for (let depth = 0; depth < 100_000; depth++) deep = [deep]
    assert.isFalse(StoreText.isStorableJson(deep))
  })
})
