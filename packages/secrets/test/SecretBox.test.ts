import { assert, describe, it } from "@effect/vitest"
import { KeyRing, SecretBox } from "@tawsil/secrets"
import { Redacted, Result } from "effect"
import * as fc from "fast-check"

const ringOf = (...keys: ReadonlyArray<Redacted.Redacted<Uint8Array>>) =>
  Result.getOrThrow(KeyRing.make(keys[0]!, keys.slice(1)))

const old = KeyRing.generate()
const current = KeyRing.generate()
const ring = ringOf(current, old)
const AD = "courier_accounts:42:credentials"

const failureOf = <A, E>(result: Result.Result<A, E>): E => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, E>).failure
}

/** Any text, NUL and control characters and astral code points included. */
const text = fc.string({ unit: "binary", maxLength: 300 })

describe("SecretBox", () => {
  it("fingerprints a secret under the current key: stable, named by the key, another key another fingerprint", () => {
    const secret = Redacted.make("token-0123456789")
    const print = SecretBox.fingerprint(ring, secret)
    assert.match(print, new RegExp(`^${ring.current.id}:[0-9a-f]{12}$`))
    assert.strictEqual(SecretBox.fingerprint(ring, Redacted.make("token-0123456789")), print)
    assert.notStrictEqual(SecretBox.fingerprint(ring, Redacted.make("token-0123456788")), print)
    const other = Result.getOrThrow(KeyRing.make(KeyRing.generate()))
    assert.notStrictEqual(SecretBox.fingerprint(other, secret).split(":")[1], print.split(":")[1])
    // Not the secret's bare hash: without the key a guess cannot be checked against it.
    assert.notInclude(print, "token")
  })

  it("opens what it sealed, for any text and associated data", () => {
    fc.assert(
      fc.property(text, text, (plaintext, associatedData) => {
        const sealed = SecretBox.seal(ring, Redacted.make(plaintext), associatedData)
        const opened = SecretBox.open(ring, sealed, associatedData)
        assert.isTrue(Result.isSuccess(opened))
        assert.strictEqual(Redacted.value(Result.getOrThrow(opened)), plaintext)
      })
    )
  })

  it("writes a self-describing value: version, the current key's id, a 12-byte nonce, ciphertext and tag", () => {
    const sealed = SecretBox.seal(ring, Redacted.make("hunter2"), AD)
    const [version, keyId, nonce, body] = sealed.split(".")
    assert.strictEqual(version, "tws1")
    assert.strictEqual(keyId, ring.current.id)
    assert.match(keyId!, /^[0-9a-f]{8}$/)
    assert.strictEqual(Buffer.from(nonce!, "base64url").length, 12)
    assert.strictEqual(Buffer.from(body!, "base64url").length, "hunter2".length + 16)
    assert.isTrue(sealed.startsWith(SecretBox.prefix(ring.current)))
    assert.notInclude(sealed, "hunter2")
    assert.notInclude(sealed, Buffer.from("hunter2").toString("base64url"))
  })

  it("draws a fresh nonce for every value: 2000 seals of one text share no nonce and no ciphertext", () => {
    const nonces = new Set<string>()
    const bodies = new Set<string>()
    for (let index = 0; index < 2000; index++) {
      const [, , nonce, body] = SecretBox.seal(ring, Redacted.make("same text"), AD).split(".")
      nonces.add(nonce!)
      bodies.add(body!)
    }
    assert.strictEqual(nonces.size, 2000)
    assert.strictEqual(bodies.size, 2000)
  })

  it("refuses every change of a single character of a sealed value", () => {
    const sealed = SecretBox.seal(ring, Redacted.make('{"token":"abc"}'), AD)
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: sealed.length - 1 }),
        fc.constantFrom(...alphabet),
        (position, replacement) => {
          fc.pre(sealed[position] !== replacement)
          const altered = sealed.slice(0, position) + replacement + sealed.slice(position + 1)
          assert.isTrue(Result.isFailure(SecretBox.open(ring, altered, AD)), altered)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("refuses a value cut short, lengthened, or with parts swapped in from another value", () => {
    const sealed = SecretBox.seal(ring, Redacted.make("secret"), AD)
    const other = SecretBox.seal(ring, Redacted.make("secret"), AD)
    for (let length = 0; length < sealed.length; length++) {
      assert.isTrue(Result.isFailure(SecretBox.open(ring, sealed.slice(0, length), AD)), `cut to ${length}`)
    }
    assert.isTrue(Result.isFailure(SecretBox.open(ring, `${sealed}A`, AD)))
    assert.isTrue(Result.isFailure(SecretBox.open(ring, `${sealed}.`, AD)))
    const [v, k, nonce, body] = sealed.split(".")
    const [, , otherNonce, otherBody] = other.split(".")
    assert.strictEqual(failureOf(SecretBox.open(ring, [v, k, otherNonce, body].join("."), AD))._tag, "Tampered")
    assert.strictEqual(failureOf(SecretBox.open(ring, [v, k, nonce, otherBody].join("."), AD))._tag, "Tampered")
  })

  it("refuses a value moved to another place: any other associated data", () => {
    fc.assert(
      fc.property(text, text, (where, elsewhere) => {
        fc.pre(where !== elsewhere)
        const sealed = SecretBox.seal(ring, Redacted.make("secret"), where)
        assert.strictEqual(failureOf(SecretBox.open(ring, sealed, elsewhere))._tag, "Tampered")
      })
    )
  })

  it("refuses a value whose key id was rewritten to another key of the ring (the header is authenticated)", () => {
    const sealed = SecretBox.seal(ring, Redacted.make("secret"), AD)
    const relabelled = sealed.replace(`.${ring.current.id}.`, `.${ring.previous[0]!.id}.`)
    assert.deepStrictEqual(failureOf(SecretBox.open(ring, relabelled, AD))._tag, "Tampered")
  })

  it("opens values of a previous key, and says a value needs re-sealing until it is under the current key", () => {
    const underOld = SecretBox.seal(ringOf(old), Redacted.make("kept"), AD)
    assert.isTrue(SecretBox.needsReseal(ring, underOld))
    assert.strictEqual(Redacted.value(Result.getOrThrow(SecretBox.open(ring, underOld, AD))), "kept")
    const resealed = Result.getOrThrow(SecretBox.reseal(ring, underOld, AD))
    assert.isTrue(resealed.startsWith(SecretBox.prefix(ring.current)))
    assert.isFalse(SecretBox.needsReseal(ring, resealed))
    assert.strictEqual(Redacted.value(Result.getOrThrow(SecretBox.open(ring, resealed, AD))), "kept")
    assert.strictEqual(Result.getOrThrow(SecretBox.reseal(ring, resealed, AD)), resealed, "nothing to do")
    // Once the old key is retired, a value it sealed names an unknown key.
    const withoutOld = KeyRing.retire(ring)
    const unknown = failureOf(SecretBox.open(withoutOld, underOld, AD))
    assert.strictEqual(unknown._tag, "UnknownKey")
    assert.strictEqual((unknown as { keyId: string }).keyId, KeyRing.idOf(Redacted.value(old)))
  })

  it("refuses a value under a key of another ring as an unknown key, whatever the text", () => {
    const stranger = ringOf(KeyRing.generate())
    fc.assert(
      fc.property(text, (plaintext) => {
        const sealed = SecretBox.seal(stranger, Redacted.make(plaintext), AD)
        assert.strictEqual(failureOf(SecretBox.open(ring, sealed, AD))._tag, "UnknownKey")
        assert.isTrue(SecretBox.needsReseal(ring, sealed))
      }),
      { numRuns: 50 }
    )
  })

  it("reads anything else as malformed, without throwing", () => {
    fc.assert(
      fc.property(
        fc.oneof(text, fc.string({ unit: fc.constantFrom("t", "w", "s", "1", ".", "A", "_", "0") })),
        (garbage) => {
          const opened = SecretBox.open(ring, garbage, AD)
          assert.isTrue(Result.isFailure(opened))
          assert.isFalse(SecretBox.needsReseal(ring, garbage))
        }
      )
    )
    for (const value of ["", "tws1", "tws2.00000000.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA", "tws1.0000000g.x.y"]) {
      assert.strictEqual(failureOf(SecretBox.open(ring, value, AD))._tag, "Malformed", value)
    }
  })

  it("never puts the plaintext or a key in a failure", () => {
    const plaintext = "canary-plaintext-7f3a"
    const sealed = SecretBox.seal(ring, Redacted.make(plaintext), AD)
    const keys = [current, old].map((bytes) => KeyRing.format(bytes))
    const failures = [
      failureOf(SecretBox.open(ring, sealed, "elsewhere")),
      failureOf(SecretBox.open(ringOf(KeyRing.generate()), sealed, AD)),
      failureOf(SecretBox.open(ring, sealed.slice(0, -3), AD))
    ]
    for (const failure of failures) {
      const shown = `${failure.message} ${JSON.stringify(failure)} ${String(failure)}`
      assert.notInclude(shown, plaintext)
      for (const key of keys) assert.notInclude(shown, key)
    }
    assert.strictEqual(String(ring.current.bytes), "<redacted>")
    assert.notInclude(JSON.stringify(ring), keys[0]!)
  })
})
