/**
 * Who is calling a signed route (`POST /v1/signups`, `POST /v1/events`): `Authorization: TW-Public <key_id>` with
 * `X-TW-Timestamp`, `X-TW-Nonce` and `X-TW-Signature`, checked as `@tawsil/signing`'s `RequestVerifier` checks them
 * (clock window, signature in constant time, then the nonce's single use) with the key's signing secret; the nonce
 * is recorded by `SignedCalls`, which counts the call in its store's minute window in the same step.
 *
 * The key must be a public key that is active: one created through `POST /v1/keys` is suspended until an operator
 * activates it (`admin key activate`), and answers like an unknown key until then. An unknown or inactive key is
 * checked against a decoy secret all the same, so timing does not tell which it was. Key lookups are cached like
 * `Access`'s (5 s, emptied on every `AccessEvents` announcement). The plan, pilot and scope gates are
 * `Access.check`'s, as for every call.
 *
 * `admit` is the whole decision for a signed route: verified, then counted against the store's per-minute budget,
 * which all of a store's keys share (the window only, a signed call is no `request`; counted with the nonce, only
 * when the nonce is fresh, and limited by `Access.meterCounted`), then gated.
 */
import { randomBytes } from "node:crypto"
import { RequestSignature, RequestVerifier, SigningError } from "@tawsil/signing"
import { ServiceSpans } from "@tawsil/tracing"
import { Cache, Clock, Context, Data, Duration, Effect, FiberSet, Layer, Option, Redacted } from "effect"
import { Access, check, keyPrincipals, Refused, type Requirement, TOUCH_INTERVAL } from "./Access.ts"
import * as AccessError from "./AccessError.ts"
import { AccessEvents } from "./AccessEvents.ts"
import * as AccessMetrics from "./AccessMetrics.ts"
import * as Credentials from "./Credentials.ts"
import { KeyStore } from "./KeyStore.ts"
import type { Principal, RateLimitState } from "./Principal.ts"
import { SignedCalls } from "./SignedCalls.ts"

export const PUBLIC_KEY_REQUIRED =
  "Signups and events take a public key: Authorization: TW-Public <key_id>, signed with X-TW-Timestamp, X-TW-Nonce and X-TW-Signature"
export const MISSING_KEY = "Missing API key: send Authorization: TW-Public <key_id> with a signed request"
/** Unknown, revoked, suspended (not yet activated) or not a public key: one message. */
export const INVALID_KEY = "Invalid public key: unknown, revoked or not active (a new public key waits for activation)"

/** A signed call as received. */
export interface SignedCall {
  readonly authorization: string | undefined
  readonly timestamp: string | undefined
  readonly nonce: string | undefined
  readonly signature: string | undefined
  /** The raw body, exactly as received. */
  readonly body: Uint8Array | string
}

/** A verified signed call: who made it, and its nonce (the event deduplication key). */
export interface SignedCaller {
  readonly principal: Principal
  readonly nonce: string
}

/**
 * Verified, counted and let through by every gate: run the call. `limits` is the store's per-minute budget after
 * it; undefined when the store has no per-minute limit.
 */
export class Admitted extends Data.TaggedClass("Admitted")<{
  readonly caller: SignedCaller
  readonly limits: RateLimitState | undefined
}> {}

/** What `admit` decided: `Admitted`, or a gate's refusal after counting (`Access.Refused`, 403). */
export type Admission = Admitted | Refused

export class PublicAccess extends Context.Service<
  PublicAccess,
  {
    /** Verifies a signed call; `clientIp` is recorded as the key's `last_used_ip` (best effort, as `Access` does). */
    readonly authenticate: (
      call: SignedCall,
      clientIp: string
    ) => Effect.Effect<SignedCaller, AccessError.AccessError | SigningError.SigningError>
    /**
     * A signed call, admitted or not: `authenticate` (fails, 401), counted in the store's per-minute window (fails
     * with `RateLimited`, 429), then the plan, pilot and scope gates of `requirement` (`Refused`, 403).
     */
    readonly admit: (
      call: SignedCall,
      clientIp: string,
      requirement: Requirement
    ) => Effect.Effect<Admission, AccessError.AccessError | SigningError.SigningError>
  }
>()("@tawsil/access/PublicAccess") {}

// What an unknown key's call is checked against: a secret nobody holds, fresh each process.
const DECOY = Redacted.make(randomBytes(32).toString("hex"))

export const layer = (
  options: { readonly cacheTtl?: Duration.Input | undefined } = {}
): Layer.Layer<PublicAccess, never, Access | KeyStore | AccessEvents | SignedCalls> =>
  Layer.effect(
    PublicAccess,
    Effect.gen(function* () {
      const access = yield* Access
      // Spans only where a tracer listens (decision 0013): the bundled app turns them off.
      const method = yield* ServiceSpans.method
      const keyStore = yield* KeyStore
      const signedCalls = yield* SignedCalls
      const keys = yield* Cache.make({
        lookup: keyStore.findKey,
        capacity: 10_000,
        timeToLive: options.cacheTtl ?? Duration.seconds(5)
      })
      const events = yield* AccessEvents
      yield* events.subscribe(Cache.invalidateAll(keys))

      const refuse = (reason: AccessError.AccessErrorReason) => Effect.fail(AccessError.fail(reason))

      // Last use, written beside the request at most every `TOUCH_INTERVAL` per key, failures dropped (as `Access`).
      const runInBackground = yield* FiberSet.makeRuntime<never, void, never>()
      const touchedAt = new Map<string, number>()
      const touchMillis = Duration.toMillis(TOUCH_INTERVAL)
      const touch = (storeId: Principal["store"]["id"], keyId: string, ip: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            const last = touchedAt.get(keyId)
            if (last !== undefined && now - last < touchMillis) return
            if (touchedAt.size >= 100_000) touchedAt.clear()
            touchedAt.set(keyId, now)
            runInBackground(keyStore.touchKey(storeId, keyId, ip).pipe(Effect.ignoreCause))
          })
        )

      const principalOf = keyPrincipals()

      const nonceReused = SigningError.fail(new SigningError.NonceReused({ message: RequestVerifier.NONCE_REUSED }))

      /**
       * The signed call verified: the key, the signature at the current time, then the nonce recorded and — `meter` —
       * the call counted in its store's window, in one step (`SignedCalls`).
       */
      const verify = Effect.fnUntraced(function* (call: SignedCall, clientIp: string, meter: boolean) {
        const presented = Credentials.parseAuthorization(call.authorization)
        if (presented._tag === "Missing") return yield* refuse(new AccessError.MissingKey({ message: MISSING_KEY }))
        if (presented._tag !== "PublicKey" || !Credentials.isPublicKeyId(presented.keyId)) {
          return yield* refuse(new AccessError.PublicKeyRequired({ message: PUBLIC_KEY_REQUIRED }))
        }
        const keyId = presented.keyId
        const found = Option.getOrUndefined(yield* Cache.get(keys, keyId))
        const usable =
          found !== undefined &&
          found.key.type === "public" &&
          found.key.status === "active" &&
          found.key.signingSecret !== null
        const request = {
          keyId,
          timestamp: call.timestamp,
          nonce: call.nonce,
          signature: call.signature,
          body: call.body
        }
        if (!usable) {
          // The same work as a real check (never passes: nobody holds the decoy), then the one answer.
          RequestSignature.verify(request, DECOY, 0)
          return yield* refuse(new AccessError.InvalidKey({ message: INVALID_KEY }))
        }
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const verified = yield* RequestSignature.verifyEffect(request, found.key.signingSecret!, now)
        const recorded = yield* signedCalls.record({ keyId, nonce: verified.nonce, storeId: found.store.id, meter })
        if (recorded._tag === "Replay") return yield* nonceReused
        yield* touch(found.store.id, keyId, clientIp)
        return { caller: { principal: principalOf(found), nonce: verified.nonce }, window: recorded.window }
      })

      const authenticate = method("PublicAccess.authenticate")(function* (call: SignedCall, clientIp: string) {
        return (yield* verify(call, clientIp, false)).caller
      })

      return PublicAccess.of({
        authenticate,
        admit: method("PublicAccess.admit")(function* (call: SignedCall, clientIp: string, requirement: Requirement) {
          // Counted once verified, never before: an unsigned call naming a key, or a replay, must not spend its
          // store's budget.
          const { caller, window } = yield* verify(call, clientIp, true)
          const state = yield* access
            .meterCounted(caller.principal, window!)
            .pipe(
              Effect.tapError((error) =>
                error.reason._tag === "RateLimited" ? AccessMetrics.refused("signed_minute") : Effect.void
              )
            )
          const limits = state.limit >= 0 ? state : undefined
          const refusal = check(caller.principal, requirement)
          return refusal === undefined
            ? new Admitted({ caller, limits })
            : new Refused({ limits, error: AccessError.fail(refusal) })
        })
      })
    })
  )
