import { assert, describe, it } from "@effect/vitest"
import { KeyRing, SecretBox, Secrets } from "@tawsil/secrets"
import { Effect, Redacted, Ref, Result } from "effect"

const ringOf = (current: Redacted.Redacted<Uint8Array>, previous: ReadonlyArray<Redacted.Redacted<Uint8Array>> = []) =>
  Result.getOrThrow(KeyRing.make(current, previous))

const AD = "courier_accounts:7:credentials"

describe("Secrets", () => {
  it.effect("seals and opens under the configured ring", () =>
    Effect.gen(function* () {
      const secrets = yield* Secrets.Secrets
      const sealed = yield* secrets.seal(Redacted.make('{"api_key":"k"}'), AD)
      assert.strictEqual(Redacted.value(yield* secrets.open(sealed, AD)), '{"api_key":"k"}')
      const refused = yield* Effect.flip(secrets.open(sealed, "courier_accounts:8:credentials"))
      assert.strictEqual(refused.reason._tag, "Tampered")
      assert.isFalse(yield* secrets.needsReseal(sealed))
    }).pipe(Effect.provide(Secrets.layerTest))
  )

  it.effect("with no key configured, a seal or an open fails naming TAWSIL_SECRET_KEY; nothing needs re-sealing", () =>
    Effect.gen(function* () {
      const secrets = yield* Secrets.Secrets
      const refused = yield* Effect.flip(secrets.seal(Redacted.make("x"), AD))
      assert.strictEqual(refused.reason._tag, "KeyMissing")
      assert.include(refused.message, "TAWSIL_SECRET_KEY")
      const sealedElsewhere = SecretBox.seal(ringOf(KeyRing.generate()), Redacted.make("x"), AD)
      assert.strictEqual((yield* Effect.flip(secrets.open(sealedElsewhere, AD))).reason._tag, "KeyMissing")
      assert.isFalse(yield* secrets.needsReseal(sealedElsewhere))
      assert.isUndefined(yield* secrets.ring)
    }).pipe(Effect.provide(Secrets.layer(undefined)))
  )

  it.effect("follows its ring when the owner replaces it (a rotation), reading what the old key sealed", () =>
    Effect.gen(function* () {
      const old = KeyRing.generate()
      const next = KeyRing.generate()
      const keys = yield* Ref.make<KeyRing.KeyRing | undefined>(ringOf(old))
      const secrets = yield* Secrets.make(keys)
      const before = yield* secrets.seal(Redacted.make("v"), AD)
      yield* Ref.set(keys, ringOf(next, [old]))
      assert.isTrue(yield* secrets.needsReseal(before))
      const after = yield* secrets.reseal(before, AD)
      assert.isTrue(after.startsWith(`tws1.${KeyRing.idOf(Redacted.value(next))}.`))
      assert.strictEqual(Redacted.value(yield* secrets.open(after, AD)), "v")
      yield* Ref.set(keys, ringOf(next))
      assert.strictEqual((yield* Effect.flip(secrets.open(before, AD))).reason._tag, "UnknownKey")
    })
  )
})
