/**
 * Shipping rates and settings over a socket, on each database (docs/store-api-config.md, "Shipping rates and
 * settings"): for `shipping.rates` (a write, and a courier rate sync) and `shipping.settings`, the write, its line in
 * `GET /v1/changes`, its detail with `before` and `after`, its undo (the item reads as before: neither resource is
 * behind the read cache, so the next GET shows it), and the undo of the undo (applied again, or 422 after a sync);
 * the sync end to end against the sandbox and against Ecotrack's loopback fake (DHD's pinned origin pointed at it as
 * `TAWSIL_COURIER_ORIGINS` would), a canary credential found nowhere afterwards (answers, change rows, the whole
 * database); and the property the change history's test will run with these writes (`Writes.ts`). Every code and
 * refusal is tested in memory (`../store/Shipping.test.ts`); the logs of a process, in `ShippingProcess.process.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Egress } from "@tawsil/egress"
import type * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Clock, Effect, Fiber, Layer, Result } from "effect"
import * as fc from "fast-check"
import { EcotrackFake, TOKEN, tariff, UNSERVED } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { type Client, codeOf, dashboardStore } from "../ConfigHarness.ts"
import { backends, sql, storeServer } from "../StoreHarness.ts"
import * as ShippingWrites from "./Writes.ts"

/** A credential no code path may ever print, store or return. */
const CANARY = "canary-5d2e8f1a7c3b9e04-shipping"

/** The store server with DHD (an Ecotrack courier, on its pinned origin) sent to the loopback fake. */
const withFake = (backend: TestDatabase.Backend) =>
  Layer.unwrap(
    Effect.map(Effect.service(EcotrackFake), (fake) =>
      storeServer(backend, {
        courierOrigins: Result.getOrThrow(Egress.parseOverrides(`https://platform.dhd-dz.com=${fake.origin}`)),
        // The courier's pace is not what these tests are about (`couriers/Documented.db.test.ts` checks it).
        pace: 0.001
      })
    )
  ).pipe(Layer.provideMerge(EcotrackFake.layer({ tokens: [TOKEN, CANARY] })))

const pricesOf = (client: Client) =>
  Effect.map(client.get("/v1/shipping/rates"), (answer) =>
    Object.fromEntries(
      (answer.body.data.items as ReadonlyArray<{ wilaya_id: number; home_price: unknown; desk_price: unknown }>)
        .filter((item) => item.home_price !== null || item.desk_price !== null)
        .map((item) => [item.wilaya_id, [item.home_price, item.desk_price]])
    )
  )

const newest = (client: Client) => Effect.map(client.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

/** Every row of every table of the server's database, as JSON text. */
const dump = Effect.gen(function* () {
  const client = yield* sql
  const tables = yield* client<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
  const rows: Array<string> = []
  for (const { table_name } of tables) {
    const found = yield* client<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${client(table_name)} t`
    rows.push(...found.map((r) => r.row))
  }
  return rows.join("\n")
}).pipe(Effect.orDie)

for (const backend of backends) {
  layer(withFake(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `shipping rates and settings (${backend.name})`,
    (it) => {
      it.effect("rates: write, listed, detail, undo reads as before, undo of the undo applies it again", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 400 }] })
          const start = yield* pricesOf(dashboard)
          const written = yield* dashboard.write("POST", "/v1/shipping/rates", {
            rates: [
              { wilaya_id: 16, home_price: "450.50", desk_price: 300 },
              { wilaya_id: 47, home_price: 900 }
            ]
          })
          assert.strictEqual(written.status, 200, written.text)
          const after = yield* pricesOf(dashboard)
          assert.deepStrictEqual(after, { 16: [450.5, 300], 47: [900, null] })
          const listed = (yield* dashboard.get("/v1/changes?entity=shipping.rates")).body.data.items
          assert.strictEqual(listed.length, 2)
          assert.deepInclude(listed[0], {
            entity: "shipping.rates",
            entity_id: "rates",
            action: "update",
            summary: "Updated shipping rates of 2 wilayas: 16, 47",
            undone: false
          })
          const detail = (yield* dashboard.get(`/v1/changes/${listed[0].id}`)).body.data
          assert.deepStrictEqual(detail.before, {
            rates: [{ wilaya_id: 16, home_price: 400, desk_price: null }],
            absent: [47]
          })
          assert.deepStrictEqual(detail.after, {
            rates: [
              { wilaya_id: 16, home_price: 450.5, desk_price: 300 },
              { wilaya_id: 47, home_price: 900, desk_price: null }
            ],
            absent: []
          })
          const undone = yield* dashboard.write("POST", `/v1/changes/${listed[0].id}/undo`)
          assert.strictEqual(undone.status, 200, undone.text)
          assert.deepStrictEqual(yield* pricesOf(dashboard), start)
          const again = yield* dashboard.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
          assert.strictEqual(again.status, 200, again.text)
          assert.deepStrictEqual(yield* pricesOf(dashboard), after)
        })
      )

      it.effect("settings: write, listed, detail, undo reads as before, undo of the undo applies it again", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const read = Effect.map(dashboard.get("/v1/shipping/settings"), (answer) => {
            const { updated_at: _, ...settings } = answer.body.data
            return settings
          })
          const start = yield* read
          const patched = yield* dashboard.write("PATCH", "/v1/shipping/settings", {
            origin_wilaya: 31,
            default_courier: "dhd_livraison",
            free_shipping_threshold: 12000,
            cod_fee_payer: "customer",
            cod_fee_percent: 1
          })
          assert.strictEqual(patched.status, 200, patched.text)
          assert.strictEqual(patched.body.data.default_courier, "dhd")
          const after = yield* read
          const change = yield* newest(dashboard)
          assert.deepInclude(change, { entity: "shipping.settings", entity_id: "settings", action: "update" })
          const detail = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
          // The settings it changed (the delivery type it left is not recorded).
          const changed = [
            "origin_wilaya",
            "default_courier",
            "free_shipping_threshold",
            "cod_fee_payer",
            "cod_fee_percent"
          ]
          const pick = (settings: Record<string, unknown>) =>
            Object.fromEntries(changed.map((name) => [name, settings[name]]))
          assert.deepStrictEqual(detail.before, pick(start))
          assert.deepStrictEqual(detail.after, pick(after))
          const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
          assert.strictEqual(undone.status, 200, undone.text)
          assert.deepStrictEqual(yield* read, start)
          yield* dashboard.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
          assert.deepStrictEqual(yield* read, after)
        })
      )

      it.effect("sync (sandbox): listed with its change_id, before without after; its undo keeps what it added", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
          yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 31, home_price: 1 }] })
          const manual = yield* pricesOf(dashboard)
          const synced = yield* dashboard.write("POST", "/v1/shipping/rates/sync", { courier: "sandbox" })
          assert.strictEqual(synced.status, 200, synced.text)
          const data = synced.body.data
          assert.deepStrictEqual([data.updated, data.added.length, data.skipped], [[31], 57, []])
          const afterSync = yield* pricesOf(dashboard)
          const change = yield* newest(dashboard)
          assert.strictEqual(change.id, data.change_id)
          assert.strictEqual(change.summary, "Synced shipping rates from sandbox: 1 updated, 57 added")
          const detail = (yield* dashboard.get(`/v1/changes/${data.change_id}`)).body.data
          assert.deepStrictEqual(detail.before, {
            courier: "sandbox",
            rates: [{ wilaya_id: 31, home_price: 1, desk_price: null }]
          })
          assert.isNull(detail.after)
          const undone = yield* dashboard.write("POST", `/v1/changes/${data.change_id}/undo`)
          assert.strictEqual(undone.status, 200, undone.text)
          const restored = yield* pricesOf(dashboard)
          assert.deepStrictEqual(restored[31], manual[31])
          assert.deepStrictEqual({ ...restored, 31: afterSync[31]! }, afterSync, "the 57 added rates are kept")
          const reapply = yield* dashboard.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
          assert.deepStrictEqual(codeOf(reapply), [422, "nothing_to_restore"])
          assert.deepStrictEqual(yield* pricesOf(dashboard), restored)
        })
      )

      // The embedded database has one connection: a sync that held it while the courier answers would stall every
      // other call of the store. The courier is asked before the write's transaction opens (Endpoint.CallsOut).
      if (backend.name === "embedded") {
        it.effect("a sync holds no database connection while the courier answers: the store serves meanwhile", () =>
          Effect.gen(function* () {
            const fake = yield* EcotrackFake
            const { dashboard } = yield* dashboardStore()
            yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
            // The courier stays silent until the read has answered, then drops the connection.
            fake.hold(() => true)
            const sync = yield* Effect.forkChild(
              dashboard.write("POST", "/v1/shipping/rates/sync", {
                courier: "dhd",
                credentials: { token: TOKEN },
                wilaya_ids: [31]
              })
            )
            while (fake.holding() === 0) yield* Effect.sleep("20 millis")
            const asked = yield* Clock.currentTimeMillis
            const read = yield* dashboard.get("/v1/shipping/rates")
            const took = (yield* Clock.currentTimeMillis) - asked
            assert.strictEqual(read.status, 200)
            assert.isBelow(took, 3_000, "a read while the courier is silent answers at once")
            assert.strictEqual(fake.holding(), 1, "the courier was still silent when the read answered")
            fake.dropHeld()
            fake.hold(undefined)
            const answer = yield* Fiber.join(sync)
            assert.deepStrictEqual(codeOf(answer), [502, "courier_unreachable"])
          })
        )
      }

      it.effect(
        "sync (Ecotrack's fake for DHD): the courier's tariff, its unserved wilayas skipped, failures 4xx/5xx",
        () =>
          Effect.gen(function* () {
            const fake = yield* EcotrackFake
            const { dashboard } = yield* dashboardStore()
            yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
            yield* dashboard.write("POST", "/v1/shipping/rates", {
              rates: [{ wilaya_id: 1, home_price: 5, desk_price: 7 }]
            })
            const before = fake.requests.length
            // These syncs name the wilayas that show each case.
            const synced = yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
              courier: "dhd",
              credentials: { token: TOKEN },
              wilaya_ids: [1, 16, ...UNSERVED]
            })
            assert.strictEqual(synced.status, 200, synced.text)
            const data = synced.body.data
            assert.strictEqual(data.courier, "dhd")
            assert.deepStrictEqual(
              data.skipped.map((skip: { wilaya_id: number }) => skip.wilaya_id),
              UNSERVED
            )
            assert.deepStrictEqual(data.updated, [1])
            assert.deepStrictEqual(data.added, [16])
            assert.strictEqual(fake.requests.length - before, 2 + UNSERVED.length, "one fee request per wilaya")
            const prices = yield* pricesOf(dashboard)
            assert.deepStrictEqual(prices[16], [tariff(16)[0], tariff(16)[1]])
            // Wilaya 1 has no stop desk at the courier: the store's own desk price is kept.
            assert.deepStrictEqual(prices[1], [tariff(1)[0], 7])
            assert.isUndefined(prices[33])

            const start = yield* pricesOf(dashboard)
            const last = (yield* newest(dashboard)).id
            fake.misbehaveNext({ kind: "status", status: 500 })
            const down = yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
              courier: "dhd",
              credentials: { token: TOKEN },
              wilaya_ids: [16]
            })
            assert.deepStrictEqual(codeOf(down), [502, "courier_unreachable"])
            const refused = yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
              courier: "dhd",
              credentials: { token: "wrong-token-1234567" },
              wilaya_ids: [16]
            })
            assert.deepStrictEqual(codeOf(refused), [422, "credentials_rejected"])
            fake.misbehaveNext({ kind: "rateLimited", retryAfter: "30" })
            const limited = yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
              courier: "dhd",
              credentials: { token: TOKEN },
              wilaya_ids: [16]
            })
            assert.deepStrictEqual(codeOf(limited), [429, "rate_limited"])
            assert.strictEqual(limited.headers.get("retry-after"), "30")
            assert.deepStrictEqual(yield* pricesOf(dashboard), start, "failures write nothing")
            assert.strictEqual((yield* newest(dashboard)).id, last, "and record nothing")
          })
      )

      it.effect("a canary credential of a sync is in no answer, no change row and no row of the database", () =>
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const { dashboard } = yield* dashboardStore()
          yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
          // A few wilayas a sync.
          const call = { courier: "dhd", credentials: { token: CANARY }, wilaya_ids: [16, 31] }
          const answers: Array<string> = []
          const synced = yield* dashboard.write("POST", "/v1/shipping/rates/sync", call, "canary-sync-1")
          assert.strictEqual(synced.status, 200, synced.text)
          answers.push(synced.text)
          answers.push((yield* dashboard.write("POST", "/v1/shipping/rates/sync", call, "canary-sync-1")).text)
          for (const misbehaviour of [
            { kind: "echoToken" },
            { kind: "refuse", message: `Refus ${CANARY}` },
            { kind: "html" },
            { kind: "status", status: 503 }
          ] as const) {
            fake.misbehaveNext(misbehaviour)
            answers.push((yield* dashboard.write("POST", "/v1/shipping/rates/sync", call)).text)
          }
          answers.push(
            (yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
              ...call,
              credentials: { token: CANARY, extra: CANARY }
            })).text
          )
          answers.push(
            (yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
              courier: "sandbox",
              credentials: call.credentials,
              wilaya_ids: call.wilaya_ids
            })).text
          )
          const changes = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items
          for (const change of changes) answers.push((yield* dashboard.get(`/v1/changes/${change.id}`)).text)
          assert.isAbove(
            fake.requests.filter((request) => JSON.stringify(request).includes(CANARY)).length,
            0,
            "the canary did reach the courier"
          )
          assert.notInclude(answers.join("\n"), CANARY, "answers and change details")
          assert.notInclude(yield* dump, CANARY, "the database")
        })
      )

      it.effect("20 simultaneous rate writes of one wilaya each record the price the one before left", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 100 }] })
          const since = (yield* newest(dashboard)).id as number
          const answers = yield* Effect.all(
            Array.from({ length: 20 }, (_, index) =>
              dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 200 + index }] })
            ),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(
            answers.map((answer) => answer.status),
            Array.from({ length: 20 }, () => 200)
          )
          const changes = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items
            .filter((change: { id: number }) => change.id > since)
            .reverse()
          assert.strictEqual(changes.length, 20)
          // In commit order, each change's before is the price the previous one wrote: none was lost.
          let price = 100
          for (const change of changes) {
            const detail = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
            assert.strictEqual(detail.before.rates[0].home_price, price)
            price = detail.after.rates[0].home_price
          }
          assert.deepStrictEqual((yield* pricesOf(dashboard))[16], [price, null])
        })
      )

      it.effect("property: random shipping writes (Writes.ts), undone newest first, restore the exact start", () =>
        Effect.gen(function* () {
          let undone = 0
          const run = (writes: ReadonlyArray<ShippingWrites.ShippingWrite>) =>
            Effect.gen(function* () {
              const { dashboard } = yield* dashboardStore()
              yield* ShippingWrites.seed(dashboard)
              const before = yield* ShippingWrites.stateOf(dashboard)
              const since = (yield* newest(dashboard)).id as number
              for (const value of writes) {
                const answer = yield* ShippingWrites.write(dashboard, value)
                if (answer.status !== 200) return `${JSON.stringify(value)} answered ${answer.text}`
              }
              const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
                (change: { id: number }) => change.id > since
              )
              for (const change of recorded) {
                const answer = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
                // A sync that overwrote nothing records no values: nothing to restore.
                if (answer.status !== 200 && codeOf(answer)[1] !== "nothing_to_restore") {
                  return `undo of #${change.id} (${change.summary}) answered ${answer.text}`
                }
                undone += 1
              }
              assert.deepStrictEqual(yield* ShippingWrites.stateOf(dashboard), before)
              return true
            })
          const context = yield* Effect.context<Effect.Services<ReturnType<typeof run>>>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.array(ShippingWrites.arbitrary, { minLength: 1, maxLength: 6 }), (writes) =>
                Effect.runPromiseWith(context)(run(writes)).then(
                  (outcome) => outcome === true || Promise.reject(new Error(outcome))
                )
              ),
              { numRuns: 12, seed: 2_026_020 }
            )
          )
          assert.isAbove(undone, 20)
        })
      )
    }
  )
}
