/**
 * The ban list and return risk through the store API in memory (`src/store/risk`, docs/risk.md): bans by customer and
 * by phone with `is_banned` following them, an order from a banned phone flagged (the default) or refused per the
 * store's setting, the score's factors on a customer's detail and an order's risk, the recommendation's shape, and
 * every refusal in the envelope (fuzzed ban bodies included). The outcomes report over real shipments, on both
 * databases: `../risk/Risk.db.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore } = InMemory

type Store = Effect.Success<ReturnType<typeof createStore>>

const customer = (phone: string, address = "Cité 5, bloc B") => ({
  name: "Amina Benali",
  phone,
  wilaya_id: 16,
  commune: "Bab Ezzouar",
  address
})

const productOf = (store: Store) =>
  Effect.map(
    store.write("POST", "/v1/products", { name: "Tapis", price: 9000 }),
    (answer) => answer.body.data.id as number
  )

const orderFrom = (store: Store, product: number, phone: string, address?: string) =>
  store.write("POST", "/v1/orders", {
    customer: customer(phone, address),
    items: [{ product_id: product, quantity: 1 }]
  })

const factorsOf = (detail: { fraud_factors: ReadonlyArray<{ factor: string; value: number; points: number }> }) =>
  Object.fromEntries(detail.fraud_factors.map((f) => [f.factor, [f.value, f.points]]))

layer(InMemory.layer(), { excludeTestServices: true })("ban list and return risk (memory)", (it) => {
  it.effect("bans a customer and a phone not yet seen; is_banned follows; unbans; lists the bans", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const order = (yield* orderFrom(store, product, "0555 12 34 56")).body.data
      const customerId = order.customer.id as number

      const banned = yield* store.write("POST", `/v1/customers/${customerId}/ban`, { reason: "Refused 3 parcels" })
      assert.strictEqual(banned.status, 200, banned.text)
      assert.deepInclude(banned.body.data, {
        phone: "0555123456",
        reason: "Refused 3 parcels",
        customer_id: customerId
      })
      assert.isTrue((yield* store.get(`/v1/customers/${customerId}`)).body.data.is_banned)
      const listed = (yield* store.get("/v1/customers?phone=0555123456")).body.data.items[0]
      assert.isTrue(listed.is_banned)

      // A phone that never ordered, sent with spaces: kept as the store keeps phones.
      const byPhone = yield* store.write("POST", "/v1/bans", { phone: "0661 00 00 07", reason: "Fake orders" })
      assert.deepInclude(byPhone.body.data, { phone: "0661000007", customer_id: null })
      const bans = (yield* store.get("/v1/bans")).body.data
      assert.deepStrictEqual(
        bans.items.map((ban: { phone: string }) => ban.phone),
        ["0661000007", "0555123456"]
      )
      const page = (yield* store.get("/v1/bans?limit=1")).body.data
      assert.deepStrictEqual([page.items.length, page.has_more], [1, true])
      const next = (yield* store.get(`/v1/bans?limit=1&cursor=${page.next_cursor}`)).body.data
      assert.strictEqual(next.items[0].phone, "0555123456")

      const lifted = yield* store.write("DELETE", `/v1/customers/${customerId}/ban`)
      assert.deepStrictEqual(lifted.body.data, { phone: "0555123456", customer_id: customerId, is_banned: false })
      assert.isFalse((yield* store.get(`/v1/customers/${customerId}`)).body.data.is_banned)
      assert.deepStrictEqual(codeOf(yield* store.write("DELETE", `/v1/customers/${customerId}/ban`)), [
        404,
        "not_found"
      ])
      const phoneLifted = yield* store.write("DELETE", "/v1/bans/0661000007")
      assert.strictEqual(phoneLifted.status, 200)
      assert.deepStrictEqual(codeOf(yield* store.write("DELETE", "/v1/bans/0661000007")), [404, "not_found"])
      assert.strictEqual((yield* store.get("/v1/bans")).body.data.items.length, 0)
      // A leading + travels in the path as %2B.
      yield* store.write("POST", "/v1/bans", { phone: "+213 661 00 00 02", reason: "Fake" })
      const plus = yield* store.write("DELETE", "/v1/bans/%2B213661000002")
      assert.deepStrictEqual([plus.status, plus.body.data?.phone], [200, "+213661000002"], plus.text)

      // Another store sees none of it.
      const other = yield* createStore()
      assert.deepStrictEqual(codeOf(yield* other.write("POST", `/v1/customers/${customerId}/ban`, { reason: "x" })), [
        404,
        "not_found"
      ])
    })
  )

  it.effect("an order from a banned phone is flagged by default, refused under `refuse`, admitted once unbanned", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const settings = yield* store.get("/v1/risk/settings")
      assert.deepStrictEqual(settings.body.data, { banned_orders: "flag", updated_at: null })
      yield* store.write("POST", "/v1/bans", { phone: "0770 11 22 33", reason: "Never answers" })

      const flagged = yield* orderFrom(store, product, "0770112233")
      assert.strictEqual(flagged.status, 200, flagged.text)
      const risk = (yield* store.get(`/v1/orders/${flagged.body.data.id}/risk`)).body.data
      assert.deepInclude(risk, { order_id: flagged.body.data.id, phone: "0770112233", is_banned: true })
      assert.deepStrictEqual(
        risk.flags.map((flag: { flag: string }) => flag.flag),
        ["customer_banned"]
      )
      // The customer the flagged order made is banned too.
      assert.isTrue((yield* store.get(`/v1/customers/${flagged.body.data.customer.id}`)).body.data.is_banned)

      const refuse = yield* store.write("PATCH", "/v1/risk/settings", { banned_orders: "refuse" })
      assert.strictEqual(refuse.body.data.banned_orders, "refuse")
      const before = (yield* store.get("/v1/orders")).body.data.items.length
      const refused = yield* orderFrom(store, product, "0770 112 233")
      assert.deepStrictEqual(codeOf(refused), [422, "customer_banned"])
      assert.strictEqual(refused.body.error.message, "The customer's phone is banned: the store refuses its orders")
      assert.strictEqual((yield* store.get("/v1/orders")).body.data.items.length, before, "nothing was created")
      // Another phone is not refused.
      assert.strictEqual((yield* orderFrom(store, product, "0770112234")).status, 200)

      yield* store.write("DELETE", "/v1/bans/0770112233")
      const admitted = yield* orderFrom(store, product, "0770112233")
      assert.strictEqual(admitted.status, 200)
      assert.deepStrictEqual((yield* store.get(`/v1/orders/${admitted.body.data.id}/risk`)).body.data.flags, [])
    })
  )

  it.effect("the score shows its factors: another phone at the address and the orders of the day raise it", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const first = (yield* orderFrom(store, product, "0550000001", "Cité 5,  Bloc B")).body.data
      const detail = (yield* store.get(`/v1/customers/${first.customer.id}`)).body.data
      assert.deepStrictEqual([detail.fraud_score, detail.fraud_level], [0, "safe"])
      assert.deepStrictEqual(factorsOf(detail), {
        returns: [0, 0],
        fake_confirmations: [0, 0],
        cancelled_confirmations: [0, 0],
        shared_address: [0, 0],
        velocity: [1, 0]
      })
      // Another phone at the same address (spaces and case folded), then two more orders from the first phone.
      yield* orderFrom(store, product, "0550000002", "cité 5, bloc b ")
      yield* orderFrom(store, product, "0550000001", "Cité 5,  Bloc B")
      yield* orderFrom(store, product, "0550000001", "Cité 5,  Bloc B")
      const after = (yield* store.get(`/v1/customers/${first.customer.id}`)).body.data
      assert.deepStrictEqual(factorsOf(after).shared_address, [1, 10])
      assert.deepStrictEqual(factorsOf(after).velocity, [3, 20])
      assert.deepStrictEqual([after.fraud_score, after.fraud_level], [30, "low"])
      const risk = (yield* store.get(`/v1/orders/${first.id}/risk`)).body.data
      assert.deepStrictEqual([risk.fraud_score, risk.fraud_factors], [after.fraud_score, after.fraud_factors])
    })
  )

  it.effect("recommends the store's couriers with its price for the order's wilaya and delivery type", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const order = (yield* orderFrom(store, product, "0550000009")).body.data
      const none = (yield* store.get(`/v1/orders/${order.id}/courier-recommendations`)).body.data
      assert.deepStrictEqual(none, { order_id: order.id, wilaya_id: 16, delivery_type: "home", items: [] })
      yield* store.write("POST", "/v1/shipping/accounts", { courier: "sandbox", label: "Essais" })
      yield* store.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 450, desk_price: 300 }] })
      const ranked = (yield* store.get(`/v1/orders/${order.id}/courier-recommendations`)).body.data.items
      assert.deepStrictEqual(ranked, [
        {
          rank: 1,
          courier: "sandbox",
          price: 450,
          expected_delivery_rate: 0.5,
          wilaya: { settled: 0, delivery_rate: null, median_days_to_deliver: null },
          overall: { settled: 0, delivery_rate: null }
        }
      ])
      const report = yield* store.get("/v1/reports/couriers?from=2026-01-01&to=2030-01-01T00:00:00Z")
      assert.deepStrictEqual(report.body.data, { items: [], couriers: [] })
    })
  )

  it.effect("answers every refusal in the envelope", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = yield* productOf(store)
      const order = (yield* orderFrom(store, product, "0550000010")).body.data
      const id = order.customer.id
      const refusals: ReadonlyArray<readonly [string, string, unknown, readonly [number, string]]> = [
        ["POST", `/v1/customers/${id}/ban`, {}, [400, "bad_request"]],
        ["POST", `/v1/customers/${id}/ban`, { reason: "   " }, [400, "bad_request"]],
        ["POST", `/v1/customers/${id}/ban`, { reason: "x".repeat(501) }, [400, "bad_request"]],
        ["POST", `/v1/customers/${id}/ban`, { reason: "a\u0000b" }, [400, "bad_request"]],
        ["POST", "/v1/customers/999999/ban", { reason: "x" }, [404, "not_found"]],
        ["POST", "/v1/customers/99999999999/ban", { reason: "x" }, [404, "not_found"]],
        ["POST", "/v1/customers/abc/ban", { reason: "x" }, [400, "bad_request"]],
        ["POST", "/v1/bans", { phone: "12", reason: "x" }, [400, "bad_request"]],
        ["POST", "/v1/bans", { phone: 555123456, reason: "x" }, [400, "bad_request"]],
        ["POST", "/v1/bans", { reason: "x" }, [400, "bad_request"]],
        ["DELETE", "/v1/bans/not-a-phone", undefined, [404, "not_found"]],
        ["PATCH", "/v1/risk/settings", { banned_orders: "block" }, [400, "bad_request"]],
        ["PATCH", "/v1/risk/settings", {}, [400, "bad_request"]]
      ]
      for (const [method, path, body, expected] of refusals) {
        assert.deepStrictEqual(codeOf(yield* store.write(method, path, body)), expected, `${method} ${path}`)
      }
      const reads: ReadonlyArray<readonly [string, readonly [number, string]]> = [
        ["/v1/orders/999999/risk", [404, "not_found"]],
        ["/v1/orders/x/risk", [400, "bad_request"]],
        ["/v1/orders/999999/courier-recommendations", [404, "not_found"]],
        ["/v1/reports/couriers?from=yesterday", [400, "bad_request"]],
        ["/v1/reports/couriers?from=2026-02-30", [400, "bad_request"]],
        ["/v1/reports/couriers?from=2026-03-01&to=2026-02-01", [400, "bad_request"]]
      ]
      for (const [path, expected] of reads) assert.deepStrictEqual(codeOf(yield* store.get(path)), expected, path)
      // Writes need orders:write (bans) and store:write (the setting).
      const reader = yield* InMemory.keyWithScopes(store.id, ["orders:read"])
      assert.deepStrictEqual(codeOf(yield* reader.write("POST", "/v1/bans", { phone: "0550000011", reason: "x" })), [
        403,
        "forbidden"
      ])
      assert.deepStrictEqual(codeOf(yield* reader.write("PATCH", "/v1/risk/settings", { banned_orders: "refuse" })), [
        403,
        "forbidden"
      ])
    })
  )

  it.effect("fuzzed ban bodies: a ban or a 400 in the envelope, never anything else", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const text = fc.string({ unit: "binary", maxLength: 40 })
      const json = fc.oneof(
        text,
        fc.integer(),
        fc.double(),
        fc.constant(null),
        fc.constantFrom("0550 00 00 01", "+213550000001", "\u0000", "9".repeat(30)),
        fc.constant(1e308)
      )
      const bodies = fc.oneof(
        fc.record({ phone: json, reason: json }, { requiredKeys: [] }),
        fc.letrec((tie) => ({ deep: fc.oneof({ depthSize: "small" }, json, fc.array(tie("deep"), { maxLength: 3 })) }))
          .deep,
        json
      )
      const samples = fc.sample(bodies, { numRuns: 40, seed: 36 })
      for (const body of samples) {
        const answer = yield* store.write("POST", "/v1/bans", body)
        assert.include([200, 400], answer.status, `${JSON.stringify(body)} → ${answer.text}`)
        if (answer.status === 400) assert.strictEqual(answer.body.error.code, "bad_request")
      }
    })
  )
})
