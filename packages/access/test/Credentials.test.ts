import { timingSafeEqual } from "node:crypto"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { vi } from "vitest"
import * as Access from "../src/Access.ts"
import * as Credentials from "../src/Credentials.ts"
import { newStore } from "./AccessSuite.ts"
import { memoryStores, services } from "./Backends.ts"

// The real function behind a spy, to see that every secret check goes through it.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>()
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) }
})

describe("Credentials", () => {
  it("mints key ids of 24 characters with the type's prefix, from lowercase alphanumerics", () => {
    const platform = Array.from({ length: 200 }, () => Credentials.newKeyId("platform"))
    const publicIds = Array.from({ length: 200 }, () => Credentials.newKeyId("public"))
    for (const id of platform) assert.match(id, /^twpk_live_[a-z0-9]{14}$/)
    for (const id of publicIds) assert.match(id, /^twpub_live_[a-z0-9]{13}$/)
    for (const id of [...platform, ...publicIds]) assert.strictEqual(id.length, 24)
    assert.strictEqual(new Set(platform).size, 200)
    // Every character of the alphabet turns up: the draw is not stuck on a subset.
    assert.strictEqual(new Set(platform.map((id) => id.slice(10)).join("")).size, 36)
  })

  it("mints secrets of the spec's lengths and keeps them redacted", () => {
    const secret = Credentials.newPlatformSecret()
    const signing = Credentials.newSigningSecret()
    const token = Credentials.newAppToken()
    assert.match(Redacted.value(secret), /^[0-9a-f]{48}$/)
    assert.match(Redacted.value(signing), /^[0-9a-f]{64}$/)
    assert.match(Redacted.value(token), /^twapp_live_[0-9a-f]{48}$/)
    for (const value of [secret, signing, token]) {
      assert.notInclude(String(value), Redacted.value(value))
      assert.notInclude(JSON.stringify({ value }), Redacted.value(value))
    }
    const bearer = Credentials.bearerToken("twpk_live_abcdefghijklmn", secret)
    assert.strictEqual(Redacted.value(bearer), `twpk_live_abcdefghijklmn.${Redacted.value(secret)}`)
  })

  it("matches a secret against its stored SHA-256 only", () => {
    const secret = Credentials.newPlatformSecret()
    const stored = Credentials.sha256(secret)
    assert.match(stored, /^[0-9a-f]{64}$/)
    assert.notStrictEqual(stored, Redacted.value(secret))
    assert.isTrue(Credentials.matches(secret, stored))
    assert.isFalse(Credentials.matches(Credentials.newPlatformSecret(), stored))
    assert.isFalse(Credentials.matches(secret, null))
    assert.isFalse(Credentials.matches(secret, "not a hash"))
  })

  it("reads the Authorization header's schemes and shapes", () => {
    const secret = "a".repeat(48)
    const keyId = "twpk_live_abcdefghij0123"
    const platform = Credentials.parseAuthorization(`Bearer ${keyId}.${secret}`)
    assert.strictEqual(platform._tag, "PlatformKey")
    if (platform._tag === "PlatformKey") {
      assert.strictEqual(platform.keyId, keyId)
      assert.strictEqual(Redacted.value(platform.secret), secret)
    }
    assert.strictEqual(Credentials.parseAuthorization(`bearer twapp_live_${"0".repeat(48)}`)._tag, "AppToken")
    assert.strictEqual(Credentials.parseAuthorization("TW-Public twpub_live_abcdefghijklm")._tag, "PublicKey")
    assert.strictEqual(Credentials.parseAuthorization(undefined)._tag, "Missing")
    assert.strictEqual(Credentials.parseAuthorization("")._tag, "Missing")
    for (const malformed of [
      `Bearer ${keyId}`,
      `Bearer ${keyId}.`,
      `Bearer .${secret}`,
      `Bearer ${keyId}.${secret.toUpperCase()}`,
      `Bearer ${keyId}.${secret}0`,
      `Bearer twpub_live_abcdefghijklm.${secret}`,
      `Bearer twapp_live_${"0".repeat(47)}`,
      `Basic ${keyId}.${secret}`,
      `Bearer ${keyId}.${secret} more`,
      "Bearer",
      "garbage"
    ]) {
      assert.strictEqual(Credentials.parseAuthorization(malformed)._tag, "Malformed", malformed)
    }
  })
})

layer(services(memoryStores))("Access (constant-time verification)", (it) => {
  it.effect("compares every presented secret with crypto.timingSafeEqual, unknown keys included", () =>
    Effect.gen(function* () {
      const access = yield* Access.Access
      const { keyId, authorization } = yield* newStore()
      const spy = vi.mocked(timingSafeEqual)
      spy.mockClear()
      yield* access.authenticate(authorization, "198.51.100.1")
      assert.strictEqual(spy.mock.calls.length, 1)
      yield* Effect.flip(access.authenticate(`Bearer ${keyId}.${"f".repeat(48)}`, "198.51.100.1"))
      yield* Effect.flip(access.authenticate(`Bearer twpk_live_${"q".repeat(14)}.${"f".repeat(48)}`, "198.51.100.1"))
      assert.strictEqual(spy.mock.calls.length, 3)
    })
  )
})
