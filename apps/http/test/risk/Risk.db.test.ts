/**
 * The ban list and the couriers' outcomes over a socket, on each database (the store server in this process, its push
 * applier looping): shipments seeded through the API over three pushing couriers defined here (`pushco`'s operations
 * and push scheme under the keys alpha, beta and gamma), their outcomes pushed through the receiver with real
 * signatures; the report's every figure recomputed from the orders' shipments as the API shows them, the
 * recommendation's ranking by the documented rule, the returns factor of a customer; a banned phone refused or
 * flagged per the setting with the rows to show it. Every refusal is tested in memory (`../store/Risk.test.ts`).
 */
import { assert, layer } from "@effect/vitest"
import { CourierAdapter } from "@tawsil/courier"
import type * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import { codeOf, dashboardStore } from "../ConfigHarness.ts"
import { backends, baseUrl, call, sql, storeServer } from "../StoreHarness.ts"
import * as Couriers from "../store/ShipmentCouriers.ts"

/** Three couriers of one test platform, each speaking `pushco`'s push scheme. */
const riskCouriers = CourierAdapter.define({
  platform: "riskpush",
  couriers: ["alpha", "beta", "gamma"].map((key) => ({
    key,
    name: `${key} (test)`,
    aliases: [],
    endpoint: { origin: `https://api.${key}.dz` }
  })),
  credentials: Couriers.pushco.credentials as never,
  statuses: Couriers.pushco.statuses,
  codStatuses: Couriers.pushco.codStatuses,
  operations: Couriers.pushco.operations as never,
  push: Couriers.pushco.push
})

type Outcome = "delivered" | "returned" | "returning" | "transit" | "cancelled"

/** What the test ships: courier, destination, what the courier then pushes and how many hours after now. */
const plan: ReadonlyArray<readonly [string, 16 | 31, Outcome, number]> = [
  ["alpha", 16, "delivered", 20],
  ["alpha", 16, "delivered", 50],
  ["alpha", 16, "delivered", 30],
  ["alpha", 16, "returned", 70],
  ["alpha", 31, "delivered", 90],
  ["alpha", 31, "transit", 5],
  ["beta", 16, "returned", 40],
  ["beta", 16, "returning", 30],
  ["beta", 16, "delivered", 120],
  ["beta", 31, "delivered", 26],
  ["beta", 31, "cancelled", 2],
  ["gamma", 31, "delivered", 60],
  ["alpha", 16, "delivered", 40]
]

/** The canonical status each pushed raw status maps to (`pushco`'s table). */
const canonical: Record<Outcome, string> = {
  delivered: "delivered",
  returned: "returned",
  returning: "returning",
  transit: "in_transit",
  cancelled: "cancelled"
}

const communeOf = { 16: "Hydra", 31: "Oran" } as const

/** `YYYY-MM-DD HH:MM:SS` in Algiers time (UTC+01:00) as epoch milliseconds. */
const millisOf = (shown: string) => Date.parse(`${shown.replace(" ", "T")}+01:00`)

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

const medianOf = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Waits, polling every 50 ms, until `read` answers what `done` accepts (at most 30 s); answers it. */
const until = <A>(read: Effect.Effect<A>, done: (value: A) => boolean, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 30_000
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${what}: not within 30 s`))
      yield* Effect.sleep("50 millis")
    }
  })

interface Shipped {
  readonly courier: string
  readonly wilaya_id: number
  readonly status: string
  readonly status_at: string
  readonly timeline: ReadonlyArray<{ readonly kind: string; readonly at: string }>
}

for (const backend of backends) {
  layer(storeServer(backend as TestDatabase.Backend, { couriers: [riskCouriers] }), {
    timeout: "240 seconds",
    excludeTestServices: true
  })(`ban list and courier outcomes over a socket (${backend.name})`, (it) => {
    it.effect("outcomes per courier and wilaya recomputed from the shipments; the recommendation's ranking", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const { dashboard } = yield* dashboardStore()
        const product = (yield* dashboard.write("POST", "/v1/products", { name: "Haïk", price: 3000, stock: 500 })).body
          .data.id
        const accounts: Record<string, number> = {}
        for (const courier of ["alpha", "beta", "gamma"]) {
          const account = yield* dashboard.write("POST", "/v1/shipping/accounts", {
            courier,
            label: courier,
            credentials: { token: "pushco-token" },
            webhook_secret: Couriers.PUSH_SECRET
          })
          assert.strictEqual(account.status, 200, account.text)
          accounts[courier] = account.body.data.id
        }

        const orders: Array<{ readonly id: number; readonly outcome: Outcome }> = []
        for (const [index, [courier, wilaya, outcome, hours]] of plan.entries()) {
          // The first and the fourth share a phone: one parcel delivered, one returned.
          const phone = index === 3 ? "0550000100" : `05500001${String(index).padStart(2, "0")}`
          const created = yield* dashboard.write("POST", "/v1/orders", {
            customer: { name: "Client", phone, wilaya_id: wilaya, commune: communeOf[wilaya], address: `Rue ${index}` },
            items: [{ product_id: product, quantity: 1 }]
          })
          assert.strictEqual(created.status, 200, created.text)
          const id = created.body.data.id as number
          yield* dashboard.write("PATCH", `/v1/orders/${id}`, { status: "confirmed" })
          const shipped = yield* dashboard.write("POST", `/v1/orders/${id}/shipment`, { account_id: accounts[courier] })
          assert.strictEqual(shipped.status, 200, shipped.text)
          const body = Couriers.pushcoBody([
            {
              id: Couriers.eventId(),
              tracking: shipped.body.data.shipment.tracking_number,
              status: outcome,
              at: new Date(Date.now() + hours * 3_600_000).toISOString()
            }
          ])
          const pushed = yield* call(base, "POST", `/v1/hooks/couriers/${accounts[courier]}`, {
            headers: Couriers.pushcoHeaders(body),
            bytes: new Uint8Array(Buffer.from(body))
          })
          assert.strictEqual(pushed.status, 200, pushed.text)
          orders.push({ id, outcome })
        }

        // The applier moves each shipment; the test then reads them as the API shows them.
        const shipments: Array<Shipped> = []
        for (const order of orders) {
          const detail = yield* until(
            Effect.map(dashboard.get(`/v1/orders/${order.id}`), (answer) => answer.body.data),
            (data) => data.shipment?.status === canonical[order.outcome],
            `order ${order.id} ${order.outcome}`
          )
          shipments.push({ ...detail.shipment, wilaya_id: detail.customer.wilaya_id })
        }

        const report = yield* dashboard.get("/v1/reports/couriers")
        assert.strictEqual(report.status, 200, report.text)
        const groups = new Map<string, Array<Shipped>>()
        for (const shipment of shipments) {
          const key = `${shipment.courier}/${shipment.wilaya_id}`
          groups.set(key, [...(groups.get(key) ?? []), shipment])
        }
        const expected = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1))
        assert.strictEqual(report.body.data.items.length, expected.length)
        for (const [index, [key, group]] of expected.entries()) {
          const item = report.body.data.items[index]
          const delivered = group.filter((s) => s.status === "delivered")
          const returned = group.filter((s) => s.status === "returned" || s.status === "returning").length
          const cancelled = group.filter((s) => s.status === "cancelled").length
          const settled = delivered.length + returned
          assert.deepInclude(
            item,
            {
              courier: group[0]!.courier,
              wilaya_id: group[0]!.wilaya_id,
              shipments: group.length,
              delivered: delivered.length,
              returned,
              cancelled,
              in_progress: group.length - settled - cancelled,
              delivery_rate: settled === 0 ? null : round(delivered.length / settled, 4),
              return_rate: settled === 0 ? null : round(returned / settled, 4)
            },
            key
          )
          const days = delivered.map((s) => {
            const first = s.timeline.find((event) => event.kind === "movement")!
            return (millisOf(s.status_at) - millisOf(first.at)) / 86_400_000
          })
          if (days.length === 0) assert.isNull(item.median_days_to_deliver, key)
          // The API shows times to the second: the report's days agree to the second.
          else assert.closeTo(item.median_days_to_deliver, medianOf(days), 0.011, key)
        }
        const alpha = report.body.data.couriers.find((c: { courier: string }) => c.courier === "alpha")
        assert.deepInclude(alpha, { shipments: 7, delivered: 5, returned: 1, in_progress: 1, delivery_rate: 0.8333 })
        const later = yield* dashboard.get(
          `/v1/reports/couriers?from=${new Date(Date.now() + 86_400_000).toISOString()}`
        )
        assert.deepStrictEqual(later.body.data, { items: [], couriers: [] })

        // The customer of the first and fourth orders: 50 × 1 returned / (1 returned + 1 delivered + 1).
        const returner = (yield* dashboard.get("/v1/customers?phone=0550000100")).body.data.items[0]
        const factors = (yield* dashboard.get(`/v1/customers/${returner.id}`)).body.data.fraud_factors
        assert.deepInclude(factors[0], { factor: "returns", value: 1, points: round(50 / 3, 2) })

        // A new order to Algiers (16), home delivery, priced 450 by the store.
        yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 450 }] })
        const next = (yield* dashboard.write("POST", "/v1/orders", {
          customer: { name: "Nouveau", phone: "0550000999", wilaya_id: 16, commune: "Hydra" },
          items: [{ product_id: product, quantity: 1 }]
        })).body.data
        const ranked = (yield* dashboard.get(`/v1/orders/${next.id}/courier-recommendations`)).body.data
        assert.deepInclude(ranked, { order_id: next.id, wilaya_id: 16, delivery_type: "home" })
        // The documented rule, recomputed: the store's rate, each courier's pulled to it, each wilaya's to that.
        const settledOf = (c: { delivered: number; returned: number } | undefined) =>
          c === undefined ? 0 : c.delivered + c.returned
        const couriers = report.body.data.couriers as Array<{ courier: string; delivered: number; returned: number }>
        const storeRate =
          couriers.reduce((sum, c) => sum + c.delivered, 0) / couriers.reduce((sum, c) => sum + settledOf(c), 0)
        const expectedRate = (courier: string) => {
          const overall = couriers.find((c) => c.courier === courier)
          const there = report.body.data.items.find(
            (i: { courier: string; wilaya_id: number }) => i.courier === courier && i.wilaya_id === 16
          )
          const courierRate = ((overall?.delivered ?? 0) + 5 * storeRate) / (settledOf(overall) + 5)
          return ((there?.delivered ?? 0) + 5 * courierRate) / (settledOf(there) + 5)
        }
        const order = ["alpha", "beta", "gamma"].sort((a, b) => expectedRate(b) - expectedRate(a))
        // No tie: the rate alone orders them (the tie-breaks are the pure tests').
        assert.isAbove(expectedRate(order[0]!), expectedRate(order[1]!))
        assert.isAbove(expectedRate(order[1]!), expectedRate(order[2]!))
        assert.deepStrictEqual(
          ranked.items.map((r: { courier: string; rank: number; price: number; expected_delivery_rate: number }) => [
            r.rank,
            r.courier,
            r.price,
            r.expected_delivery_rate
          ]),
          order.map((courier, index) => [index + 1, courier, 450, round(expectedRate(courier), 4)])
        )
        assert.strictEqual(ranked.items[0].courier, "alpha", "4 of 5 delivered in Algiers beats 1 of 3, and no history")
      })
    )

    it.effect("a banned phone refused or flagged per the setting, with the rows to show it", () =>
      Effect.gen(function* () {
        const db = yield* sql
        const { id: storeId, dashboard } = yield* dashboardStore()
        const product = (yield* dashboard.write("POST", "/v1/products", { name: "Burnous", price: 8000 })).body.data.id
        const order = (phone: string) =>
          dashboard.write("POST", "/v1/orders", {
            customer: { name: "Sami", phone, wilaya_id: 31, commune: "Oran" },
            items: [{ product_id: product, quantity: 1 }]
          })
        const first = (yield* order("0661 22 33 44")).body.data
        const ban = yield* dashboard.write("POST", `/v1/customers/${first.customer.id}/ban`, {
          reason: "Refuses parcels"
        })
        assert.deepInclude(ban.body.data, { phone: "0661223344", customer_id: first.customer.id })
        const banned = yield* db<{
          is_banned: boolean
        }>`SELECT is_banned FROM customers WHERE id = ${first.customer.id}`
        assert.isTrue(banned[0]!.is_banned)

        yield* dashboard.write("PATCH", "/v1/risk/settings", { banned_orders: "refuse" })
        const refused = yield* order("0661223344")
        assert.deepStrictEqual(codeOf(refused), [422, "customer_banned"])
        assert.deepStrictEqual(Object.keys(refused.body).sort(), ["error", "meta"])
        const count = Effect.map(
          db<{ n: number }>`SELECT count(*)::int AS n FROM orders WHERE store_id = ${storeId}`,
          (rows) => rows[0]!.n
        )
        assert.strictEqual(yield* count, 1, "the refused order wrote nothing")

        yield* dashboard.write("PATCH", "/v1/risk/settings", { banned_orders: "flag" })
        const flagged = yield* order("0661223344")
        assert.strictEqual(flagged.status, 200, flagged.text)
        assert.strictEqual(yield* count, 2)
        const flags = yield* db<{
          flag: string
        }>`SELECT flag FROM order_risk_flags WHERE order_id = ${flagged.body.data.id}`
        assert.deepStrictEqual(
          flags.map((row) => row.flag),
          ["customer_banned"]
        )
        const risk = (yield* dashboard.get(`/v1/orders/${flagged.body.data.id}/risk`)).body.data
        assert.deepInclude(risk, { is_banned: true, customer_id: first.customer.id })

        // A phone banned before it ever ordered: its first order makes a banned customer.
        yield* dashboard.write("POST", "/v1/bans", { phone: "0770 00 00 01", reason: "Fake" })
        const fresh = (yield* order("0770000001")).body.data
        assert.isTrue((yield* dashboard.get(`/v1/customers/${fresh.customer.id}`)).body.data.is_banned)

        const lifted = yield* dashboard.write("DELETE", "/v1/bans/0661223344")
        assert.strictEqual(lifted.status, 200, lifted.text)
        const after = yield* db<{ is_banned: boolean }>`SELECT is_banned FROM customers WHERE id = ${first.customer.id}`
        assert.isFalse(after[0]!.is_banned)
        assert.strictEqual((yield* order("0661223344")).status, 200)
        const bans = yield* db<{ phone: string }>`SELECT phone FROM customer_bans WHERE store_id = ${storeId}`
        assert.deepStrictEqual(
          bans.map((row) => row.phone),
          ["0770000001"]
        )
      })
    )
  })
}
