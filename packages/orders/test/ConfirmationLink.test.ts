import { assert, describe, it } from "@effect/vitest"
import { Redacted, Result } from "effect"
import fc from "fast-check"
import * as ConfirmationLink from "../src/ConfirmationLink.ts"

const keyOf = (id: string, fill: (index: number) => number): ConfirmationLink.SigningKey => ({
  id,
  bytes: Redacted.make(Uint8Array.from({ length: 32 }, (_, index) => fill(index)))
})

const current = keyOf("0a1b2c3d", (index) => (index * 7 + 3) % 256)
const previous = keyOf("9f8e7d6c", (index) => (index * 13 + 1) % 256)
const stranger = keyOf("0a1b2c3d", (index) => (index * 5 + 11) % 256)

const claims: ConfirmationLink.Claims = {
  storeId: 42,
  orderId: 1234,
  linkId: "AbCdEfGh_-123456",
  expiresAt: 1_796_000_000
}

describe("ConfirmationLink", () => {
  it("signs the claims and reads them back under the same key", () => {
    const token = ConfirmationLink.sign(current, claims)
    assert.match(token, /^1\.0a1b2c3d\.42\.1234\.AbCdEfGh_-123456\.1796000000\.[A-Za-z0-9_-]{22}$/)
    assert.deepStrictEqual(ConfirmationLink.read([current], token), Result.succeed(claims))
  })

  it("reads a token of a previous key while the ring still holds it; never under another key of the same id", () => {
    const token = ConfirmationLink.sign(previous, claims)
    assert.deepStrictEqual(ConfirmationLink.read([current, previous], token), Result.succeed(claims))
    assert.deepStrictEqual(ConfirmationLink.read([current], token), Result.fail("signature"))
    assert.deepStrictEqual(
      ConfirmationLink.read([stranger], ConfirmationLink.sign(current, claims)),
      Result.fail("signature")
    )
  })

  it("refuses a token bound to another store, order, link or expiry with the same tag", () => {
    const parts = ConfirmationLink.sign(current, claims).split(".")
    for (const [index, value] of [
      [2, "43"],
      [3, "1235"],
      [4, "AbCdEfGh_-123457"],
      [5, "1896000000"]
    ] as const) {
      const forged = parts.map((part, at) => (at === index ? value : part)).join(".")
      assert.deepStrictEqual(ConfirmationLink.read([current], forged), Result.fail("signature"), forged)
    }
  })

  it("refuses shapes that are not a token", () => {
    const token = ConfirmationLink.sign(current, claims)
    const tag = token.split(".").at(-1)!
    for (const text of [
      "",
      "not-a-token",
      token.replace(/^1\./, "2."),
      `${token}.extra`,
      token.replace(".42.", ".042."),
      token.replace(".42.", ".-42."),
      token.replace(tag, `${tag}A`),
      // A tag spelled with the ignored low bits of its last character set: the same bytes, not the same token.
      token.replace(tag, `${tag.slice(0, -1)}${String.fromCharCode(tag.charCodeAt(21) ^ 1)}`)
    ]) {
      const read = ConfirmationLink.read([current], text)
      assert.isTrue(Result.isFailure(read), text)
    }
  })

  it("any single character changed is refused, and every token fits in 100 characters", () => {
    fc.assert(
      fc.property(
        fc.record({
          storeId: fc.integer({ min: 1, max: 2_147_483_647 }),
          orderId: fc.integer({ min: 1, max: 2_147_483_647 }),
          linkId: fc.string({ unit: fc.constantFrom(..."ABCxyz019_-"), minLength: 16, maxLength: 16 }),
          expiresAt: fc.integer({ min: 1_700_000_000, max: 9_999_999_999 })
        }),
        fc.nat(),
        fc.constantFrom(..."AQgw09_-.x"),
        (sent, at, replacement) => {
          const token = ConfirmationLink.sign(current, sent)
          assert.isAtMost(token.length, 100)
          assert.deepStrictEqual(ConfirmationLink.read([current], token), Result.succeed(sent))
          const index = at % token.length
          if (token[index] === replacement) return
          const changed = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`
          assert.isTrue(Result.isFailure(ConfirmationLink.read([current], changed)), changed)
        }
      ),
      { numRuns: 300 }
    )
  })
})
