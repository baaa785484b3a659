/**
 * Where subscriptions, the outbox of events and their deliveries live: the port, and its in-memory implementation
 * (tests, one-process hosts). The SQL implementation is `WebhookStoreSql`.
 *
 * The port keeps records and the invariants that need the storage's atomicity: at most `max` subscriptions per
 * store; an event and the deliveries it fans out to the store's active subscriptions of that event written in one
 * step, in the caller's unit of work (the outbox); each due delivery claimed by one dispatcher at a time, under a
 * lease; an attempt's result recorded only by the claim that made it. Which URL is acceptable, when to retry and
 * what is signed are the services' rules.
 */
import type { Ids } from "@tawsil/domain"
import { Clock, Context, Data, DateTime, Duration, Effect, Layer, type Redacted } from "effect"
import { MAX_ATTEMPTS } from "./RetryPolicy.ts"
import type * as WebhookEvent from "./WebhookEvent.ts"

export interface SubscriptionRecord {
  readonly id: number
  readonly storeId: Ids.StoreId
  readonly url: string
  readonly events: ReadonlyArray<WebhookEvent.Name>
  readonly active: boolean
  readonly description: string | null
  readonly secret: Redacted.Redacted<string>
  readonly previousSecret: Redacted.Redacted<string> | null
  /** Until when `previousSecret` still signs deliveries; null when there is none. */
  readonly previousSecretExpiresAt: DateTime.Utc | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export interface NewSubscription {
  readonly url: string
  readonly events: ReadonlyArray<WebhookEvent.Name>
  readonly active: boolean
  readonly description: string | null
  readonly secret: Redacted.Redacted<string>
}

export interface SubscriptionPatch {
  readonly url?: string | undefined
  readonly events?: ReadonlyArray<WebhookEvent.Name> | undefined
  readonly active?: boolean | undefined
  readonly description?: string | null | undefined
  /** A new secret; the current one becomes the previous one for `grace`. */
  readonly rotate?: { readonly secret: Redacted.Redacted<string>; readonly grace: Duration.Duration } | undefined
}

export type DeliveryStatus = "pending" | "succeeded" | "failed"
export type AttemptOutcome = "succeeded" | "failed" | "refused"

export interface AttemptRecord {
  readonly attempt: number
  readonly startedAt: DateTime.Utc
  readonly outcome: AttemptOutcome
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
}

export interface DeliveryRecord {
  readonly id: number
  readonly subscriptionId: number
  readonly eventId: string
  readonly event: WebhookEvent.Name
  readonly status: DeliveryStatus
  /** Attempts finished so far. */
  readonly attempts: number
  readonly maxAttempts: number
  readonly nextAttemptAt: DateTime.Utc
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  /** Finished attempts, oldest first. */
  readonly attemptLog: ReadonlyArray<AttemptRecord>
}

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface Claimed {
  readonly id: number
  readonly storeId: Ids.StoreId
  readonly subscriptionId: number
  readonly eventId: string
  readonly event: WebhookEvent.Name
  /** The exact body to send. */
  readonly payload: string
  /** This attempt's number (1-based). */
  readonly attempt: number
  readonly maxAttempts: number
  /** The subscription's URL now (a URL fixed after the event takes effect on the next attempt). */
  readonly url: string
  /** The live secrets, the current one first. */
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  /** Names the claim: only it may record the attempt. */
  readonly token: string
}

/** An attempt's result, and what becomes of the delivery. */
export interface AttemptResult {
  readonly deliveryId: number
  readonly token: string
  readonly attempt: AttemptRecord
  readonly status: DeliveryStatus
  /** For a delivery still pending: when it is due again, in milliseconds from now. */
  readonly retryInMillis: number | null
}

/** The store already holds `max` subscriptions. */
export class SubscriptionLimitReached extends Data.TaggedError("SubscriptionLimitReached")<{ readonly max: number }> {}

export class WebhookStore extends Context.Service<
  WebhookStore,
  {
    /** The store's subscriptions, oldest first. */
    readonly listSubscriptions: (storeId: Ids.StoreId) => Effect.Effect<ReadonlyArray<SubscriptionRecord>>
    readonly findSubscription: (storeId: Ids.StoreId, id: number) => Effect.Effect<SubscriptionRecord | undefined>
    /** Adds a subscription unless the store holds `max` already (concurrent inserts never exceed it). */
    readonly insertSubscription: (
      storeId: Ids.StoreId,
      subscription: NewSubscription,
      max: number
    ) => Effect.Effect<SubscriptionRecord, SubscriptionLimitReached>
    /** Changes what `patch` names; undefined when the store has no such subscription. */
    readonly updateSubscription: (
      storeId: Ids.StoreId,
      id: number,
      patch: SubscriptionPatch
    ) => Effect.Effect<SubscriptionRecord | undefined>
    /** Deletes a subscription with its deliveries; false when there is none. */
    readonly deleteSubscription: (storeId: Ids.StoreId, id: number) => Effect.Effect<boolean>
    /**
     * The outbox: records the event and one pending delivery per active subscription of its store to its kind, in
     * the current unit of work; records nothing when no subscription wants it. Returns the deliveries queued.
     */
    readonly recordEvent: (event: WebhookEvent.Recorded) => Effect.Effect<number>
    /** Runs `effect` once the current unit of work has committed (at once outside one); never if it rolls back. */
    readonly afterCommit: (effect: Effect.Effect<void>) => Effect.Effect<void>
    /**
     * Claims up to `limit` pending deliveries that are due and not leased, for `lease` under `token`, oldest due
     * first. On any number of instances a delivery is claimed by one at a time; a claim whose lease ran out (its
     * dispatcher died) can be claimed again. A subscription's deliveries go in the order of their events: one is
     * claimed only when no older one of its subscription is due or in flight (an older one waiting for its retry
     * does not hold it back).
     */
    readonly claim: (limit: number, lease: Duration.Duration, token: string) => Effect.Effect<ReadonlyArray<Claimed>>
    /** Records an attempt and the delivery's new state; false (nothing written) when the claim is no longer held. */
    readonly finishAttempt: (result: AttemptResult) => Effect.Effect<boolean>
    /** A subscription's deliveries, newest first: ids below `afterId`, at most `limit`. */
    readonly listDeliveries: (
      storeId: Ids.StoreId,
      subscriptionId: number,
      page: { readonly afterId: number | undefined; readonly limit: number }
    ) => Effect.Effect<ReadonlyArray<DeliveryRecord>>
    /**
     * Makes a delivery due now, with at least one attempt left (a given-up or delivered one gets one more); undefined
     * when the subscription has no such delivery.
     */
    readonly retryDelivery: (
      storeId: Ids.StoreId,
      subscriptionId: number,
      deliveryId: number
    ) => Effect.Effect<DeliveryRecord | undefined>
    /**
     * Deletes the events older than `age` none of whose deliveries is pending, with their deliveries and attempt
     * logs, and says how many events went.
     */
    readonly purgeFinished: (age: Duration.Duration) => Effect.Effect<number>
    /** The outbox as it stands, for the metrics: one statement, on the partial index of pending deliveries. */
    readonly backlog: Effect.Effect<Backlog>
  }
>()("@tawsil/webhooks/WebhookStore") {}

/** What the outbox holds: every pending delivery, and how late the oldest of those already due is. */
export interface Backlog {
  /** Deliveries not yet delivered nor given up: due now or waiting for a retry. */
  readonly pending: number
  /** How long ago the oldest due delivery came due, in seconds; 0 when none is due. */
  readonly lagSeconds: number
}

// ---------------------------------------------------------------------------------------------------------------
// In memory

interface MemoryEvent extends WebhookEvent.Recorded {
  readonly createdAt: DateTime.Utc
}

interface MemoryDelivery {
  readonly id: number
  readonly storeId: Ids.StoreId
  readonly subscriptionId: number
  readonly eventId: string
  status: DeliveryStatus
  attempts: number
  maxAttempts: number
  nextAttemptAt: number
  leasedUntil: number
  token: string | null
  readonly createdAt: number
  updatedAt: number
  readonly log: Array<AttemptRecord>
}

/** A store in `Map`s on `Clock` time; its unit of work is the call itself (`afterCommit` runs at once). */
export const layerMemory: Layer.Layer<WebhookStore> = Layer.sync(WebhookStore, () => {
  const subscriptions = new Map<number, SubscriptionRecord>()
  const events = new Map<string, MemoryEvent>()
  const deliveries = new Map<number, MemoryDelivery>()
  let nextSubscription = 0
  let nextDelivery = 0
  const now = Clock.currentTimeMillis

  const ofStore = (storeId: Ids.StoreId, id: number) => {
    const found = subscriptions.get(id)
    return found !== undefined && found.storeId === storeId ? found : undefined
  }

  const toRecord = (delivery: MemoryDelivery): DeliveryRecord => ({
    id: delivery.id,
    subscriptionId: delivery.subscriptionId,
    eventId: delivery.eventId,
    event: events.get(delivery.eventId)!.event,
    status: delivery.status,
    attempts: delivery.attempts,
    maxAttempts: delivery.maxAttempts,
    nextAttemptAt: DateTime.makeUnsafe(delivery.nextAttemptAt),
    createdAt: DateTime.makeUnsafe(delivery.createdAt),
    updatedAt: DateTime.makeUnsafe(delivery.updatedAt),
    attemptLog: [...delivery.log]
  })

  return WebhookStore.of({
    listSubscriptions: (storeId) =>
      Effect.sync(() => [...subscriptions.values()].filter((subscription) => subscription.storeId === storeId)),
    findSubscription: (storeId, id) => Effect.sync(() => ofStore(storeId, id)),
    insertSubscription: (storeId, subscription, max) =>
      Effect.flatMap(now, (millis) => {
        const count = [...subscriptions.values()].filter((found) => found.storeId === storeId).length
        if (count >= max) return Effect.fail(new SubscriptionLimitReached({ max }))
        const at = DateTime.makeUnsafe(millis)
        const record: SubscriptionRecord = {
          ...subscription,
          id: ++nextSubscription,
          storeId,
          previousSecret: null,
          previousSecretExpiresAt: null,
          createdAt: at,
          updatedAt: at
        }
        subscriptions.set(record.id, record)
        return Effect.succeed(record)
      }),
    updateSubscription: (storeId, id, patch) =>
      Effect.map(now, (millis) => {
        const found = ofStore(storeId, id)
        if (found === undefined) return undefined
        const at = DateTime.makeUnsafe(millis)
        const updated: SubscriptionRecord = {
          ...found,
          url: patch.url ?? found.url,
          events: patch.events ?? found.events,
          active: patch.active ?? found.active,
          description: patch.description === undefined ? found.description : patch.description,
          ...(patch.rotate === undefined
            ? {}
            : {
                secret: patch.rotate.secret,
                previousSecret: found.secret,
                previousSecretExpiresAt: DateTime.makeUnsafe(millis + Duration.toMillis(patch.rotate.grace))
              }),
          updatedAt: at
        }
        subscriptions.set(id, updated)
        return updated
      }),
    deleteSubscription: (storeId, id) =>
      Effect.sync(() => {
        if (ofStore(storeId, id) === undefined) return false
        subscriptions.delete(id)
        for (const [deliveryId, delivery] of deliveries) {
          if (delivery.subscriptionId === id) deliveries.delete(deliveryId)
        }
        return true
      }),
    recordEvent: (event) =>
      Effect.map(now, (millis) => {
        const wanted = [...subscriptions.values()].filter(
          (subscription) =>
            subscription.storeId === event.storeId && subscription.active && subscription.events.includes(event.event)
        )
        if (wanted.length === 0) return 0
        events.set(event.id, { ...event, createdAt: DateTime.makeUnsafe(millis) })
        for (const subscription of wanted) {
          const id = ++nextDelivery
          deliveries.set(id, {
            id,
            storeId: event.storeId,
            subscriptionId: subscription.id,
            eventId: event.id,
            status: "pending",
            attempts: 0,
            maxAttempts: MAX_ATTEMPTS,
            nextAttemptAt: millis,
            leasedUntil: 0,
            token: null,
            createdAt: millis,
            updatedAt: millis,
            log: []
          })
        }
        return wanted.length
      }),
    afterCommit: (effect) => effect,
    claim: (limit, lease, token) =>
      Effect.map(now, (millis) => {
        const pending = [...deliveries.values()].filter((delivery) => delivery.status === "pending")
        // Older deliveries of a subscription that are due or in flight hold its newer ones back.
        const heldBack = (delivery: (typeof pending)[number]) =>
          pending.some(
            (older) =>
              older.subscriptionId === delivery.subscriptionId &&
              older.id < delivery.id &&
              (older.nextAttemptAt <= millis || older.leasedUntil > millis)
          )
        const due = pending
          .filter((delivery) => delivery.nextAttemptAt <= millis && delivery.leasedUntil <= millis)
          .filter((delivery) => !heldBack(delivery))
          .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id)
          .slice(0, limit)
        return due.map((delivery): Claimed => {
          delivery.leasedUntil = millis + Duration.toMillis(lease)
          delivery.token = token
          const subscription = subscriptions.get(delivery.subscriptionId)!
          const event = events.get(delivery.eventId)!
          const previousLive =
            subscription.previousSecret !== null &&
            subscription.previousSecretExpiresAt !== null &&
            DateTime.toEpochMillis(subscription.previousSecretExpiresAt) > millis
          return {
            id: delivery.id,
            storeId: delivery.storeId,
            subscriptionId: delivery.subscriptionId,
            eventId: delivery.eventId,
            event: event.event,
            payload: event.payload,
            attempt: delivery.attempts + 1,
            maxAttempts: delivery.maxAttempts,
            url: subscription.url,
            secrets: previousLive ? [subscription.secret, subscription.previousSecret!] : [subscription.secret],
            token
          }
        })
      }),
    finishAttempt: (result) =>
      Effect.map(now, (millis) => {
        const delivery = deliveries.get(result.deliveryId)
        if (delivery === undefined || delivery.token !== result.token) return false
        delivery.attempts = result.attempt.attempt
        delivery.status = result.status
        if (result.retryInMillis !== null) delivery.nextAttemptAt = millis + result.retryInMillis
        delivery.leasedUntil = 0
        delivery.token = null
        delivery.updatedAt = millis
        delivery.log.push(result.attempt)
        return true
      }),
    listDeliveries: (storeId, subscriptionId, page) =>
      Effect.sync(() =>
        [...deliveries.values()]
          .filter(
            (delivery) =>
              delivery.storeId === storeId &&
              delivery.subscriptionId === subscriptionId &&
              (page.afterId === undefined || delivery.id < page.afterId)
          )
          .sort((a, b) => b.id - a.id)
          .slice(0, page.limit)
          .map(toRecord)
      ),
    retryDelivery: (storeId, subscriptionId, deliveryId) =>
      Effect.map(now, (millis) => {
        const delivery = deliveries.get(deliveryId)
        if (delivery === undefined || delivery.storeId !== storeId || delivery.subscriptionId !== subscriptionId) {
          return undefined
        }
        delivery.status = "pending"
        delivery.maxAttempts = Math.max(delivery.maxAttempts, delivery.attempts + 1)
        delivery.nextAttemptAt = millis
        delivery.updatedAt = millis
        return toRecord(delivery)
      }),
    purgeFinished: (age) =>
      Effect.map(now, (millis) => {
        let purged = 0
        for (const [id, event] of events) {
          if (DateTime.toEpochMillis(event.createdAt) > millis - Duration.toMillis(age)) continue
          const own = [...deliveries.values()].filter((delivery) => delivery.eventId === id)
          if (own.some((delivery) => delivery.status === "pending")) continue
          for (const delivery of own) deliveries.delete(delivery.id)
          events.delete(id)
          purged++
        }
        return purged
      }),
    backlog: Effect.map(now, (millis) => {
      let pending = 0
      let oldestDue = millis
      for (const delivery of deliveries.values()) {
        if (delivery.status !== "pending") continue
        pending++
        if (delivery.nextAttemptAt < oldestDue) oldestDue = delivery.nextAttemptAt
      }
      return { pending, lagSeconds: (millis - oldestDue) / 1000 }
    })
  })
})
