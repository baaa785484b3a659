import { assert, describe, it } from "@effect/vitest"
import { CourierAdapter, CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { RateLimiter } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as ClientWindow from "../src/ClientWindow.ts"
import * as Gateway from "../src/Gateway.ts"
import { Catalogue, Shipping } from "../src/index.ts"

const order = Schema.decodeUnknownSync(Shipment.ParcelOrder)({
  recipient: { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
})

/**
 * A courier whose create does what the order's `notes` say: `refuse`, `refuse-after-create` (a parcel made, its
 * follow-up step refused), `reject-credentials`, `hang` (until `release` completes) or, by default, create `T-<n>`. `calls` counts the creates that reached it.
 */
const testCourier = Effect.gen(function* () {
  const release = yield* Deferred.make<void>()
  let calls = 0
  let dispatches = 0
  const adapter = CourierAdapter.define({
    platform: "test",
    couriers: [{ key: "testco", name: "Test Co", aliases: ["tc"], endpoint: { origin: "https://api.test.dz" } }],
    statuses: { created: "pending_pickup", held: "created" },
    operations: {
      // `T-refuse` is refused; `T-down` gets no answer; any other is dispatched.
      dispatch: (trackingNumber) =>
        Effect.gen(function* () {
          dispatches++
          if (trackingNumber === "T-refuse") return yield* new CourierError.Refused({ message: "already validated" })
          if (trackingNumber === "T-down") return yield* new CourierError.Unreachable({ message: "no answer" })
          return { rawStatus: "created" }
        }),
      create: (parcel, { dispatch }) =>
        Effect.gen(function* () {
          const call = ++calls
          switch (parcel.notes) {
            case "refuse":
              return yield* new CourierError.Refused({ message: "commune not served" })
            case "refuse-after-create":
              return yield* CourierError.unfinishedCreate(
                `T-${call}`,
                { failed: "did not validate it", consequence: "it exists", remedy: "Validate it" },
                new CourierError.Refused({ message: "validation closed" })
              )
            case "reject-credentials":
              return yield* new CourierError.CredentialsRejected({ message: "bad token" })
            case "hang":
              yield* Deferred.await(release)
          }
          return { trackingNumber: `T-${call}`, rawStatus: dispatch === false ? "held" : "created" }
        })
    }
  })
  const transport = Layer.succeed(
    Shipping.Transport,
    Shipping.Transport.of({ bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
  )
  const gateway = (
    options: Gateway.Options,
    store: Layer.Layer<RateLimiter.RateLimiterStore> = ClientWindow.layerStoreMemory()
  ) =>
    Gateway.layer(options).pipe(
      Layer.provide(Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(Layer.provide(transport))),
      // A retry of a key still held waits this long for it before `InFlight`.
      Layer.provide(Idempotency.layer({ wait: "100 millis" }).pipe(Layer.provide(IdempotencyStore.layerMemory))),
      Layer.provide(store)
    )
  return { gateway, release, calls: () => calls, dispatches: () => dispatches }
})

const withGateway = <A, E>(
  options: Partial<Gateway.Options>,
  body: (gateway: Gateway.Gateway["Service"], courier: Effect.Success<typeof testCourier>) => Effect.Effect<A, E, never>
) =>
  Effect.gen(function* () {
    const courier = yield* testCourier
    return yield* Effect.flatMap(Gateway.Gateway, (gateway) => body(gateway, courier)).pipe(
      Effect.provide(courier.gateway({ requestsPerMinute: 3, maxConcurrentCreates: 2, ...options }))
    )
  })

const courierError = (reason: CourierError.CourierErrorReason) =>
  new CourierError.CourierError({ courier: "testco", operation: "create", reason })

const create = (notes?: string) => ({ courier: "tc", order: notes === undefined ? order : { ...order, notes } })

describe("Gateway", () => {
  describe("admit: the per-client window", () => {
    it.effect("admits the limit per client, then refuses with the wait until the window ends", () =>
      withGateway({}, (gateway) =>
        Effect.gen(function* () {
          for (let i = 0; i < 3; i++) yield* gateway.admit("10.0.0.1")
          const refused = yield* Effect.flip(gateway.admit("10.0.0.1"))
          assert.strictEqual(refused._tag, "ClientRateLimited")
          assert.strictEqual(refused.retryAfterSeconds, 60)
          assert.strictEqual(refused.message, "more than 3 requests in a minute from this client")
          yield* gateway.admit("10.0.0.2")
          yield* TestClock.adjust("30 seconds")
          assert.strictEqual((yield* Effect.flip(gateway.admit("10.0.0.1"))).retryAfterSeconds, 30)
          yield* TestClock.adjust("30 seconds")
          yield* gateway.admit("10.0.0.1")
        })
      )
    )

    it.effect("the memory store drops windows once they are over", () =>
      Effect.gen(function* () {
        const { store, windows } = yield* ClientWindow.makeStoreMemory({ sweepEvery: "1 minute" })
        const window = yield* ClientWindow.make({ limit: 5 }).pipe(
          Effect.provide(RateLimiter.layer),
          Effect.provideService(RateLimiter.RateLimiterStore, store)
        )
        for (let client = 0; client < 100; client++) yield* window.admit(`client-${client}`)
        assert.strictEqual(windows(), 100)
        yield* TestClock.adjust("2 minutes")
        yield* window.admit("late")
        assert.strictEqual(windows(), 1, "the hundred closed windows were swept")
      })
    )
  })

  describe("the door: Door.decide and atDoor", () => {
    it.effect(
      "counts in the windows admit counts in, by a plain call where they are in process; full creates are overloaded",
      () =>
        withGateway({}, (gateway) =>
          Effect.gen(function* () {
            const door = gateway.door
            assert.isDefined(door, "a plain door where the window counts in this process")
            if (door === undefined) return
            assert.isUndefined(door.decide("10.0.0.3", false))
            yield* gateway.admit("10.0.0.3")
            yield* gateway.admit("10.0.0.3")
            assert.deepStrictEqual(door.decide("10.0.0.3", false), {
              limit: 3,
              window: "a minute",
              retryAfterSeconds: 60
            })
            assert.strictEqual((yield* Effect.flip(gateway.admit("10.0.0.3")))._tag, "ClientRateLimited")
            assert.deepStrictEqual(yield* gateway.atDoor("10.0.0.3", false), {
              limit: 3,
              window: "a minute",
              retryAfterSeconds: 60
            })
            yield* TestClock.adjust("1 minute")
            assert.isUndefined(door.decide("10.0.0.3", true), "a new window, and places free")
          })
        )
    )

    it.effect("turns a create away as overloaded while the guard is full, and lets other requests through", () =>
      withGateway({ requestsPerMinute: 100 }, (gateway) =>
        Effect.gen(function* () {
          const door = gateway.door
          if (door === undefined) return assert.fail("a plain door where the window counts in this process")
          const first = yield* Effect.forkChild(gateway.create(create("hang")))
          const second = yield* Effect.forkChild(gateway.create(create("hang")))
          yield* Effect.yieldNow
          assert.strictEqual(door.decide("10.0.0.4", true), "overloaded")
          assert.strictEqual(yield* gateway.atDoor("10.0.0.4", true), "overloaded")
          assert.isUndefined(door.decide("10.0.0.4", false))
          yield* Fiber.interrupt(first)
          assert.isUndefined(door.decide("10.0.0.4", true))
          assert.isUndefined(yield* gateway.atDoor("10.0.0.4", true))
          yield* Fiber.interrupt(second)
        })
      )
    )

    it.effect("has no plain door where the window counts outside this process; atDoor answers the same", () =>
      Effect.gen(function* () {
        const courier = yield* testCourier
        const gateway = yield* Gateway.Gateway.pipe(
          Effect.provide(
            courier.gateway({ requestsPerMinute: 1, maxConcurrentCreates: 2 }, RateLimiter.layerStoreMemory)
          )
        )
        assert.isUndefined(gateway.door, "effect's own store is not counted by a plain call")
        assert.isUndefined(yield* gateway.atDoor("10.0.0.5", true))
        assert.deepStrictEqual(yield* gateway.atDoor("10.0.0.5", false), {
          limit: 1,
          window: "a minute",
          retryAfterSeconds: 60
        })
      })
    )
  })

  describe("create", () => {
    it.effect("turns creates away with Overloaded while the guard is full, and frees places however they end", () =>
      withGateway({}, (gateway, courier) =>
        Effect.gen(function* () {
          const first = yield* Effect.forkChild(gateway.create(create("hang")))
          const second = yield* Effect.forkChild(gateway.create(create("hang")))
          yield* Effect.yieldNow
          const turnedAway = yield* Effect.flip(gateway.create(create()))
          assert.strictEqual(turnedAway._tag, "Overloaded")
          assert.strictEqual(courier.calls(), 2, "the third create reached no courier")
          yield* Fiber.interrupt(first)
          const created = yield* gateway.create(create())
          assert.strictEqual(created.trackingNumber, "T-3", "the interrupted create gave its place back")
          yield* Deferred.succeed(courier.release, undefined)
          assert.strictEqual((yield* Fiber.join(second)).trackingNumber, "T-2")
          yield* Effect.flip(gateway.create(create("refuse")))
          yield* Effect.flip(gateway.create(create("refuse")))
          assert.strictEqual((yield* gateway.create(create())).status, "pending_pickup", "failures gave theirs back")
        })
      )
    )

    it.effect("an Idempotency-Key replays the first parcel and creates none; another request with it is refused", () =>
      withGateway({}, (gateway, courier) =>
        Effect.gen(function* () {
          const first = yield* gateway.create(create(), "order-1")
          const again = yield* gateway.create(create(), "order-1")
          assert.deepStrictEqual(again, first)
          assert.strictEqual(courier.calls(), 1)
          const reused = yield* Effect.flip(
            gateway.create({ ...create(), order: { ...order, productList: "2x robe" } }, "order-1")
          )
          assert.strictEqual(reused._tag, "KeyReused")
          const malformed = yield* Effect.flip(gateway.create(create(), "not a key!"))
          assert.strictEqual(malformed._tag, "InvalidKey")
        })
      )
    )

    it.live("frees the key after a failure that created nothing, keeps it after one that may have", () =>
      withGateway({}, (gateway, courier) =>
        Effect.gen(function* () {
          const rejected = yield* Effect.flip(gateway.create(create("reject-credentials"), "k-1"))
          assert.strictEqual(rejected._tag, "CourierError")
          yield* Effect.flip(gateway.create(create("reject-credentials"), "k-1"))
          assert.strictEqual(courier.calls(), 2, "the retry ran again")
          yield* Effect.flip(gateway.create(create("refuse"), "k-2"))
          yield* Effect.flip(gateway.create(create("refuse"), "k-2"))
          assert.strictEqual(courier.calls(), 4, "a plain refusal made nothing: the retry ran again")
          yield* Effect.flip(gateway.create(create("refuse-after-create"), "k-3"))
          const retried = yield* Effect.flip(gateway.create(create("refuse-after-create"), "k-3"))
          assert.strictEqual(retried._tag, "InFlight", "a refusal naming a created parcel keeps the claim")
          assert.strictEqual(courier.calls(), 5)
        })
      )
    )
  })

  describe("dispatch", () => {
    it.effect("creates undispatched and dispatches later; the dispatch flag is part of what a key fingerprints", () =>
      withGateway({}, (gateway, courier) =>
        Effect.gen(function* () {
          const created = yield* gateway.create({ ...create(), dispatch: false }, "k-held")
          assert.strictEqual(created.status, "created")
          const reused = yield* Effect.flip(gateway.create(create(), "k-held"))
          assert.strictEqual(reused._tag, "KeyReused", "a dispatched create is another request than a held one")
          const dispatched = yield* gateway.dispatch({ courier: "tc", trackingNumber: created.trackingNumber })
          assert.deepStrictEqual(
            { ...dispatched },
            { trackingNumber: created.trackingNumber, status: "pending_pickup", rawStatus: "created" }
          )
          assert.strictEqual(courier.dispatches(), 1)
        })
      )
    )

    it.live("an Idempotency-Key replays the first dispatch; a refusal frees it, no answer keeps it", () =>
      withGateway({}, (gateway, courier) =>
        Effect.gen(function* () {
          const first = yield* gateway.dispatch({ courier: "tc", trackingNumber: "T-9" }, "d-1")
          const again = yield* gateway.dispatch({ courier: "tc", trackingNumber: "T-9" }, "d-1")
          assert.deepStrictEqual({ ...again }, { ...first })
          assert.strictEqual(courier.dispatches(), 1, "the replay did not reach the courier")
          const other = yield* Effect.flip(gateway.dispatch({ courier: "tc", trackingNumber: "T-8" }, "d-1"))
          assert.strictEqual(other._tag, "KeyReused")
          const cancelled = yield* Effect.flip(gateway.cancel({ courier: "tc", trackingNumber: "T-9" }, "d-1"))
          assert.strictEqual(cancelled._tag, "KeyReused", "a cancel with a dispatch's key is another request")
          yield* Effect.flip(gateway.dispatch({ courier: "tc", trackingNumber: "T-refuse" }, "d-2"))
          yield* Effect.flip(gateway.dispatch({ courier: "tc", trackingNumber: "T-refuse" }, "d-2"))
          assert.strictEqual(courier.dispatches(), 3, "a refused dispatch changed nothing: the retry ran again")
          yield* Effect.flip(gateway.dispatch({ courier: "tc", trackingNumber: "T-down" }, "d-3"))
          const held = yield* Effect.flip(gateway.dispatch({ courier: "tc", trackingNumber: "T-down" }, "d-3"))
          assert.strictEqual(held._tag, "InFlight", "a dispatch that got no answer may have happened: its key is kept")
          assert.strictEqual(courier.dispatches(), 4)
        })
      )
    )
  })

  it("frees the key for the failures that certainly created nothing, and only those", () => {
    const samples: ReadonlyArray<[Gateway.CreateError, boolean]> = [
      [new Shipping.UnknownCourier({ courier: "x" }), true],
      [new Shipping.NotAMobile({ field: "order.recipient.phone" }), true],
      [courierError(new CourierError.Unreachable({ message: "down" })), false],
      [courierError(new CourierError.BadResponse({ message: "html" })), false],
      [courierError(new CourierError.Refused({ message: "no" })), true],
      [courierError(new CourierError.Refused({ message: "made, not validated", created: "T-1" })), false],
      [courierError(new CourierError.CredentialsRejected({ message: "no" })), true],
      [courierError(new CourierError.CourierRateLimited({ retryAfterSeconds: 3 })), true],
      [
        new CourierError.CourierError({
          courier: "testco",
          operation: "dispatch",
          reason: new CourierError.Unreachable({ message: "down" })
        }),
        false
      ],
      [
        new CourierError.CourierError({
          courier: "testco",
          operation: "dispatch",
          reason: new CourierError.Refused({ message: "unknown tracking" })
        }),
        true
      ]
    ]
    for (const [error, expected] of samples) assert.strictEqual(Gateway.createdNothing(error), expected, error._tag)
  })
})
