/**
 * The poller's cycle (`Poller.make(...).cycle`) on memory, the embedded database and (with `DATABASE_URL`) the real
 * server, against test couriers that count every call: due parcels read 100 at a time where the courier has a batch
 * read, each account held to its budget under its declared limits, a failed read giving its claims back, terminal
 * parcels no longer read, and two pollers on one database reading each parcel once.
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import type { Ids } from "@tawsil/domain"
import { Orders } from "@tawsil/orders"
import { Secrets } from "@tawsil/secrets"
import type { Gateway } from "@tawsil/shipping"
import { Clock, Duration, Effect, Redacted } from "effect"
import * as CourierAccount from "../src/CourierAccount.ts"
import { CourierAccountStore } from "../src/CourierAccountStore.ts"
import { CourierAccounts } from "../src/CourierAccounts.ts"
import * as Poller from "../src/Poller.ts"
import { Shipments } from "../src/Shipments.ts"
import { TrackingStore } from "../src/TrackingStore.ts"
import * as Backends from "./Backends.ts"
import * as TestCouriers from "./TestCouriers.ts"

const batcher = TestCouriers.courier({ key: "batcher" })
/** One parcel a call, at most 10 calls a minute: 4 a 30-second cycle under 80 %. */
const single = TestCouriers.courier({ key: "single", batch: false, rateLimits: [{ limit: 10, window: "1 minute" }] })
/** One call a minute: 0.4 a 30-second cycle, so one call every third cycle. */
const slow = TestCouriers.courier({ key: "slow", batch: false, rateLimits: [{ limit: 1, window: "1 minute" }] })

const options: Poller.Options = {
  every: Duration.seconds(30),
  claim: 2000,
  lease: Duration.minutes(5),
  timeout: Duration.seconds(10)
}

type Services =
  | Shipments
  | CourierAccounts
  | CourierAccountStore
  | Secrets.Secrets
  | TrackingStore
  | Orders.Orders
  | Gateway.Gateway
  | Backends.Fixture

/** The account's credentials replaced as the store would keep them; undefined: replaced by a value nothing opens. */
const setCredentials = (accountId: number, credentials: Record<string, string> | undefined) =>
  Effect.gen(function* () {
    const store = yield* CourierAccountStore
    const account = (yield* store.findById(accountId))!
    const sealed =
      credentials === undefined
        ? "tws1.unreadable.value"
        : yield* Effect.orDie(
            (yield* Secrets.Secrets).seal(
              Redacted.make(CourierAccount.canonical(credentials)),
              CourierAccount.sealedAt(account.storeId, account.courier, "credentials")
            )
          )
    assert.isTrue(yield* store.replaceSealed("credentials", accountId, account.credentials, sealed))
  })

const suite = (it: Vitest.MethodsNonLive<Services>, concurrent: boolean) => {
  /** Nothing of another test left due: everything followed so far is read as done. */
  const quiet = Effect.gen(function* () {
    const tracking = yield* TrackingStore
    yield* (yield* Backends.Fixture).elapse("30 days")
    const left = yield* tracking.claimDue(1_000_000, Duration.minutes(1))
    yield* Effect.forEach(left, (check) => tracking.finish(check.orderId), { discard: true })
  })

  /** A store with an account at `courier`, and `count` orders shipped through it. */
  const shippedWith = (courier: string, count: number, token = "t") =>
    Effect.gen(function* () {
      const fixture = yield* Backends.Fixture
      const shipments = yield* Shipments
      const storeId = yield* fixture.store
      const account = yield* (yield* CourierAccounts).create(storeId, {
        courier,
        label: courier,
        credentials: { token }
      })
      const parcels: Array<{ readonly orderId: number; readonly trackingNumber: string }> = []
      for (let index = 0; index < count; index++) {
        const order = yield* fixture.order(storeId)
        const shipped = yield* shipments.ship(storeId, order.id, { account_id: account.id })
        parcels.push({ orderId: order.id, trackingNumber: shipped.shipment!.tracking_number })
      }
      return { storeId, accountId: account.id, parcels }
    })

  /** A store with an account at `courier` and a backlog of `count` parcels shipped through it, due in 4 hours. */
  const backlogOf = (
    courier: string,
    count: number,
    into?: { readonly storeId: Ids.StoreId; readonly accountId: number }
  ) =>
    Effect.gen(function* () {
      const fixture = yield* Backends.Fixture
      const storeId = into?.storeId ?? (yield* fixture.store)
      const accountId =
        into?.accountId ??
        (yield* (yield* CourierAccounts).create(storeId, { courier, label: courier, credentials: { token: "t" } })).id
      const parcels = yield* fixture.backlog(storeId, { id: accountId, courier }, count)
      const now = yield* Clock.currentTimeMillis
      for (const parcel of parcels) TestCouriers.desk.hold(courier, parcel.trackingNumber, now)
      return { storeId, accountId, parcels }
    })

  /** What the courier was asked for tracking since `from` calls: the sizes of its reads. */
  const readsSince = (courier: string, from: number) =>
    TestCouriers.desk
      .callsOf(courier)
      .slice(from)
      .filter((call) => call.operation === "track" || call.operation === "trackBatch")
      .map((call) => call.parcels.length)

  const callCount = (courier: string) => TestCouriers.desk.callsOf(courier).length

  it.effect("reads due parcels 100 at a time, applies what it reads, and stops at terminal statuses", () =>
    Effect.gen(function* () {
      yield* quiet
      const poller = yield* Poller.make(options)
      const orders = yield* Orders.Orders
      const fixture = yield* Backends.Fixture
      const { storeId, parcels } = yield* backlogOf("batcher", 101)
      const [delivered, out, returned] = parcels as [(typeof parcels)[0], (typeof parcels)[0], (typeof parcels)[0]]
      const now = yield* Clock.currentTimeMillis
      TestCouriers.desk.report(delivered.trackingNumber, "DELIVERED", now + 60_000)
      TestCouriers.desk.report(out.trackingNumber, "OUT", now + 60_000)
      TestCouriers.desk.report(returned.trackingNumber, "RETURNED", now + 60_000)
      // Nothing is due before the 4 hours of a parcel waiting for pickup.
      assert.deepStrictEqual(yield* poller.cycle, { claimed: 0, checked: 0, released: 0, calls: 0 })
      yield* fixture.elapse("4 hours")
      const from = callCount("batcher")
      assert.deepStrictEqual(yield* poller.cycle, { claimed: 101, checked: 101, released: 0, calls: 2 })
      assert.deepStrictEqual(readsSince("batcher", from), [100, 1])
      const status = (orderId: number) =>
        Effect.map(orders.get(storeId as Ids.StoreId, orderId), (order) => order.status)
      assert.deepStrictEqual(
        [yield* status(delivered.orderId), yield* status(out.orderId), yield* status(returned.orderId)],
        ["delivered", "shipped", "returned"]
      )
      // Read again only when due: out for delivery in 30 minutes, the others in 4 hours, terminal ones never.
      assert.deepStrictEqual((yield* poller.cycle).claimed, 0)
      yield* fixture.elapse("31 minutes")
      const soon = callCount("batcher")
      assert.deepStrictEqual(yield* poller.cycle, { claimed: 1, checked: 1, released: 0, calls: 1 })
      assert.deepStrictEqual(readsSince("batcher", soon), [1])
      yield* fixture.elapse("4 hours")
      const tracking = yield* TrackingStore
      const due = yield* tracking.claimDue(10_000, Duration.minutes(1))
      yield* tracking.release(due.map((check) => check.orderId))
      const ids = new Set(due.map((check) => check.orderId))
      assert.deepStrictEqual(
        [delivered, out, returned].map((parcel) => ids.has(parcel.orderId)),
        [false, true, false],
        "the delivered and the returned parcels are read no more"
      )
      assert.strictEqual(parcels.filter((parcel) => ids.has(parcel.orderId)).length, 99)
    })
  )

  it.effect("keeps each account under its budget, which accrues with the time between cycles", () =>
    Effect.gen(function* () {
      yield* quiet
      const poller = yield* Poller.make(options)
      const fixture = yield* Backends.Fixture
      const metered = yield* shippedWith("single", 10)
      const crawling = yield* shippedWith("slow", 2)
      yield* fixture.elapse("4 hours")
      /** `single`'s reads in each cycle run. */
      const singleCalls: Array<number> = []
      /** A cycle, then the interval's wait. */
      const cycle = Effect.gen(function* () {
        const before = callCount("single")
        const report = yield* poller.cycle
        singleCalls.push(callCount("single") - before)
        yield* fixture.elapse("30 seconds")
        return report
      })
      const reports = []
      for (let index = 0; index < 3; index++) reports.push(yield* cycle)
      assert.deepStrictEqual(reports, [
        // 4 reads of `single` and none of `slow` (0.4 of a call); everything else given back, due as it was.
        { claimed: 12, checked: 4, released: 8, calls: 4 },
        { claimed: 8, checked: 4, released: 4, calls: 4 },
        // `single` has 2 left to read; `slow` has saved up 1.2 calls.
        { claimed: 4, checked: 3, released: 1, calls: 3 }
      ])
      // Each parcel read once, whichever cycle read it.
      const reads = TestCouriers.desk.reads("single")
      assert.deepStrictEqual(
        metered.parcels.map((parcel) => reads.get(parcel.trackingNumber)),
        Array(10).fill(1)
      )
      assert.strictEqual(TestCouriers.desk.reads("slow").get(crawling.parcels[0]!.trackingNumber), 1)

      // The third cycle left 2 of its 4 calls to `single` unspent: the next one still makes at most an interval's 4,
      // however long since, so no minute (two cycles) sees more than 8 calls, 80 % of its 10.
      yield* backlogOf("single", 10, metered)
      yield* fixture.elapse("4 hours")
      for (let index = 0; index < 3; index++) yield* cycle
      assert.deepStrictEqual(singleCalls, [4, 4, 2, 4, 4, 4])
      for (let index = 1; index < singleCalls.length; index++) {
        assert.isAtMost(singleCalls[index - 1]! + singleCalls[index]!, 8)
      }
    })
  )

  it.effect("gives a failed read's claims back, due as they were; an account it cannot open is asked nothing", () =>
    Effect.gen(function* () {
      yield* quiet
      const poller = yield* Poller.make(options)
      const fixture = yield* Backends.Fixture
      const tracking = yield* TrackingStore
      const down = yield* shippedWith("batcher", 3)
      // The courier stops answering this account (the token it checks now fails).
      yield* setCredentials(down.accountId, { token: "down" })
      yield* fixture.elapse("4 hours")
      const from = callCount("batcher")
      assert.deepStrictEqual(yield* poller.cycle, { claimed: 3, checked: 0, released: 3, calls: 1 })
      assert.deepStrictEqual(readsSince("batcher", from), [3])
      // Claimable again at once, by this instance or another.
      const again = yield* tracking.claimDue(100, Duration.minutes(1))
      assert.deepStrictEqual(
        again.map((check) => check.orderId).sort(),
        down.parcels.map((parcel) => parcel.orderId).sort()
      )
      yield* tracking.release(again.map((check) => check.orderId))
      // A courier read one parcel a call fails parcel by parcel: those are given back too, and the rest not asked.
      const one = yield* shippedWith("single", 3)
      yield* setCredentials(one.accountId, { token: "down" })
      yield* setCredentials(down.accountId, undefined)
      yield* fixture.elapse("4 hours")
      const fromSingle = callCount("single")
      const unopened = yield* poller.cycle
      // `batcher`'s account cannot be opened: 3 given back unasked; `single` was asked 3 (its budget is 4), all failed.
      assert.deepStrictEqual(unopened, { claimed: 6, checked: 0, released: 6, calls: 3 })
      assert.deepStrictEqual(readsSince("batcher", from), [3])
      assert.deepStrictEqual(readsSince("single", fromSingle), [1, 1, 1])
      const back = yield* tracking.claimDue(100, Duration.minutes(1))
      assert.strictEqual(back.length, 6, "every claim given back, due as it was")
      yield* quiet
    })
  )

  it.effect("reads a parcel the courier does not know again later, moving nothing", () =>
    Effect.gen(function* () {
      yield* quiet
      const poller = yield* Poller.make(options)
      const fixture = yield* Backends.Fixture
      const orders = yield* Orders.Orders
      const { storeId, parcels } = yield* shippedWith("batcher", 2)
      TestCouriers.desk.parcels.delete(parcels[0]!.trackingNumber)
      const before = yield* orders.get(storeId, parcels[0]!.orderId)
      yield* fixture.elapse("4 hours")
      assert.deepStrictEqual(yield* poller.cycle, { claimed: 2, checked: 2, released: 0, calls: 1 })
      assert.deepStrictEqual(yield* orders.get(storeId, parcels[0]!.orderId), before)
      assert.deepStrictEqual((yield* poller.cycle).claimed, 0)
      yield* fixture.elapse("4 hours")
      assert.deepStrictEqual((yield* poller.cycle).claimed, 2)
    })
  )

  it.effect("keeps whatever status text a courier answers as it can be stored, an unlisted one as unknown", () =>
    Effect.gen(function* () {
      yield* quiet
      const poller = yield* Poller.make(options)
      const fixture = yield* Backends.Fixture
      const orders = yield* Orders.Orders
      const { storeId, parcels } = yield* shippedWith("batcher", 1)
      const { trackingNumber, orderId } = parcels[0]!
      const now = yield* Clock.currentTimeMillis
      TestCouriers.desk.report(trackingNumber, `Bloqu\u0000é ${"!".repeat(3000)}`, now + 60_000)
      TestCouriers.desk.parcels
        .get(trackingNumber)!
        .events.push({ rawStatus: "DELIVERED", timestamp: "-200000-01-01T00:00:00Z" })
      yield* fixture.elapse("4 hours")
      assert.deepStrictEqual(yield* poller.cycle, { claimed: 1, checked: 1, released: 0, calls: 1 })
      const shipment = (yield* orders.get(storeId, orderId)).shipment!
      assert.deepStrictEqual(
        [shipment.status, shipment.raw_status.slice(0, 8), shipment.raw_status.length],
        ["unknown", "Bloqu\ufffdé ", 200]
      )
      // A time PostgreSQL cannot keep is read as no time: the event is kept and moves nothing.
      assert.isTrue(shipment.timeline.some((step) => step.raw_status === "DELIVERED"))
      assert.strictEqual((yield* orders.get(storeId, orderId)).status, "shipped")
    })
  )

  it.effect(
    concurrent
      ? "lets two pollers on one database read each due parcel once, polling concurrently"
      : "lets two pollers read each due parcel once",
    () =>
      Effect.gen(function* () {
        yield* quiet
        const fixture = yield* Backends.Fixture
        const small = { ...options, claim: 7 }
        const [one, two] = [yield* Poller.make(small), yield* Poller.make(small)]
        const { parcels } = yield* shippedWith("batcher", 40)
        yield* fixture.elapse("4 hours")
        const before = new Map(TestCouriers.desk.reads("batcher"))
        let claimed = 0
        for (;;) {
          const [a, b] = yield* Effect.all([one.cycle, two.cycle], { concurrency: 2 })
          if (a.claimed + b.claimed === 0) break
          claimed += a.claimed + b.claimed
        }
        assert.strictEqual(claimed, 40)
        const reads = TestCouriers.desk.reads("batcher")
        assert.deepStrictEqual(
          parcels.map((parcel) => (reads.get(parcel.trackingNumber) ?? 0) - (before.get(parcel.trackingNumber) ?? 0)),
          Array(40).fill(1)
        )
      })
  )
}

describe("Poller", () => {
  layer(Backends.memory([batcher, single, slow]))("memory", (it) => suite(it, false))

  for (const backend of Backends.backends) {
    layer(Backends.sql(backend, [batcher, single, slow]), { excludeTestServices: true, timeout: "120 seconds" })(
      `sql (${backend.name})`,
      (it) => suite(it, backend.name === "server")
    )
  }
})
