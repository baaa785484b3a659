/**
 * Couriers' commune lists kept by the host (issue 35, decision 0035), through the whole app in this process
 * (`AppInProcess`) against the loopback Ecotrack fake: a create whose list read fails (404, 500, a list that never
 * answers) still reaches the courier, in the reference spelling, and its answer says so; a list read once is kept,
 * and a second instance on the same Redis (`REDIS_URL`, as `.ci/run` sets it) reads none; without Redis each
 * instance keeps its own (the documented fallback). The caller's credentials are in no kept key or value, and in no
 * log line. The same two instances show the host's memory for adapters: a sandbox parcel cancelled through one
 * tracks as cancelled through the other on Redis.
 */
import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer, Option, Schedule } from "effect"
import { createClient } from "redis"
import { EcotrackFake, TOKEN } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { postJson } from "../AppProcess.ts"
import { type AppInProcess, startApp } from "./AppInProcess.ts"
import { createsSince } from "./platforms/Ecotrack.ts"

const redisUrl = process.env.REDIS_URL
const CANARY = "canary-4b9e27d1c03f-communes"
/** A tenant of this run only: its lists are this run's, whatever an earlier run left in Redis. */
const tenant = `https://lists-${process.pid}-${Date.now().toString(36)}.ecotrack.dz`
const call = { courier: "ecotrack", credentials: { token: CANARY }, options: { baseUrl: tenant } }
const LIST = "/api/v1/get/communes"

const order = {
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "bab ezouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
}

class Setup extends Context.Service<
  Setup,
  { readonly fake: EcotrackFake["Service"]; readonly first: AppInProcess; readonly second: AppInProcess }
>()("test/couriers/CommuneLists/Setup") {}

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = Context.get(
      yield* Layer.build(EcotrackFake.layer({ tokens: [TOKEN, CANARY], perMinute: 10_000 })),
      EcotrackFake
    )
    const env = {
      TAWSIL_COURIER_ORIGINS: `https://*.ecotrack.dz=${fake.origin}`,
      SHIPPING_RATE_LIMIT_PER_MINUTE: "100000",
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl })
    }
    const first = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir, ...env }, { within: 90_000 })
    const second = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir, ...env }, { within: 90_000 })
    return { fake, first, second }
  })
)

const create = (app: AppInProcess, options: Record<string, unknown> = {}) =>
  postJson(`${app.shippingUrl}/v1/orders`, { ...call, options: { ...call.options, ...options }, order })

layer(SetupLive, { timeout: "180 seconds", excludeTestServices: true })(
  "couriers' commune lists kept by the host",
  (it) => {
    it.effect("a create whose commune-list read fails (404, 500, no answer) reaches the courier and says so", () =>
      Effect.gen(function* () {
        const { fake, first, second } = yield* Setup
        const creates = createsSince(fake)
        const misbehaviours = [
          [{ kind: "status", status: 404 }, {}, "404"],
          [{ kind: "status", status: 500 }, {}, "500"],
          // The list gets a third of the caller's timeout; the create, what is left.
          [{ kind: "hang" }, { timeoutMs: 3000 }, "did not come within 1000 ms"]
        ] as const
        for (const [misbehaviour, options, why] of misbehaviours) {
          fake.misbehaveNext(misbehaviour, LIST)
          const created = yield* create(first, options)
          assert.strictEqual(created.status, 200, `${why}: ${created.text}`)
          assert.strictEqual(created.json.status, "pending_pickup")
          assert.deepStrictEqual(
            [created.json.commune.requested, created.json.commune.sent, created.json.commune.corrected],
            ["bab ezouar", "Bab Ezzouar", true],
            "the reference spelling"
          )
          assert.include(created.json.commune.warning, "the courier's commune list could not be read", why)
          assert.include(created.json.commune.warning, "ecotrack communes:", why)
          assert.include(created.json.commune.warning, why)
        }
        assert.strictEqual(creates(), 3, "every create reached the courier")
        // The log is written in batches: poll for the warning line. (The two apps share this process's stdout, which
        // the later one captures from its start.)
        const logged = yield* Effect.sync(() => first.stdout() + second.stdout()).pipe(
          Effect.repeat({
            until: (stdout) => stdout.includes("courier commune list unavailable"),
            schedule: Schedule.spaced("10 millis")
          }),
          Effect.timeoutOption("5 seconds")
        )
        assert.isTrue(Option.isSome(logged), "the fallback is logged as a warning")
      })
    )

    it.effect("reads a list once and keeps it; a second instance shares it through Redis, or keeps its own", () =>
      Effect.gen(function* () {
        const { fake, first, second } = yield* Setup
        const listReads = () => fake.requests.filter((request) => request.path === LIST).length
        const before = listReads()
        const listed = yield* create(first)
        assert.strictEqual(listed.status, 200, listed.text)
        assert.notProperty(listed.json.commune, "warning")
        assert.strictEqual(listReads(), before + 1)
        assert.strictEqual((yield* create(first)).status, 200)
        assert.strictEqual(listReads(), before + 1, "the kept list: no read")

        const elsewhere = yield* create(second)
        assert.strictEqual(elsewhere.status, 200, elsewhere.text)
        assert.notProperty(elsewhere.json.commune, "warning")
        if (redisUrl === undefined) {
          assert.strictEqual(listReads(), before + 2, "without Redis, each instance keeps its own")
          return
        }
        assert.strictEqual(listReads(), before + 1, "the second instance read the list the first one kept in Redis")
        const kept = yield* Effect.acquireUseRelease(
          Effect.promise(() => createClient({ url: redisUrl }).connect()),
          (client) =>
            Effect.promise(async () => {
              const keys = await client.keys(`tawsil-communes:ecotrack|${tenant}|*`)
              const values = await Promise.all(keys.map((key) => client.get(key)))
              const ttls = await Promise.all(keys.map((key) => client.pTTL(key)))
              return { keys, values, ttls }
            }),
          (client) => Effect.promise(() => client.close())
        )
        assert.deepStrictEqual(kept.keys, [`tawsil-communes:ecotrack|${tenant}|16`])
        assert.include(kept.values[0], "Bab Ezzouar")
        for (const ttl of kept.ttls) assert.isTrue(ttl > 0 && ttl <= 24 * 3600 * 1000, `a day at most: ${ttl} ms`)
        const everything = JSON.stringify(kept)
        assert.notInclude(everything, CANARY, "no credential in a kept list's key or value")
        assert.notInclude(everything, TOKEN)
      })
    )

    it.effect("a sandbox parcel cancelled through one instance tracks as cancelled through the other on Redis", () =>
      Effect.gen(function* () {
        const { first, second } = yield* Setup
        const sandbox = { courier: "sandbox" }
        const created = yield* postJson(`${first.shippingUrl}/v1/orders`, {
          ...sandbox,
          order: { ...order, recipient: { ...order.recipient, communeName: "Bab Ezzouar" } }
        })
        assert.strictEqual(created.status, 200, created.text)
        const { trackingNumber } = created.json
        const cancelled = yield* postJson(`${first.shippingUrl}/v1/cancel`, { ...sandbox, trackingNumber })
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        const here = yield* postJson(`${first.shippingUrl}/v1/track`, { ...sandbox, trackingNumber })
        assert.strictEqual(here.json.status, "cancelled", here.text)
        const there = yield* postJson(`${second.shippingUrl}/v1/track`, { ...sandbox, trackingNumber })
        // Without Redis each instance remembers its own cancels (the documented fallback).
        assert.strictEqual(there.json.status, redisUrl === undefined ? "created" : "cancelled", there.text)
      })
    )

    it.effect("no log line of either instance holds the caller's credentials", () =>
      Effect.gen(function* () {
        const { first, second } = yield* Setup
        for (const app of [first, second]) {
          assert.notInclude(app.stdout(), CANARY)
          assert.notInclude(app.stderr(), CANARY)
        }
      })
    )
  }
)
