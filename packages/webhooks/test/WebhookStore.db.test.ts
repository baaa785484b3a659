import { assert, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Duration, Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as WebhookEvent from "../src/WebhookEvent.ts"
import * as WebhookStore from "../src/WebhookStore.ts"
import { backends, newStore, sqlStore } from "./Backends.ts"
import { WebhookStoreSuite } from "./WebhookStoreSuite.ts"

layer(WebhookStore.layerMemory)("WebhookStore (memory)", (it) => {
  WebhookStoreSuite(it, TestClock.adjust)
})

// The SQL store reads the database clock, so time passes by moving every stored time back.
const elapseSql = (duration: Duration.Input) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const seconds = Duration.toMillis(Duration.fromInputUnsafe(duration)) / 1000
    const back = sql`make_interval(secs => ${seconds})`
    yield* sql`UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at - ${back},
      leased_until = leased_until - ${back}`
    yield* sql`UPDATE webhook_subscriptions SET previous_secret_expires_at = previous_secret_expires_at - ${back}`
    yield* sql`UPDATE webhook_events SET created_at = created_at - ${back}`
  }).pipe(Effect.orDie)

for (const backend of backends) {
  layer(sqlStore(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `WebhookStore (sql, ${backend.name})`,
    (it) => {
      WebhookStoreSuite(it, elapseSql)

      it.effect("records an event and its deliveries in the caller's transaction: a rollback leaves neither", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* WebhookStore.WebhookStore
          const storeId = Ids.StoreId.make(yield* newStore)
          yield* store.insertSubscription(
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
          const id = WebhookEvent.newId()
          let woken = 0
          yield* sql
            .withTransaction(
              Effect.gen(function* () {
                yield* store.recordEvent({ id, storeId, event: "order.created", payload: "{}" })
                yield* store.afterCommit(Effect.sync(() => void woken++))
                return yield* Effect.fail("rolled back")
              })
            )
            .pipe(Effect.flip)
          const [row] = yield* sql<{ readonly events: number; readonly deliveries: number }>`
            SELECT (SELECT count(*)::int FROM webhook_events WHERE id = ${id}) AS events,
              (SELECT count(*)::int FROM webhook_deliveries WHERE event_id = ${id}) AS deliveries`.pipe(Effect.orDie)
          assert.deepStrictEqual(row, { events: 0, deliveries: 0 })
          assert.strictEqual(woken, 0, "nothing committed: nobody woken")
          yield* sql.withTransaction(
            Effect.gen(function* () {
              yield* store.recordEvent({ id, storeId, event: "order.created", payload: "{}" })
              yield* store.afterCommit(Effect.sync(() => void woken++))
              assert.strictEqual(woken, 0, "not before the commit")
            })
          )
          assert.strictEqual(woken, 1, "woken once committed")
        }).pipe(Effect.orDie)
      )

      if (backend.name === "server") {
        it.effect("two claimers on two connections at once never claim the same delivery", () =>
          Effect.gen(function* () {
            const store = yield* WebhookStore.WebhookStore
            const storeId = Ids.StoreId.make(yield* newStore)
            // Twenty subscriptions of ten events each: a subscription's deliveries go one at a time, in order, so
            // the claimers share the work across subscriptions.
            for (let s = 0; s < 20; s++) {
              yield* store.insertSubscription(
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
            }
            for (let i = 0; i < 10; i++) {
              yield* store.recordEvent({ id: WebhookEvent.newId(), storeId, event: "order.created", payload: "{}" })
            }
            const claims = yield* Effect.all(
              Array.from({ length: 8 }, (_, i) =>
                Effect.gen(function* () {
                  const mine: Array<number> = []
                  for (;;) {
                    const token = `claimer-${i}`
                    const batch = yield* store.claim(7, Duration.minutes(1), token)
                    if (batch.length === 0) return mine
                    for (const delivery of batch) {
                      if (delivery.storeId === storeId) mine.push(delivery.id)
                      // Answered at once, as a receiver's 2xx: the subscription's next delivery may be claimed.
                      yield* store.finishAttempt({
                        deliveryId: delivery.id,
                        token,
                        attempt: {
                          attempt: delivery.attempt,
                          startedAt: DateTime.makeUnsafe(0),
                          outcome: "succeeded",
                          statusCode: 204,
                          latencyMs: 1,
                          error: null
                        },
                        status: "succeeded",
                        retryInMillis: null
                      })
                    }
                  }
                })
              ),
              { concurrency: "unbounded" }
            )
            const all = claims.flat()
            assert.strictEqual(all.length, 200)
            assert.strictEqual(new Set(all).size, 200, "each delivery claimed once")
            assert.isAtLeast(claims.filter((mine) => mine.length > 0).length, 2, "the work was shared")
          })
        )
      }
    }
  )
}
