import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Nonce from "../src/Nonce.ts"
import * as NonceStore from "../src/NonceStore.ts"
import * as RequestSignature from "../src/RequestSignature.ts"
import * as RequestVerifier from "../src/RequestVerifier.ts"

const keyId = "twpub_live_abcdefghijklm"
const secret = Redacted.make("a".repeat(64))
const now = 1_767_225_600

const request = (options: {
  readonly nonce: string
  readonly secret?: Redacted.Redacted<string>
  readonly at?: number
}) => {
  const body = '{"user":{"id":"u_1"}}'
  const headers = RequestSignature.headers({
    keyId,
    secret: options.secret ?? secret,
    body,
    timestamp: options.at ?? now,
    nonce: options.nonce
  })
  return {
    keyId,
    timestamp: headers["x-tw-timestamp"],
    nonce: headers["x-tw-nonce"],
    signature: headers["x-tw-signature"],
    body
  }
}

const verifier = RequestVerifier.layer.pipe(Layer.provideMerge(NonceStore.layerMemory))
const verify = (input: RequestSignature.SignedRequest) =>
  Effect.flatMap(RequestVerifier.RequestVerifier, (verifier) => verifier.verify(input, secret))

describe("RequestVerifier", () => {
  it.effect("accepts a signed call once; the same nonce again is a replay", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now * 1000)
      const nonce = Nonce.make()
      const verified = yield* verify(request({ nonce }))
      assert.strictEqual(verified.nonce, nonce)
      const replay = yield* Effect.flip(verify(request({ nonce })))
      assert.strictEqual(replay.reason._tag, "NonceReused")
      assert.strictEqual(replay.message, RequestVerifier.NONCE_REUSED)
    }).pipe(Effect.provide(verifier))
  )

  it.effect("a call that fails its signature or its clock window uses up no nonce", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now * 1000)
      const nonce = Nonce.make()
      const forged = yield* Effect.flip(verify(request({ nonce, secret: Redacted.make("b".repeat(64)) })))
      assert.strictEqual(forged.reason._tag, "SignatureMismatch")
      const stale = yield* Effect.flip(verify(request({ nonce, at: now - 301 })))
      assert.strictEqual(stale.reason._tag, "TimestampOutOfWindow")
      yield* verify(request({ nonce }))
    }).pipe(Effect.provide(verifier))
  )

  it.effect("judges the timestamp by the verifier's clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now * 1000)
      const early = request({ nonce: Nonce.make(), at: now + 200 })
      yield* verify(early)
      yield* TestClock.adjust("10 minutes")
      const late = yield* Effect.flip(verify(request({ nonce: Nonce.make() })))
      assert.strictEqual(late.reason._tag, "TimestampOutOfWindow")
    }).pipe(Effect.provide(verifier))
  )
})
