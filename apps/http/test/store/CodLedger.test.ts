/**
 * The COD ledger through the store API in memory (`src/store/cod`; docs/cod-ledger.md): a statement imported and
 * matched (every flag answered), its replay, the shipments' cash remitted by it and by a push, the report as JSON and
 * as CSV, and every bad input — malformed CSV, NUL bytes, huge amounts, wrong dates, a bad period — answered in the
 * envelope with 400, never a 500; the scopes. Couriers: `pushco` (`ShipmentCouriers.ts`). Over a socket on both
 * databases with three couriers' loopback fakes: `../shipments/CodLedger.db.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import * as InMemory from "./InMemory.ts"
import * as Couriers from "./ShipmentCouriers.ts"

const { call, codeOf, createStore, key } = InMemory

const customer = { name: "Amina Benali", phone: "0555123456", wilaya_id: 16, commune: "Bab Ezzouar", address: "Cité 5" }
let customers = 0

const csv = (store: InMemory.Caller, text: string | Uint8Array, idempotencyKey = key()) =>
  call("POST", "/v1/cod/statements", {
    token: store.token,
    key: idempotencyKey,
    headers: { "content-type": "text/csv" },
    bytes: typeof text === "string" ? new Uint8Array(Buffer.from(text, "utf8")) : text
  })

const pushed = (accountId: number, events: ReadonlyArray<Couriers.PushcoEvent>) => {
  const body = Couriers.pushcoBody(events)
  return call("POST", `/v1/hooks/couriers/${accountId}`, {
    headers: Couriers.pushcoHeaders(body, Couriers.PUSH_SECRET),
    bytes: new Uint8Array(Buffer.from(body, "utf8"))
  })
}

const isoIn = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString()

/** A store with a pushco account and `count` orders of `price` each shipped through it. */
const shipped = (count: number, price: number) =>
  Effect.gen(function* () {
    const store = yield* createStore()
    const account = yield* store.write("POST", "/v1/shipping/accounts", {
      label: "Compte",
      courier: "pushco",
      credentials: { token: "pushco-token" },
      webhook_secret: Couriers.PUSH_SECRET
    })
    assert.strictEqual(account.status, 200, account.text)
    const product = (yield* store.write("POST", "/v1/products", { name: "Robe", price, stock: 100 })).body.data
    const orders: Array<{ id: number; tracking: string; number: string }> = []
    for (let i = 0; i < count; i++) {
      const order = (yield* store.write("POST", "/v1/orders", {
        customer: { ...customer, name: `${customer.name} ${++customers}` },
        items: [{ product_id: product.id, quantity: 1 }]
      })).body.data
      yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
      const ship = yield* store.write("POST", `/v1/orders/${order.id}/shipment`, { account_id: account.body.data.id })
      assert.strictEqual(ship.status, 200, ship.text)
      orders.push({ id: order.id, tracking: ship.body.data.shipment.tracking_number, number: order.order_number })
    }
    return { store, accountId: account.body.data.id as number, orders }
  })

const header = "tracking_number,amount,date\n"

layer(InMemory.layer({ gateway: Couriers.gateway() }), { excludeTestServices: true, timeout: "120 seconds" })(
  "COD ledger (memory)",
  (it) => {
    it.effect("a statement remits what it pays, flags the rest, and the report adds it all up", () =>
      Effect.gen(function* () {
        const { store, accountId, orders } = yield* shipped(4, 3000)
        const [paidByPush, paidByStatement, paidWrong, returned] = orders as [
          (typeof orders)[0],
          (typeof orders)[0],
          (typeof orders)[0],
          (typeof orders)[0]
        ]
        const answer = yield* pushed(accountId, [
          ...[paidByPush, paidByStatement, paidWrong].map((order, i) => ({
            id: Couriers.eventId(),
            tracking: order.tracking,
            status: "delivered",
            at: isoIn(i + 1)
          })),
          { id: Couriers.eventId(), tracking: returned.tracking, status: "returned", at: isoIn(4) },
          { id: Couriers.eventId(), tracking: paidByPush.tracking, status: "cash_remitted", at: isoIn(5) }
        ])
        assert.strictEqual(answer.status, 200, answer.text)
        for (const order of orders) yield* InMemory.pushesApplied(accountId, { trackingNumber: order.tracking })

        const text =
          header +
          `${paidByStatement.tracking},3000,2026-12-01\n` +
          `${paidWrong.tracking},2500.00,01/12/2026\n` +
          "NOT-OURS-1,1200,2026-12-01\n" +
          `${paidByStatement.tracking},3000,2026-12-01\n`
        const idempotencyKey = key()
        const imported = yield* csv(store, text, idempotencyKey)
        assert.strictEqual(imported.status, 201, imported.text)
        const data = imported.body.data
        assert.deepInclude(data, { courier: "pushco", lines: 4, total: 9700, matched: 1, remitted: 2 })
        assert.strictEqual(data.statement, `stmt_${data.id}`)
        assert.deepStrictEqual(
          data.flagged.map((line: { line: number; outcome: string; order_id: number | null }) => [
            line.line,
            line.outcome,
            line.order_id
          ]),
          [
            [3, "amount_differs", paidWrong.id],
            [4, "unmatched", null],
            [5, "repeated", paidByStatement.id]
          ]
        )
        // A replay answers the first answer and imports nothing twice.
        const replay = yield* csv(store, text, idempotencyKey)
        assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
        assert.strictEqual(replay.text, imported.text)

        const detail = (id: number) => Effect.map(store.get(`/v1/orders/${id}`), (one) => one.body.data.shipment)
        for (const order of [paidByPush, paidByStatement, paidWrong]) {
          assert.strictEqual((yield* detail(order.id)).cod_status, "remitted", order.tracking)
        }
        const statementEvents = (yield* detail(paidWrong.id)).timeline.filter(
          (event: { source: string }) => event.source === "statement"
        )
        assert.deepStrictEqual(
          statementEvents.map((event: { kind: string; status: string }) => [event.kind, event.status]),
          [["cod", "remitted"]]
        )

        const report = yield* store.get("/v1/reports/cod?stale_after_days=14")
        assert.strictEqual(report.status, 200, report.text)
        const total = report.body.data.total
        assert.deepStrictEqual(total.expected, { count: 4, amount: 12000 })
        assert.deepStrictEqual(total.remitted, { count: 3, amount: 8500 })
        assert.deepStrictEqual(total.returned, { count: 1, amount: 3000 })
        assert.deepStrictEqual(total.collected_not_remitted, { count: 0, amount: 0 })
        assert.deepStrictEqual(total.discrepancies, {
          not_remitted: { count: 0, amount: 0 },
          amount_differs: { count: 1, amount: 2500 },
          unmatched_lines: { count: 1, amount: 1200 }
        })
        assert.deepStrictEqual(
          report.body.data.discrepancies.map((one: { kind: string; tracking_number: string }) => [
            one.kind,
            one.tracking_number
          ]),
          [
            ["amount_differs", paidWrong.tracking],
            ["unmatched_line", "NOT-OURS-1"]
          ]
        )
        assert.deepStrictEqual(
          report.body.data.couriers.map((one: { courier: string }) => one.courier),
          ["pushco"]
        )

        const asCsv = yield* call("GET", "/v1/reports/cod", { token: store.token, headers: { accept: "text/csv" } })
        assert.strictEqual(asCsv.status, 200, asCsv.text)
        assert.strictEqual(asCsv.headers.get("content-type"), "text/csv; charset=utf-8")
        const rows = asCsv.text.trim().split("\r\n")
        assert.strictEqual(
          rows[0],
          "row,courier,order_id,order_number,tracking_number,status,cod_status,date,expected,collected_not_remitted,remitted,fee,returned,unmatched_amount,statement,discrepancy"
        )
        assert.deepStrictEqual(
          rows.slice(1).map((row) => row.split(",")[0]),
          ["shipment", "shipment", "shipment", "shipment", "statement_line", "courier_total", "total"]
        )
        assert.strictEqual(rows.at(-1), "total,all,,,,,,,12000,0,8500,0,3000,1200,,2")
      })
    )

    it.effect("bad statements and bad periods are 400 in the envelope, never a 500; nothing is imported", () =>
      Effect.gen(function* () {
        const { store, orders } = yield* shipped(1, 1000)
        const tracking = orders[0]!.tracking
        const refusals: ReadonlyArray<readonly [string | Uint8Array, string]> = [
          ["", "the statement is empty"],
          ["tracking,amount\nA,1\n", "the header must name the columns"],
          [`${header}${tracking},1000,2026-12-01\n"open,1,2026-12-01\n`, "a quoted field is not closed"],
          [`${header}${tracking}\u0000,1000,2026-12-01\n`, "NUL character"],
          [`${header}${tracking},99999999999999999999,2026-12-01\n`, "amount must be"],
          [`${header}${tracking},1e308,2026-12-01\n`, "amount must be a number"],
          [`${header}${tracking},1000,2026-13-45\n`, "date is not a day of the calendar"],
          [`${header}${tracking},1000,yesterday\n`, "date must be YYYY-MM-DD or DD/MM/YYYY"],
          [new Uint8Array([0xff, 0xfe, 0x00, 0x41]), "statement"]
        ]
        for (const [text, expected] of refusals) {
          const answer = yield* csv(store, text)
          assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], answer.text)
          assert.include(answer.body.error.message, expected)
        }
        const detail = yield* store.get(`/v1/orders/${orders[0]!.id}`)
        assert.strictEqual(detail.body.data.shipment.cod_status, null, "nothing was remitted")

        for (const query of [
          "from=2026-02-30",
          "to=tomorrow",
          "from=2026-12-02&to=2026-12-01",
          "from=2024-01-01&to=2026-12-01",
          "stale_after_days=0",
          "stale_after_days=1e9",
          "stale_after_days=%00"
        ]) {
          const answer = yield* store.get(`/v1/reports/cod?${query}`)
          assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], `${query}: ${answer.text}`)
        }
      })
    )

    it.effect("any bytes as a statement: a 201 or a 400 in the envelope", () =>
      Effect.gen(function* () {
        const { store, orders } = yield* shipped(1, 1000)
        const line = fc.tuple(
          fc.oneof(fc.constant(orders[0]!.tracking), fc.string({ unit: "binary", maxLength: 30 })),
          fc.oneof(fc.nat().map(String), fc.string({ maxLength: 20 }), fc.double().map(String)),
          fc.oneof(fc.constant("2026-12-01"), fc.string({ maxLength: 12 }))
        )
        const samples = fc.sample(
          fc.oneof(
            fc.array(line, { maxLength: 5 }).map((lines) => header + lines.map((one) => one.join(",")).join("\n")),
            fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1"))
          ),
          20
        )
        for (const text of samples) {
          const answer = yield* csv(store, text)
          assert.include([201, 400], answer.status, answer.text)
        }
      })
    )

    it.effect("the import needs cod:write and the report cod:read: a key minted through the API has neither", () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const minted = yield* store.write("POST", "/v1/keys", { name: "erp" })
        const token: string = minted.body.data.bearer_token
        const report = yield* call("GET", "/v1/reports/cod", { token })
        assert.deepStrictEqual(codeOf(report), [403, "forbidden"])
        assert.strictEqual(report.body.error.message, "Missing scope: cod:read")
        const imported = yield* call("POST", "/v1/cod/statements", {
          token,
          key: key(),
          headers: { "content-type": "text/csv" },
          bytes: new Uint8Array(Buffer.from(`${header}A,1,2026-12-01\n`))
        })
        assert.deepStrictEqual(codeOf(imported), [403, "forbidden"])
        assert.strictEqual(imported.body.error.message, "Missing scope: cod:write")
      })
    )
  }
)
