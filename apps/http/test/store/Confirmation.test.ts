/**
 * Confirming orders through the store API in memory (`src/store/confirmation`, docs/confirmation.md): attempts on the
 * order's detail, the scope and another store's ids, a link and its page (confirm by form, then used), a page for a
 * token that is not valid, and the timeout's settings. The page in a browser and the timeout's sweep on both
 * databases are `../ConfirmationPage.db.test.ts` and `../Confirmation.db.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CONTENT_SECURITY_POLICY } from "../../src/store/confirmation/Page.ts"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore } = InMemory

const customer = { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

const orderOf = (store: InMemory.Caller) =>
  Effect.gen(function* () {
    const product = (yield* store.write("POST", "/v1/products", { name: "Gandoura", price: 3000 })).body.data
    const order = yield* store.write("POST", "/v1/orders", {
      customer,
      items: [{ product_id: product.id, quantity: 1 }]
    })
    return order.body.data as { readonly id: number; readonly order_number: string }
  })

/** The page's form, posted as a browser posts it. */
const post = (form: Record<string, string>) =>
  call("POST", "/v1/confirm?lang=fr", {
    bytes: new TextEncoder().encode(new URLSearchParams(form).toString()),
    headers: { "content-type": "application/x-www-form-urlencoded" }
  })

layer(InMemory.layer(), { excludeTestServices: true })("confirmation (memory)", (it) => {
  it.effect("attempts show on the order; another store's order is 404; a body that breaks a rule is 400", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const other = yield* createStore()
      const order = yield* orderOf(store)
      const busy = yield* store.write("POST", `/v1/orders/${order.id}/confirmation-attempts`, { outcome: "busy" })
      assert.strictEqual(busy.status, 200, busy.text)
      assert.deepStrictEqual([busy.body.data.status, busy.body.data.confirmation.state], ["pending", "busy"])
      const detail = yield* store.get(`/v1/orders/${order.id}`)
      assert.deepStrictEqual(detail.body.data.confirmation, busy.body.data.confirmation)
      assert.deepStrictEqual(
        codeOf(yield* other.write("POST", `/v1/orders/${order.id}/confirmation-attempts`, { outcome: "busy" })),
        [404, "not_found"]
      )
      const refused = yield* store.write("POST", `/v1/orders/${order.id}/confirmation-attempts`, { outcome: "later" })
      assert.deepStrictEqual(codeOf(refused), [400, "bad_request"])
      assert.include(refused.body.error.message, "outcome")
      assert.deepStrictEqual(
        codeOf(yield* store.write("POST", "/v1/orders/abc/confirmation-attempts", { outcome: "busy" })),
        [400, "bad_request"]
      )
    })
  )

  it.effect("a link's page confirms the order by its form, then says the link was used", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const order = yield* orderOf(store)
      const made = yield* store.write("POST", `/v1/orders/${order.id}/confirmation-link`, {})
      assert.strictEqual(made.status, 200, made.text)
      const { token, url } = made.body.data
      // On the listener the request reached (its Host; none in process, so localhost), the token in the query.
      assert.strictEqual(url, `http://localhost/v1/confirm?token=${token}`)

      const page = yield* call("GET", `/v1/confirm?token=${token}`, { headers: { "accept-language": "fr" } })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY)
      assert.include(page.text, '<html lang="fr" dir="ltr">')
      assert.include(page.text, order.order_number)
      assert.include(page.text, "3000.00 DA")
      assert.notInclude(page.text, "<script")

      const answered = yield* post({ token, answer: "confirm" })
      assert.strictEqual(answered.status, 200)
      assert.include(answered.text, 'data-state="confirmed"')
      assert.strictEqual((yield* store.get(`/v1/orders/${order.id}`)).body.data.status, "confirmed")

      const again = yield* post({ token, answer: "cancel" })
      assert.strictEqual(again.status, 410)
      assert.include(again.text, 'data-state="used"')
      assert.strictEqual((yield* store.get(`/v1/orders/${order.id}`)).body.data.status, "confirmed")
    })
  )

  it.effect("a token that is not valid gets the page saying so, in Arabic by default, never JSON", () =>
    Effect.gen(function* () {
      for (const path of [
        "/v1/confirm?token=1.aaaaaaaa.1.1.AAAAAAAAAAAAAAAA.9999999999.AAAAAAAAAAAAAAAAAAAAAA",
        "/v1/confirm?x=1"
      ]) {
        const page = yield* call("GET", path)
        assert.strictEqual(page.status, 404)
        assert.include(page.text, '<html lang="ar" dir="rtl">')
        assert.include(page.text, 'data-state="invalid"')
        assert.notInclude(page.text, "AAAAAAAAAAAAAAAA")
      }
    })
  )

  it.effect("settings: read, set, refused out of bounds", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const initial = yield* store.get("/v1/confirmation/settings")
      assert.deepStrictEqual(initial.body.data, { timeout_minutes: null, timeout_action: "flag", timeout_since: null })
      const set = yield* store.write("PATCH", "/v1/confirmation/settings", {
        timeout_minutes: 90,
        timeout_action: "cancel"
      })
      assert.deepStrictEqual([set.body.data.timeout_minutes, set.body.data.timeout_action], [90, "cancel"])
      assert.deepStrictEqual(
        codeOf(yield* store.write("PATCH", "/v1/confirmation/settings", { timeout_minutes: -5 })),
        [400, "bad_request"]
      )
      assert.deepStrictEqual((yield* store.get("/v1/confirmation/settings")).body.data.timeout_minutes, 90)
    })
  )
})
