/**
 * `SignedCalls` on PostgreSQL (tables `signing_nonces` of storage migration 0006 and `rate_windows` of 0003), needing
 * only `SqlClient`: the calls that arrive within 2 ms of a group's first (or until 500 wait) are one statement
 * (decision 0026). It inserts their nonces as `NonceStoreSql` does — or takes over a row that has expired — and adds
 * to each store's minute window the calls whose nonce came back, as `UsageStoreSql.meterWindow` does; each call is
 * answered by its own row: a replay when its nonce did not come back, else its own count of its store's total (a
 * store's n calls get total − n + 1 … total, in the group's order), so the counts stay exact and distinct.
 *
 * The rules are those of the two statements it replaces: the primary key on (key, nonce) makes concurrent statements
 * holding one nonce — on any number of instances — queue on it, exactly one gets the row back; a nonce repeated within
 * one group is sent once and its later calls are replays; a failed statement fails every call of its group. Nonces
 * are taken in key order and windows in store order, so two instances' statements lock shared rows in one order.
 *
 * A group's statement runs in the context of the call that opened the group: call `record` outside any transaction of
 * your own, or the group's nonces would be written, and rolled back, with it.
 */
import { Nonce } from "@tawsil/signing"
import { Duration, Effect, Exit, Layer, Request, RequestResolver } from "effect"
import { SqlClient } from "effect/sql"
import { FRESH_UNMETERED, type Fresh, REPLAY, type Replay, type SignedCall, SignedCalls } from "./SignedCalls.ts"

const LIFETIME_SECONDS = Duration.toMillis(Nonce.LIFETIME) / 1000

interface RecordCall extends Request.Request<Fresh | Replay>, SignedCall {}
const RecordCall = Request.of<RecordCall>()

/** A fresh call of the group: its place in the group, and its store's window after the statement (metered calls). */
interface Row {
  readonly ord: number
  readonly store_id: number | null
  readonly window_count: number | null
  readonly reset_seconds: number | null
}

/** Answers each call of `group` by its row: a replay when its nonce did not come back, else its window count. */
const answer = (group: ReadonlyArray<Request.Entry<RecordCall>>, rows: ReadonlyArray<Row>) => {
  // Each store's fresh metered calls, in the group's order, take the last counts of its total.
  const calls = new Map<number, number>()
  for (const row of rows) if (row.store_id !== null) calls.set(row.store_id, (calls.get(row.store_id) ?? 0) + 1)
  const taken = new Map<number, number>()
  const answered = new Set<number>()
  for (const row of rows) {
    answered.add(row.ord)
    const entry = group[row.ord]!
    if (row.store_id === null || row.window_count === null || row.reset_seconds === null) {
      entry.completeUnsafe(Exit.succeed(FRESH_UNMETERED))
      continue
    }
    const index = taken.get(row.store_id) ?? 0
    taken.set(row.store_id, index + 1)
    const windowCount = row.window_count - calls.get(row.store_id)! + 1 + index
    const resetSeconds = Math.min(60, Math.max(1, row.reset_seconds))
    entry.completeUnsafe(Exit.succeed({ _tag: "Fresh", window: { windowCount, resetSeconds } }))
  }
  for (let index = 0; index < group.length; index++) {
    if (!answered.has(index)) group[index]!.completeUnsafe(Exit.succeed(REPLAY))
  }
}

export interface Options {
  /** How long a group collects calls after its first; default 2 ms. */
  readonly window?: Duration.Input | undefined
  /** The most calls of one group (it is written at once when full); default 500. */
  readonly maxSize?: number | undefined
}

export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const resolver = RequestResolver.make<RecordCall>((entries) =>
      Effect.suspend(() => {
        // Within a group a nonce is offered once: its later calls are replays whatever the database says.
        const firsts = new Map<string, Request.Entry<RecordCall>>()
        for (const entry of entries) {
          const id = `${entry.request.keyId} ${entry.request.nonce}`
          if (firsts.has(id)) entry.completeUnsafe(Exit.succeed(REPLAY))
          else firsts.set(id, entry)
        }
        const group = Array.from(firsts.values())
        const input = JSON.stringify(
          group.map(({ request }, index) => ({
            ord: index,
            key_id: request.keyId,
            nonce: request.nonce,
            store_id: request.meter ? request.storeId : null
          }))
        )
        return sql<Row>`
          WITH input AS (
            SELECT * FROM jsonb_to_recordset(${input}::jsonb) AS i (ord int, key_id text, nonce text, store_id int)
          ), fresh AS (
            INSERT INTO signing_nonces AS n (key_id, nonce, expires_at)
            SELECT key_id, nonce, now() + make_interval(secs => ${LIFETIME_SECONDS})
            FROM input ORDER BY key_id, nonce
            ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = excluded.expires_at
              WHERE n.expires_at <= now()
            RETURNING key_id, nonce
          ), counted AS (
            SELECT i.ord, i.store_id FROM input i JOIN fresh USING (key_id, nonce)
          ), windows AS (
            INSERT INTO rate_windows AS w (store_id, window_start, count)
            SELECT store_id, date_trunc('minute', now()), count(*)::int FROM counted
            WHERE store_id IS NOT NULL GROUP BY store_id ORDER BY store_id
            ON CONFLICT (store_id, window_start) DO UPDATE SET count = w.count + excluded.count
            RETURNING w.store_id, w.count AS window_count,
              ceil(extract(epoch FROM w.window_start + interval '1 minute' - now()))::int AS reset_seconds
          )
          SELECT c.ord, c.store_id, w.window_count, w.reset_seconds
          FROM counted c LEFT JOIN windows w USING (store_id) ORDER BY c.ord`.pipe(
          Effect.map((rows) => answer(group, rows)),
          Effect.orDie
        )
      })
    ).pipe(
      RequestResolver.setDelay(options.window ?? Duration.millis(2)),
      RequestResolver.batchN(options.maxSize ?? 500)
    )
    return SignedCalls.of({ record: (call) => Effect.request(RecordCall(call), resolver) })
  })

export const layer: Layer.Layer<SignedCalls, never, SqlClient.SqlClient> = Layer.effect(SignedCalls, make())
