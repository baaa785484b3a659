/**
 * Changes to who may call the store API that are made off the request path — a plan, a pilot enrolment, a key's
 * status, a store's limits, through the admin CLI or another instance — announced so that every `Access` drops what
 * it cached and its next request, once it has heard, sees them (in process, before the announcing call returns;
 * across processes, as soon as the carrier delivers). Without an announcement a change still shows once the cache's
 * lifetime (`Access.CACHE_TTL`) has run out.
 *
 * The port is the domain's; the bundled app carries announcements between processes over the database
 * (`@tawsil/storage` `Notifications`), a host with one process can use `layerMemory`.
 */
import { Context, Effect, Layer, type Scope } from "effect"

export class AccessEvents extends Context.Service<
  AccessEvents,
  {
    /** Something changed: every subscriber, in every process that shares the announcements, forgets its cache. */
    readonly announce: Effect.Effect<void>
    /** Runs `forget` on every announcement (and when the subscription starts) until the scope closes. */
    readonly subscribe: (forget: Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
  }
>()("@tawsil/access/AccessEvents") {}

/** Announcements within this process. */
export const layerMemory: Layer.Layer<AccessEvents> = Layer.sync(AccessEvents, () => {
  const subscribers = new Set<Effect.Effect<void>>()
  return AccessEvents.of({
    announce: Effect.suspend(() => Effect.forEach([...subscribers], (forget) => forget, { discard: true })),
    subscribe: (forget) =>
      Effect.acquireRelease(
        Effect.sync(() => subscribers.add(forget)),
        () => Effect.sync(() => subscribers.delete(forget))
      ).pipe(Effect.andThen(forget))
  })
})
