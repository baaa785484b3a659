/**
 * Orders meet parcels over a socket, on each database (the store server in this process, its poller looping every
 * 200 ms): the loop end to end — an order shipped through Yalidine's loopback fake and delivered by the engine's
 * pusher (a real CRC challenge through the receiver, real signatures), another shipped through DHD (Ecotrack's fake)
 * and returned by a poll; orders, stock and shipments end right and each webhook event reaches a loopback receiver
 * once, in order. And the receiver as only a listener and a database show it: 413 over 1 MB, and hostile requests
 * (`../PushRequests.ts`) counted in the database's rows — nothing recorded from a refused one. Every code and refusal
 * is tested in memory (`../store/Shipments.test.ts`, `../store/CourierHooks.test.ts`); processes, kill -9, two
 * instances and the canary are `ShipmentProcesses.process.test.ts`'s.
 */
import { assert, layer } from "@effect/vitest"
import { Egress } from "@tawsil/egress"
import { Poller } from "@tawsil/shipments"
import type * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Duration, Effect, Layer, Result } from "effect"
import fc from "fast-check"
import { EcotrackFake, TOKEN } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { KEY as MAYSTRO_KEY, MaystroFake } from "../../../../adapters/maystro/test/fake/MaystroFake.ts"
import { API_ID, API_TOKEN, YalidineFake } from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as YalidinePusher from "../../../../adapters/yalidine/test/fake/YalidinePusher.ts"
import {
  ACCOUNT as ZR_ACCOUNT,
  ZrExpressNewFake
} from "../../../../adapters/zrexpress-new/test/fake/ZrExpressNewFake.ts"
import * as ZrExpressPusher from "../../../../adapters/zrexpress-new/test/fake/ZrExpressPusher.ts"
import * as Receiver from "../../../../packages/webhooks/test/Receiver.ts"
import { codeOf, dashboardStore } from "../ConfigHarness.ts"
import * as PushRequests from "../PushRequests.ts"
import { backends, baseUrl, call, sql, storeServer } from "../StoreHarness.ts"
import * as Couriers from "../store/ShipmentCouriers.ts"

const YALIDINE_SECRET = "yal-webhook-secret-2b7e0c9f41d3"

/** Hostile requests sent over a socket on each database: the first of the memory fuzz's. */
const SOCKET_RUNS = 200

/** The Algiers wall-clock time the fakes stamp their parcels' activity with, `seconds` from now. */
const algiers = (seconds: number) => YalidinePusher.algiersTime(Date.now() + seconds * 1000)

const withFakes = (backend: TestDatabase.Backend) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const ecotrack = yield* EcotrackFake
      const yalidine = yield* YalidineFake
      const zr = yield* ZrExpressNewFake
      const maystro = yield* MaystroFake
      return storeServer(backend, {
        courierOrigins: Result.getOrThrow(
          Egress.parseOverrides(
            `https://platform.dhd-dz.com=${ecotrack.origin},https://api.yalidine.app=${yalidine.origin},` +
              `https://api.zrexpress.app=${zr.origin},https://backend.maystro-delivery.com=${maystro.origin}`
          )
        ),
        poll: { ...Poller.defaults, every: Duration.millis(200) },
        couriers: [Couriers.pushco],
        webhooks: { allowHosts: { hosts: new Set(["127.0.0.1"]) }, retryDelays: [Duration.millis(100)] }
      })
    })
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        EcotrackFake.layer({ tokens: [TOKEN] }),
        YalidineFake.layer({ accounts: [{ apiId: API_ID, apiToken: API_TOKEN, quotas: { second: 50, minute: 500 } }] }),
        ZrExpressNewFake.layer(),
        MaystroFake.layer()
      )
    )
  )

/** Waits, polling every 50 ms, until `read` answers what `done` accepts (at most 30 s); answers it. */
const until = <A>(read: Effect.Effect<A>, done: (value: A) => boolean, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 30_000
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline)
        return yield* Effect.die(new Error(`${what}: not within 30 s: ${JSON.stringify(value)}`))
      yield* Effect.sleep("50 millis")
    }
  })

for (const backend of backends) {
  layer(withFakes(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `shipments over a socket (${backend.name})`,
    (it) => {
      it.effect("pushed and polled: one order delivered through Yalidine, one returned through DHD", () =>
        Effect.scoped(
          Effect.gen(function* () {
            const receiver = yield* Receiver.start
            const ecotrack = yield* EcotrackFake
            const base = yield* baseUrl
            const { dashboard } = yield* dashboardStore()
            const hook = yield* dashboard.write("POST", "/v1/webhooks", {
              url: `${receiver.url}/orders`,
              events: [
                "order.created",
                "order.confirmed",
                "order.shipped",
                "order.delivered",
                "order.returned",
                "order.cancelled",
                "shipment.updated"
              ]
            })
            assert.strictEqual(hook.status, 200, hook.text)
            const product = (yield* dashboard.write("POST", "/v1/products", {
              name: "Karakou",
              price: 6000,
              stock: 10
            })).body.data
            const stock = Effect.map(dashboard.get(`/v1/products/${product.id}`), (answer) => answer.body.data.stock)
            const order = Effect.gen(function* () {
              const created = (yield* dashboard.write("POST", "/v1/orders", {
                customer: {
                  name: "Yasmine Kaci",
                  phone: "0661 22 33 44",
                  wilaya_id: 16,
                  commune: "Hydra",
                  address: "Rue 1"
                },
                items: [{ product_id: product.id, quantity: 2 }]
              })).body.data
              yield* dashboard.write("PATCH", `/v1/orders/${created.id}`, { status: "confirmed" })
              return created.id as number
            })
            const pushed = yield* order
            const polled = yield* order
            assert.strictEqual(yield* stock, 6, "two confirmed orders hold four")

            const yalidine = yield* dashboard.write("POST", "/v1/shipping/accounts", {
              courier: "yalidine",
              label: "Yalidine Alger",
              credentials: { apiId: API_ID, apiToken: API_TOKEN },
              webhook_secret: YALIDINE_SECRET
            })
            assert.strictEqual(yalidine.status, 200, yalidine.text)
            const dhd = yield* dashboard.write("POST", "/v1/shipping/accounts", {
              courier: "dhd",
              label: "DHD",
              credentials: { token: TOKEN }
            })
            const viaYalidine = yield* dashboard.write("POST", `/v1/orders/${pushed}/shipment`, {
              account_id: yalidine.body.data.id,
              from_wilaya: 16
            })
            assert.strictEqual(viaYalidine.status, 200, viaYalidine.text)
            const viaDhd = yield* dashboard.write("POST", `/v1/orders/${polled}/shipment`, {
              account_id: dhd.body.data.id
            })
            assert.strictEqual(viaDhd.status, 200, viaDhd.text)

            // Yalidine's engine subscribes the account's receiver (its challenge within 10 s), then pushes.
            const pusher = YalidinePusher.make({ secret: YALIDINE_SECRET, retryDelays: [] })
            yield* pusher.subscribe(`${base}${yalidine.body.data.push.url}`).pipe(Effect.orDie)
            assert.isTrue(pusher.challenges[0]!.passed)
            const tracking = viaYalidine.body.data.shipment.tracking_number
            const later = Date.now() + 60_000
            const delivery = yield* pusher
              .push("parcel_status_updated", [
                YalidinePusher.statusUpdated(tracking, "Ramassé", { at: later }),
                YalidinePusher.statusUpdated(tracking, "Sorti en livraison", { at: later + 60_000 }),
                YalidinePusher.statusUpdated(tracking, "Livré", { at: later + 120_000 })
              ])
              .pipe(Effect.orDie)
            assert.isTrue(delivery.delivered, JSON.stringify(delivery.attempts))
            assert.strictEqual(delivery.attempts[0]!.answer, '{"received":3,"recorded":3}')
            // Acknowledged once recorded; the applier moves the order behind the answer.
            const delivered = yield* until(
              Effect.map(dashboard.get(`/v1/orders/${pushed}`), (answer) => answer.body.data),
              (detail) => detail.status === "delivered",
              "the pushed order delivered"
            )
            assert.deepStrictEqual(
              delivered.shipment.timeline
                .filter((event: { source: string }) => event.source === "push")
                .map((event: { raw_status: string }) => event.raw_status),
              ["Ramassé", "Sorti en livraison", "Livré"]
            )
            const applied = yield* (yield* sql)<{ count: number; applied: number }>`
              SELECT count(*)::int AS count, count(applied_at)::int AS applied FROM courier_push_events
              WHERE tracking_number = ${tracking}`.pipe(Effect.orDie)
            assert.deepStrictEqual(applied, [{ count: 3, applied: 3 }])

            // DHD's parcel comes back; the poller reads it once it is due.
            const dhdTracking = viaDhd.body.data.shipment.tracking_number
            ecotrack.setClock(...(algiers(60).split(" ") as [string, string]))
            ecotrack.addActivity(dhdTracking, "return_asked")
            ecotrack.setClock(...(algiers(120).split(" ") as [string, string]))
            ecotrack.addActivity(dhdTracking, "Return_received")
            const db = yield* sql
            yield* db`UPDATE shipment_checks SET due_at = now() WHERE order_id = ${polled}`.pipe(Effect.orDie)
            const returned = yield* until(
              Effect.map(dashboard.get(`/v1/orders/${polled}`), (answer) => answer.body.data),
              (detail) => detail.status === "returned",
              "the polled order returned"
            )
            assert.deepInclude(returned.shipment, { status: "returned", raw_status: "Return_received" })
            assert.deepStrictEqual(
              returned.shipment.timeline
                .filter((event: { source: string }) => event.source === "poll")
                .map((event: { raw_status: string }) => event.raw_status),
              ["order_information_received_by_carrier", "return_asked", "Return_received"]
            )
            assert.strictEqual(yield* stock, 8, "the returned order's two are back; the delivered one's stay sold")
            const checks = yield* db<{ count: number }>`
              SELECT count(*)::int AS count FROM shipment_checks WHERE order_id IN (${pushed}, ${polled})`.pipe(
              Effect.orDie
            )
            assert.strictEqual(checks[0]!.count, 0, "a returned or delivered parcel is followed no more")

            // Each event once, in order.
            const names = (orderId: number) =>
              receiver.received
                .map((received) => JSON.parse(received.body.toString()))
                .filter((body) => (body.data.id ?? body.data.order_id) === orderId)
            const expected = {
              [pushed]: [
                "order.created",
                "order.confirmed",
                "order.shipped",
                "shipment.updated",
                "shipment.updated",
                "order.delivered"
              ],
              [polled]: [
                "order.created",
                "order.confirmed",
                "order.shipped",
                "shipment.updated",
                "shipment.updated",
                "order.returned"
              ]
            }
            yield* until(
              Effect.sync(() => [names(pushed).length, names(polled).length]),
              ([a, b]) => a === 6 && b === 6,
              "every webhook delivered"
            )
            for (const orderId of [pushed, polled]) {
              const bodies = names(orderId)
              assert.deepStrictEqual(
                bodies.map((body) => body.event),
                expected[orderId],
                `order ${orderId}`
              )
              assert.strictEqual(new Set(bodies.map((body) => body.id)).size, bodies.length, "each event once")
              const updates = bodies.filter((body) => body.event === "shipment.updated")
              assert.strictEqual(updates[0].data.previous_status, null)
              assert.strictEqual(updates[1].data.previous_status, updates[0].data.status)
            }
          })
        )
      )

      it.effect("the receiver: 413 over 1 MB; hostile requests answer no 5xx and record nothing when refused", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const db = yield* sql
          const { dashboard } = yield* dashboardStore()
          const pushco = yield* dashboard.write("POST", "/v1/shipping/accounts", {
            courier: "pushco",
            label: "P",
            credentials: { token: "pushco-token" },
            webhook_secret: Couriers.PUSH_SECRET
          })
          const yalidine = yield* dashboard.write("POST", "/v1/shipping/accounts", {
            courier: "yalidine",
            label: "Y",
            credentials: { apiId: API_ID, apiToken: API_TOKEN },
            webhook_secret: YALIDINE_SECRET
          })
          const zrSecret = ZrExpressPusher.newSecret()
          const zr = yield* dashboard.write("POST", "/v1/shipping/accounts", {
            courier: "zrexpress_new",
            label: "ZR",
            credentials: { apiKey: ZR_ACCOUNT.apiKey, tenantId: ZR_ACCOUNT.tenantId },
            webhook_secret: zrSecret
          })
          const maystroSecret = "maystro-webhook-secret-5e21"
          const maystro = yield* dashboard.write("POST", "/v1/shipping/accounts", {
            courier: "maystro",
            label: "Maystro",
            credentials: { apiKey: MAYSTRO_KEY },
            webhook_secret: maystroSecret
          })
          const silent = yield* dashboard.write("POST", "/v1/shipping/accounts", { courier: "sandbox", label: "S" })
          const rows = Effect.map(
            db<{ count: number }>`SELECT count(*)::int AS count FROM courier_push_events`.pipe(Effect.orDie),
            (found) => found[0]!.count
          )
          const before = yield* rows

          const huge = Couriers.pushcoBody([
            { tracking: "PC1", status: "delivered", at: new Date().toISOString(), reason: "x".repeat(1_048_576) }
          ])
          const tooLarge = yield* call(base, "POST", `/v1/hooks/couriers/${pushco.body.data.id}`, {
            headers: Couriers.pushcoHeaders(huge),
            bytes: new Uint8Array(Buffer.from(huge))
          })
          assert.deepStrictEqual(codeOf(tooLarge), [413, "payload_too_large"])
          assert.notInclude(tooLarge.text, "xxxx")

          const targets: PushRequests.Targets = {
            pushco: { id: pushco.body.data.id, secret: Couriers.PUSH_SECRET },
            yalidine: { id: yalidine.body.data.id, secret: YALIDINE_SECRET },
            zr: { id: zr.body.data.id, secret: zrSecret },
            maystro: { id: maystro.body.data.id, secret: maystroSecret },
            silent: silent.body.data.id
          }
          const shapes = fc.sample(PushRequests.shape, { numRuns: SOCKET_RUNS, seed: PushRequests.SEED })
          const problems: Array<string> = []
          let recorded = 0
          yield* Effect.forEach(
            shapes,
            (shape, index) =>
              Effect.gen(function* () {
                const request = PushRequests.materialise(shape, targets, index, Date.now())
                const answer = yield* call(base, request.method, request.url, {
                  headers: request.headers,
                  ...(request.method === "GET" ? {} : { bytes: request.body })
                })
                const problem = PushRequests.problemOf(request, {
                  status: answer.status,
                  text: answer.text,
                  contentType: answer.headers.get("content-type")
                })
                if (problem !== undefined) problems.push(`#${index} ${request.method} ${request.url}: ${problem}`)
                if (answer.status === 200 && request.method === "POST") recorded += answer.body.recorded as number
                const kept = yield* db<{ count: number }>`
                  SELECT count(*)::int AS count FROM courier_push_events WHERE tracking_number = ${request.probe}`.pipe(
                  Effect.orDie
                )
                if (answer.status !== 200 && kept[0]!.count > 0) problems.push(`#${index}: refused but recorded`)
              }),
            { concurrency: 4, discard: true }
          )
          assert.deepStrictEqual(problems.slice(0, 10), [], `${problems.length} answers broke the rules`)
          assert.strictEqual((yield* rows) - before, recorded, "the rows are the events acknowledged as recorded")
        })
      )
    }
  )
}
