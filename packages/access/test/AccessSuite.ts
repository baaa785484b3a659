/**
 * The contract of `Access` and `Admin`, written from the spec ("Authentication", "Scopes", "Key", "Key rules",
 * "Usage and quota", "Limits") and run over every store implementation. `Time` moves each implementation's clocks:
 * `TestClock` in memory; for SQL, whose counters run on the database clock, the live clock and edits of the rows.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Clock, Effect, Option, Redacted, Result } from "effect"
import * as Access from "../src/Access.ts"
import * as Admin from "../src/Admin.ts"
import { KeyStore } from "../src/KeyStore.ts"
import * as Keys from "../src/Keys.ts"
import type { Principal } from "../src/Principal.ts"
import * as Scopes from "../src/Scopes.ts"

export interface Time<R> {
  /** Lets the access caches (key lookups, overrides) expire. */
  readonly pastCacheTtl: Effect.Effect<void, never, R>
  /** Moves the store's rate window into a new minute. */
  readonly nextMinute: (storeId: number) => Effect.Effect<void, never, R>
  /** Makes sure the current minute has a few seconds left, so a sequence of calls stays in one window. */
  readonly steady: Effect.Effect<void, never, R>
  /** Lets background writes (a key's last use) finish. */
  readonly settle: Effect.Effect<void, never, R>
}

type Services = Access.Access | Admin.Admin | KeyStore

let stores = 0

/** A new store on `plan` (Enterprise by default) with its first platform key. */
export const newStore = (options: Partial<Admin.CreateStoreInput> = {}) =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    const created = yield* admin.createStore({ name: `Boutique ${++stores}`, ...options })
    return {
      storeId: created.store.id,
      store: created.store,
      keyId: created.platform_key.key_id,
      authorization: `Bearer ${Redacted.value(created.platform_key.bearer_token)}`
    }
  }).pipe(Effect.orDie)

const authenticate = (authorization: string | undefined) =>
  Effect.flatMap(Access.Access, (access) => access.authenticate(authorization, "203.0.113.7"))

const unauthorized = (authorization: string | undefined) =>
  Effect.map(Effect.flip(authenticate(authorization)), (error) => {
    assert.include(["MissingKey", "MalformedKey", "InvalidKey", "PublicKeyNotAccepted"], error.reason._tag)
    return error.message
  })

export const AccessSuite = <R>(it: Vitest.MethodsNonLive<Services | R>, time: Time<R>) => {
  it.effect("authenticates a platform key as its store, with the dashboard's scopes (the operator made it)", () =>
    Effect.gen(function* () {
      const { storeId, keyId, store, authorization } = yield* newStore({ name: "Dar El Beïda Shop" })
      const principal = yield* authenticate(authorization)
      assert.strictEqual(principal.kind, "platform_key")
      assert.strictEqual(principal.keyType, "platform")
      assert.strictEqual(principal.keyId, keyId)
      assert.deepStrictEqual(principal.store, {
        id: storeId,
        name: "Dar El Beïda Shop",
        slug: store.slug,
        plan: "enterprise"
      })
      assert.deepStrictEqual(principal.scopes, Scopes.DASHBOARD_PLATFORM)
      assert.isTrue(principal.dashboardKey)
      assert.strictEqual(principal.name, "default")
      assert.isTrue(principal.pilot)
      assert.strictEqual(principal.rateLimitTier, "enterprise")
      assert.match(keyId, /^twpk_live_[a-z0-9]{14}$/)
      assert.match(authorization, /^Bearer twpk_live_[a-z0-9]{14}\.[0-9a-f]{48}$/)
    })
  )

  it.effect("refuses a missing, malformed or half key, and a public key, each with its own message", () =>
    Effect.gen(function* () {
      const { keyId, authorization } = yield* newStore()
      assert.strictEqual(yield* unauthorized(undefined), Access.MISSING_KEY)
      assert.strictEqual(yield* unauthorized("  "), Access.MISSING_KEY)
      assert.strictEqual(yield* unauthorized(`Bearer ${keyId}`), Access.MALFORMED_KEY)
      assert.strictEqual(yield* unauthorized(`Bearer ${keyId}.`), Access.MALFORMED_KEY)
      assert.strictEqual(yield* unauthorized(authorization.replace("Bearer", "Basic")), Access.MALFORMED_KEY)
      assert.strictEqual(yield* unauthorized(`${authorization} extra`), Access.MALFORMED_KEY)
      assert.strictEqual(yield* unauthorized("TW-Public twpub_live_abcdefghijklm"), Access.PUBLIC_KEY)
      // Schemes are case-insensitive.
      assert.strictEqual((yield* authenticate(authorization.replace("Bearer", "bearer"))).keyId, keyId)
    })
  )

  it.effect("answers a wrong secret, an unknown key and a revoked key alike, never echoing the secret", () =>
    Effect.gen(function* () {
      const { storeId, keyId, authorization } = yield* newStore()
      const secret = authorization.slice(authorization.indexOf(".") + 1)
      const wrongSecret = `Bearer ${keyId}.${"0".repeat(48)}`
      const unknownKey = `Bearer twpk_live_${"z".repeat(14)}.${secret}`
      const messages = [yield* unauthorized(wrongSecret), yield* unauthorized(unknownKey)]
      const access = yield* Access.Access
      yield* access.revokeKey(storeId, keyId)
      messages.push(yield* unauthorized(authorization))
      assert.deepStrictEqual(messages, [Access.INVALID_KEY, Access.INVALID_KEY, Access.INVALID_KEY])
      const error = yield* Effect.flip(authenticate(authorization))
      assert.notInclude(JSON.stringify(error), secret)
      assert.notInclude(String(error), secret)
      assert.notInclude(error.message, keyId)
    })
  )

  it.effect("records a key's last use and client address, in the background", () =>
    Effect.gen(function* () {
      const { storeId, keyId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const before = (yield* access.listKeys(storeId)).items[0]!
      assert.strictEqual(before.last_used_at, null)
      yield* authenticate(authorization)
      yield* time.settle
      const after = (yield* access.listKeys(storeId)).items.find((key) => key.key_id === keyId)!
      assert.match(after.last_used_at ?? "", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      assert.strictEqual(after.last_used_ip, "203.0.113.7")
    })
  )

  it.effect("authenticates an installed-app token with its own scopes, on any plan", () =>
    Effect.gen(function* () {
      const { storeId } = yield* newStore({ plan: "free" })
      const admin = yield* Admin.Admin
      const access = yield* Access.Access
      const created = yield* admin.createAppToken(storeId, ["orders:write", "orders:write", "products:write"])
      const token = Redacted.value(created.token)
      assert.match(token, /^twapp_live_[0-9a-f]{48}$/)
      assert.deepStrictEqual(created.scopes, ["orders:write", "products:write"])
      const principal = yield* authenticate(`Bearer ${token}`)
      assert.strictEqual(principal.kind, "app_token")
      assert.strictEqual(principal.keyType, "app")
      assert.strictEqual(principal.store.id, storeId)
      assert.deepStrictEqual(principal.scopes, ["orders:write", "products:write"])
      assert.match(principal.keyId, /^app_[0-9a-f]{16}$/)
      assert.notInclude(JSON.stringify(principal), token.slice(11))
      yield* access.authorize(principal, { scope: "orders:write" })
      const missing = yield* Effect.flip(access.authorize(principal, { scope: "usage:read" }))
      assert.strictEqual(missing.message, "Missing scope: usage:read")
      const keys = yield* Effect.flip(access.authorize(principal, { keyManagement: true }))
      assert.strictEqual(keys.message, Access.KEY_MANAGEMENT)
      assert.isFalse(principal.dashboardKey)
      // The change history refuses apps before it looks at their scopes.
      const apps = yield* Effect.flip(access.authorize(principal, { scope: "orders:write", noAppTokens: true }))
      assert.deepStrictEqual([apps.reason._tag, apps.message], ["AppTokenRefused", Access.APPS_REFUSED])
      assert.strictEqual(yield* unauthorized(`Bearer twapp_live_${"0".repeat(48)}`), Access.INVALID_KEY)
    })
  )

  it.effect("gates in the spec's order: Enterprise plan, pilot enrolment, scope, key management", () =>
    Effect.gen(function* () {
      const access = yield* Access.Access
      const free = yield* authenticate((yield* newStore({ plan: "free", pilot: false })).authorization)
      assert.strictEqual((yield* Effect.flip(access.authorize(free, {}))).message, Access.NOT_ENTERPRISE)
      const unenrolled = yield* authenticate((yield* newStore({ pilot: false })).authorization)
      const notPilot = yield* Effect.flip(access.authorize(unenrolled, { scope: "nothing:read" }))
      assert.strictEqual(notPilot.message, "API is in pilot mode; key not enrolled")
      const enrolled = yield* authenticate((yield* newStore()).authorization)
      yield* access.authorize(enrolled, {})
      yield* access.authorize(enrolled, { scope: "usage:read", keyManagement: true, noAppTokens: true })
      const scope = yield* Effect.flip(access.authorize(enrolled, { scope: "promo_codes:write" }))
      assert.strictEqual(scope.message, "Missing scope: promo_codes:write")
      for (const plan of ["pro", "unlimited"]) {
        const principal = yield* authenticate((yield* newStore({ plan: plan as "pro" })).authorization)
        const refused = yield* Effect.flip(access.authorize(principal, {}))
        assert.strictEqual(refused.message, "API access requires an active Enterprise plan")
      }
    })
  )

  it.effect("sees a plan change or a revocation made elsewhere once the cache has expired", () =>
    Effect.gen(function* () {
      const downgraded = yield* newStore()
      const revoked = yield* newStore()
      const access = yield* Access.Access
      const keyStore = yield* KeyStore
      yield* access.authorize(yield* authenticate(downgraded.authorization), {})
      yield* authenticate(revoked.authorization)
      // Another instance changes the plan and revokes the key, unannounced: this one still has the lookups cached.
      yield* keyStore.setPlan(downgraded.storeId, "pro")
      yield* keyStore.revokeKey(revoked.storeId, revoked.keyId)
      yield* access.authorize(yield* authenticate(downgraded.authorization), {})
      yield* authenticate(revoked.authorization)
      yield* time.pastCacheTtl
      const refused = yield* Effect.flip(access.authorize(yield* authenticate(downgraded.authorization), {}))
      assert.strictEqual(refused.message, Access.NOT_ENTERPRISE)
      assert.strictEqual(yield* unauthorized(revoked.authorization), Access.INVALID_KEY)
    })
  )

  it.effect("sees an announced change at once: plan, pilot, suspension, revocation, quota", () =>
    Effect.gen(function* () {
      const access = yield* Access.Access
      const admin = yield* Admin.Admin
      const gate = (authorization: string) =>
        Effect.flatMap(authenticate(authorization), (principal) => access.authorize(principal, {}))
      const plan = yield* newStore()
      const pilot = yield* newStore()
      const suspended = yield* newStore()
      const revoked = yield* newStore()
      for (const store of [plan, pilot, suspended, revoked]) yield* gate(store.authorization)
      yield* admin.setPlan(plan.storeId, "pro")
      yield* admin.setKeyPilot(pilot.keyId, false)
      yield* admin.setKeyStatus(suspended.keyId, "suspended")
      yield* admin.setKeyStatus(revoked.keyId, "revoked")
      assert.strictEqual((yield* Effect.flip(gate(plan.authorization))).reason._tag, "NotEnterprise")
      assert.strictEqual((yield* Effect.flip(gate(pilot.authorization))).reason._tag, "NotPilotEnrolled")
      assert.strictEqual(yield* unauthorized(suspended.authorization), Access.INVALID_KEY)
      assert.strictEqual(yield* unauthorized(revoked.authorization), Access.INVALID_KEY)
      // A suspended key comes back when activated; a revoked one never does.
      yield* admin.setKeyStatus(suspended.keyId, "active")
      yield* gate(suspended.authorization)
      const again = yield* Effect.flip(admin.setKeyStatus(revoked.keyId, "active"))
      assert.strictEqual(again.reason._tag, "KeyNotFound")
      // A quota lowered by the operator applies to the next call.
      const principal = yield* authenticate(plan.authorization)
      yield* time.steady
      yield* access.meter(principal)
      yield* admin.setQuota(plan.storeId, { requestsPerMinute: 1 })
      assert.strictEqual((yield* Effect.flip(access.meter(principal))).reason._tag, "RateLimited")
    })
  )

  it.effect("lists the store's keys with the spec's fields", () =>
    Effect.gen(function* () {
      const { storeId, keyId } = yield* newStore()
      yield* newStore()
      const access = yield* Access.Access
      const { items } = yield* access.listKeys(storeId)
      assert.strictEqual(items.length, 1)
      const key = items[0]!
      assert.deepStrictEqual(Object.keys(key).sort(), [
        "created_at",
        "expires_at",
        "key_id",
        "last_used_at",
        "last_used_ip",
        "name",
        "pilot",
        "rate_limit_tier",
        "scopes",
        "status",
        "type"
      ])
      assert.deepInclude(key, {
        key_id: keyId,
        type: "platform",
        name: "default",
        rate_limit_tier: "enterprise",
        pilot: true,
        status: "active",
        expires_at: null
      })
      assert.deepStrictEqual(key.scopes, Scopes.DASHBOARD_PLATFORM)
      assert.match(key.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      assert.notInclude(JSON.stringify(items), "secret")
    })
  )

  it.effect("mints a platform key that works at once, and a public key that waits for support", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore({ pilot: false })
      const access = yield* Access.Access
      const principal = yield* authenticate(authorization)
      const platform = yield* access.createKey(principal, { name: "  ERP sync  " })
      assert.match(platform.key_id, /^twpk_live_[a-z0-9]{14}$/)
      assert.strictEqual(platform.signing_secret, null)
      assert.strictEqual(platform.note, Keys.PLATFORM_NOTE)
      const bearer = Redacted.value(platform.bearer_token!)
      assert.match(bearer, new RegExp(`^${platform.key_id}\\.[0-9a-f]{48}$`))
      const minted = yield* authenticate(`Bearer ${bearer}`)
      assert.strictEqual(minted.name, "ERP sync")
      assert.isFalse(minted.pilot, "pilot enrolment is inherited")
      // Minted through the API: the core default scopes only, whatever the minting key holds; not a dashboard key.
      assert.deepStrictEqual(minted.scopes, Scopes.PLATFORM_DEFAULTS)
      assert.isFalse(minted.dashboardKey)
      const adminMade = yield* (yield* Admin.Admin).createKey((yield* newStore()).storeId, "platform")
      const operators = yield* authenticate(`Bearer ${Redacted.value(adminMade.bearer_token!)}`)
      assert.deepStrictEqual(operators.scopes, Scopes.DASHBOARD_PLATFORM)
      assert.isTrue(operators.dashboardKey)

      const publicKey = yield* access.createKey(principal, { type: "public" })
      assert.match(publicKey.key_id, /^twpub_live_[a-z0-9]{13}$/)
      assert.strictEqual(publicKey.bearer_token, null)
      assert.match(Redacted.value(publicKey.signing_secret!), /^[0-9a-f]{64}$/)
      assert.strictEqual(publicKey.note, Keys.PUBLIC_NOTE)
      const listed = (yield* access.listKeys(storeId)).items.find((key) => key.key_id === publicKey.key_id)!
      assert.deepInclude(listed, { type: "public", status: "suspended", name: "default", pilot: false })
      assert.deepStrictEqual(listed.scopes, ["signups:write", "events:write"])
      assert.strictEqual(yield* unauthorized(`TW-Public ${publicKey.key_id}`), Access.PUBLIC_KEY)
      // The created key's JSON carries the secrets only through its schema's encoding.
      assert.notInclude(JSON.stringify(publicKey), Redacted.value(publicKey.signing_secret!))
    })
  )

  it.effect("validates the create body: type, name (truncated to 100), defaults", () =>
    Effect.gen(function* () {
      const access = yield* Access.Access
      const principal = yield* authenticate((yield* newStore()).authorization)
      const badType = yield* Effect.flip(access.createKey(principal, { type: "secret" }))
      assert.deepStrictEqual(
        [badType.reason._tag, badType.message],
        ["InvalidKeyRequest", "type must be platform or public"]
      )
      assert.strictEqual((yield* Effect.flip(access.createKey(principal, [1]))).message, "Body must be a JSON object")
      assert.strictEqual(
        (yield* Effect.flip(access.createKey(principal, { name: 7 }))).message,
        "name must be a string"
      )
      // Text PostgreSQL cannot keep as sent: a NUL character, a lone surrogate.
      for (const name of ["erp\u0000", "\ud800erp"]) {
        assert.strictEqual((yield* Effect.flip(access.createKey(principal, { name }))).message, "name must be a string")
      }
      const long = yield* access.createKey(principal, { name: "ن".repeat(150), type: "platform" })
      const unnamed = yield* access.createKey(principal, undefined)
      const { items } = yield* access.listKeys(principal.store.id)
      assert.strictEqual(items.find((key) => key.key_id === long.key_id)!.name, "ن".repeat(100))
      assert.strictEqual(items.find((key) => key.key_id === unnamed.key_id)!.name, "default")
    })
  )

  it.effect("holds at most 3 keys that are not revoked per store, across all mint paths", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const admin = yield* Admin.Admin
      const principal = yield* authenticate(authorization)
      yield* access.createKey(principal, {})
      yield* admin.createKey(storeId, "public")
      const refused = yield* Effect.flip(access.createKey(principal, { type: "public" }))
      assert.deepStrictEqual(
        [refused.reason._tag, refused.message],
        ["TooManyKeys", "A store can hold at most 3 active keys"]
      )
      const viaAdmin = yield* Effect.flip(admin.createKey(storeId, "platform"))
      assert.strictEqual(viaAdmin.message, Keys.TOO_MANY_KEYS)
      const [oldest] = (yield* access.listKeys(storeId)).items
      yield* access.revokeKey(storeId, oldest!.key_id)
      yield* access.createKey(principal, {})
      assert.strictEqual((yield* access.listKeys(storeId)).items.length, 3)
    })
  )

  it.effect("lets exactly the room left win among 10 concurrent creates", () =>
    Effect.gen(function* () {
      const { authorization, storeId } = yield* newStore()
      const access = yield* Access.Access
      const principal = yield* authenticate(authorization)
      const results = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.result(access.createKey(principal, {}))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter(Result.isSuccess).length, 2)
      for (const result of results.filter(Result.isFailure))
        assert.strictEqual(result.failure.message, Keys.TOO_MANY_KEYS)
      assert.strictEqual((yield* access.listKeys(storeId)).items.length, 3)
    })
  )

  it.effect("revokes a key of the store at once, hides it, and never reaches another store's key", () =>
    Effect.gen(function* () {
      const mine = yield* newStore()
      const theirs = yield* newStore()
      const access = yield* Access.Access
      const other = yield* Effect.flip(access.revokeKey(mine.storeId, theirs.keyId))
      assert.strictEqual(other.reason._tag, "KeyNotFound")
      yield* authenticate(theirs.authorization)
      assert.deepStrictEqual(yield* access.revokeKey(mine.storeId, mine.keyId), { revoked: true, key_id: mine.keyId })
      assert.strictEqual(yield* unauthorized(mine.authorization), Access.INVALID_KEY)
      assert.deepStrictEqual((yield* access.listKeys(mine.storeId)).items, [])
      assert.strictEqual((yield* Effect.flip(access.revokeKey(mine.storeId, mine.keyId))).reason._tag, "KeyNotFound")
      assert.strictEqual((yield* Effect.flip(access.revokeKey(mine.storeId, "nonsense"))).reason._tag, "KeyNotFound")
      // A path the database could not even compare (a NUL, a lone surrogate) names no key either.
      for (const keyId of [`${mine.keyId}\u0000`, "\u0000", "twpk_live_\ud800"]) {
        assert.strictEqual((yield* Effect.flip(access.revokeKey(mine.storeId, keyId))).reason._tag, "KeyNotFound")
      }
    })
  )

  it.effect("admits a keyed call in the spec's order: 401, a cache hit counted nowhere, metering, then 403", () =>
    Effect.gen(function* () {
      const { storeId, keyId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const admin = yield* Admin.Admin
      yield* admin.setQuota(storeId, { requestsPerMinute: 5 })
      yield* time.steady
      let asked = 0
      const cachedRead = (principal: Principal) =>
        Effect.sync(() => {
          asked++
          return Option.some(`cached for ${principal.keyId}`)
        })
      const call = (
        requirement: Access.Requirement,
        as: { readonly authorization: string | undefined } = { authorization }
      ) => access.admit({ ...as, address: "203.0.113.7", requirement, listener: "edge", cachedRead })

      const missing = yield* Effect.flip(call({}, { authorization: undefined }))
      assert.strictEqual(missing.reason._tag, "MissingKey")
      assert.strictEqual(asked, 0, "an unauthenticated call reads no cache")
      const hit = yield* call({})
      assert.strictEqual(hit._tag, "Cached")
      assert.deepInclude(hit, { value: `cached for ${keyId}` })
      assert.strictEqual(asked, 1)

      const admitted = yield* access.admit({ authorization, address: "203.0.113.7", requirement: {}, listener: "edge" })
      assert.strictEqual(admitted._tag, "Admitted")
      if (admitted._tag !== "Admitted") return
      assert.strictEqual(admitted.principal.keyId, keyId)
      assert.deepInclude(admitted.limits!, { limit: 5, remaining: 4 }, "the cache hit was not counted")

      // A refused gate: the cache is not asked, the call is counted, the refusal carries the limits.
      const refused = yield* call({ scope: "promo_codes:write" })
      assert.strictEqual(refused._tag, "Refused")
      if (refused._tag !== "Refused") return
      assert.deepStrictEqual(
        [refused.error.reason._tag, refused.error.message],
        ["MissingScope", "Missing scope: promo_codes:write"]
      )
      assert.deepInclude(refused.limits!, { limit: 5, remaining: 3 })
      assert.strictEqual(asked, 1)
      assert.deepStrictEqual((yield* access.usage(storeId)).usage, { request: { total: 2, billable: 0 } })

      // Metering refuses before the gates: a spent budget is 429 even for a call a gate would refuse.
      yield* call({ scope: "promo_codes:write" })
      yield* call({ scope: "promo_codes:write" })
      yield* call({ scope: "promo_codes:write" })
      const limited = yield* Effect.flip(call({ scope: "promo_codes:write" }))
      assert.strictEqual(limited.reason._tag, "RateLimited")
      // An unlimited store reports no limits.
      yield* admin.setQuota(storeId, { requestsPerMinute: -1 })
      const unlimited = yield* access.admit({
        authorization,
        address: "203.0.113.7",
        requirement: {},
        listener: "edge"
      })
      assert.deepInclude(unlimited, { _tag: "Admitted", limits: undefined })
    })
  )

  it.effect(
    "admits on the origin listener with no per-minute limit, no limits reported and no cache; the quota holds",
    () =>
      Effect.gen(function* () {
        const { storeId, authorization } = yield* newStore()
        const access = yield* Access.Access
        const admin = yield* Admin.Admin
        yield* admin.setQuota(storeId, { requestsPerMinute: 1, requestsPerMonth: 4 })
        yield* time.steady
        // Every call offers a cached answer: only the edge listener takes it.
        const call = (listener: Access.Listener, requirement: Access.Requirement = {}) =>
          access.admit({
            authorization,
            address: "203.0.113.7",
            requirement,
            listener,
            cachedRead: () => Effect.succeed(Option.some("cached"))
          })
        const uncached = access.admit({ authorization, address: "203.0.113.7", requirement: {}, listener: "edge" })
        assert.strictEqual((yield* call("edge"))._tag, "Cached")
        assert.deepInclude(yield* uncached, { _tag: "Admitted" })
        assert.strictEqual((yield* Effect.flip(uncached)).reason._tag, "RateLimited")
        const origin = yield* call("origin")
        assert.deepInclude(origin, { _tag: "Admitted", limits: undefined })
        const refused = yield* call("origin", { scope: "promo_codes:write" })
        assert.deepInclude(refused, { _tag: "Refused", limits: undefined })
        // Five calls counted (the cache hit was not): the monthly quota of 4 refuses the next, on the origin too.
        const exhausted = yield* Effect.flip(call("origin"))
        assert.strictEqual(exhausted.reason._tag, "QuotaExhausted")
        assert.deepStrictEqual((yield* access.usage(storeId)).usage, { request: { total: 5, billable: 0 } })
      })
  )

  it.effect("answers a public key 401, but 403 for an active one on key management; always 401 on the origin", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const admin = yield* Admin.Admin
      const active = yield* admin.createKey(storeId, "public")
      const suspended = yield* access.createKey(yield* authenticate(authorization), { type: "public" })
      const call = (keyId: string, requirement: Access.Requirement, listener: Access.Listener = "edge") =>
        access.admit({ authorization: `TW-Public ${keyId}`, address: "203.0.113.7", requirement, listener })
      const unauthorized = (keyId: string, requirement: Access.Requirement, listener: Access.Listener = "edge") =>
        Effect.map(Effect.flip(call(keyId, requirement, listener)), (error) => [error.reason._tag, error.message])
      const keys = { keyManagement: true }

      const refused = yield* call(active.key_id, keys)
      assert.strictEqual(refused._tag, "Refused")
      if (refused._tag !== "Refused") return
      assert.deepStrictEqual(
        [refused.error.reason._tag, refused.error.message],
        ["PlatformKeyRequired", Access.KEY_MANAGEMENT]
      )
      assert.isUndefined(refused.limits)
      const invalid = ["InvalidKey", Access.INVALID_KEY]
      assert.deepStrictEqual(yield* unauthorized("twpub_live_nobodyhasthis", keys), invalid)
      assert.deepStrictEqual(yield* unauthorized("not-a-key-id", keys), invalid)
      assert.deepStrictEqual(yield* unauthorized(suspended.key_id, keys), invalid)
      assert.deepStrictEqual(yield* unauthorized(active.key_id, {}), ["PublicKeyNotAccepted", Access.PUBLIC_KEY])
      assert.deepStrictEqual(yield* unauthorized(active.key_id, keys, "origin"), [
        "PublicKeyNotAccepted",
        Access.PUBLIC_KEY_ORIGIN
      ])
      assert.deepStrictEqual(yield* unauthorized(active.key_id, {}, "origin"), [
        "PublicKeyNotAccepted",
        Access.PUBLIC_KEY_ORIGIN
      ])
      yield* admin.setKeyStatus(active.key_id, "revoked")
      assert.deepStrictEqual(yield* unauthorized(active.key_id, keys), invalid)
      // `authenticate` on its own answers the same way.
      const alone = yield* Effect.flip(access.authenticate(`TW-Public ${suspended.key_id}`, "203.0.113.7", keys))
      assert.strictEqual(alone.reason._tag, "InvalidKey")
      // None of these calls was counted.
      assert.deepStrictEqual((yield* access.usage(storeId)).usage, [])
    })
  )

  it.effect("meters calls against the per-minute limit, then resets with the next minute", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const admin = yield* Admin.Admin
      const access = yield* Access.Access
      yield* admin.setQuota(storeId, { requestsPerMinute: 3 })
      const principal = yield* authenticate(authorization)
      yield* time.steady
      const states = yield* Effect.forEach([1, 2, 3], () => access.meter(principal))
      assert.deepStrictEqual(
        states.map((state) => [state.limit, state.remaining]),
        [
          [3, 2],
          [3, 1],
          [3, 0]
        ]
      )
      for (const state of states) assert.isTrue(state.resetSeconds >= 1 && state.resetSeconds <= 60)
      const limited = (yield* Effect.flip(access.meter(principal))).reason
      assert.strictEqual(limited._tag, "RateLimited")
      if (limited._tag !== "RateLimited") return
      assert.isTrue(limited.retryAfterSeconds >= 1 && limited.retryAfterSeconds <= 60)
      assert.strictEqual(
        limited.message,
        `Rate limit of 3 requests per minute exceeded; retry in ${limited.retryAfterSeconds} s`
      )
      yield* time.nextMinute(storeId)
      assert.strictEqual((yield* access.meter(principal)).remaining, 2)
    })
  )

  it.effect("shares one budget between all the store's keys, and keeps stores apart", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const other = yield* newStore()
      const admin = yield* Admin.Admin
      const access = yield* Access.Access
      yield* admin.setQuota(storeId, { requestsPerMinute: 2 })
      yield* admin.setQuota(other.storeId, { requestsPerMinute: 2 })
      const second = yield* admin.createKey(storeId, "platform")
      const a = yield* authenticate(authorization)
      const b = yield* authenticate(`Bearer ${Redacted.value(second.bearer_token!)}`)
      yield* time.steady
      yield* access.meter(a)
      yield* access.meter(b)
      assert.strictEqual((yield* Effect.flip(access.meter(a))).reason._tag, "RateLimited")
      assert.strictEqual((yield* access.meter(yield* authenticate(other.authorization))).remaining, 1)
    })
  )

  it.effect("applies the tier's 600 per minute by default and -1 as no limit", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const admin = yield* Admin.Admin
      const principal = yield* authenticate(authorization)
      yield* time.steady
      const state = yield* access.meter(principal)
      assert.deepStrictEqual([state.limit, state.remaining], [600, 599])
      const unlimited = yield* newStore()
      yield* admin.setQuota(unlimited.storeId, { requestsPerMinute: -1 })
      const free = yield* access.meter(yield* authenticate(unlimited.authorization))
      assert.deepStrictEqual([free.limit, free.remaining], [-1, -1])
      const quotas = yield* access.quotas(storeId)
      assert.strictEqual(quotas.effective.requests_per_minute, 600)
    })
  )

  it.effect("refuses calls once the monthly request quota is used up (402), counting every call", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const admin = yield* Admin.Admin
      const access = yield* Access.Access
      yield* admin.setQuota(storeId, { requestsPerMonth: 2 })
      const principal = yield* authenticate(authorization)
      yield* access.meter(principal)
      yield* access.meter(principal)
      const exhausted = yield* Effect.flip(access.meter(principal))
      assert.deepStrictEqual(
        [exhausted.reason._tag, exhausted.message],
        ["QuotaExhausted", "Monthly request quota exhausted until the 1st of next month"]
      )
      const usage = yield* access.usage(storeId)
      assert.deepStrictEqual(usage.usage, { request: { total: 3, billable: 0 } })
    })
  )

  it.effect("reports the month's usage, [] when there is none, with the effective limits", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const fresh = yield* access.usage(storeId)
      assert.deepStrictEqual(fresh.usage, [])
      assert.strictEqual(fresh.tier, "enterprise")
      assert.match(fresh.period, /^\d{4}-\d{2}$/)
      assert.deepStrictEqual(fresh.limits, {
        requests_per_month: -1,
        signups_per_month: -1,
        webhooks_per_month: -1,
        requests_per_minute: 600
      })
      const principal = yield* authenticate(authorization)
      yield* Effect.forEach([1, 2, 3], () => access.meter(principal))
      assert.deepStrictEqual((yield* access.usage(storeId)).usage, { request: { total: 3, billable: 0 } })
    })
  )

  it.effect("reports quotas: tier limits, overrides (null until set) and the effective limits", () =>
    Effect.gen(function* () {
      const { storeId } = yield* newStore()
      const access = yield* Access.Access
      const admin = yield* Admin.Admin
      const tier = { requests_per_month: -1, signups_per_month: -1, webhooks_per_month: -1, requests_per_minute: 600 }
      assert.deepStrictEqual(yield* access.quotas(storeId), {
        tier: "enterprise",
        tier_limits: tier,
        overrides: null,
        effective: tier
      })
      yield* admin.setQuota(storeId, { requestsPerMinute: 120 })
      const set = yield* admin.setQuota(storeId, { requestsPerMonth: 100_000 })
      const quotas = yield* access.quotas(storeId)
      assert.deepStrictEqual(set, quotas)
      assert.deepStrictEqual(quotas.effective, { ...tier, requests_per_minute: 120, requests_per_month: 100_000 })
      assert.deepInclude(quotas.overrides!, {
        store_id: storeId,
        requests_per_minute: 120,
        requests_per_month: 100_000,
        signups_per_month: null,
        webhooks_per_month: null,
        notes: null,
        set_by_user_id: null
      })
      yield* admin.setQuota(storeId, { requestsPerMinute: null })
      assert.strictEqual((yield* access.quotas(storeId)).effective.requests_per_minute, 600)
    })
  )

  it.effect("reports the usage history by Algiers hour, and checks its range", () =>
    Effect.gen(function* () {
      const { storeId, authorization } = yield* newStore()
      const access = yield* Access.Access
      const principal = yield* authenticate(authorization)
      yield* access.meter(principal)
      yield* access.meter(principal)
      const now = yield* Clock.currentTimeMillis
      const history = yield* access.usageHistory(storeId, {
        from: new Date(now - 3_600_000).toISOString(),
        to: new Date(now + 3_600_000).toISOString()
      })
      assert.match(history.from, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
      assert.strictEqual(history.rows.length, 1)
      assert.deepInclude(history.rows[0]!, { endpoint_group: "request", count: 2, billable_count: 0 })
      assert.match(history.rows[0]!.period_hour, /^\d{4}-\d{2}-\d{2} \d{2}:00:00$/)
      // By default the range ends now, floored to the hour: the current hour is not in it.
      assert.deepStrictEqual((yield* access.usageHistory(storeId, {})).rows, [])
      const reversed = yield* Effect.flip(access.usageHistory(storeId, { from: "2026-02-01", to: "2026-01-01" }))
      assert.strictEqual(reversed.message, "from/to must be valid date strings, to >= from")
      const tooLong = yield* Effect.flip(access.usageHistory(storeId, { from: "2026-01-01", to: "2026-05-01" }))
      assert.strictEqual(tooLong.message, "range too large (max 90 days)")
      const garbage = yield* Effect.flip(access.usageHistory(storeId, { from: "yesterday" }))
      assert.strictEqual(garbage.message, "from/to must be valid date strings, to >= from")
    })
  )

  it.effect("creates stores with unique slugs, and checks the operator's input", () =>
    Effect.gen(function* () {
      const admin = yield* Admin.Admin
      const first = yield* admin.createStore({ name: "Épicerie Tlemcen", plan: "pro", language: "fr" })
      const second = yield* admin.createStore({ name: "Epicerie  Tlemcen!" })
      assert.strictEqual(first.store.slug.startsWith("epicerie-tlemcen"), true)
      assert.notStrictEqual(first.store.slug, second.store.slug)
      assert.deepInclude(first.store, { plan: "pro", language: "fr", pilot: true })
      assert.deepInclude(second.store, { plan: "enterprise", language: "ar" })
      const arabic = yield* admin.createStore({ name: "متجر الجزائر" })
      assert.match(arabic.store.slug, /^store-[0-9a-f]{6}$/)
      const badPlan = yield* Effect.flip(admin.createStore({ name: "X", plan: "gold" as "pro" }))
      assert.deepStrictEqual(
        [badPlan.reason._tag, badPlan.message],
        ["InvalidAdminInput", "plan must be free, pro, unlimited or enterprise"]
      )
      assert.strictEqual((yield* Effect.flip(admin.createStore({ name: "" }))).reason._tag, "InvalidAdminInput")
      assert.strictEqual((yield* Effect.flip(admin.setPlan(999_999, "pro"))).reason._tag, "StoreNotFound")
      assert.strictEqual((yield* Effect.flip(admin.createKey(999_999, "platform"))).reason._tag, "StoreNotFound")
      assert.strictEqual(
        (yield* Effect.flip(admin.createKey(first.store.id, "secret"))).reason._tag,
        "InvalidAdminInput"
      )
      assert.strictEqual(
        (yield* Effect.flip(admin.createAppToken(first.store.id, ["all"]))).reason._tag,
        "InvalidAdminInput"
      )
      assert.strictEqual(
        (yield* Effect.flip(admin.createAppToken(first.store.id, []))).reason._tag,
        "InvalidAdminInput"
      )
      assert.strictEqual(
        (yield* Effect.flip(admin.setQuota(first.store.id, { requestsPerMinute: -2 }))).reason._tag,
        "InvalidAdminInput"
      )
      assert.strictEqual(
        (yield* Effect.flip(admin.setQuota(999_999, { requestsPerMinute: 5 }))).reason._tag,
        "StoreNotFound"
      )
      const updated = yield* admin.setPlan(first.store.id, "enterprise")
      assert.strictEqual(updated.plan, "enterprise")
      const keyStore = yield* KeyStore
      assert.strictEqual(Option.getOrThrow(yield* keyStore.findStore(first.store.id)).plan, "enterprise")
    })
  )

  it.effect("activates public keys minted by the operator", () =>
    Effect.gen(function* () {
      const { storeId } = yield* newStore()
      const admin = yield* Admin.Admin
      const access = yield* Access.Access
      const created = yield* admin.createKey(storeId, "public", "Signup widget")
      assert.deepInclude(created, { type: "public", status: "active", bearer_token: null })
      assert.match(Redacted.value(created.signing_secret!), /^[0-9a-f]{64}$/)
      const listed = (yield* access.listKeys(storeId)).items.find((key) => key.key_id === created.key_id)!
      assert.deepInclude(listed, { status: "active", name: "Signup widget" })
    })
  )
}
