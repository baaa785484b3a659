/**
 * The COD ledger over a socket, on each database (the store server in this process, its poller every 200 ms): a
 * month of synthetic shipments over three couriers — Yalidine (its loopback fake; delivered, returned and paid by the
 * engine's pusher, `parcel_payment_updated` with its payout id), DHD (Ecotrack's fake, polled: cashed, paid) and `payco` (a courier defined here whose batch read reports the cash with its amount and fee, the SDK's
 * payment part) — then a payout statement imported with one wrong amount and one unknown line. The report's every
 * figure is recomputed from the shipments as the API shows them (order totals, statuses, cash statuses, the cash
 * events' amounts and fees), it flags exactly the planted discrepancies, its CSV says the same, and
 * `payment.received` reaches a loopback receiver once per remitted shipment.
 */
import { assert, layer } from "@effect/vitest"
import { CourierAdapter, type CourierError } from "@tawsil/courier"
import { Egress } from "@tawsil/egress"
import { Poller } from "@tawsil/shipments"
import type * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Duration, Effect, Layer, Result, Schema } from "effect"
import { EcotrackFake, TOKEN } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { API_ID, API_TOKEN, YalidineFake } from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as YalidinePusher from "../../../../adapters/yalidine/test/fake/YalidinePusher.ts"
import * as Receiver from "../../../../packages/webhooks/test/Receiver.ts"
import { dashboardStore } from "../ConfigHarness.ts"
import { backends, baseUrl, call, sql, storeServer } from "../StoreHarness.ts"

const YALIDINE_SECRET = "yal-webhook-secret-cod-0a9e3f"
const DAY = 86_400_000

// --- payco: a polled courier that reports the cash with its amount and fee ------------------------------------------

/** What payco's batch read answers for each parcel: set by the test. */
const paycoEvents = new Map<string, Array<CourierAdapter.RawEvent>>()
let paycoIssued = 0

const payco = CourierAdapter.define<{ readonly token: string }>({
  platform: "testpay",
  couriers: [{ key: "payco", name: "Pay Co (test)", aliases: [], endpoint: { origin: "https://api.payco.dz" } }],
  credentials: Schema.Struct({ token: Schema.String }),
  statuses: { ready: "pending_pickup", delivered: "delivered", returned: "returned" },
  codStatuses: { cash_collected: "collected", cash_paid: "remitted" },
  operations: {
    create: () =>
      Effect.sync(() => {
        const trackingNumber = `PAY${String(++paycoIssued).padStart(6, "0")}`
        paycoEvents.set(trackingNumber, [{ rawStatus: "ready", timestamp: new Date().toISOString() }])
        return { trackingNumber, rawStatus: "ready" }
      }),
    trackBatch: (
      numbers
    ): Effect.Effect<ReadonlyMap<string, ReadonlyArray<CourierAdapter.RawEvent>>, CourierError.CourierErrorReason> =>
      Effect.sync(() => new Map(numbers.map((number) => [number, paycoEvents.get(number) ?? []])))
  }
})

const withFakes = (backend: TestDatabase.Backend) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const ecotrack = yield* EcotrackFake
      const yalidine = yield* YalidineFake
      return storeServer(backend, {
        courierOrigins: Result.getOrThrow(
          Egress.parseOverrides(
            `https://platform.dhd-dz.com=${ecotrack.origin},https://api.yalidine.app=${yalidine.origin}`
          )
        ),
        poll: { ...Poller.defaults, every: Duration.millis(200) },
        couriers: [payco],
        webhooks: { allowHosts: { hosts: new Set(["127.0.0.1"]) }, retryDelays: [Duration.millis(100)] }
      })
    })
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        EcotrackFake.layer({ tokens: [TOKEN] }),
        YalidineFake.layer({ accounts: [{ apiId: API_ID, apiToken: API_TOKEN, quotas: { second: 50, minute: 500 } }] })
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

// biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
type Json = any

/** The Algiers day of an instant. */
const dayOf = (millis: number) => new Date(millis + 3_600_000).toISOString().slice(0, 10)

for (const backend of backends) {
  layer(withFakes(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `COD ledger over a socket (${backend.name})`,
    (it) => {
      it.effect(
        "a month over three couriers: the report recomputed from the shipments, the planted flags exactly",
        () =>
          Effect.scoped(
            Effect.gen(function* () {
              const receiver = yield* Receiver.start
              const ecotrack = yield* EcotrackFake
              const base = yield* baseUrl
              const db = yield* sql
              const { dashboard } = yield* dashboardStore()
              const hook = yield* dashboard.write("POST", "/v1/webhooks", {
                url: `${receiver.url}/cod`,
                events: ["payment.received"]
              })
              assert.strictEqual(hook.status, 200, hook.text)
              const product = (yield* dashboard.write("POST", "/v1/products", {
                name: "Karakou",
                price: 2000,
                stock: 100
              })).body.data
              let customers = 0
              /** A confirmed order of `quantity` (its total: 2000 a piece, cash on delivery). */
              const order = (quantity: number) =>
                Effect.gen(function* () {
                  const created = (yield* dashboard.write("POST", "/v1/orders", {
                    customer: {
                      name: `Client ${++customers}`,
                      phone: `0661 22 33 ${String(10 + customers)}`,
                      wilaya_id: 16,
                      commune: "Hydra",
                      address: "Rue 1"
                    },
                    items: [{ product_id: product.id, quantity }]
                  })).body.data
                  yield* dashboard.write("PATCH", `/v1/orders/${created.id}`, { status: "confirmed" })
                  return created.id as number
                })
              const account = (body: Record<string, unknown>) =>
                Effect.map(dashboard.write("POST", "/v1/shipping/accounts", { label: "Compte", ...body }), (answer) => {
                  assert.strictEqual(answer.status, 200, answer.text)
                  return answer.body.data
                })
              const yalidine = yield* account({
                courier: "yalidine",
                credentials: { apiId: API_ID, apiToken: API_TOKEN },
                webhook_secret: YALIDINE_SECRET
              })
              const dhd = yield* account({ courier: "dhd", credentials: { token: TOKEN } })
              const paycoAccount = yield* account({ courier: "payco", credentials: { token: "payco-token" } })
              const ship = (accountId: number, quantity: number) =>
                Effect.gen(function* () {
                  const id = yield* order(quantity)
                  const shipped = yield* dashboard.write("POST", `/v1/orders/${id}/shipment`, {
                    account_id: accountId,
                    from_wilaya: 16
                  })
                  assert.strictEqual(shipped.status, 200, shipped.text)
                  return { id, tracking: shipped.body.data.shipment.tracking_number as string }
                })
              const [y1, y2, y3] = [
                yield* ship(yalidine.id, 1),
                yield* ship(yalidine.id, 2),
                yield* ship(yalidine.id, 3)
              ]
              // Two of DHD's: Ecotrack's declared 50 calls a minute space each account's calls 1.5 s apart.
              const [d1, d2] = [yield* ship(dhd.id, 1), yield* ship(dhd.id, 2)]
              const [p1, p2, p3, p4] = [
                yield* ship(paycoAccount.id, 2),
                yield* ship(paycoAccount.id, 1),
                yield* ship(paycoAccount.id, 3),
                yield* ship(paycoAccount.id, 1)
              ]

              // Yalidine's engine pushes deliveries, a return and one payment (with its payout id).
              const pusher = YalidinePusher.make({ secret: YALIDINE_SECRET, retryDelays: [] })
              yield* pusher.subscribe(`${base}${yalidine.push.url}`).pipe(Effect.orDie)
              const at = Date.now() + 60_000
              for (const [type, events] of [
                [
                  "parcel_status_updated",
                  [
                    YalidinePusher.statusUpdated(y1!.tracking, "Livré", { at }),
                    YalidinePusher.statusUpdated(y2!.tracking, "Livré", { at }),
                    YalidinePusher.statusUpdated(y3!.tracking, "Retourné au vendeur", { at })
                  ]
                ],
                [
                  "parcel_payment_updated",
                  [YalidinePusher.paymentUpdated(y1!.tracking, "payed", { paymentId: "PAY-YAL-77", at: at + 60_000 })]
                ]
              ] as const) {
                const pushed = yield* pusher.push(type, events).pipe(Effect.orDie)
                assert.isTrue(pushed.delivered, JSON.stringify(pushed.attempts))
              }

              // DHD's parcels: one cashed by the courier, one paid to the merchant — polled.
              const clock = (seconds: number) =>
                ecotrack.setClock(
                  ...(YalidinePusher.algiersTime(Date.now() + seconds * 1000).split(" ") as [string, string])
                )
              clock(60)
              for (const parcel of [d1, d2]) ecotrack.addActivity(parcel!.tracking, "livred")
              clock(120)
              ecotrack.addActivity(d1!.tracking, "encaissed")
              ecotrack.addActivity(d2!.tracking, "payed")

              // payco's parcels: p1 delivered and its cash collected (4000, fee 300); p2 delivered 20 days ago and never
              // paid; p3 delivered (paid later by the statement, short); p4 still on its way.
              const iso = (millis: number) => new Date(millis).toISOString()
              paycoEvents
                .get(p1!.tracking)!
                .push(
                  { rawStatus: "delivered", timestamp: iso(at) },
                  { rawStatus: "cash_collected", timestamp: iso(at + 1000), payment: { amount: 4000, fee: 300 } }
                )
              paycoEvents.get(p2!.tracking)!.push({ rawStatus: "delivered", timestamp: iso(at) })
              paycoEvents.get(p3!.tracking)!.push({ rawStatus: "delivered", timestamp: iso(at) })

              yield* db`UPDATE shipment_checks SET due_at = now()`.pipe(Effect.orDie)
              const detail = (id: number) => Effect.map(dashboard.get(`/v1/orders/${id}`), (answer) => answer.body.data)
              const settled = (id: number, status: string, cod: string | null) =>
                until(
                  detail(id),
                  (one: Json) => one.shipment.status === status && one.shipment.cod_status === cod,
                  `order ${id} ${status}/${cod}`
                )
              yield* settled(y1!.id, "delivered", "remitted")
              yield* settled(y2!.id, "delivered", null)
              yield* settled(y3!.id, "returned", null)
              yield* settled(d1!.id, "delivered", "collected")
              yield* settled(d2!.id, "delivered", "remitted")
              yield* settled(p1!.id, "delivered", "collected")
              yield* settled(p2!.id, "delivered", null)
              yield* settled(p3!.id, "delivered", null)
              // p2 was delivered 20 days ago (synthetic: a delivery older than the parcel's creation never moves it).
              yield* db`UPDATE order_shipments SET status_at = now() - interval '20 days' WHERE order_id = ${p2!.id}`.pipe(
                Effect.orDie
              )

              // payco's payout: p1 paid its COD less the fee (a match), p3 short by 1000, a line of no parcel of ours.
              const statement =
                "tracking_number;montant;date\n" +
                `${p1!.tracking};3700,00;${dayOf(Date.now())}\n` +
                `${p3!.tracking};5000;${dayOf(Date.now())}\n` +
                `PAY-UNKNOWN-9;1500;${dayOf(Date.now())}\n`
              const imported = yield* call(base, "POST", "/v1/cod/statements", {
                token: dashboard.token,
                key: "statement-1",
                headers: { "content-type": "text/csv" },
                bytes: new Uint8Array(Buffer.from(statement, "utf8"))
              })
              assert.strictEqual(imported.status, 201, imported.text)
              assert.deepInclude(imported.body.data, { courier: "payco", lines: 3, matched: 1, remitted: 2 })
              assert.deepStrictEqual(
                imported.body.data.flagged.map((line: Json) => [line.line, line.outcome, line.order_id, line.expected]),
                [
                  [3, "amount_differs", p3!.id, 6000],
                  [4, "unmatched", null, null]
                ]
              )
              yield* settled(p1!.id, "delivered", "remitted")
              yield* settled(p3!.id, "delivered", "remitted")

              // A month: the shipments shipped on days spread over the 30 days up to today (synthetic).
              const ids = [y1, y2, y3, d1, d2, p1, p2, p3, p4].map((one) => one!.id)
              yield* db`
              UPDATE order_shipments SET created_at = now() - (order_id % 28) * interval '1 day'
              WHERE order_id IN ${db.in(ids)}`.pipe(Effect.orDie)
              const from = dayOf(Date.now() - 29 * DAY)
              const to = dayOf(Date.now())
              const report = yield* dashboard.get(`/v1/reports/cod?from=${from}&to=${to}&stale_after_days=14`)
              assert.strictEqual(report.status, 200, report.text)

              // The figures again, from the shipments as the API shows them.
              const shipments = []
              for (const id of ids) shipments.push(yield* detail(id))
              const newestPayment = (one: Json, status: string | undefined, key: "amount" | "fee") => {
                const events = one.shipment.timeline.filter(
                  (event: Json) =>
                    event.kind === "cod" &&
                    (status === undefined || event.status === status) &&
                    event.payment?.[key] != null
                )
                return events.length === 0 ? null : (events.at(-1).payment[key] as number)
              }
              const asOf = Date.parse(report.body.data.as_of)
              const figuresOf = (of: ReadonlyArray<Json>) => {
                const amounts = (rows: ReadonlyArray<Json>, amount: (one: Json) => number) => ({
                  count: rows.length,
                  amount: rows.reduce((sum, one) => sum + amount(one), 0)
                })
                const cod = (one: Json) => Math.round(Number(one.amounts.total))
                const remitted = (one: Json) => newestPayment(one, "remitted", "amount") ?? cod(one)
                const fee = (one: Json) => newestPayment(one, undefined, "fee") ?? 0
                const isRemitted = (one: Json) => one.shipment.cod_status === "remitted"
                const deliveredAt = (one: Json) => Date.parse(`${one.shipment.status_at.replace(" ", "T")}+01:00`)
                return {
                  shipments: of.length,
                  expected: amounts(
                    of.filter((one) => one.shipment.status !== "cancelled"),
                    cod
                  ),
                  collected_not_remitted: amounts(
                    of.filter((one) => one.shipment.cod_status === "collected"),
                    (one) => newestPayment(one, "collected", "amount") ?? cod(one)
                  ),
                  remitted: amounts(of.filter(isRemitted), remitted),
                  fees: amounts(
                    of.filter((one) => newestPayment(one, undefined, "fee") !== null),
                    fee
                  ),
                  returned: amounts(
                    of.filter((one) => one.shipment.status === "returned"),
                    cod
                  ),
                  not_remitted: amounts(
                    of.filter(
                      (one) =>
                        one.shipment.status === "delivered" && !isRemitted(one) && deliveredAt(one) < asOf - 14 * DAY
                    ),
                    cod
                  ),
                  amount_differs: amounts(
                    of.filter(
                      (one) =>
                        isRemitted(one) &&
                        newestPayment(one, "remitted", "amount") !== null &&
                        remitted(one) !== cod(one) &&
                        remitted(one) !== cod(one) - fee(one)
                    ),
                    remitted
                  )
                }
              }
              const reported = (figures: Json) => ({
                shipments: figures.shipments,
                expected: figures.expected,
                collected_not_remitted: figures.collected_not_remitted,
                remitted: figures.remitted,
                fees: figures.fees,
                returned: figures.returned,
                not_remitted: figures.discrepancies.not_remitted,
                amount_differs: figures.discrepancies.amount_differs
              })
              const data = report.body.data
              assert.deepStrictEqual(reported(data.total), figuresOf(shipments))
              assert.deepStrictEqual(data.total.discrepancies.unmatched_lines, { count: 1, amount: 1500 })
              assert.deepStrictEqual(
                data.couriers.map((one: Json) => one.courier),
                ["dhd", "payco", "yalidine"]
              )
              for (const one of data.couriers) {
                assert.deepStrictEqual(
                  reported(one),
                  figuresOf(shipments.filter((shipment) => shipment.shipment.courier === one.courier)),
                  one.courier
                )
              }
              // The figures by hand, so that a rule wrong in both places still fails.
              assert.deepStrictEqual(data.total.remitted, { count: 4, amount: 2000 + 4000 + 3700 + 5000 })
              assert.deepStrictEqual(data.total.collected_not_remitted, { count: 1, amount: 2000 })
              assert.deepStrictEqual(data.total.fees, { count: 1, amount: 300 })
              assert.deepStrictEqual(data.total.returned, { count: 1, amount: 6000 })
              // Exactly the planted discrepancies.
              assert.deepStrictEqual(
                data.discrepancies.map((one: Json) => [
                  one.kind,
                  one.courier,
                  one.tracking_number,
                  one.expected,
                  one.amount
                ]),
                [
                  ["not_remitted", "payco", p2!.tracking, 2000, null],
                  ["amount_differs", "payco", p3!.tracking, 6000, 5000],
                  ["unmatched_line", "payco", "PAY-UNKNOWN-9", null, 1500]
                ]
              )
              assert.isFalse(data.discrepancies_truncated)
              // The statement each remittance came from: Yalidine's payout id, the imported statement's name.
              assert.strictEqual(newestPayment(shipments[0], "remitted", "amount"), null)
              assert.strictEqual(
                shipments[0].shipment.timeline.find((event: Json) => event.status === "remitted").payment.statement,
                "PAY-YAL-77"
              )

              // One courier, and the CSV: the same totals, a line per shipment and per unknown line.
              const onlyPayco = yield* dashboard.get(`/v1/reports/cod?from=${from}&to=${to}&courier=payco`)
              assert.deepStrictEqual(
                { courier: "payco", ...onlyPayco.body.data.total },
                data.couriers.find((one: Json) => one.courier === "payco")
              )
              const csv = yield* call(base, "GET", `/v1/reports/cod?from=${from}&to=${to}`, {
                token: dashboard.token,
                headers: { accept: "text/csv" }
              })
              assert.strictEqual(csv.status, 200, csv.text)
              const rows = csv.text
                .trim()
                .split("\r\n")
                .map((line) => line.split(","))
              const column = (name: string) => rows[0]!.indexOf(name)
              assert.strictEqual(rows.filter((row) => row[0] === "shipment").length, 9)
              assert.strictEqual(rows.filter((row) => row[0] === "statement_line").length, 1)
              const total = rows.at(-1)!
              assert.strictEqual(total[0], "total")
              assert.strictEqual(Number(total[column("expected")]), data.total.expected.amount)
              assert.strictEqual(Number(total[column("remitted")]), data.total.remitted.amount)
              assert.strictEqual(
                Number(total[column("collected_not_remitted")]),
                data.total.collected_not_remitted.amount
              )
              assert.strictEqual(Number(total[column("returned")]), data.total.returned.amount)
              assert.strictEqual(Number(total[column("fee")]), data.total.fees.amount)
              assert.strictEqual(Number(total[column("discrepancy")]), 3)

              // payment.received once per remitted shipment: y1 (pushed), d2 (polled), p1 and p3 (the statement).
              const payments = yield* until(
                Effect.sync(() => receiver.received.map((one) => JSON.parse(one.body.toString("utf8")))),
                (events) => events.length >= 4,
                "four payment.received"
              )
              yield* Effect.sleep("300 millis")
              assert.strictEqual(receiver.received.length, 4)
              assert.deepStrictEqual(
                payments
                  .map((one: Json) => [one.event, one.data.order_id, one.data.amount, one.data.statement])
                  .sort((a: Json, b: Json) => a[1] - b[1]),
                [
                  ["payment.received", y1!.id, 2000, "PAY-YAL-77"],
                  ["payment.received", d2!.id, 4000, null],
                  ["payment.received", p1!.id, 3700, `stmt_${imported.body.data.id}`],
                  ["payment.received", p3!.id, 5000, `stmt_${imported.body.data.id}`]
                ]
              )
            })
          )
      )
    }
  )
}
