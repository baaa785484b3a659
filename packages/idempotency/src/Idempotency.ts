/**
 * The Idempotency-Key rules of both APIs: what a key is, when two requests are the same request, which answers are
 * kept and for how long, and the `Idempotency` service that applies them over an `IdempotencyStore`.
 *
 * One protocol serves two flows: claim the key, do the work, then `complete` with the answer (or `release`).
 * The store API claims inside the transaction of its write (`transact`), so the key's record commits or rolls back
 * with the write and no claim outlives a crash. The shipping API cannot put a courier call in our transaction: its
 * claim commits at once as a lease, which lapses after `LEASE` if the process dies before completing.
 *
 * A write whose first statement can carry its key's claim (a store order create, decision 0027) is run by
 * `transact` with `{ claimCarried: true }`: on SQL the claim is then left to the write (`PendingClaim`), whose first
 * statement takes it (`IdempotencyStoreSql.carryPending`), one round trip fewer than a claim of its own.
 */
import { createHmac } from "node:crypto"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Data, Duration, Effect, Exit, Layer, Metric, Redacted, Schedule, Schema } from "effect"
import * as IdempotencyMetrics from "./IdempotencyMetrics.ts"
import { Claimed, Fingerprint, IdempotencyKey, type Request, Scope, type StoredResponse } from "./IdempotencyRequest.ts"
import { type Claim, IdempotencyStore } from "./IdempotencyStore.ts"

/** How long an answer is replayed. */
export const TTL = Duration.hours(24)
/** How long a claim committed on its own (a courier call) holds its key before a retry may claim it again. */
export const LEASE = Duration.seconds(60)
/** How long a claim waits for another holder of its key to finish before it gives up with `InFlight`. */
export const WAIT = Duration.seconds(2)
/** The retry hint of `InFlight`: most holders finish within a second, and a stale lease is retried cheaply. */
export const RETRY_AFTER_SECONDS = 1

/** A request and its answer as idempotency sees them: defined in `IdempotencyRequest`, which the store shares. */
export {
  Claimed,
  Fingerprint,
  IdempotencyKey,
  type Request,
  Scope,
  StoredResponse
} from "./IdempotencyRequest.ts"

/** The key already answered this same request: send that answer again, with no new effect. */
export class Replay extends Data.TaggedClass("Replay")<{ readonly response: StoredResponse }> {}

export class InvalidKey extends Schema.TaggedError<InvalidKey>()("InvalidKey", {
  reason: Schema.Literals(["missing", "malformed"])
}) {
  override get message() {
    return this.reason === "missing"
      ? "an idempotency key is required"
      : "an idempotency key is 1 to 64 characters among A-Z a-z 0-9 _ - : ."
  }
}

/** The key was first used for another request (another method, path or body). */
export class KeyReused extends Schema.TaggedError<KeyReused>()("KeyReused", { key: Schema.String }) {
  override get message() {
    return `idempotency key ${this.key} was first used with a different request; use a new key for a new request`
  }
}

/** Another request with this key is still being processed. */
export class InFlight extends Schema.TaggedError<InFlight>()("InFlight", {
  key: Schema.String,
  retryAfterSeconds: Schema.Int
}) {
  override get message() {
    return `a request with idempotency key ${this.key} is still in progress; retry in ${this.retryAfterSeconds} s`
  }
}

/** A header value as a key. The IETF draft's structured-field form, a quoted string (`"k1"`), is accepted too. */
export const parseKey = (raw: string | undefined): Effect.Effect<IdempotencyKey, InvalidKey> =>
  raw === undefined
    ? Effect.fail(new InvalidKey({ reason: "missing" }))
    : Schema.decodeUnknownEffect(IdempotencyKey)(/^"(.*)"$/.exec(raw)?.[1] ?? raw).pipe(
        Effect.mapError(() => new InvalidKey({ reason: "malformed" }))
      )

/**
 * RFC 8785 (JCS) for JSON values: members sorted by name in UTF-16 code units, no whitespace, ECMAScript number
 * and string forms. Members whose value is `undefined` are left out, as `JSON.stringify` does.
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Readonly<Record<string, unknown>>
    const members = Object.keys(record)
      .sort()
      .filter((name) => record[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`)
    return `{${members.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** HMAC-SHA256 of `text` under the installation's `secret`, in hex. */
const keyedHash = (secret: Redacted.Redacted<string>, text: string) =>
  createHmac("sha256", Redacted.value(secret)).update(text, "utf8").digest("hex")

/**
 * The fingerprint of a request, keyed by the installation's `secret`: an HMAC of the canonical JSON of
 * `[METHOD, path, body]`, so a client that re-serialises the same body in another member order sends the same
 * request. `body` is the decoded JSON body (absent: `null`); `unreadable` the raw text of a body that is not JSON,
 * so that the refusal of unreadable bytes is replayed for those bytes only.
 */
export const fingerprintWith = (
  secret: Redacted.Redacted<string>,
  request: { readonly method: string; readonly path: string; readonly body?: unknown; readonly unreadable?: string }
) =>
  Fingerprint.make(
    keyedHash(
      secret,
      canonicalJson(
        request.unreadable === undefined
          ? [request.method.toUpperCase(), request.path, request.body ?? null]
          : [request.method.toUpperCase(), request.path, null, request.unreadable]
      )
    )
  )

/**
 * A scope from the parts that identify the caller, in order — `["store", storeId]`, or
 * `["shipping", courier, credentials, baseUrl]` — keyed by the installation's `secret`. Only the HMAC is stored:
 * without the secret, a stored scope cannot be checked against guessed credentials.
 */
export const scopeWith = (secret: Redacted.Redacted<string>, parts: ReadonlyArray<unknown>) =>
  Scope.make(keyedHash(secret, canonicalJson(parts)))

/** Answers that are kept and replayed: 2xx and 4xx, except 429 (retrying later is the point). Never 5xx. */
export const isStored = (status: number): boolean =>
  (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 429)

/** `transact` ran the write: it committed with its answer's record. */
export class Fresh<A> extends Data.TaggedClass("Fresh")<{ readonly value: A }> {}

/** `transact`'s write failed with an answer to keep: its work was rolled back, and the answer recorded on its own. */
export class Refused<E> extends Data.TaggedClass("Refused")<{ readonly error: E }> {}

/** What `transact` did: ran the write (`Fresh`), recorded its refusal (`Refused`), or replayed an earlier answer. */
export type Transacted<A, E> = Fresh<A> | Refused<E> | Replay

/** The answers `transact` records for a write's outcomes. */
export interface Answers<A, E> {
  /** The answer of the write's result. */
  readonly stored: (value: A) => StoredResponse
  /**
   * The answer of a failure that is an answer to keep (a 4xx); undefined for one that is not (the write then
   * fails `transact`, and its key stays free). An answer `isStored` does not keep (429, 5xx) is not recorded.
   */
  readonly refused: (error: E) => StoredResponse | undefined
}

/** How `transact` claims the key. */
export interface TransactOptions {
  /**
   * The write takes its claim itself, in its first statement or just before it (`PendingClaim`), rather than
   * `transact` claiming before the write; only where the store `carriesClaims` (SQL), else ignored. A write run so
   * must take the claim before it changes anything; one that fails first is answered as if it had claimed first.
   */
  readonly claimCarried?: boolean | undefined
}

/**
 * The claim of a write that takes it itself (`TransactOptions.claimCarried`), provided to that write by `transact`
 * until taken. A statement carries it by `take` (once; false when taken already) and `settle`s it with what it
 * found; a write that cannot carry it in a statement claims it first (`claimPending`). Either way the write goes on
 * only with the key acquired: otherwise it stops there (a defect `transact` recognises), and `transact` answers as
 * for a claim of its own — the replay, `InFlight` after the short wait, `KeyReused`.
 */
export interface PendingClaim {
  readonly request: Request
  readonly lease: Duration.Duration
  readonly take: Effect.Effect<boolean>
  readonly settle: (found: Claim) => Effect.Effect<void>
  /** Takes the claim with the store's own statement, unless it was taken already. */
  readonly claimFirst: Effect.Effect<void>
}

export const PendingClaim = Context.Reference<PendingClaim | undefined>("@tawsil/idempotency/PendingClaim", {
  defaultValue: () => undefined
})

/** Claims the running write's pending claim with a statement of its own, before a write that cannot carry it. */
export const claimPending: Effect.Effect<void> = Effect.flatMap(PendingClaim, (pending) =>
  pending === undefined ? Effect.void : pending.claimFirst
)

/** How a write that took its claim stops when the key was not acquired: `transact` answers from the claim. */
class ClaimNotAcquired extends Data.Error<{ readonly key: string }> {}

/** A refused write's error and answer, carried out of its rolled-back transaction to be recorded on their own. */
class RolledBack<E> extends Data.Class<{ readonly error: E; readonly response: StoredResponse }> {}

/** What `run` answered, and whether it was the replay of an earlier answer. */
export interface Answer {
  readonly response: StoredResponse
  readonly replayed: boolean
}

export class Idempotency extends Context.Service<
  Idempotency,
  {
    /** The scope of a caller, from the parts that identify it (`scopeWith` under this installation's secret). */
    readonly scope: (parts: ReadonlyArray<unknown>) => Scope
    /** The fingerprint of a request (`fingerprintWith` under this installation's secret). */
    readonly fingerprint: (request: {
      readonly method: string
      readonly path: string
      readonly body?: unknown
      readonly unreadable?: string
    }) => Fingerprint
    /**
     * Claims the request's key, or returns the answer it already has. While another claim holds the key it waits
     * up to `wait`, then fails with `InFlight`; a key first used for another request fails with `KeyReused`.
     */
    readonly claim: (request: Request) => Effect.Effect<Claimed | Replay, KeyReused | InFlight>
    /** Records the answer of a claim when its status is one to store (`isStored`); otherwise releases the key. */
    readonly complete: (claimed: Claimed, response: StoredResponse) => Effect.Effect<void>
    /** Frees a claimed key without an answer, so a retry runs again. */
    readonly release: (claimed: Claimed) => Effect.Effect<void>
    /**
     * Claim, run `write`, complete with its answer; a replay skips `write`. A failure or an interruption of
     * `write` releases the key. Map the failures that are answers to store (4xx) into `write`'s result; answer
     * 5xx or 429 only when `write` changed nothing (else fail, so the caller's transaction rolls back), since such
     * an answer frees the key and a retry runs `write` again.
     */
    readonly run: <E, R>(
      request: Request,
      write: Effect.Effect<StoredResponse, E, R>
    ) => Effect.Effect<Answer, E | KeyReused | InFlight, R>
    /**
     * A write and its key's record in ONE transaction of the store (`IdempotencyStore.transaction`): claim, run
     * `write`, record `answers.stored` of its result, committed together (`Fresh`); a replay skips `write`
     * (`Replay`). A failure of `write` that `answers.refused` answers (a 4xx) rolls the write's partial work back,
     * then is recorded alone under the same key in a second transaction (`Refused`, replayed from then on). Any
     * other failure rolls everything back and fails, the key left free for a retry. Fails with `KeyReused` or
     * `InFlight` as `claim` does. With `options.claimCarried` the write takes the claim itself (`PendingClaim`).
     */
    readonly transact: <A, E, R>(
      request: Request,
      write: Effect.Effect<A, E, R>,
      answers: Answers<A, E>,
      options?: TransactOptions
    ) => Effect.Effect<Transacted<A, E>, E | KeyReused | InFlight, R>
  }
>()("@tawsil/idempotency/Idempotency") {}

export interface Options {
  /** How long answers are replayed; default `TTL`. */
  readonly ttl?: Duration.Input | undefined
  /** How long a claim committed on its own holds its key; default `LEASE`. */
  readonly lease?: Duration.Input | undefined
  /** How long a claim waits for another holder; default `WAIT`. */
  readonly wait?: Duration.Input | undefined
}

const decide = (request: Request, found: Claim): Effect.Effect<Claimed | Replay, KeyReused | InFlight> => {
  if (found._tag === "Acquired") return Effect.succeed(new Claimed({ ...request, token: found.token }))
  if (found.fingerprint !== undefined && found.fingerprint !== request.fingerprint) {
    return Effect.andThen(
      Metric.update(IdempotencyMetrics.keyReused, 1),
      Effect.fail(new KeyReused({ key: request.key }))
    )
  }
  return found._tag === "Completed"
    ? Effect.as(Metric.update(IdempotencyMetrics.replays, 1), new Replay({ response: found.response }))
    : Effect.fail(new InFlight({ key: request.key, retryAfterSeconds: RETRY_AFTER_SECONDS }))
}

export const layer = (options: Options = {}): Layer.Layer<Idempotency, never, IdempotencyStore> =>
  Layer.effect(
    Idempotency,
    Effect.gen(function* () {
      const method = yield* ServiceSpans.method
      const span = yield* ServiceSpans.span
      const store = yield* IdempotencyStore
      const secret = yield* store.secret
      const ttl = Duration.fromInputUnsafe(options.ttl ?? TTL)
      const lease = Duration.fromInputUnsafe(options.lease ?? LEASE)
      const spacing = Duration.millis(50)
      const waiting = Schedule.spaced(spacing).pipe(Schedule.upTo({ duration: options.wait ?? WAIT }))

      // `run` carries the span of a claimed write; its steps run untraced inside it (each store call is one SQL
      // statement with its own span). Called on their own, the steps are traced (the service's methods below).
      const claim = Effect.fnUntraced(function* (request: Request) {
        return yield* store.claim(request, lease).pipe(
          Effect.flatMap((found) => decide(request, found)),
          Effect.retry({ while: (error) => error._tag === "InFlight", schedule: waiting })
        )
      })

      /** A claim whose first attempt a write's statement made: decided, then retried as `claim` retries. */
      const claimFrom = (request: Request, found: Claim) =>
        decide(request, found).pipe(Effect.catchTag("InFlight", () => Effect.delay(claim(request), spacing)))

      const release = Effect.fnUntraced(function* (claimed: Claimed) {
        yield* store.release(claimed)
      })

      const complete = Effect.fnUntraced(function* (claimed: Claimed, response: StoredResponse) {
        if (!isStored(response.status)) return yield* store.release(claimed)
        const recorded = yield* store.complete(claimed, response, ttl)
        // Only when the lease lapsed and another request claimed the key: that one's answer will be the one kept.
        if (!recorded) yield* Effect.logWarning("idempotency claim lost before its answer was recorded")
      })

      const run = <E, R>(
        request: Request,
        write: Effect.Effect<StoredResponse, E, R>
      ): Effect.Effect<Answer, E | KeyReused | InFlight, R> =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            const outcome = yield* restore(claim(request))
            if (outcome._tag === "Replay") return { response: outcome.response, replayed: true }
            const exit = yield* Effect.exit(restore(write))
            if (Exit.isFailure(exit)) {
              yield* release(outcome)
              return yield* Effect.failCause(exit.cause)
            }
            yield* complete(outcome, exit.value)
            return { response: exit.value, replayed: false }
          })
        ).pipe(span("Idempotency.run"))

      /** The claim of a write that takes it itself (`PendingClaim`), and its exit once taken. */
      const pendingClaim = (request: Request) => {
        let taken = false
        let outcome: Exit.Exit<Claimed | Replay, KeyReused | InFlight> | undefined
        const take = () => {
          if (taken) return false
          taken = true
          return true
        }
        const settleWith = (claiming: Effect.Effect<Claimed | Replay, KeyReused | InFlight>) =>
          Effect.flatMap(Effect.exit(claiming), (exit) => {
            outcome = exit
            return Exit.isSuccess(exit) && exit.value._tag === "Claimed"
              ? Effect.void
              : Effect.die(new ClaimNotAcquired({ key: request.key }))
          })
        const pending: PendingClaim = {
          request,
          lease,
          take: Effect.sync(take),
          settle: (found) => settleWith(claimFrom(request, found)),
          claimFirst: Effect.suspend(() => (take() ? settleWith(claim(request)) : Effect.void))
        }
        return { pending, outcome: () => outcome }
      }

      /**
       * Claims the key and runs `write`, in either order: `claim` first, or (`claimCarried`) the write taking its
       * claim itself. The claim's answer when the key was not acquired (`Replay`, or a failure); else the key and the
       * write's exit.
       */
      const claimAndWrite = <A, E, R>(
        request: Request,
        write: Effect.Effect<A, E, R>,
        claimCarried: boolean,
        restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>
      ): Effect.Effect<
        Replay | { readonly claimed: Claimed; readonly exit: Exit.Exit<A, E> },
        KeyReused | InFlight,
        R
      > =>
        Effect.gen(function* () {
          if (!claimCarried) {
            const found = yield* restore(claim(request))
            if (found._tag === "Replay") return found
            return { claimed: found, exit: yield* Effect.exit(restore(write)) }
          }
          const carried = pendingClaim(request)
          const exit = yield* Effect.exit(restore(Effect.provideService(write, PendingClaim, carried.pending)))
          const taken = carried.outcome()
          if (taken === undefined && Exit.isSuccess(exit)) {
            return yield* Effect.die(new Error("a write that carries its idempotency claim never took it"))
          }
          // A write whose claim found the key held stopped there, having changed nothing: the claim answers. One
          // that failed before taking its claim is claimed now, as if first: a key already answered (or in flight)
          // answers as it would have, and a refusal is recorded as any other.
          const found = yield* taken ?? restore(claim(request))
          if (found._tag === "Replay") return found
          return { claimed: found, exit }
        })

      // The write's transaction: a refusal to keep fails it as `RolledBack`, so its partial work is undone.
      const attempt = <A, E, R>(
        request: Request,
        write: Effect.Effect<A, E, R>,
        answers: Answers<A, E>,
        claimCarried: boolean
      ) =>
        store.transaction(
          Effect.uninterruptibleMask((restore) =>
            Effect.gen(function* () {
              const written = yield* claimAndWrite(request, write, claimCarried, restore)
              if (written instanceof Replay) return written
              const { claimed, exit } = written
              if (Exit.isSuccess(exit)) {
                yield* complete(claimed, answers.stored(exit.value))
                return new Fresh({ value: exit.value })
              }
              yield* release(claimed)
              return yield* Effect.failCause(exit.cause).pipe(
                Effect.mapError((error): E | RolledBack<E> => {
                  const response = answers.refused(error)
                  return response !== undefined && isStored(response.status)
                    ? new RolledBack({ error, response })
                    : error
                })
              )
            })
          )
        )

      const transact = <A, E, R>(
        request: Request,
        write: Effect.Effect<A, E, R>,
        answers: Answers<A, E>,
        options: TransactOptions = {}
      ): Effect.Effect<Transacted<A, E>, E | KeyReused | InFlight, R> =>
        attempt(request, write, answers, options.claimCarried === true && store.carriesClaims).pipe(
          Effect.catchIf(
            (failure): failure is RolledBack<E> => failure instanceof RolledBack,
            ({ error, response }) =>
              // Another request may have answered the key meanwhile: then that answer is the one to give.
              store
                .transaction(run(request, Effect.succeed(response)))
                .pipe(
                  Effect.map(
                    (answer): Transacted<A, E> =>
                      answer.replayed ? new Replay({ response: answer.response }) : new Refused({ error })
                  )
                )
          ),
          span("Idempotency.transact")
        )

      return Idempotency.of({
        scope: (parts) => scopeWith(secret, parts),
        fingerprint: (request) => fingerprintWith(secret, request),
        claim: method("Idempotency.claim")(function* (request) {
          return yield* claim(request)
        }),
        complete: method("Idempotency.complete")(function* (claimed, response) {
          return yield* complete(claimed, response)
        }),
        release: method("Idempotency.release")(function* (claimed) {
          return yield* release(claimed)
        }),
        run,
        transact
      })
    })
  )
