/**
 * Who may call the store API, as the HTTP layer asks it on every keyed request: `admit`, the whole decision in the
 * spec's order (authenticate 401, a read-cache hit, meter 429/402, the gates 403), built of `authenticate`, `check`
 * and `meter`, which are also offered on their own; and the key, usage and quota endpoints' operations.
 *
 * The key is verified on every request: the secret's SHA-256 is compared in constant time with the stored one. The
 * lookup behind it (key, status, store, plan) and a store's limit overrides are cached in the process for
 * `cacheTtl` (5 s). A change announced on `AccessEvents` (the admin CLI's, a revocation through the API) empties
 * the cache at once, in every process that hears it; one that is not announced shows within 5 s (the spec allows
 * about 60 s).
 */
import { AlgiersTime, type Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Cache, Clock, Context, Data, DateTime, Duration, Effect, FiberSet, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import * as AccessError from "./AccessError.ts"
import { AccessEvents } from "./AccessEvents.ts"
import * as AccessMetrics from "./AccessMetrics.ts"
import * as Credentials from "./Credentials.ts"
import { type KeyRecord, KeyStore, type NewKey, type StoreRecord } from "./KeyStore.ts"
import * as KeyStoreSql from "./KeyStoreSql.ts"
import * as Keys from "./Keys.ts"
import * as Limits from "./Limits.ts"
import { Principal, RateLimitState } from "./Principal.ts"
import * as Scopes from "./Scopes.ts"
import * as Usage from "./Usage.ts"
import { UsageStore, type WindowCount } from "./UsageStore.ts"
import * as UsageStoreSql from "./UsageStoreSql.ts"

export const CACHE_TTL = Duration.seconds(5)
/** `last_used_at` and `last_used_ip` are written at most this often per key and process. */
export const TOUCH_INTERVAL = Duration.seconds(10)

export const MISSING_KEY = "Missing API key: send Authorization: Bearer <key_id>.<secret>"
export const MALFORMED_KEY = "Malformed Authorization header: expected Bearer <key_id>.<secret>"
export const PUBLIC_KEY =
  "Public keys only sign /v1/signups and /v1/events; call this endpoint with a platform key (Bearer <key_id>.<secret>)"
/** The origin listener serves no signed route, so a public key has nothing to call there. */
export const PUBLIC_KEY_ORIGIN =
  "Public keys are not accepted on this host; call it with a platform key (Bearer <key_id>.<secret>)"
/** Unknown, revoked, suspended or wrong secret: one message, so a caller never learns which part was wrong. */
export const INVALID_KEY = "Invalid API key: unknown, revoked or inactive key, or wrong secret"

export const NOT_ENTERPRISE = "API access requires an active Enterprise plan"
export const NOT_PILOT = "API is in pilot mode; key not enrolled"
export const KEY_MANAGEMENT = "Key management requires a platform key"
export const APPS_REFUSED = "Apps cannot use this endpoint"
export const missingScope = (scope: string) => `Missing scope: ${scope}`

export const QUOTA_EXHAUSTED = "Monthly request quota exhausted until the 1st of next month"
export const rateLimited = (limit: number, retryAfterSeconds: number) =>
  `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfterSeconds} s`

/** What an endpoint requires beyond a valid key. */
export interface Requirement {
  /** The scope the spec enforces on the endpoint; omit it where the spec enforces none (reads). */
  readonly scope?: string | undefined
  /** Key management (`/v1/keys`): platform keys only. */
  readonly keyManagement?: boolean | undefined
  /** Endpoints installed apps may not use (the change history): app tokens are refused. */
  readonly noAppTokens?: boolean | undefined
}

/** A refusal of the gates: what `check` answers. */
export type Refusal =
  | AccessError.NotEnterprise
  | AccessError.NotPilotEnrolled
  | AccessError.MissingScope
  | AccessError.PlatformKeyRequired
  | AccessError.AppTokenRefused

/**
 * The gates in the spec's order: plan (keys of either type; app tokens work on any plan), pilot, apps on endpoints
 * they may not use, scope, key management. Pure: the first refusal, if any.
 */
export const check = (principal: Principal, requirement: Requirement): Refusal | undefined => {
  if (principal.kind !== "app_token" && principal.store.plan !== Limits.API_PLAN) {
    return new AccessError.NotEnterprise({ message: NOT_ENTERPRISE })
  }
  if (!principal.pilot) return new AccessError.NotPilotEnrolled({ message: NOT_PILOT })
  if (requirement.noAppTokens === true && principal.kind === "app_token") {
    return new AccessError.AppTokenRefused({ message: APPS_REFUSED })
  }
  if (requirement.scope !== undefined && !principal.scopes.includes(requirement.scope)) {
    return new AccessError.MissingScope({ scope: requirement.scope, message: missingScope(requirement.scope) })
  }
  if (requirement.keyManagement === true && principal.keyType !== "platform") {
    return new AccessError.PlatformKeyRequired({ message: KEY_MANAGEMENT })
  }
  return undefined
}

/**
 * Which listener a call came in on: the public one (`edge`), or the origin listener (the spec's alias host), which
 * has no per-minute limit, no read cache and takes no public key.
 */
export type Listener = "edge" | "origin"

/** A keyed call as `admit` needs it. */
export interface KeyedCall<A, E = never, R = never> {
  readonly authorization: string | undefined
  /** The client's address, recorded as the key's `last_used_ip`. */
  readonly address: string
  readonly requirement: Requirement
  readonly listener: Listener
  /**
   * A cacheable read's earlier answer for this caller, if one is cached (`ReadCache`, keyed by the principal's key
   * and the URL). Asked on the edge listener only, and only once every gate passed.
   */
  readonly cachedRead?: ((principal: Principal) => Effect.Effect<Option.Option<A>, E, R>) | undefined
}

/** A cached answer of the read, for a caller every gate let through: answer it as is; it is counted nowhere. */
export class Cached<A> extends Data.TaggedClass("Cached")<{ readonly principal: Principal; readonly value: A }> {}

/**
 * Admitted and counted: run the call. `limits` is the store's per-minute budget after it, to report; undefined
 * where there is none to report (the origin listener, an unlimited store).
 */
export class Admitted extends Data.TaggedClass("Admitted")<{
  readonly principal: Principal
  readonly limits: RateLimitState | undefined
}> {}

/**
 * Refused by a gate (plan, pilot, apps, scope, key management), after the call was counted: answer `error` with
 * `limits` as `Admitted`'s (undefined also for a public key on key management, which is not counted).
 */
export class Refused extends Data.TaggedClass("Refused")<{
  readonly limits: RateLimitState | undefined
  readonly error: AccessError.AccessError
}> {}

/** What `admit` decided. Its failures (`AccessError`) are the rest: 401 credentials, 429 rate limit, 402 quota. */
export type Admission<A> = Cached<A> | Admitted | Refused

export class Access extends Context.Service<
  Access,
  {
    /**
     * A keyed call, admitted or not, in the spec's order: authenticate (fails, 401); decide the gates (`check`); on
     * the edge listener, a cached answer of a read whose gates passed (`Cached`, not counted); meter (fails with 429
     * or 402; on the origin listener the per-minute limit does not apply and no limits are reported, the monthly
     * quota does); then a gate's refusal (`Refused`, 403) or `Admitted`.
     */
    readonly admit: <A = never, E = never, R = never>(
      call: KeyedCall<A, E, R>
    ) => Effect.Effect<Admission<A>, AccessError.AccessError | E, R>
    /**
     * Verifies the `Authorization` header (on the edge listener); `clientIp` is recorded as the key's
     * `last_used_ip`. A public key is refused, `PublicKeyNotAccepted`, except that key management (`requirement`)
     * refuses an active public key as `PlatformKeyRequired` (403); an unknown or inactive one is `InvalidKey`.
     */
    readonly authenticate: (
      authorization: string | undefined,
      clientIp: string,
      requirement?: Requirement | undefined
    ) => Effect.Effect<Principal, AccessError.AccessError>
    /**
     * Counts the call (usage group `request`, the store's minute window) and applies the monthly quota, then the
     * per-minute limit. A signed call (a public key) is counted in the window only and has only the per-minute
     * limit: it is no `request`. Run it outside the write's transaction: it briefly locks the store's counters.
     */
    readonly meter: (principal: Principal) => Effect.Effect<RateLimitState, AccessError.AccessError>
    /**
     * `meter`'s per-minute limit for a signed call (a public key) whose window count was already taken with its
     * nonce (`SignedCalls`): fails with `RateLimited` past the limit.
     */
    readonly meterCounted: (
      principal: Principal,
      count: WindowCount
    ) => Effect.Effect<RateLimitState, AccessError.AccessError>
    /** The plan, pilot, scope and key-management gates, in that order. */
    readonly authorize: (principal: Principal, requirement: Requirement) => Effect.Effect<void, AccessError.AccessError>
    /** `GET /v1/keys`: the store's keys that are not revoked. */
    readonly listKeys: (storeId: Ids.StoreId) => Effect.Effect<Keys.KeyList>
    /** `POST /v1/keys`: mints a key for the principal's store (call `authorize` with `keyManagement` first). */
    readonly createKey: (principal: Principal, body: unknown) => Effect.Effect<Keys.CreatedKey, AccessError.AccessError>
    /** `DELETE /v1/keys/{key_id}`. */
    readonly revokeKey: (storeId: Ids.StoreId, keyId: string) => Effect.Effect<Keys.RevokedKey, AccessError.AccessError>
    /** `GET /v1/usage`. */
    readonly usage: (storeId: Ids.StoreId) => Effect.Effect<Usage.Usage>
    /** `GET /v1/usage/history` with the raw `from` and `to` query values. */
    readonly usageHistory: (
      storeId: Ids.StoreId,
      query: { readonly from?: string | undefined; readonly to?: string | undefined }
    ) => Effect.Effect<Usage.UsageHistory, AccessError.AccessError>
    /** `GET /v1/quotas`. */
    readonly quotas: (storeId: Ids.StoreId) => Effect.Effect<Usage.Quotas>
  }
>()("@tawsil/access/Access") {}

export interface Options {
  /** How long a key lookup and a store's overrides are cached; default `CACHE_TTL`. */
  readonly cacheTtl?: Duration.Input | undefined
  /** How often a key's last use is written; default `TOUCH_INTERVAL`. */
  readonly touchInterval?: Duration.Input | undefined
}

const storeOf = (store: StoreRecord) => ({ id: store.id, name: store.name, slug: store.slug, plan: store.plan })

/** A platform or public key's principal. */
const keyPrincipal = (key: KeyRecord, store: StoreRecord) =>
  new Principal({
    kind: key.type === "public" ? "public_key" : "platform_key",
    store: storeOf(store),
    keyId: key.keyId,
    keyType: key.type,
    name: key.name,
    scopes: key.scopes,
    pilot: key.pilot,
    rateLimitTier: key.rateLimitTier,
    dashboardKey: key.createdVia === "dashboard"
  })

/**
 * The principals of keys found by `KeyStore.findKey`, one per cached lookup rather than a new (checked) one per
 * call: a lookup's records are the key cache's for its TTL, and a new lookup is a new object.
 */
export const keyPrincipals = () => {
  const principals = new WeakMap<object, Principal>()
  return (found: { readonly key: KeyRecord; readonly store: StoreRecord }) => {
    let principal = principals.get(found)
    if (principal === undefined) {
      principal = keyPrincipal(found.key, found.store)
      principals.set(found, principal)
    }
    return principal
  }
}

/** App tokens are minted by the operator for one store: enrolled, on the only tier, named by their hash. */
const tokenPrincipal = (tokenSha256: string, scopes: ReadonlyArray<string>, store: StoreRecord) =>
  new Principal({
    kind: "app_token",
    store: storeOf(store),
    keyId: `app_${tokenSha256.slice(0, 16)}`,
    keyType: "app",
    name: "installed app",
    scopes,
    pilot: true,
    rateLimitTier: Limits.TIER,
    dashboardKey: false
  })

/** A new key of `type` for a store, with its secrets (returned once, stored hashed or, for signing, as is). */
export const mintKey = (input: {
  readonly type: Credentials.KeyType
  readonly name: string
  readonly pilot: boolean
  readonly rateLimitTier: string
  readonly status: NewKey["status"]
  /** `dashboard` for the operator's keys (the dashboard scope set), `api` for `POST /v1/keys`. */
  readonly createdVia: Scopes.CreatedVia
}) => {
  const keyId = Credentials.newKeyId(input.type)
  const secret = input.type === "platform" ? Credentials.newPlatformSecret() : null
  const signingSecret = input.type === "public" ? Credentials.newSigningSecret() : null
  const key: NewKey = {
    keyId,
    type: input.type,
    name: input.name,
    scopes: Scopes.defaultsFor(input.type, input.createdVia),
    rateLimitTier: input.rateLimitTier,
    pilot: input.pilot,
    status: input.status,
    secretSha256: secret === null ? null : Credentials.sha256(secret),
    signingSecret,
    createdVia: input.createdVia
  }
  return { key, bearerToken: secret === null ? null : Credentials.bearerToken(keyId, secret), signingSecret }
}

export const layer = (options: Options = {}): Layer.Layer<Access, never, KeyStore | UsageStore | AccessEvents> =>
  Layer.effect(
    Access,
    Effect.gen(function* () {
      const method = yield* ServiceSpans.method
      const span = yield* ServiceSpans.span
      const keyStore = yield* KeyStore
      const usageStore = yield* UsageStore
      const ttl = options.cacheTtl ?? CACHE_TTL
      const touchMillis = Duration.toMillis(Duration.fromInputUnsafe(options.touchInterval ?? TOUCH_INTERVAL))
      const keys = yield* Cache.make({ lookup: keyStore.findKey, capacity: 10_000, timeToLive: ttl })
      const tokens = yield* Cache.make({ lookup: keyStore.findAppToken, capacity: 10_000, timeToLive: ttl })
      const overrides = yield* Cache.make({ lookup: usageStore.findOverride, capacity: 10_000, timeToLive: ttl })
      const events = yield* AccessEvents
      yield* events.subscribe(
        Effect.all([Cache.invalidateAll(keys), Cache.invalidateAll(tokens), Cache.invalidateAll(overrides)], {
          discard: true
        })
      )
      // Last-use writes run beside the request, in the layer's own context (never in a caller's transaction), and
      // their failures are dropped: they never delay or fail a request.
      const runInBackground = yield* FiberSet.makeRuntime<never, void, never>()
      const touchedAt = new Map<string, number>()
      const touch = (key: KeyRecord, ip: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            const last = touchedAt.get(key.keyId)
            if (last !== undefined && now - last < touchMillis) return
            if (touchedAt.size >= 100_000) touchedAt.clear()
            touchedAt.set(key.keyId, now)
            runInBackground(keyStore.touchKey(key.storeId, key.keyId, ip).pipe(Effect.ignoreCause))
          })
        )

      const principalOf = keyPrincipals()

      const invalidKey = () => AccessError.fail(new AccessError.InvalidKey({ message: INVALID_KEY }))

      /** A public key on a keyed endpoint: refused, with 403 only to an active key on key management. */
      const publicKey = Effect.fnUntraced(function* (keyId: string, requirement: Requirement, listener: Listener) {
        if (listener === "origin") {
          return yield* AccessError.fail(new AccessError.PublicKeyNotAccepted({ message: PUBLIC_KEY_ORIGIN }))
        }
        if (requirement.keyManagement !== true) {
          return yield* AccessError.fail(new AccessError.PublicKeyNotAccepted({ message: PUBLIC_KEY }))
        }
        // The key's type is named (403) only for a key that exists and is active: an unknown, suspended or revoked
        // one is 401, as on every endpoint, before any endpoint's own refusal.
        const found = Credentials.isPublicKeyId(keyId)
          ? Option.getOrUndefined(yield* Cache.get(keys, keyId))
          : undefined
        if (found === undefined || found.key.type !== "public" || found.key.status !== "active") {
          return yield* invalidKey()
        }
        return yield* AccessError.fail(new AccessError.PlatformKeyRequired({ message: KEY_MANAGEMENT }))
      })

      const identify = Effect.fnUntraced(function* (
        authorization: string | undefined,
        clientIp: string,
        requirement: Requirement,
        listener: Listener
      ) {
        const presented = Credentials.parseAuthorization(authorization)
        switch (presented._tag) {
          case "Missing":
            return yield* AccessError.fail(new AccessError.MissingKey({ message: MISSING_KEY }))
          case "Malformed":
            return yield* AccessError.fail(new AccessError.MalformedKey({ message: MALFORMED_KEY }))
          case "PublicKey":
            return yield* publicKey(presented.keyId, requirement, listener)
          case "AppToken": {
            // The lookup is by the token's SHA-256: equal hashes are the only way to find a row.
            const sha = Credentials.sha256(presented.token)
            const found = yield* Cache.get(tokens, sha)
            if (Option.isNone(found)) return yield* invalidKey()
            return tokenPrincipal(sha, found.value.token.scopes, found.value.store)
          }
          case "PlatformKey": {
            const found = Option.getOrUndefined(yield* Cache.get(keys, presented.keyId))
            // Always compare, even for an unknown key, so timing does not tell which part was wrong.
            const verified = Credentials.matches(presented.secret, found?.key.secretSha256)
            if (found === undefined || !verified || found.key.status !== "active" || found.key.type !== "platform") {
              return yield* invalidKey()
            }
            yield* touch(found.key, clientIp)
            return principalOf(found)
          }
        }
      })

      const authenticate = method("Access.authenticate")(function* (
        authorization: string | undefined,
        clientIp: string,
        requirement?: Requirement | undefined
      ) {
        return yield* identify(authorization, clientIp, requirement ?? {}, "edge")
      })

      /** The per-minute limit on a window's count, this call included. */
      const perMinuteState = (perMinute: number, count: WindowCount) => {
        if (Limits.isUnlimited(perMinute)) {
          return Effect.succeed(new RateLimitState({ limit: -1, remaining: -1, resetSeconds: count.resetSeconds }))
        }
        if (count.windowCount > perMinute) {
          return Effect.fail(
            AccessError.fail(
              new AccessError.RateLimited({
                limit: perMinute,
                retryAfterSeconds: count.resetSeconds,
                message: rateLimited(perMinute, count.resetSeconds)
              })
            )
          )
        }
        return Effect.succeed(
          new RateLimitState({
            limit: perMinute,
            remaining: perMinute - count.windowCount,
            resetSeconds: count.resetSeconds
          })
        )
      }

      const limitsOfPrincipal = (principal: Principal) =>
        Effect.map(Cache.get(overrides, principal.store.id), (override) =>
          Limits.effective(Limits.tierLimits(principal.rateLimitTier), Option.getOrUndefined(override))
        )

      const meterCounted = (principal: Principal, count: WindowCount) =>
        Effect.flatMap(limitsOfPrincipal(principal), (limits) => perMinuteState(limits.requests_per_minute, count))

      const meter = method("Access.meter")(function* (principal: Principal) {
        const limits = yield* limitsOfPrincipal(principal)
        const perMonth = limits.requests_per_month
        const perMinute = limits.requests_per_minute
        // All of a store's keys share one per-minute budget, its public keys' signed calls included; those are no
        // `request` (their own group is counted when they are written), so the monthly request quota is not theirs.
        if (principal.kind === "public_key") {
          return yield* perMinuteState(perMinute, yield* usageStore.meterWindow(principal.store.id))
        }
        const count = yield* usageStore.meter(principal.store.id, { month: !Limits.isUnlimited(perMonth) })
        if (!Limits.isUnlimited(perMonth) && (count.monthCount ?? 0) > perMonth) {
          yield* AccessMetrics.refused("month")
          return yield* AccessError.fail(new AccessError.QuotaExhausted({ message: QUOTA_EXHAUSTED }))
        }
        return yield* perMinuteState(perMinute, count)
      })

      const admit = <A = never, E = never, R = never>(
        call: KeyedCall<A, E, R>
      ): Effect.Effect<Admission<A>, AccessError.AccessError | E, R> =>
        Effect.gen(function* () {
          const identified = yield* identify(call.authorization, call.address, call.requirement, call.listener).pipe(
            // The one refusal of a caller that is not authenticated: a public key on key management (not counted).
            Effect.catchReason("AccessError", "PlatformKeyRequired", (reason) =>
              Effect.succeed(new Refused({ limits: undefined, error: AccessError.fail(reason) }))
            )
          )
          if (identified instanceof Refused) return identified
          const principal = identified
          // The gates are decided before the cache is read: a key that lost its plan, pilot, status or scope is
          // refused even where another call of it cached the answer. A refusal is answered after metering, which
          // counts every authenticated call; a cache hit is counted nowhere.
          const refusal = check(principal, call.requirement)
          if (call.listener === "edge" && refusal === undefined && call.cachedRead !== undefined) {
            const hit = yield* call.cachedRead(principal)
            if (Option.isSome(hit)) return new Cached({ principal, value: hit.value })
          }
          const state = yield* meter(principal).pipe(
            Effect.catchReason("AccessError", "RateLimited", (reason) =>
              call.listener === "origin"
                ? Effect.succeed(undefined)
                : Effect.andThen(AccessMetrics.refused("minute"), Effect.fail(AccessError.fail(reason)))
            )
          )
          const limits = call.listener === "edge" && state !== undefined && state.limit >= 0 ? state : undefined
          if (refusal !== undefined) return new Refused({ limits, error: AccessError.fail(refusal) })
          return new Admitted({ principal, limits })
        }).pipe(span("Access.admit"))

      const authorize = (principal: Principal, requirement: Requirement) => {
        const refused = check(principal, requirement)
        return refused === undefined ? Effect.void : Effect.fail(AccessError.fail(refused))
      }

      const listKeys = method("Access.listKeys")(function* (storeId: Ids.StoreId) {
        return { items: (yield* keyStore.listKeys(storeId)).map(Keys.toKey) }
      })

      const createKey = method("Access.createKey")(function* (principal: Principal, body: unknown) {
        const input = yield* Keys.decodeCreateBody(body).pipe(Effect.mapError(AccessError.fail))
        // Minted through the API: full default scopes, tier and pilot inherited; public keys wait for support.
        const minted = mintKey({
          type: input.type,
          name: input.name,
          pilot: principal.pilot,
          rateLimitTier: principal.rateLimitTier,
          status: input.type === "platform" ? "active" : "suspended",
          createdVia: "api"
        })
        yield* keyStore.insertKey(principal.store.id, minted.key, Keys.MAX_ACTIVE_KEYS).pipe(
          Effect.catchTags({
            KeyLimitReached: () =>
              Effect.fail(AccessError.fail(new AccessError.TooManyKeys({ message: Keys.TOO_MANY_KEYS }))),
            StoreNotFound: (error) => Effect.die(error)
          })
        )
        yield* Cache.invalidate(keys, minted.key.keyId)
        return {
          key_id: minted.key.keyId,
          bearer_token: minted.bearerToken,
          signing_secret: minted.signingSecret,
          note: input.type === "platform" ? Keys.PLATFORM_NOTE : Keys.PUBLIC_NOTE
        }
      })

      const revokeKey = method("Access.revokeKey")(function* (storeId: Ids.StoreId, keyId: string) {
        // A key id not in our format names no key; it is not sent to the database (NUL there would be a 500).
        const revoked = Credentials.isKeyId(keyId) && (yield* keyStore.revokeKey(storeId, keyId))
        if (!revoked) {
          return yield* AccessError.fail(new AccessError.KeyNotFound({ message: `Key ${keyId} not found` }))
        }
        // Every instance, not only this one, refuses the key from the next request on.
        yield* events.announce
        return { revoked: true as const, key_id: keyId }
      })

      /** Limits read fresh, not cached: the usage and quota endpoints show what is stored now. */
      const limitsOf = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
        const override = Option.getOrUndefined(yield* usageStore.findOverride(storeId))
        const tier = Limits.tierLimits(Limits.TIER)
        return { tier, override, effective: Limits.effective(tier, override) }
      })

      const usage = method("Access.usage")(function* (storeId: Ids.StoreId) {
        const month = yield* usageStore.monthUsage(storeId)
        return Usage.toUsage(month, (yield* limitsOf(storeId)).effective)
      })

      const usageHistory = method("Access.usageHistory")(function* (
        storeId: Ids.StoreId,
        query: { readonly from?: string | undefined; readonly to?: string | undefined }
      ) {
        const now = yield* AlgiersTime.now
        const range = yield* Usage.historyRange(query, DateTime.toUtc(now)).pipe(Effect.mapError(AccessError.fail))
        const rows = yield* usageStore.history(storeId, range.queryFrom, range.queryTo)
        return Usage.toHistory(range, rows)
      })

      const quotas = method("Access.quotas")(function* (storeId: Ids.StoreId) {
        const { tier, override, effective } = yield* limitsOf(storeId)
        return Usage.toQuotas(tier, override, effective)
      })

      return Access.of({
        admit,
        authenticate,
        meter,
        meterCounted,
        authorize,
        listKeys,
        createKey,
        revokeKey,
        usage,
        usageHistory,
        quotas
      })
    })
  )

/** Both ports on PostgreSQL, needing only `SqlClient`. */
export const storesSql: Layer.Layer<KeyStore | UsageStore, never, SqlClient.SqlClient> = Layer.mergeAll(
  KeyStoreSql.layer,
  UsageStoreSql.layer
)

/** `Access` on PostgreSQL with the default options, needing `SqlClient` and where announcements travel. */
export const layerSql: Layer.Layer<Access, never, SqlClient.SqlClient | AccessEvents> = layer().pipe(
  Layer.provide(storesSql)
)
