/**
 * Signed calls (`TW-Public`) on memory, PGlite and PostgreSQL: a public key minted through the API answers 401 until
 * an operator activates it; then a call signed with its secret is its store's `public_key` principal, once per
 * nonce; a wrong secret, a body changed by one byte, a timestamp outside ±5 minutes, a reused nonce, another scheme,
 * an unknown, suspended or revoked key are all refused. `admit` counts verified calls against the store's shared
 * per-minute budget, never as requests.
 */
import { assert, layer, type Vitest } from "@effect/vitest"
import { Nonce, NonceStore, RequestSignature } from "@tawsil/signing"
import { Clock, Effect, Layer, Redacted } from "effect"
import * as Access from "../src/Access.ts"
import * as AccessEvents from "../src/AccessEvents.ts"
import * as Admin from "../src/Admin.ts"
import type { KeyStore } from "../src/KeyStore.ts"
import * as PublicAccess from "../src/PublicAccess.ts"
import * as Scopes from "../src/Scopes.ts"
import * as SignedCalls from "../src/SignedCalls.ts"
import * as SignedCallsSql from "../src/SignedCallsSql.ts"
import type { UsageStore } from "../src/UsageStore.ts"
import { backends, memoryStores, migrated, sqlStores } from "./Backends.ts"

const build = <E, R>(
  stores: Layer.Layer<KeyStore | UsageStore, E, R>,
  signedCalls: Layer.Layer<SignedCalls.SignedCalls, E, R | UsageStore>
) =>
  PublicAccess.layer().pipe(
    Layer.provide(signedCalls),
    Layer.provideMerge(Layer.mergeAll(Access.layer(), Admin.layer)),
    Layer.provide(AccessEvents.layerMemory),
    Layer.provideMerge(stores)
  )

let stores = 0

/** A store, its platform key as a principal, and a public key minted through the API (suspended). */
const setup = Effect.gen(function* () {
  const admin = yield* Admin.Admin
  const access = yield* Access.Access
  const created = yield* admin.createStore({ name: `Signée ${++stores}` })
  const owner = yield* access.authenticate(`Bearer ${Redacted.value(created.platform_key.bearer_token)}`, "203.0.113.9")
  const minted = yield* access.createKey(owner, { type: "public", name: "site" })
  return { storeId: created.store.id, keyId: minted.key_id, secret: minted.signing_secret! }
}).pipe(Effect.orDie)

const call = (
  keyId: string,
  secret: Redacted.Redacted<string>,
  options: { body?: string; at?: number; nonce?: string } = {}
) => {
  const body = options.body ?? '{"event":"page_view"}'
  const headers = RequestSignature.headers({
    keyId,
    secret,
    body,
    timestamp: options.at ?? Math.floor(Date.now() / 1000),
    nonce: options.nonce ?? Nonce.make()
  })
  return {
    authorization: headers.authorization,
    timestamp: headers["x-tw-timestamp"],
    nonce: headers["x-tw-nonce"],
    signature: headers["x-tw-signature"],
    body
  } satisfies PublicAccess.SignedCall
}

const authenticate = (signed: PublicAccess.SignedCall) =>
  Effect.flatMap(PublicAccess.PublicAccess, (access) => access.authenticate(signed, "198.51.100.4"))

const refusal = (signed: PublicAccess.SignedCall) =>
  Effect.map(Effect.flip(authenticate(signed)), (error) => error.reason._tag)

const MINUTE = 60_000

/** Starts with a few seconds left in the minute (memory and database alike count on the live clock here). */
const steady = Effect.flatMap(Clock.currentTimeMillis, (now) =>
  now % MINUTE > MINUTE - 5_000 ? Effect.sleep(MINUTE - (now % MINUTE) + 100) : Effect.void
)

const suite = (it: Vitest.MethodsNonLive<Access.Access | Admin.Admin | PublicAccess.PublicAccess>) => {
  it.effect("a public key minted through the API answers 401 until activated, then signs its store's calls", () =>
    Effect.gen(function* () {
      const admin = yield* Admin.Admin
      const { storeId, keyId, secret } = yield* setup
      assert.strictEqual(yield* refusal(call(keyId, secret)), "InvalidKey")
      yield* admin.setKeyStatus(keyId, "active").pipe(Effect.orDie)
      const nonce = Nonce.make()
      const caller = yield* authenticate(call(keyId, secret, { nonce }))
      assert.strictEqual(caller.nonce, nonce)
      assert.strictEqual(caller.principal.kind, "public_key")
      assert.strictEqual(caller.principal.keyType, "public")
      assert.strictEqual(caller.principal.keyId, keyId)
      assert.strictEqual(caller.principal.store.id, storeId)
      assert.deepStrictEqual(caller.principal.scopes, Scopes.PUBLIC_DEFAULTS)
      assert.isUndefined(Access.check(caller.principal, { scope: "events:write" }))
      assert.strictEqual(Access.check(caller.principal, { scope: "orders:write" })?._tag, "MissingScope")
      yield* admin.setPlan(storeId, "pro").pipe(Effect.orDie)
      const onPro = yield* authenticate(call(keyId, secret))
      assert.strictEqual(Access.check(onPro.principal, { scope: "events:write" })?._tag, "NotEnterprise")
    })
  )

  it.effect("refuses a wrong secret, a changed byte, a timestamp off by more than 5 minutes, a reused nonce", () =>
    Effect.gen(function* () {
      const admin = yield* Admin.Admin
      const { keyId, secret } = yield* setup
      yield* admin.setKeyStatus(keyId, "active").pipe(Effect.orDie)
      const now = Math.floor(Date.now() / 1000)
      assert.strictEqual(yield* refusal(call(keyId, Redacted.make("f".repeat(64)))), "SignatureMismatch")
      const signed = call(keyId, secret, { body: '{"event":"page_view"}' })
      assert.strictEqual(yield* refusal({ ...signed, body: '{"event":"page_vieW"}' }), "SignatureMismatch")
      assert.strictEqual(yield* refusal(call(keyId, secret, { at: now - 301 })), "TimestampOutOfWindow")
      // A margin for the time the test itself takes: a second later, now + 301 would be inside the window.
      assert.strictEqual(yield* refusal(call(keyId, secret, { at: now + 330 })), "TimestampOutOfWindow")
      yield* authenticate(call(keyId, secret, { at: now - 290 }))
      const once = call(keyId, secret)
      yield* authenticate(once)
      assert.strictEqual(yield* refusal(once), "NonceReused")
      assert.strictEqual(yield* refusal({ ...once, nonce: undefined }), "MissingHeader")
    })
  )

  it.effect("refuses another scheme, a malformed id, an unknown, suspended or revoked key", () =>
    Effect.gen(function* () {
      const admin = yield* Admin.Admin
      const { keyId, secret } = yield* setup
      yield* admin.setKeyStatus(keyId, "active").pipe(Effect.orDie)
      const signed = call(keyId, secret)
      assert.strictEqual(yield* refusal({ ...signed, authorization: undefined }), "MissingKey")
      assert.strictEqual(yield* refusal({ ...signed, authorization: `Bearer ${keyId}` }), "PublicKeyRequired")
      assert.strictEqual(
        yield* refusal({ ...signed, authorization: "TW-Public twpk_live_aaaaaaaaaaaaaa" }),
        "PublicKeyRequired"
      )
      assert.strictEqual(yield* refusal(call("twpub_live_nobodyhasthis", secret)), "InvalidKey")
      yield* admin.setKeyStatus(keyId, "suspended").pipe(Effect.orDie)
      assert.strictEqual(yield* refusal(call(keyId, secret)), "InvalidKey")
      yield* admin.setKeyStatus(keyId, "revoked").pipe(Effect.orDie)
      assert.strictEqual(yield* refusal(call(keyId, secret)), "InvalidKey")
    })
  )

  it.effect("admits signed calls against the store's per-minute budget, shared with its keys, never as requests", () =>
    Effect.gen(function* () {
      const admin = yield* Admin.Admin
      const access = yield* Access.Access
      const publicAccess = yield* PublicAccess.PublicAccess
      const { storeId, keyId, secret } = yield* setup
      yield* admin.setKeyStatus(keyId, "active").pipe(Effect.orDie)
      yield* admin.setQuota(storeId, { requestsPerMinute: 4, requestsPerMonth: 1 }).pipe(Effect.orDie)
      const events = { scope: "events:write" }
      const admit = (requirement: { readonly scope: string }) =>
        publicAccess.admit(call(keyId, secret), "198.51.100.4", requirement)
      yield* steady

      const first = yield* admit(events)
      assert.strictEqual(first._tag, "Admitted")
      if (first._tag !== "Admitted") return
      assert.strictEqual(first.caller.principal.keyId, keyId)
      assert.deepInclude(first.limits!, { limit: 4, remaining: 3 })
      // A gate refuses after counting.
      const refused = yield* admit({ scope: "orders:write" })
      assert.strictEqual(refused._tag, "Refused")
      if (refused._tag !== "Refused") return
      assert.strictEqual(refused.error.reason._tag, "MissingScope")
      assert.deepInclude(refused.limits!, { remaining: 2 })
      // The store's platform key spends the same budget; the signed calls are no requests (quota of 1 not spent).
      const owner = yield* access.authenticate(
        `Bearer ${Redacted.value((yield* admin.createKey(storeId, "platform").pipe(Effect.orDie)).bearer_token!)}`,
        "203.0.113.9"
      )
      assert.deepInclude(yield* access.meter(owner), { remaining: 1 })
      assert.deepInclude(yield* admit(events), { _tag: "Admitted" })
      const limited = yield* Effect.flip(admit(events))
      assert.strictEqual(limited._tag, "AccessError")
      if (limited._tag !== "AccessError" || limited.reason._tag !== "RateLimited") {
        return assert.fail(`expected RateLimited, got ${limited.message}`)
      }
      assert.isTrue(limited.reason.retryAfterSeconds >= 1 && limited.reason.retryAfterSeconds <= 60)
      assert.deepStrictEqual((yield* access.usage(storeId)).usage, { request: { total: 1, billable: 0 } })
      // A refused signature is not counted: the budget is only spent by verified calls.
      assert.strictEqual(
        (yield* Effect.flip(publicAccess.admit(call(keyId, Redacted.make("f".repeat(64))), "198.51.100.4", events)))
          ._tag,
        "SigningError"
      )
    })
  )
}

// Real time: the calls are signed with the wall clock, as a platform's backend signs them.
layer(build(memoryStores, SignedCalls.layer.pipe(Layer.provide(NonceStore.layerMemory))), {
  excludeTestServices: true
})("PublicAccess (memory)", (it) => suite(it))

for (const backend of backends) {
  layer(build(sqlStores, SignedCallsSql.layer).pipe(Layer.provideMerge(migrated(backend))), {
    excludeTestServices: true,
    timeout: "90 seconds"
  })(`PublicAccess (sql, ${backend.name})`, (it) => suite(it))
}
