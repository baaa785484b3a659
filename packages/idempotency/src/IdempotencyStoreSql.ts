/**
 * The idempotency store on PostgreSQL (table `idempotency_keys`, storage migration 0002), needing only `SqlClient`.
 * Expiry uses the database clock (`now()`), so every instance of the app agrees on it.
 *
 * A claim is one statement: take the key's transaction-scoped advisory lock without waiting
 * (`pg_try_advisory_xact_lock`) and, only with it, insert the in-flight row or replace an expired one; when it
 * inserts nothing, the same statement reads what holds the key.
 * - Inside the caller's transaction (store API) the lock and the uncommitted row live exactly as long as that
 *   transaction: its commit publishes the answer with the write, and a rollback or a crash (the server rolls the
 *   transaction back when the connection drops) leaves nothing, so a retry runs at once. Meanwhile other claimers
 *   fail to take the lock and get `Pending` at once; `Idempotency` retries them for a short while.
 * - On its own (shipping API) the claim commits as an in-flight row whose `expires_at` is its lease.
 * The lock is never waited on, so no claimer queues on the row or on the unique index, and no lock timeout needs
 * setting. An attempt that does not acquire the key writes nothing; if it took the lock (the key's row was live
 * and completed), it keeps it until its transaction ends; other claimers meanwhile read the completed row.
 * The lock is keyed by a 64-bit hash of scope and key: a collision only makes two keys wait for each other briefly.
 * The caller's transaction must be READ COMMITTED (PostgreSQL's default), so each statement sees the latest
 * commits.
 *
 * The claim's text is written once (`claimParts`): run on its own (`claim`), or carried in front of a write's first
 * statement (`carry`, through the `ClaimCarrier` port, decision 0027), so that a store order create claims its key
 * and reads its products in one round trip.
 */
import { randomUUID } from "node:crypto"
import { Data, Duration, Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Fingerprint, type Request, StoredResponse } from "./Idempotency.ts"
import { Claim, IdempotencyStore, newSecret } from "./IdempotencyStore.ts"

/** What a claim's statement found, as its `found` column says it: the new token, the key's live row, or neither. */
const Found = Schema.Struct({
  token: Schema.optionalKey(Schema.String),
  fingerprint: Schema.optionalKey(Fingerprint),
  status: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  headers: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.String))),
  body: Schema.optionalKey(Schema.NullOr(Schema.String))
})

const decodeFound = Schema.decodeUnknownEffect(Found)

/** The claim a `found` column's value tells. */
const claimOf = (value: unknown): Effect.Effect<Claim> =>
  Effect.map(Effect.orDie(decodeFound(value)), (found) => {
    if (found.token !== undefined) return Claim.Acquired({ token: found.token })
    // Neither acquired nor a live row: another claim's row is not committed yet (it holds the lock).
    if (found.fingerprint === undefined) return Claim.Pending({ fingerprint: undefined })
    const { status, headers, body } = found
    return status == null || headers == null || body == null
      ? Claim.Pending({ fingerprint: found.fingerprint })
      : Claim.Completed({
          fingerprint: found.fingerprint,
          response: new StoredResponse({ status, headers, body })
        })
  })

const seconds = (duration: Duration.Duration) => Duration.toMillis(duration) / 1000

/**
 * A claim as parts of a statement: `ctes`, the `WITH` items that take the key's lock without waiting and, only with
 * it, insert the in-flight row under a new token (drawn here) or replace an expired one; `found`, a `json` column
 * saying what they did (`claimOf`): the token, else the key's live row as the statement's snapshot shows it, else
 * `{}` (another claim holds the lock and its row is not committed). Data-modifying `WITH` items run whether or not
 * the rest of the statement reads them, so the claim is taken by any statement that starts with these.
 */
const claimParts = (sql: SqlClient.SqlClient, request: Request, lease: Duration.Duration) => ({
  ctes: sql`idempotency_lock AS MATERIALIZED (
      SELECT pg_try_advisory_xact_lock(hashtextextended(${request.scope}::text || ' ' || ${request.key}::text, 0))
        AS locked
    ), idempotency_claim AS (
      INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, token, expires_at)
      SELECT ${request.scope}, ${request.key}, ${request.fingerprint}, 'in_flight', ${randomUUID()},
        now() + make_interval(secs => ${seconds(lease)})
      FROM idempotency_lock WHERE idempotency_lock.locked
      ON CONFLICT (scope, key) DO UPDATE SET
        fingerprint = excluded.fingerprint, state = excluded.state, token = excluded.token, status = NULL,
        headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
      WHERE k.expires_at <= now()
      RETURNING k.token
    )`,
  found: sql`coalesce(
      (SELECT json_build_object('token', token) FROM idempotency_claim),
      (SELECT json_build_object('fingerprint', fingerprint, 'status', status, 'headers', headers, 'body', body)
        FROM idempotency_keys WHERE scope = ${request.scope} AND key = ${request.key} AND expires_at > now()),
      '{}'::json)`
})

/** A failure of the effect run in a transaction, told apart from the transaction's own `SqlError`s (defects). */
class Inner<E> extends Data.Class<{ readonly error: E }> {}

export const layer: Layer.Layer<IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(
  IdempotencyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return IdempotencyStore.of({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql
          .withTransaction(Effect.mapError(effect, (error) => new Inner({ error })))
          .pipe(
            Effect.catch((failure) =>
              failure instanceof Inner ? Effect.fail(failure.error as E) : Effect.die(failure)
            )
          ),
      carry: (request, lease, settle) => ({
        ...claimParts(sql, request, lease),
        settle: (found) => Effect.flatMap(claimOf(found), settle)
      }),
      secret: Effect.gen(function* () {
        // The first process to ask makes it; the others (and every later start) read that one.
        yield* sql`
          INSERT INTO installation_secret (id, secret) VALUES (1, ${newSecret()}) ON CONFLICT (id) DO NOTHING`
        const [row] = yield* sql<{ readonly secret: string }>`SELECT secret FROM installation_secret WHERE id = 1`
        return Redacted.make(row!.secret)
      }).pipe(Effect.orDie),
      claim: Effect.fnUntraced(function* (request, lease) {
        const { ctes, found } = claimParts(sql, request, lease)
        const [row] = yield* sql<{ readonly found: unknown }>`WITH ${ctes} SELECT ${found} AS found`.pipe(Effect.orDie)
        return yield* claimOf(row!.found)
      }),
      complete: Effect.fnUntraced(function* (claimed, response, ttl) {
        const recorded = yield* sql`
          UPDATE idempotency_keys SET state = 'completed', status = ${response.status},
            headers = ${JSON.stringify(response.headers)}::jsonb, body = ${response.body},
            expires_at = now() + make_interval(secs => ${seconds(ttl)})
          WHERE scope = ${claimed.scope} AND key = ${claimed.key} AND token = ${claimed.token} AND state = 'in_flight'
          RETURNING 1 AS recorded`.pipe(Effect.orDie)
        return recorded.length > 0
      }),
      release: Effect.fnUntraced(function* (claimed) {
        yield* sql`
          DELETE FROM idempotency_keys
          WHERE scope = ${claimed.scope} AND key = ${claimed.key} AND token = ${claimed.token} AND state = 'in_flight'`.pipe(
          Effect.orDie
        )
      }),
      purgeExpired: sql<{ readonly purged: number }>`
        WITH purged AS (DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1)
        SELECT count(*)::int AS purged FROM purged`.pipe(
        Effect.map(([row]) => row?.purged ?? 0),
        Effect.orDie,
        Effect.withSpan("IdempotencyStoreSql.purgeExpired")
      )
    })
  })
)
