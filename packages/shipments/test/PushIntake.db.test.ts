/**
 * The receiver of courier push through `PushIntake`, on memory, the embedded database and (with `DATABASE_URL`) the
 * real server, with the courier of `TestPush.ts` (an HMAC of the body, a JSON body of events, a `GET ?challenge=`).
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import { Push } from "@tawsil/courier"
import { Orders } from "@tawsil/orders"
import type { Gateway } from "@tawsil/shipping"
import { Cause, Clock, Duration, Effect, Option } from "effect"
import * as fc from "fast-check"
import type { CourierAccountStore } from "../src/CourierAccountStore.ts"
import { CourierAccounts } from "../src/CourierAccounts.ts"
import * as PushApplier from "../src/PushApplier.ts"
import { HookRefused, PushIntake } from "../src/PushIntake.ts"
import { Shipments } from "../src/Shipments.ts"
import { TrackingStore } from "../src/TrackingStore.ts"
import * as Backends from "./Backends.ts"
import * as TestCouriers from "./TestCouriers.ts"
import { post, pusher, relay, SECRET, type Sent } from "./TestPush.ts"

type Services =
  | CourierAccountStore
  | Gateway.Gateway
  | PushIntake
  | PushApplier.PushApplier
  | Shipments
  | CourierAccounts
  | TrackingStore
  | Orders.Orders
  | Backends.Fixture

/** What the applier's loop does when a receive wakes it: everything due applied (or deferred). */
const drain = Effect.flatMap(PushApplier.PushApplier, (applier) => applier.drain)

const suite = (it: Vitest.MethodsNonLive<Services>) => {
  /** A store with a `pusher` account (its webhook secret set) and an order shipped through it. */
  const shipped = Effect.gen(function* () {
    const fixture = yield* Backends.Fixture
    const storeId = yield* fixture.store
    const account = yield* (yield* CourierAccounts).create(storeId, {
      courier: "pusher",
      label: "Pusher",
      credentials: { token: "t" },
      webhook_secret: SECRET
    })
    const order = yield* fixture.order(storeId)
    const detail = yield* (yield* Shipments).ship(storeId, order.id, { account_id: account.id })
    return { storeId, accountId: account.id, order: detail, trackingNumber: detail.shipment!.tracking_number }
  })

  const refusal = (accountId: number, request: Push.PushRequest) =>
    Effect.flatMap(PushIntake, (intake) => Effect.flip(intake.receive(accountId, request)))

  it.effect("answers the courier's challenge with its token, and records nothing", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const { accountId } = yield* shipped
      assert.deepStrictEqual(
        yield* intake.receive(accountId, {
          method: "GET",
          query: { challenge: "tok-123" },
          headers: {},
          body: new Uint8Array()
        }),
        { contentType: "text/plain", body: "tok-123" }
      )
    })
  )

  it.effect("acknowledges pushed events once recorded, without applying them; the applier applies them once", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const orders = yield* Orders.Orders
      const { storeId, accountId, order, trackingNumber } = yield* shipped
      const now = yield* Clock.currentTimeMillis
      const events: ReadonlyArray<Sent> = [
        { id: "e-1", tracking: trackingNumber, status: "OUT", at: now + 60_000 },
        { id: "e-2", tracking: trackingNumber, status: "DELIVERED", at: now + 120_000, reason: "Remis" }
      ]
      const shippedOrder = yield* orders.get(storeId, order.id)
      assert.deepStrictEqual(yield* intake.receive(accountId, post(events)), {
        contentType: "application/json",
        body: JSON.stringify({ received: 2, recorded: 2 })
      })
      // Recorded, answered, not applied yet: the order is as it was.
      assert.deepStrictEqual(yield* orders.get(storeId, order.id), shippedOrder)
      assert.deepStrictEqual(yield* drain, { claimed: 2, applied: 2, deferred: 0 })
      const delivered = yield* orders.get(storeId, order.id)
      assert.deepStrictEqual(
        [delivered.status, delivered.shipment!.status, delivered.shipment!.raw_status, delivered.shipment!.reason],
        ["delivered", "delivered", "DELIVERED", "Remis"]
      )
      assert.deepStrictEqual(
        delivered.shipment!.timeline.map((step) => [step.status, step.source]),
        [
          ["pending_pickup", "create"],
          ["out_for_delivery", "push"],
          ["delivered", "push"]
        ]
      )
      // The courier retries (it missed our answer): acknowledged, recorded and applied once.
      assert.deepStrictEqual(yield* intake.receive(accountId, post(events)), {
        contentType: "application/json",
        body: JSON.stringify({ received: 2, recorded: 0 })
      })
      assert.deepStrictEqual(yield* drain, { claimed: 0, applied: 0, deferred: 0 })
      assert.deepStrictEqual(yield* orders.get(storeId, order.id), delivered)
      // Delivered is terminal: the parcel is no longer polled.
      const tracking = yield* TrackingStore
      yield* (yield* Backends.Fixture).elapse("1 day")
      const claimed = yield* tracking.claimDue(10_000, Duration.minutes(1))
      yield* tracking.release(claimed.map((check) => check.orderId))
      assert.isFalse(claimed.some((check) => check.orderId === order.id))
    })
  )

  it.effect("two appliers on one store apply each event once", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const orders = yield* Orders.Orders
      const parcels = yield* Effect.forEach(Array.from({ length: 4 }), () => shipped)
      const now = yield* Clock.currentTimeMillis
      const steps = ["PICKED", "OUT", "FAILED", "OUT", "DELIVERED"]
      for (const [index, parcel] of parcels.entries()) {
        const events = steps.map((status, step) => ({
          id: `two-${index}-${step}`,
          tracking: parcel.trackingNumber,
          status,
          at: now + 60_000 * (step + 1)
        }))
        // One request per event, as a courier that pushes each change on its own.
        for (const event of events) yield* intake.receive(parcel.accountId, post([event]))
      }
      // Two instances' appliers, claiming a few at a time, at once.
      const small = { ...PushApplier.defaults, batch: 3, concurrency: 2 }
      const [one, two] = yield* Effect.all([PushApplier.make(small), PushApplier.make(small)])
      const reports = yield* Effect.all([one!.drain, two!.drain, one!.drain], { concurrency: "unbounded" })
      assert.strictEqual(
        reports.reduce((sum, report) => sum + report.applied, 0),
        parcels.length * steps.length,
        JSON.stringify(reports)
      )
      assert.deepStrictEqual(yield* drain, { claimed: 0, applied: 0, deferred: 0 })
      for (const parcel of parcels) {
        const detail = yield* orders.get(parcel.storeId, parcel.order.id)
        assert.deepStrictEqual([detail.status, detail.shipment!.status], ["delivered", "delivered"])
        // Each event once in the timeline, whoever applied it.
        assert.deepStrictEqual(
          detail.shipment!.timeline.filter((step) => step.source === "push").map((step) => step.raw_status),
          steps
        )
      }
    })
  )

  it.effect("polls a courier that pushes only as a safety net, every 12 hours; cash pushed sets the COD status", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const orders = yield* Orders.Orders
      const tracking = yield* TrackingStore
      const fixture = yield* Backends.Fixture
      const { storeId, accountId, order, trackingNumber } = yield* shipped
      const due = Effect.gen(function* () {
        const claimed = yield* tracking.claimDue(10_000, Duration.minutes(1))
        yield* tracking.release(claimed.map((check) => check.orderId))
        return claimed.some((check) => check.orderId === order.id)
      })
      yield* fixture.elapse("11 hours")
      assert.isFalse(yield* due, "not due after the 4 hours of a polled parcel waiting for pickup")
      yield* fixture.elapse("2 hours")
      assert.isTrue(yield* due)
      const at = (yield* Clock.currentTimeMillis) + 60_000
      yield* intake.receive(
        accountId,
        post([
          { id: "m", tracking: trackingNumber, status: "DELIVERED", at },
          { id: "c", tracking: trackingNumber, status: "PAID", at: at + 60_000 }
        ])
      )
      yield* drain
      const detail = yield* orders.get(storeId, order.id)
      assert.deepStrictEqual(
        [detail.status, detail.shipment!.status, detail.shipment!.cod_status, detail.shipment!.raw_status],
        ["delivered", "delivered", "collected", "DELIVERED"]
      )
    })
  )

  it.effect("keeps an event without an id once too, by its parcel, raw status and time", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const orders = yield* Orders.Orders
      const { storeId, accountId, order, trackingNumber } = yield* shipped
      const at = (yield* Clock.currentTimeMillis) + 60_000
      const picked: Sent = { tracking: trackingNumber, status: "PICKED", at }
      yield* intake.receive(accountId, post([picked]))
      assert.deepStrictEqual(
        (yield* intake.receive(accountId, post([picked]))).body,
        JSON.stringify({ received: 1, recorded: 0 })
      )
      assert.deepStrictEqual(yield* drain, { claimed: 1, applied: 1, deferred: 0 })
      // The courier names the parcel by our reference this time: the same event still.
      const detail = yield* orders.get(storeId, order.id)
      yield* intake.receive(accountId, post([{ reference: order.order_number, status: "PICKED", at }]))
      yield* drain
      assert.deepStrictEqual(yield* orders.get(storeId, order.id), detail)
      assert.strictEqual(detail.shipment!.timeline.length, 2)
    })
  )

  it.effect("takes whatever a signed request carries: recorded as it can be kept, or refused, never a failure", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const { accountId, trackingNumber } = yield* shipped
      // Any UTF-16 code units, lone surrogates and NUL included (fast-check's "binary" unit costs seconds to build).
      const text = fc.string({
        unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
        maxLength: 30
      })
      const drawn = fc.sample(
        fc.array(
          fc.record({
            id: fc.option(fc.oneof(text, fc.double())),
            tracking: fc.oneof(fc.constant(trackingNumber), text, fc.constant(null)),
            reference: fc.option(text),
            status: fc.oneof(fc.constantFrom("DELIVERED", "PAID", "__proto__", "constructor"), text),
            at: fc.oneof(fc.constant("2026-01-01T10:00:00+01:00"), text, fc.integer()),
            reason: fc.option(fc.oneof(text, fc.constant("x".repeat(5000))))
          }),
          { maxLength: 5 }
        ),
        { numRuns: 40, seed: 3030 }
      )
      const kept = [
        [{ id: "nul", tracking: trackingNumber, status: "DELI\u0000VERED", at: "2026-01-01T10:00:00+01:00" }],
        [{ id: "\ud800", tracking: "\udc00T", status: "\ud83d", at: "\u0000", reason: "a\u0000b" }],
        [
          { id: "x".repeat(3000), tracking: trackingNumber, status: "S".repeat(3000), at: "-200000-01-01T00:00:00Z" },
          { tracking: "T".repeat(3000), status: "DELIVERED", at: "+275760-09-13T00:00:00Z" }
        ]
      ]
      const bodies = [
        ...drawn.map((events) => JSON.stringify({ events })),
        ...kept.map((events) => JSON.stringify({ events }))
      ]
      for (const json of bodies) {
        const body = new TextEncoder().encode(json)
        const request: Push.PushRequest = {
          method: "POST",
          query: {},
          headers: { "x-test-signature": Push.hmacSha256(SECRET, body).toString("hex") },
          body
        }
        const exit = yield* Effect.exit(intake.receive(accountId, request))
        if (exit._tag === "Failure") {
          const failure = Cause.findErrorOption(exit.cause)
          assert.isTrue(Option.isSome(failure), `${json.slice(0, 300)}: ${Cause.pretty(exit.cause).slice(0, 600)}`)
        } else {
          // Acknowledged: a replay is acknowledged and records nothing new.
          const again = yield* intake.receive(accountId, request)
          assert.strictEqual(JSON.parse(again.body).recorded, 0, json.slice(0, 300))
        }
      }
      // Whatever was recorded is applied or waits for its parcel: the applier takes all of it.
      const drained = yield* drain
      assert.strictEqual(drained.claimed, drained.applied + drained.deferred)
    })
  )

  it.effect("refuses a request it cannot verify, recording nothing of it", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const orders = yield* Orders.Orders
      const accounts = yield* CourierAccounts
      const { storeId, accountId, order, trackingNumber } = yield* shipped
      const event: Sent = {
        id: "e-9",
        tracking: trackingNumber,
        status: "DELIVERED",
        at: (yield* Clock.currentTimeMillis) + 60_000
      }
      const before = yield* orders.get(storeId, order.id)
      for (const request of [post([event], "another-secret"), post([event], null)]) {
        const refused = yield* refusal(accountId, request)
        assert.instanceOf(refused, HookRefused)
        assert.strictEqual((refused as HookRefused).reason, "signature")
      }
      const nope = new TextEncoder().encode("{nope")
      const garbled: Push.PushRequest = {
        method: "POST",
        query: {},
        headers: { "x-test-signature": Push.hmacSha256(SECRET, nope).toString("hex") },
        body: nope
      }
      assert.strictEqual(((yield* refusal(accountId, garbled)) as HookRefused).reason, "malformed")
      assert.deepStrictEqual(yield* orders.get(storeId, order.id), before)
      // Nothing was recorded: the same event, signed, is new.
      assert.strictEqual(
        (yield* intake.receive(accountId, post([event]))).body,
        JSON.stringify({ received: 1, recorded: 1 })
      )

      const unknown = (yield* refusal(2_000_000_000, post([event]))) as HookRefused
      assert.deepStrictEqual(
        [unknown.reason, unknown.message],
        ["unknown_account", "No courier account receives pushes here"]
      )
      // An account of a courier that does not push is no receiver either.
      const polled = yield* accounts.create(storeId, { courier: "relay", label: "R", credentials: { token: "t" } })
      assert.strictEqual(((yield* refusal(polled.id, post([event]))) as HookRefused).reason, "unknown_account")
      // A pushing courier's account without a secret cannot verify anything.
      const bare = yield* accounts.create(storeId, { courier: "pusher", label: "P", credentials: { token: "t" } })
      assert.strictEqual(((yield* refusal(bare.id, post([event]))) as HookRefused).reason, "signature")
    })
  )

  it.effect("keeps an event for a parcel it does not know yet, and applies it when the shipment is attached", () =>
    Effect.gen(function* () {
      const intake = yield* PushIntake
      const fixture = yield* Backends.Fixture
      const accounts = yield* CourierAccounts
      const storeId = yield* fixture.store
      const account = yield* accounts.create(storeId, {
        courier: "pusher",
        label: "Pusher",
        credentials: { token: "t" },
        webhook_secret: SECRET
      })
      const order = yield* fixture.order(storeId)
      // The courier pushes about its new parcel before our create's answer is attached.
      const next = `PUSHER-${TestCouriers.desk.created + 1}`
      const at = (yield* Clock.currentTimeMillis) + 60_000
      assert.strictEqual(
        (yield* intake.receive(account.id, post([{ id: "early", tracking: next, status: "PICKED", at }]))).body,
        JSON.stringify({ received: 1, recorded: 1 })
      )
      // The applier finds no shipment for it: it waits.
      assert.isAtLeast((yield* drain).deferred, 1)
      const tracking = yield* TrackingStore
      const names = { trackingNumber: next, courierReference: null, reference: "none" }
      assert.deepStrictEqual(
        (yield* tracking.pendingPushed(account.id, names)).map((row) => row.key),
        ["id:early"]
      )
      const shipped = yield* (yield* Shipments).ship(storeId, order.id, { account_id: account.id })
      assert.strictEqual(shipped.shipment!.tracking_number, next)
      assert.deepStrictEqual(
        [shipped.status, shipped.shipment!.status, shipped.shipment!.timeline.at(-1)!.source],
        ["shipped", "picked_up", "push"]
      )
      // Applied once: nothing waits any more.
      assert.isFalse(
        yield* intake.applyPending({
          accountId: account.id,
          courier: "pusher",
          storeId,
          orderId: order.id,
          trackingNumber: next,
          courierReference: null,
          reference: shipped.order_number
        })
      )
    })
  )
}

describe("PushIntake", () => {
  layer(Backends.memory([pusher, relay]))("memory", (it) => suite(it))

  for (const backend of Backends.backends) {
    layer(Backends.sql(backend, [pusher, relay]), { excludeTestServices: true, timeout: "120 seconds" })(
      `sql (${backend.name})`,
      (it) => suite(it)
    )
  }
})
