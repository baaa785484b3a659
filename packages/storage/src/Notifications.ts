/**
 * Notices between the processes that share one database, and within this one: "something changed on `channel`",
 * with no payload. On a PostgreSQL server they travel by `NOTIFY` / `LISTEN`, so every instance hears them within
 * milliseconds; on the embedded database there is only ever one process per data directory, so they stay in it.
 *
 * A notice is a hint to drop a cache, never the only way a change is seen: a subscriber also runs its callback each
 * time its subscription (re)starts, since notices sent while it was down are lost, and caches keep their own short
 * lifetimes besides.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Queue, Schedule, type Scope } from "effect"

export class Notifications extends Context.Service<
  Notifications,
  {
    /** Tells every subscriber of `channel`, in every process on this database, that something changed. */
    readonly publish: (channel: string) => Effect.Effect<void>
    /** Runs `onChange` on every notice of `channel` (and when the subscription starts) until the scope closes. */
    readonly subscribe: (channel: string, onChange: Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
  }
>()("@tawsil/storage/Notifications") {}

/** This process's subscribers by channel: `tell` runs every callback of a channel. */
const makeSubscribers = () => {
  const byChannel = new Map<string, Set<Effect.Effect<void>>>()
  return {
    tell: (channel: string) =>
      Effect.suspend(() =>
        Effect.forEach([...(byChannel.get(channel) ?? [])], (onChange) => onChange, { discard: true })
      ),
    /** Adds `onChange` until the scope closes; true when it is the channel's first subscriber. */
    add: (channel: string, onChange: Effect.Effect<void>) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const set = byChannel.get(channel)
          if (set !== undefined) {
            set.add(onChange)
            return false
          }
          byChannel.set(channel, new Set([onChange]))
          return true
        }),
        () => Effect.sync(() => byChannel.get(channel)?.delete(onChange))
      )
  }
}

/** Within this process only: the embedded database's, and tests'. */
export const layerMemory: Layer.Layer<Notifications> = Layer.sync(Notifications, () => {
  const subscribers = makeSubscribers()
  return Notifications.of({
    publish: subscribers.tell,
    subscribe: (channel, onChange) => subscribers.add(channel, onChange).pipe(Effect.andThen(onChange))
  })
})

/**
 * PostgreSQL's `NOTIFY` / `LISTEN`: every instance on the server hears every notice, this one included. A `LISTEN`
 * holds a connection of the pool for as long as it lasts, so there is one per channel for the whole process, started
 * by its first subscriber and shared by all of them (two subscribers on a pool of two connections would otherwise
 * leave none for queries).
 */
export const layerPostgres: Layer.Layer<Notifications, never, PgClient.PgClient> = Layer.effect(
  Notifications,
  Effect.gen(function* () {
    const client = yield* PgClient.PgClient
    const scope = yield* Effect.scope
    const subscribers = makeSubscribers()
    const tell = subscribers.tell
    // The channel's one LISTEN: every notice, and every (re)start (notices sent while it was down are lost), tells
    // every subscriber of this process.
    const listen = (channel: string) =>
      Effect.scoped(
        Effect.gen(function* () {
          const notices = yield* client.listen(channel)
          yield* tell(channel)
          for (;;) {
            yield* Queue.take(notices)
            yield* tell(channel)
          }
        })
      ).pipe(
        Effect.tapError((error) =>
          Effect.logWarning("listening again after the connection broke").pipe(
            Effect.annotateLogs({ channel, reason: error.message })
          )
        ),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkIn(scope),
        Effect.asVoid
      )
    return Notifications.of({
      publish: (channel) =>
        client
          .notify(channel, "")
          .pipe(
            Effect.catch((error) =>
              Effect.logWarning("notice not sent").pipe(Effect.annotateLogs({ channel, reason: error.message }))
            )
          ),
      subscribe: (channel, onChange) =>
        subscribers.add(channel, onChange).pipe(Effect.flatMap((first) => (first ? listen(channel) : onChange)))
    })
  })
)
