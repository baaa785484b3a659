import { assert, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Duration, Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Retention from "../src/Retention.ts"
import * as WebhookEvent from "../src/WebhookEvent.ts"
import { type Claimed, layerMemory, WebhookStore } from "../src/WebhookStore.ts"

const storeId = Ids.StoreId.make(41)

const finish = (claimed: Claimed, outcome: "succeeded" | "failed") =>
  Effect.flatMap(WebhookStore, (store) =>
    store.finishAttempt({
      deliveryId: claimed.id,
      token: claimed.token,
      attempt: {
        attempt: claimed.attempt,
        startedAt: DateTime.makeUnsafe(0),
        outcome,
        statusCode: outcome === "succeeded" ? 204 : 503,
        latencyMs: 10,
        error: outcome === "succeeded" ? null : "HTTP 503"
      },
      // A failed attempt leaves its delivery pending, to be retried in an hour.
      status: outcome === "succeeded" ? "succeeded" : "pending",
      retryInMillis: outcome === "succeeded" ? null : 3_600_000
    })
  )

layer(layerMemory)("Retention", (it) => {
  it.effect("purges an event 30 days after it was recorded, once none of its deliveries is pending", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const hook = yield* store.insertSubscription(
        storeId,
        {
          url: "https://hooks.example.com/",
          events: ["order.created"],
          active: true,
          description: null,
          secret: Redacted.make("whsec_x")
        },
        20
      )
      for (let i = 0; i < 2; i++) {
        const id = WebhookEvent.newId()
        yield* store.recordEvent({ id, storeId, event: "order.created", payload: `{"id":"${id}"}` })
      }
      // A subscription's deliveries are claimed in order, the next once the one before is done.
      const [delivered] = yield* store.claim(10, Duration.seconds(30), "retention")
      yield* finish(delivered!, "succeeded")
      const [retrying] = yield* store.claim(10, Duration.seconds(30), "retention")
      yield* finish(retrying!, "failed")

      assert.strictEqual(Duration.toMillis(Retention.RETENTION), Duration.toMillis(Duration.days(30)))
      yield* TestClock.adjust(Duration.subtract(Retention.RETENTION, Duration.minutes(1)))
      assert.strictEqual(yield* Retention.purge, 0, "not yet 30 days old")
      yield* TestClock.adjust(Duration.minutes(2))
      assert.strictEqual(yield* Retention.purge, 1)
      const left = yield* store.listDeliveries(storeId, hook.id, { afterId: undefined, limit: 10 })
      assert.deepStrictEqual(
        left.map((delivery) => [delivery.id, delivery.status]),
        [[retrying!.id, "pending"]]
      )
      assert.strictEqual(yield* Retention.purge, 0)
    })
  )
})
