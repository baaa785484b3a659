/**
 * The signup and event tracker of the store API (spec: `POST /v1/signups`, `POST /v1/events`, "accepted
 * asynchronously and answer 202 at once"; usage groups `signup` and `event`).
 *
 * A call is checked (`TrackerBodies`) and queued; the caller is answered at once. Behind the answer one writer takes
 * whatever has queued — up to `batchSize` rows, as soon as one is there — and writes it in one unit of work: the
 * events (`recordEvents`), the signups (`recordSignups`) and the usage they count (`UsageStore.count`):
 *
 * - an event is counted (`total` and `billable`) only when newly recorded: a duplicate — the same store and nonce —
 *   is dropped and counted nowhere;
 * - every signup counts in `total`; only a user's first signup in the store counts in `billable`.
 *
 * A batch call (`signups`, `events`) queues each item that passes its rules as its own row, recorded under its own
 * nonce (`TrackerBodies.itemNonce`), and so written and counted exactly as the same item sent alone; the items that
 * break a rule are answered by index and queue nothing.
 *
 * Usage is counted in the hour the call was received. When the queue is full (`capacity`), callers wait for room
 * (backpressure) rather than growing memory. A batch that fails to write is retried (100 ms, doubling to 5 s) and
 * never dropped while the process runs. On a clean shutdown the layer's finalizer closes the queue and waits up to
 * `drainTimeout` for the writer to write everything accepted; a `kill -9` loses what was accepted and not yet
 * written (at most the queue), as the documentation says.
 */
import { UsageStore } from "@tawsil/access"
import { ServiceSpans } from "@tawsil/tracing"
import { Cause, Clock, Context, DateTime, Duration, Effect, Exit, Fiber, Latch, Layer, Queue, Schedule } from "effect"
import * as TrackerBodies from "./TrackerBodies.ts"
import * as TrackerError from "./TrackerError.ts"
import * as TrackerMetrics from "./TrackerMetrics.ts"
import { TrackerStore } from "./TrackerStore.ts"

export const SIGNUP_GROUP = "signup"
export const EVENT_GROUP = "event"

export class Tracker extends Context.Service<
  Tracker,
  {
    /** `POST /v1/signups`: checks the body and queues it. */
    readonly signup: (
      caller: TrackerBodies.Caller,
      body: unknown
    ) => Effect.Effect<TrackerBodies.Accepted, TrackerError.TrackerError>
    /** `POST /v1/events`: checks the body and queues it. */
    readonly event: (
      caller: TrackerBodies.Caller,
      body: unknown
    ) => Effect.Effect<TrackerBodies.Accepted, TrackerError.TrackerError>
    /**
     * `POST /v1/signups/batch`: checks the batch (the whole call refused when it is not one), queues every signup
     * that passes, and answers how many were, with the others by index.
     */
    readonly signups: (
      caller: TrackerBodies.Caller,
      body: unknown
    ) => Effect.Effect<BatchAccepted<TrackerError.InvalidSignup>, TrackerError.TrackerError>
    /** `POST /v1/events/batch`: as `signups`, for events. */
    readonly events: (
      caller: TrackerBodies.Caller,
      body: unknown
    ) => Effect.Effect<BatchAccepted<TrackerError.InvalidEvent>, TrackerError.TrackerError>
    /** Waits until everything accepted so far is written (tests, benchmarks). */
    readonly flush: Effect.Effect<void>
  }
>()("@tawsil/tracker/Tracker") {}

/** What a batch call was answered: the items queued, and those refused by index. */
export interface BatchAccepted<E> {
  readonly accepted: number
  readonly rejected: ReadonlyArray<TrackerBodies.Rejected<E>>
}

export interface Options {
  /** Rows written per statement at most; default 500. */
  readonly batchSize?: number | undefined
  /** Rows queued at most before callers wait; default 10 000. */
  readonly capacity?: number | undefined
  /** How long a shutdown waits for the queue to be written; default 10 s. */
  readonly drainTimeout?: Duration.Input | undefined
}

type Item =
  | { readonly kind: "signup"; readonly row: TrackerBodies.SignupRow }
  | { readonly kind: "event"; readonly row: TrackerBodies.EventRow }

/** The usage a written batch counts, by the rules above. */
export const usageOf = (
  events: ReadonlyArray<TrackerBodies.EventRow>,
  recorded: ReadonlyArray<boolean>,
  signups: ReadonlyArray<TrackerBodies.SignupRow>,
  firsts: ReadonlyArray<boolean>
): Array<UsageStore.UsageIncrement> => [
  ...events.flatMap((row, index) =>
    recorded[index] ? [{ storeId: row.storeId, group: EVENT_GROUP, at: row.receivedAt, total: 1, billable: 1 }] : []
  ),
  ...signups.map((row, index) => ({
    storeId: row.storeId,
    group: SIGNUP_GROUP,
    at: row.receivedAt,
    total: 1,
    billable: firsts[index] ? 1 : 0
  }))
]

export const layer = (options: Options = {}): Layer.Layer<Tracker, never, TrackerStore | UsageStore.UsageStore> =>
  Layer.effect(
    Tracker,
    Effect.gen(function* () {
      const store = yield* TrackerStore
      const usage = yield* UsageStore.UsageStore
      // Spans only where a tracer listens (decision 0013): the bundled app turns them off.
      const method = yield* ServiceSpans.method
      const batchSize = options.batchSize ?? 500
      const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? Duration.seconds(10))
      const queue = yield* Queue.bounded<Item, Cause.Done>(options.capacity ?? 10_000)
      // Open while nothing accepted is waiting to be written.
      const idle = yield* Latch.make(true)
      let unwritten = 0
      yield* TrackerMetrics.observeQueue(() => unwritten)

      const write = Effect.fnUntraced(function* (batch: ReadonlyArray<Item>) {
        const events = batch.flatMap((item) => (item.kind === "event" ? [item.row] : []))
        const signups = batch.flatMap((item) => (item.kind === "signup" ? [item.row] : []))
        yield* store.transaction(
          Effect.gen(function* () {
            const recorded = yield* store.recordEvents(events)
            const firsts = yield* store.recordSignups(signups)
            yield* usage.count(usageOf(events, recorded, signups, firsts))
          })
        )
      })

      /** Writes a batch, retrying a failure until it is written (or the writer is interrupted). */
      const persist = (batch: ReadonlyArray<Item>) =>
        Effect.exit(write(batch)).pipe(
          Effect.flatMap((exit) =>
            Exit.isSuccess(exit)
              ? Effect.void
              : Effect.andThen(
                  Effect.logWarning("tracker batch not written; retrying", exit.cause).pipe(
                    Effect.annotateLogs({ rows: batch.length })
                  ),
                  Effect.fail(exit.cause)
                )
          ),
          Effect.retry(Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("5 seconds")])),
          Effect.orDie,
          Effect.andThen(
            Effect.suspend(() => {
              unwritten -= batch.length
              return unwritten === 0 ? Effect.asVoid(idle.open) : Effect.void
            })
          )
        )

      // Takes what is queued, up to a batch, as soon as there is one row; ends once the queue is closed and empty.
      const writer = yield* Effect.forkScoped(
        Effect.gen(function* () {
          for (;;) {
            const batch = yield* Queue.takeBetween(queue, 1, batchSize)
            yield* persist(batch)
          }
        }).pipe(Effect.catchIf(Cause.isDone, () => Effect.void))
      )

      // Clean shutdown: nothing more is taken in, everything taken in is written (bounded by drainTimeout).
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          const pending = unwritten
          yield* Queue.end(queue)
          const drained = yield* Fiber.join(writer).pipe(Effect.timeoutOption(drainTimeout))
          if (drained._tag === "None") {
            yield* Effect.logError("tracker queue not written before shutdown").pipe(
              Effect.annotateLogs({ rows: unwritten })
            )
          } else if (pending > 0) {
            yield* Effect.logInfo("tracker queue written before shutdown").pipe(Effect.annotateLogs({ rows: pending }))
          }
        })
      )

      const accept = (item: Item) =>
        Effect.gen(function* () {
          unwritten++
          yield* idle.close
          const taken = yield* Queue.offer(queue, item)
          if (!taken) return yield* Effect.die(new Error("the tracker is shutting down"))
          return { accepted: true as const }
        })

      /** A batch's items, queued together: waits for room for all of them (backpressure), as `accept` for one. */
      const acceptAll = (items: ReadonlyArray<Item>) =>
        Effect.gen(function* () {
          if (items.length === 0) return
          unwritten += items.length
          yield* idle.close
          const left = yield* Queue.offerAll(queue, items)
          if (left.length > 0) {
            unwritten -= left.length
            return yield* Effect.die(new Error("the tracker is shutting down"))
          }
        })

      const receivedAt = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.makeUnsafe(millis))

      return Tracker.of({
        signup: method("Tracker.signup")(function* (caller, body) {
          const row = yield* TrackerBodies.signup(caller, body, yield* receivedAt).pipe(
            Effect.mapError(TrackerError.fail)
          )
          return yield* accept({ kind: "signup", row })
        }),
        event: method("Tracker.event")(function* (caller, body) {
          const row = yield* TrackerBodies.event(caller, body, yield* receivedAt).pipe(
            Effect.mapError(TrackerError.fail)
          )
          return yield* accept({ kind: "event", row })
        }),
        signups: method("Tracker.signups")(function* (caller, body) {
          const checked = yield* TrackerBodies.signups(caller, body, yield* receivedAt).pipe(
            Effect.mapError(TrackerError.fail)
          )
          yield* acceptAll(checked.rows.map((row) => ({ kind: "signup", row })))
          return { accepted: checked.rows.length, rejected: checked.rejected }
        }),
        events: method("Tracker.events")(function* (caller, body) {
          const checked = yield* TrackerBodies.events(caller, body, yield* receivedAt).pipe(
            Effect.mapError(TrackerError.fail)
          )
          yield* acceptAll(checked.rows.map((row) => ({ kind: "event", row })))
          return { accepted: checked.rows.length, rejected: checked.rejected }
        }),
        flush: idle.await
      })
    })
  )
