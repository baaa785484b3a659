import { assert, describe, it } from "@effect/vitest"
import { KeyRing } from "@tawsil/secrets"
import { Redacted, Result } from "effect"
import * as fc from "fast-check"

describe("KeyRing", () => {
  it("reads a key as 64 hexadecimal characters, either case, and writes it back in lowercase", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString("hex")
        const parsed = Result.getOrThrow(KeyRing.parse(upper ? hex.toUpperCase() : hex))
        assert.deepStrictEqual(Redacted.value(parsed), bytes)
        assert.strictEqual(KeyRing.format(parsed), hex)
      })
    )
  })

  it("refuses any other text, saying what it expected and never repeating the text", () => {
    const cases = ["", "abc", "g".repeat(64), "a".repeat(63), "a".repeat(65), ` ${"a".repeat(64)}`, "YWJj".repeat(11)]
    for (const text of cases) {
      const parsed = KeyRing.parse(text)
      assert.isTrue(Result.isFailure(parsed), JSON.stringify(text))
      if (Result.isFailure(parsed)) {
        assert.strictEqual(parsed.failure, "64 hexadecimal characters (32 bytes)")
      }
    }
  })

  it("refuses a key of the wrong size or whose bytes are all equal (a placeholder)", () => {
    assert.isTrue(Result.isFailure(KeyRing.key(Redacted.make(new Uint8Array(16).fill(7)))))
    assert.isTrue(Result.isFailure(KeyRing.key(Redacted.make(new Uint8Array(32)))))
    assert.isTrue(Result.isFailure(KeyRing.make(Redacted.make(new Uint8Array(32).fill(0xaa)))))
  })

  it("names a key by 8 hex characters of a labelled hash: stable, distinct across keys, not a prefix of the key", () => {
    const bytes = KeyRing.generate()
    const key = Result.getOrThrow(KeyRing.key(bytes))
    assert.match(key.id, /^[0-9a-f]{8}$/)
    assert.strictEqual(key.id, KeyRing.idOf(Redacted.value(bytes)))
    assert.isFalse(KeyRing.format(bytes).startsWith(key.id))
    const ids = new Set(Array.from({ length: 500 }, () => Result.getOrThrow(KeyRing.key(KeyRing.generate())).id))
    assert.strictEqual(ids.size, 500)
  })

  it("keeps each previous key once, and never the current key as a previous one", () => {
    const current = KeyRing.generate()
    const old = KeyRing.generate()
    const ring = Result.getOrThrow(KeyRing.make(current, [old, current, Redacted.make(Redacted.value(old))]))
    assert.deepStrictEqual(
      ring.previous.map((key) => key.id),
      [KeyRing.idOf(Redacted.value(old))]
    )
    assert.strictEqual(KeyRing.find(ring, ring.previous[0]!.id), ring.previous[0])
    assert.strictEqual(KeyRing.find(ring, ring.current.id), ring.current)
    assert.isUndefined(KeyRing.find(ring, "00000000"))
  })

  it("rotates to a new key keeping the old ones for reading, and retires them", () => {
    const ring = Result.getOrThrow(KeyRing.make(KeyRing.generate()))
    const next = Result.getOrThrow(KeyRing.key(KeyRing.generate()))
    const rotated = KeyRing.rotate(ring, next)
    assert.strictEqual(rotated.current.id, next.id)
    assert.deepStrictEqual(
      rotated.previous.map((key) => key.id),
      [ring.current.id]
    )
    assert.deepStrictEqual(KeyRing.retire(rotated), { current: next, previous: [] })
  })
})
