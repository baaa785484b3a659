/**
 * The shipping API's capacity guard through the whole app in this process (`AppInProcess`) with one place for
 * creates (`SHIPPING_MAX_CONCURRENT_CREATES=1`), a create hung at a loopback fake of Ecotrack holding it: creates are
 * turned away at the door with 503 and Retry-After, and the place comes back when the hung create ends or its caller
 * goes away. The Ecotrack adapter's other checks share the platforms' app (`platforms/Ecotrack.ts`).
 */
import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Fiber, Layer } from "effect"
import { EcotrackFake, TOKEN } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { postJson } from "../AppProcess.ts"
import { dzship, rejected } from "../Dzship.ts"
import { type AppInProcess, startApp } from "./AppInProcess.ts"
import { createsSince } from "./platforms/Ecotrack.ts"

const order = {
  reference: "cmd-77",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
}

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/** The fake courier and an app with one place for creates whose DHD origin points at it. */
class Setup extends Context.Service<Setup, { readonly fake: EcotrackFake["Service"]; readonly app: AppInProcess }>()(
  "test/couriers/CreateCapacity/Setup"
) {}

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = Context.get(
      yield* Layer.build(EcotrackFake.layer({ tokens: [TOKEN], perMinute: 10_000 })),
      EcotrackFake
    )
    const app = yield* startApp({
      DATA_DIR: yield* TestDatabase.migratedDataDir,
      TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${fake.origin}`,
      SHIPPING_RATE_LIMIT_PER_MINUTE: "100000",
      SHIPPING_MAX_CONCURRENT_CREATES: "1"
    })
    return { fake, app }
  })
)

layer(SetupLive, { timeout: "120 seconds", excludeTestServices: true })(
  "the shipping API with the Ecotrack adapter and one place for creates",
  (it) => {
    it.effect("turns creates away with 503 and Retry-After while the capacity guard is full", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const call = { courier: "dhd", credentials: { token: TOKEN }, options: { timeoutMs: 2000 } }
        const creates = createsSince(fake)
        fake.misbehaveNext({ kind: "hang" }, "/api/v1/create/order")
        const first = yield* Effect.forkChild(post(app, "/v1/orders", { ...call, order }))
        // Until the create hangs at the courier (holding the place), however slow the machine.
        const hanging = () => creates() > 0
        for (let waited = 0; !hanging() && waited < 5_000; waited += 10) yield* Effect.sleep("10 millis")
        // Through the public client, as integrators see it: DzshipError.status, .code and .retryAfter.
        const second = yield* rejected(dzship({ ...call, gateway: app.shippingUrl }).createOrder(order as never))
        assert.strictEqual(second.status, 503)
        assert.strictEqual(second.code, "overloaded")
        assert.isAbove(second.retryAfter ?? 0, 0)
        // A create turned away never held a place, so it gave none back: the first still holds the only one.
        const again = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(again.status, 503)
        // Decided at the door, before the body is read: a body that is not even JSON is turned away the same.
        const unread = yield* Effect.promise(() =>
          fetch(`${app.shippingUrl}/v1/orders`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "not json"
          })
        )
        assert.strictEqual(unread.status, 503)
        assert.strictEqual(
          ((yield* Effect.promise(() => unread.json())) as { error: { code: string } }).error.code,
          "overloaded"
        )
        const firstResult = yield* Fiber.join(first)
        assert.strictEqual(firstResult.status, 502, "the hung create timed out")
        assert.strictEqual(firstResult.json.error.code, "courier_unreachable")
        fake.misbehaveNext({ kind: "status", status: 500 })
        const down = yield* rejected(dzship({ ...call, gateway: app.shippingUrl }).track("ECT1"))
        assert.strictEqual(down.status, 502)
        assert.strictEqual(down.code, "courier_unreachable")
        const third = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(third.status, 200, "the guard frees its place")
      })
    )

    it.effect("gives the capacity guard's place back when the caller goes away mid-create", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        // Long enough that only the caller's going away, not the courier timeout, can end the hung create in time.
        const call = { courier: "dhd", credentials: { token: TOKEN }, options: { timeoutMs: 30000 } }
        const creates = createsSince(fake)
        fake.misbehaveNext({ kind: "hang" }, "/api/v1/create/order")
        const abort = new AbortController()
        const first = fetch(`${app.shippingUrl}/v1/orders`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...call, order }),
          signal: abort.signal
        }).then(
          () => "answered",
          () => "aborted"
        )
        // Until the create hangs at the courier (holding the place), however slow the machine.
        const hanging = () => creates() > 0
        for (let waited = 0; !hanging() && waited < 5_000; waited += 10) yield* Effect.sleep("10 millis")
        const busy = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(busy.status, 503, "the hung create holds the only place")
        abort.abort()
        assert.strictEqual(yield* Effect.promise(() => first), "aborted")
        // The server interrupts the create when its caller's connection closes, and the place is free again.
        const started = Date.now()
        let next = yield* post(app, "/v1/orders", { ...call, order })
        while (next.status === 503 && Date.now() - started < 5_000) {
          yield* Effect.sleep("20 millis")
          next = yield* post(app, "/v1/orders", { ...call, order })
        }
        assert.strictEqual(next.status, 200, next.text)
      })
    )
  }
)
