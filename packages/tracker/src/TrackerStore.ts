/**
 * Where signups and events are written: the port, and its in-memory implementation (tests, one-process hosts). The
 * SQL implementation is `TrackerStoreSql`. Rows arrive in batches; the port keeps the two facts that need the
 * storage's atomicity: an event is recorded once per store and nonce, and a user's first signup in a store is known
 * as the first, on any number of instances.
 */
import { Context, Effect, Layer, Semaphore } from "effect"
import type { EventRow, SignupRow } from "./TrackerBodies.ts"

export class TrackerStore extends Context.Service<
  TrackerStore,
  {
    /** Runs `effect` as one unit (SQL: one transaction, joining the caller's when there is one). */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Records the events; for each row, whether it was recorded — false when its store already holds an event with
     * its nonce (earlier, or earlier in the batch).
     */
    readonly recordEvents: (rows: ReadonlyArray<EventRow>) => Effect.Effect<ReadonlyArray<boolean>>
    /**
     * Records every signup; for each row, whether it is its user's first in the store (false for a repeat, earlier
     * or earlier in the batch).
     */
    readonly recordSignups: (rows: ReadonlyArray<SignupRow>) => Effect.Effect<ReadonlyArray<boolean>>
  }
>()("@tawsil/tracker/TrackerStore") {}

/** The rows kept by the memory store, for tests to read back. */
export class MemoryRows extends Context.Service<
  MemoryRows,
  { readonly events: ReadonlyArray<EventRow>; readonly signups: ReadonlyArray<SignupRow & { readonly first: boolean }> }
>()("@tawsil/tracker/TrackerStore/MemoryRows") {}

/** Rows in arrays; one unit at a time. */
export const layerMemory: Layer.Layer<TrackerStore | MemoryRows> = Layer.effectContext(
  Effect.gen(function* () {
    const events: Array<EventRow> = []
    const signups: Array<SignupRow & { readonly first: boolean }> = []
    const nonces = new Set<string>()
    const users = new Set<string>()
    const lock = yield* Semaphore.make(1)
    const store = TrackerStore.of({
      transaction: (effect) => lock.withPermits(1)(effect),
      recordEvents: (rows) =>
        Effect.sync(() =>
          rows.map((row) => {
            const id = `${row.storeId} ${row.nonce}`
            if (nonces.has(id)) return false
            nonces.add(id)
            events.push(row)
            return true
          })
        ),
      recordSignups: (rows) =>
        Effect.sync(() =>
          rows.map((row) => {
            const id = `${row.storeId} ${row.userId}`
            const first = !users.has(id)
            users.add(id)
            signups.push({ ...row, first })
            return first
          })
        )
    })
    return Context.make(TrackerStore, store).pipe(Context.add(MemoryRows, MemoryRows.of({ events, signups })))
  })
)
