/**
 * The customer's confirmation page in a real headless Chromium (Debian's, driven by playwright-core), with
 * JavaScript off, over the store server on each database (docs/confirmation.md): confirm and cancel, a used link, an
 * expired link and tampered tokens, in Arabic and French (by `Accept-Language`, `?lang=` and the page's own link).
 * One browser for the whole file. Chromium missing is a failure that says how to install it, never a skip.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll } from "vitest"
import { CONTENT_SECURITY_POLICY } from "../src/store/confirmation/Page.ts"
import { backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const CHROMIUM = "/usr/bin/chromium"

let launched: Promise<BrowserContext> | undefined
let profile: string | undefined

/**
 * The file's one browser, launched by the first test that needs it. Missing, every test fails with how to install it
 * (a failure in a hook would only mark the tests skipped).
 */
const launch = async (): Promise<BrowserContext> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: this test drives Debian's chromium. Install it with ` +
        "`apt-get install -y chromium` (as root; .ci/run does it when it is missing) and run the test again."
    )
  }
  profile = mkdtempSync(join(tmpdir(), "tawsil-chromium-"))
  // launchPersistentContext passes the fresh profile as --user-data-dir.
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    javaScriptEnabled: false,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}

const browser = () => {
  launched ??= launch()
  return launched
}

afterAll(async () => {
  await (await launched?.catch(() => undefined))?.close()
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true })
})

let keys = 0
const key = () => `page-${Date.now()}-${++keys}`

const customer = { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

/** A store with two products (one whose name would be markup), a webhook subscription, and a way to make orders. */
const setUp = Effect.gen(function* () {
  const base = yield* baseUrl
  const store = yield* createStore()
  const product = (name: string, price: number) =>
    Effect.map(
      call(base, "POST", "/v1/products", { token: store.token, key: key(), body: { name, price } }),
      (answer) => answer.body.data.id as number
    )
  const gandoura = yield* product("Gandoura", 3000)
  const scarf = yield* product("Foulard <soie>", 1500)
  const db = yield* sql
  yield* db`
    INSERT INTO webhook_subscriptions (store_id, url, events, active, secret)
    VALUES (${store.id}, 'https://hooks.example.com/tawsil', ARRAY['order.confirmed', 'order.cancelled'], true,
      'whsec_page_test')`
  const newOrder = Effect.suspend(() =>
    call(base, "POST", "/v1/orders", {
      token: store.token,
      key: key(),
      body: {
        customer,
        items: [
          { product_id: gandoura, quantity: 2 },
          { product_id: scarf, quantity: 1 }
        ]
      }
    })
  ).pipe(Effect.map((answer) => answer.body.data as { readonly id: number; readonly order_number: string }))
  const link = (orderId: number, expires_in = 3600) =>
    Effect.map(
      call(base, "POST", `/v1/orders/${orderId}/confirmation-link`, {
        token: store.token,
        key: key(),
        body: { expires_in }
      }),
      (answer) => answer.body.data as { readonly url: string; readonly token: string }
    )
  const order = (id: number) =>
    Effect.map(call(base, "GET", `/v1/orders/${id}`, { token: store.token }), (answer) => answer.body.data)
  const events = (event: string) =>
    Effect.map(
      db<{ readonly n: number }>`
        SELECT count(*)::int AS n FROM webhook_events WHERE store_id = ${store.id} AND event = ${event}`,
      (rows) => rows[0]!.n
    )
  return { base, store, newOrder, link, order, events }
})

/** What a page showed: its status, headers, state, language, direction, text, and any policy violation logged. */
interface Shown {
  readonly status: number | undefined
  readonly headers: Record<string, string>
  readonly state: string | null
  readonly lang: string | null
  readonly dir: string | null
  readonly text: string
  readonly html: string
  readonly violations: ReadonlyArray<string>
}

const read = async (
  page: Page,
  status: number | undefined,
  headers: Record<string, string>,
  violations: Array<string>
): Promise<Shown> => ({
  status,
  headers,
  state: await page.locator("main").getAttribute("data-state"),
  lang: await page.locator("html").getAttribute("lang"),
  dir: await page.locator("html").getAttribute("dir"),
  text: await page.locator("main").innerText(),
  html: await page.content(),
  violations: [...violations]
})

/** Opens `url` in a new tab asking for `language` (Accept-Language); `then` acts on the page and answers what it shows. */
const visit = (
  url: string,
  language: string,
  then?: (page: Page) => Promise<{ status: number | undefined; headers: Record<string, string> }>
) =>
  Effect.promise(async () => {
    const page = await (await browser()).newPage()
    const violations: Array<string> = []
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) violations.push(message.text())
    })
    try {
      await page.setExtraHTTPHeaders({ "accept-language": language })
      const response = await page.goto(url)
      const first = { status: response?.status(), headers: response?.headers() ?? {} }
      const opened = await read(page, first.status, first.headers, violations)
      if (then === undefined) return { opened, after: opened }
      const next = await then(page)
      return { opened, after: await read(page, next.status, next.headers, violations) }
    } finally {
      await page.close()
    }
  })

/** Clicks a button that submits a form, and answers the response the browser navigated to. */
const submit = (selector: string) => async (page: Page) => {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)])
  return { status: response?.status(), headers: response?.headers() ?? {} }
}

const strictHeaders = (headers: Record<string, string>) => {
  assert.strictEqual(headers["content-security-policy"], CONTENT_SECURITY_POLICY)
  assert.include(CONTENT_SECURITY_POLICY, "default-src 'none'")
  assert.include(CONTENT_SECURITY_POLICY, "form-action 'self'")
  assert.strictEqual(headers["cache-control"], "no-store")
  assert.strictEqual(headers["referrer-policy"], "no-referrer")
  assert.strictEqual(headers["x-frame-options"], "DENY")
  assert.strictEqual(headers["x-content-type-options"], "nosniff")
  assert.match(headers["content-type"] ?? "", /^text\/html/)
}

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `confirmation page in Chromium (${backend.name})`,
    (it) => {
      it.effect("Arabic: shows the lines and total, confirms, and the used link says so in both languages", () =>
        Effect.gen(function* () {
          const { store, newOrder, link, order, events } = yield* setUp
          const placed = yield* newOrder
          const { url } = yield* link(placed.id)
          const { opened, after } = yield* visit(url, "ar-DZ,ar;q=0.9", submit("#confirm"))
          assert.deepStrictEqual([opened.status, opened.state, opened.lang, opened.dir], [200, "open", "ar", "rtl"])
          strictHeaders(opened.headers)
          assert.include(opened.text, placed.order_number)
          assert.include(opened.text, "Gandoura")
          assert.include(opened.text, "Foulard <soie>")
          assert.include(opened.text, "7500.00 د.ج")
          assert.include(opened.text, "تأكيد الطلب")
          assert.notInclude(opened.html.toLowerCase(), "<script")
          assert.notInclude(opened.html, store.token)
          assert.deepStrictEqual([after.status, after.state, after.lang], [200, "confirmed", "ar"])
          assert.include(after.text, "تم تأكيد طلبك")
          assert.deepStrictEqual([...opened.violations, ...after.violations], [])

          const confirmed = yield* order(placed.id)
          assert.deepStrictEqual(
            [confirmed.status, confirmed.confirmation.state, confirmed.confirmation.history[0].source],
            ["confirmed", "confirmed", "link"]
          )
          assert.strictEqual(yield* events("order.confirmed"), 1)

          // The same link again: used, in Arabic, then in French through the page's own language link.
          const again = yield* visit(url, "ar", async (page) => {
            const [response] = await Promise.all([page.waitForNavigation(), page.click("#language")])
            return { status: response?.status(), headers: response?.headers() ?? {} }
          })
          assert.deepStrictEqual([again.opened.status, again.opened.state, again.opened.lang], [410, "used", "ar"])
          assert.include(again.opened.text, "تم استخدام هذا الرابط")
          assert.deepStrictEqual([again.after.status, again.after.state, again.after.lang], [410, "used", "fr"])
          assert.include(again.after.text, "Ce lien a déjà été utilisé")
          assert.include(again.after.text, "confirmée")
          strictHeaders(again.after.headers)
          // A used link moves nothing more: still one confirmation.
          assert.strictEqual((yield* order(placed.id)).confirmation.attempts, 1)
        })
      )

      it.effect("French (Accept-Language): cancels the order as the customer's answer", () =>
        Effect.gen(function* () {
          const { newOrder, link, order, events } = yield* setUp
          const placed = yield* newOrder
          const { url } = yield* link(placed.id)
          const { opened, after } = yield* visit(url, "fr-FR,fr;q=0.9,en;q=0.5", submit("#cancel"))
          assert.deepStrictEqual([opened.status, opened.state, opened.lang, opened.dir], [200, "open", "fr", "ltr"])
          assert.include(opened.text, "Confirmer la commande")
          assert.include(opened.text, "7500.00 DA")
          assert.deepStrictEqual([after.status, after.state, after.lang], [200, "cancelled", "fr"])
          assert.include(after.text, `Votre commande ${placed.order_number} est annulée`)
          const cancelled = yield* order(placed.id)
          assert.deepStrictEqual([cancelled.status, cancelled.confirmation.state], ["cancelled", "customer_cancelled"])
          assert.strictEqual(yield* events("order.cancelled"), 1)
        })
      )

      it.effect("an expired link says so in both languages and moves nothing", () =>
        Effect.gen(function* () {
          const { newOrder, link, order } = yield* setUp
          const placed = yield* newOrder
          const { url } = yield* link(placed.id, 60)
          const db = yield* sql
          yield* db`UPDATE order_confirmation_links SET expires_at = now() - interval '1 second'
            WHERE order_id = ${placed.id}`
          const french = yield* visit(`${url}&lang=fr`, "ar")
          assert.deepStrictEqual(
            [french.opened.status, french.opened.state, french.opened.lang],
            [410, "expired", "fr"]
          )
          assert.include(french.opened.text, "Ce lien a expiré")
          strictHeaders(french.opened.headers)
          const arabic = yield* visit(url, "ar")
          assert.deepStrictEqual(
            [arabic.opened.status, arabic.opened.state, arabic.opened.dir],
            [410, "expired", "rtl"]
          )
          assert.include(arabic.opened.text, "انتهت صلاحية هذا الرابط")
          assert.strictEqual((yield* order(placed.id)).status, "pending")
        })
      )

      it.effect("a tampered token opens no order: another order's id, a changed signature, a forged answer", () =>
        Effect.gen(function* () {
          const { base, newOrder, link, order } = yield* setUp
          const mine = yield* newOrder
          const other = yield* newOrder
          const { token } = yield* link(mine.id)
          const parts = token.split(".")
          const mac = parts[6]!
          const tampered = [
            [...parts.slice(0, 3), String(other.id), ...parts.slice(4)].join("."),
            [...parts.slice(0, 6), `${mac.startsWith("A") ? "B" : "A"}${mac.slice(1)}`].join("."),
            parts.slice(0, 6).join("."),
            "not-a-token"
          ]
          for (const [index, forged] of tampered.entries()) {
            const language = index % 2 === 0 ? "fr" : "ar"
            const shown = yield* visit(`${base}/v1/confirm?token=${encodeURIComponent(forged)}`, language)
            assert.deepStrictEqual(
              [shown.opened.status, shown.opened.state, shown.opened.lang],
              [404, "invalid", language]
            )
            assert.include(shown.opened.text, language === "fr" ? "Ce lien n'est pas valide" : "هذا الرابط غير صالح")
            for (const number of [mine.order_number, other.order_number]) assert.notInclude(shown.opened.html, number)
            assert.notInclude(shown.opened.html, forged, "a link that is not valid is not echoed")
            assert.notInclude(shown.opened.text, "Gandoura")
            // An answer posted with the forged token, as the form would: refused, nothing moves.
            const posted = yield* Effect.promise(async () =>
              (await browser()).request.post(`${base}/v1/confirm`, { form: { token: forged, answer: "confirm" } })
            )
            assert.strictEqual(posted.status(), 404)
          }
          assert.deepStrictEqual(
            [(yield* order(mine.id)).status, (yield* order(other.id)).status],
            ["pending", "pending"]
          )
        })
      )
    }
  )
}
