/**
 * Fuzzing the store API's writes over sockets on each database (embedded always, the real server with DATABASE_URL):
 * every write endpoint that takes a body — orders, products, landing pages, keys, webhooks, promo codes, pixels, the
 * three theme switches, signed signups and events — gets generated bodies (`StoreFuzzBodies.ts`): arbitrary JSON,
 * mutations of a valid body (wrong types, missing and extra fields, huge, negative and fractional numbers — 1e308,
 * 1e309 as written, -0, 2^53 + 1 —, long and unicode strings, NUL characters and lone surrogates, nulls, deep
 * nesting), text that is not JSON, and valid bodies — each under a fresh `Idempotency-Key`; then `Idempotency-Key`
 * values themselves. Every answer must be a 2xx `{ data, meta }` or a 4xx in the error envelope, never a 5xx, and
 * nothing invalid may be stored (`storedProblems`: amounts beyond the maximum, an infinite total in a webhook payload,
 * a pixel id breaking the spec's rule, a trace of a refused string).
 *
 * Fewer generated bodies here than the full count: the same property, with the same generators and seeds, runs its
 * full count (`FULL_RUNS`, `FULL_CONFIG_RUNS`; landing page sections and shipping too) against the same handlers and
 * pipeline in memory (`store/Fuzz.test.ts`); here it runs the first of those bodies, for the socket, the listener and
 * each database (`runsOn`, `configRunsOn`), and checks what each database stored.
 *
 * Then every text field of every body, and every text query parameter, gets each string PostgreSQL cannot keep (a
 * NUL, a lone surrogate) and must answer that field's own refusal (docs/store-api.md, "Text inputs"); every amount
 * and quantity gets each huge number and must be refused (docs/store-api.md, "Amounts"). Those are exhaustive, not
 * sampled, and run in full on each database.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Nonce, RequestSignature } from "@tawsil/signing"
import { Effect, Layer, Redacted, References } from "effect"
import type { SqlClient } from "effect/sql"
import fc from "fast-check"
import {
  CONCURRENCY,
  type Fixture,
  fixtureEntities,
  HOOK_URL,
  HUGE,
  type Json,
  MARK,
  notJsonAnswered,
  paths,
  SECTION_SEED,
  SEED,
  SHIPPING_SEED,
  sectionTargets,
  sentTo,
  serialise,
  shippingTargets,
  Tally,
  type Target,
  targets,
  unstorable,
  ZEROES
} from "./StoreFuzzBodies.ts"
import { type Answer, backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

/**
 * Generated bodies a write endpoint gets over sockets (the full count runs in memory): enough for the listener, the
 * transaction and the database to meet every kind of body the mix sends.
 */
const runsOn = (backend: string) => (backend === "embedded" ? 250 : 100)
/** The configuration and signed endpoints: fewer fields, the same mix. */
const configRunsOn = (backend: string) => (backend === "embedded" ? 100 : 60)
const HEADER_RUNS = 300

// ---------------------------------------------------------------------------------------------------------------
// The fuzz

let keys = 0
const freshKey = () => `fz-${Date.now().toString(36)}-${++keys}`

/** What a request sends: the store's bearer key and a fresh `Idempotency-Key`, or a signature with the public key. */
const send = (fixture: Fixture, method: string, path: string, text: string | undefined, signed = false) => {
  if (!signed) {
    return call(fixture.base, method, path, { token: fixture.token, key: freshKey(), raw: text })
  }
  const body = text ?? ""
  const headers = RequestSignature.headers({
    keyId: fixture.signer.keyId,
    secret: Redacted.make(fixture.signer.secret),
    body,
    timestamp: Math.floor(Date.now() / 1000),
    nonce: Nonce.make()
  })
  return call(fixture.base, method, path, { headers, raw: body })
}

/**
 * A store whose per-minute limit is lifted, with products, pending orders, landing pages, webhooks, promo codes and
 * pixels to PATCH, and an active public key.
 */
const fixture = Effect.gen(function* () {
  const base = yield* baseUrl
  const admin = yield* Admin.Admin
  const store = yield* createStore()
  yield* admin.setQuota(store.id, { requestsPerMinute: -1 }).pipe(Effect.orDie)
  const publicKey = yield* admin.createKey(store.id, "public").pipe(Effect.orDie)
  const write = (path: string, body: unknown) =>
    Effect.map(call(base, "POST", path, { token: store.token, key: freshKey(), body }), (answer) => {
      assert.isTrue(answer.status === 200 || answer.status === 201, answer.text)
      return answer.body.data.id as number
    })
  const entities = yield* fixtureEntities(store.id, write)
  return {
    base,
    storeId: store.id,
    token: store.token,
    signer: { keyId: publicKey.key_id, secret: Redacted.value(publicKey.signing_secret!) },
    ...entities
  } satisfies Fixture
})

/** One request per generated body, `CONCURRENCY` at a time; what a success takes up is given back at once. */
/** A target as fuzzed here: what a success takes up is given back at once, in SQL (not a request). */
interface SocketTarget extends Target {
  readonly cleanUp?: (answer: Answer) => Effect.Effect<unknown, unknown, SqlClient.SqlClient>
}

const socketTargets: ReadonlyArray<SocketTarget> = targets.map((target) => {
  switch (target.name) {
    case "POST /v1/keys":
      // At most 3 active keys a store: the new one is revoked at once.
      return {
        ...target,
        cleanUp: (answer) =>
          Effect.flatMap(
            sql,
            (db) =>
              db`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE key_id = ${answer.body.data.key_id}`
          )
      }
    case "POST /v1/webhooks":
      // At most 20 subscriptions a store: the new one goes at once.
      return {
        ...target,
        cleanUp: (answer) =>
          Effect.flatMap(sql, (db) => db`DELETE FROM webhook_subscriptions WHERE id = ${answer.body.data.id}`)
      }
    default:
      return target
  }
})

const fuzz = (target: SocketTarget, fixture: Fixture, runs: number, seed: number) =>
  Effect.gen(function* () {
    const cases = fc.sample(fc.tuple(sentTo(target.valid(fixture)), fc.nat()), { numRuns: runs, seed })
    const tally = new Tally()
    const started = performance.now()
    yield* Effect.forEach(
      cases,
      ([sent, pick]) =>
        Effect.gen(function* () {
          const path = target.path(fixture, pick)
          const text = sent.kind === "raw" ? sent.text : serialise(sent.body)
          const answer = yield* send(fixture, target.method, path, text, target.signed)
          tally.record(`${target.method} ${path}`, sent, answer, notJsonAnswered(sent))
          if (target.cleanUp !== undefined && answer.status >= 200 && answer.status < 300) {
            yield* target.cleanUp(answer).pipe(Effect.orDie)
          }
        }),
      { concurrency: CONCURRENCY, discard: true }
    )
    return { tally, seconds: (performance.now() - started) / 1000 }
  })

// ---------------------------------------------------------------------------------------------------------------
// What was stored

/** The store API's maximum amount and the largest order total it allows (docs/store-api.md, "Amounts"). */
const MAX_AMOUNT = "100000000"
const MAX_TOTAL = "1049895200000000"

/** Tables a write of the store API fills, searched for a trace of a refused string. */
const WRITTEN_TABLES = [
  "products",
  "variant_groups",
  "variant_options",
  "customers",
  "orders",
  "order_items",
  "order_item_variants",
  "landing_pages",
  "api_keys",
  "webhook_subscriptions",
  "webhook_events",
  "promo_codes",
  "categories",
  "pixels",
  "changes",
  "tracked_events",
  "tracked_signups",
  "tracked_signup_users"
] as const

/**
 * What the database holds that no rule allows: an amount beyond the maximum (or NaN), a total beyond the largest, a
 * webhook payload whose total is not a number (Infinity is written `null`), a pixel id breaking the spec's rule, a
 * row holding `MARK` (only ever sent in strings that must be refused). Empty when all is well.
 */
interface Count {
  readonly n: number
}

const storedProblems = Effect.gen(function* () {
  const db = yield* sql
  const checks: ReadonlyArray<readonly [string, Effect.Effect<ReadonlyArray<Count>, unknown>]> = [
    [
      "a product amount beyond the maximum",
      db<Count>`SELECT count(*)::int AS n FROM products
         WHERE NOT (price BETWEEN 0 AND ${MAX_AMOUNT}::numeric)
            OR NOT (coalesce(compare_at_price, 0) BETWEEN 0 AND ${MAX_AMOUNT}::numeric)`
    ],
    [
      "an option's adjustment beyond the maximum",
      db<Count>`SELECT count(*)::int AS n FROM variant_options
         WHERE NOT (price_adjustment BETWEEN -${MAX_AMOUNT}::numeric AND ${MAX_AMOUNT}::numeric)`
    ],
    [
      "an order amount beyond its bound",
      db<Count>`SELECT count(*)::int AS n FROM orders
         WHERE NOT (shipping_cost BETWEEN 0 AND ${MAX_AMOUNT}::numeric)
            OR NOT (discount BETWEEN 0 AND ${MAX_AMOUNT}::numeric)
            OR NOT (payment_fee BETWEEN 0 AND ${MAX_AMOUNT}::numeric)
            OR NOT (subtotal BETWEEN -${MAX_TOTAL}::numeric AND ${MAX_TOTAL}::numeric)
            OR NOT (total BETWEEN 0 AND ${MAX_TOTAL}::numeric)`
    ],
    [
      "an order line beyond its bound",
      db<Count>`SELECT count(*)::int AS n FROM order_items WHERE NOT (price BETWEEN 0 AND ${MAX_AMOUNT}::numeric)`
    ],
    [
      "an order variant's adjustment beyond the maximum",
      db<Count>`SELECT count(*)::int AS n FROM order_item_variants
         WHERE NOT (price_adjustment BETWEEN -${MAX_AMOUNT}::numeric AND ${MAX_AMOUNT}::numeric)`
    ],
    [
      "a promo amount beyond the maximum",
      db<Count>`SELECT count(*)::int AS n FROM promo_codes
         WHERE NOT (discount_value > 0 AND discount_value <= ${MAX_AMOUNT}::numeric)
            OR NOT (coalesce(min_order_amount, 1) BETWEEN 0 AND ${MAX_AMOUNT}::numeric)`
    ],
    [
      "a webhook payload whose total is not a number",
      db<Count>`SELECT count(*)::int AS n FROM webhook_events
         WHERE jsonb_typeof(payload::jsonb #> '{data,amounts,total}') IS DISTINCT FROM 'number'`
    ],
    [
      "a pixel id breaking the spec's rule",
      db<Count>`SELECT count(*)::int AS n FROM pixels
         WHERE pixel_id !~ '^[A-Za-z0-9_-]{1,100}$' OR (pixel_type = 'facebook' AND pixel_id !~ '^[0-9]{15,17}$')`
    ],
    ...WRITTEN_TABLES.map(
      (table) =>
        [
          `a trace of a refused string in ${table}`,
          db<Count>`SELECT count(*)::int AS n FROM ${db(table)} AS t WHERE row_to_json(t)::text LIKE ${`%${MARK}%`}`
        ] as const
    )
  ]
  const problems: Array<string> = []
  for (const [what, query] of checks) {
    const [row] = yield* Effect.orDie(query)
    if (row !== undefined && row.n > 0) problems.push(`${row.n} × ${what}`)
  }
  return problems
})

/** What the server must make of an `Idempotency-Key` value once fetch has trimmed it. */
const KEY_PATTERN = /^[A-Za-z0-9_\-:.]{1,64}$/

/** Header values fetch can send: tab, printable ASCII and the rest of Latin-1 (it trims spaces and tabs at the ends). */
const sendable = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value)

const keyChars = fc.constantFrom(..."ABCXYZabcxyz0189_-:.".split(""))
const headerValues = fc
  .oneof(
    fc.string(),
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.string({ unit: keyChars, minLength: 1, maxLength: 64 }),
    fc.string({ unit: keyChars, minLength: 60, maxLength: 70 }),
    fc
      .tuple(fc.string({ unit: keyChars, minLength: 1, maxLength: 20 }), fc.constantFrom(" ", "\t", "  "))
      .map(([key, space]) => `${space}${key}${space}`)
  )
  .filter(sendable)

/** The answer a refused field gives: its status and code. */
type Expected = readonly [status: number, code: string | undefined]

const BAD_REQUEST: Expected = [400, "bad_request"]

/** A write with a valid body, and what each of its fields answers when it holds a refused value. */
interface Write {
  readonly method: "POST" | "PATCH"
  readonly path: string
  readonly body: Json
  readonly signed?: boolean
  /** The answer when the field at `at` holds a refused value: a string PostgreSQL cannot keep, a huge number. */
  readonly refusal: (at: ReadonlyArray<string | number>) => Expected
}

const always = (expected: Expected) => () => expected

/** The field's 422 code, by its name (the path's last key). */
const byField =
  (codes: Readonly<Record<string, Expected>>, otherwise: Expected = BAD_REQUEST) =>
  (at: ReadonlyArray<string | number>) =>
    codes[String(at.at(-1))] ?? otherwise

const unprocessable = (code: string): Expected => [422, code]

const promoCodes = {
  code: unprocessable("invalid_code"),
  discount_type: unprocessable("invalid_discount_type"),
  discount_value: unprocessable("invalid_discount_value"),
  min_order_amount: unprocessable("invalid_min_order_amount"),
  max_uses: unprocessable("invalid_max_uses"),
  starts_at: unprocessable("invalid_starts_at"),
  expires_at: unprocessable("invalid_expires_at")
}

/** A valid body of each write with every text field, amount and quantity it takes, to put a bad value in each. */
const everyWrite = (f: Fixture): ReadonlyArray<Write> => [
  {
    method: "POST",
    path: "/v1/orders",
    body: {
      customer: {
        name: "Amina",
        phone: "0555 12 34 56",
        email: "amina@example.dz",
        wilaya_id: 16,
        commune: "Bab Ezzouar",
        address: "Cité 5"
      },
      delivery: { type: "desk", desk_id: 4, desk_name: "Bureau" },
      items: [
        {
          product_id: f.productIds[0],
          quantity: 1,
          variants: [{ group_name: "Emballage", option_name: "Cadeau", color_code: "#c00", price_adjustment: 1 }]
        }
      ],
      shipping_cost: 400,
      discount: 100,
      payment_fee: 50,
      payment_method: "cod",
      notes: "Appeler avant"
    },
    refusal: always(BAD_REQUEST)
  },
  { method: "PATCH", path: `/v1/orders/${f.orderIds[0]}`, body: { status: "pending" }, refusal: always(BAD_REQUEST) },
  ...(["POST", "PATCH"] as const).map(
    (method): Write => ({
      method,
      path: method === "POST" ? "/v1/products" : `/v1/products/${f.productIds[1]}`,
      body: {
        name: "Robe",
        description: "Longue",
        sku: "RB-1",
        price: 10,
        compare_at_price: 20,
        status: "active",
        stock: 5,
        variant_groups: [
          {
            name: "Couleur",
            type: "color",
            options: [{ value: "Rouge", color_code: "#c00", image_id: 3, price_adjustment: 5, stock: 2 }]
          }
        ]
      },
      refusal: always(BAD_REQUEST)
    })
  ),
  ...(["POST", "PATCH"] as const).map(
    (method): Write => ({
      method,
      path: method === "POST" ? "/v1/landing-pages" : `/v1/landing-pages/${f.pageIds[0]}`,
      body: {
        title: "Offre",
        slug: "offre",
        status: "draft",
        language: "fr",
        product_id: f.productIds[0],
        meta_title: "Offre",
        meta_description: "x"
      },
      // A landing page's create coerces its enums (spec): `draft\u0000` is `draft`.
      refusal: (at) =>
        method === "POST" && (at[0] === "status" || at[0] === "language") ? [200, undefined] : BAD_REQUEST
    })
  ),
  { method: "POST", path: "/v1/keys", body: { type: "platform", name: "erp" }, refusal: always(BAD_REQUEST) },
  ...(["POST", "PATCH"] as const).map(
    (method): Write => ({
      method,
      path: method === "POST" ? "/v1/webhooks" : `/v1/webhooks/${f.webhookIds[0]}`,
      body: { url: `${HOOK_URL}/text`, events: ["order.created", "order.shipped"], description: "ERP" },
      refusal: always(BAD_REQUEST)
    })
  ),
  ...(["POST", "PATCH"] as const).map(
    (method): Write => ({
      method,
      path: method === "POST" ? "/v1/promo-codes" : `/v1/promo-codes/${f.promoIds[0]}`,
      body: {
        code: method === "POST" ? "NEW-CODE" : `FZ-0-${f.storeId}`,
        discount_type: "fixed",
        discount_value: "150.50",
        min_order_amount: "2500",
        max_uses: "10",
        starts_at: "2026-01-01 00:00:00",
        expires_at: "2099-12-31 23:59:59"
      },
      refusal: byField(promoCodes)
    })
  ),
  ...(["POST", "PATCH"] as const).map(
    (method): Write => ({
      method,
      path: method === "POST" ? "/v1/pixels" : `/v1/pixels/${f.pixelIds[0]}`,
      body: {
        ...(method === "POST" ? { pixel_type: "pinterest", pixel_id: "2612345678901" } : {}),
        pixel_name: "Pins",
        access_token: "pina_token_1234567890",
        ad_account_id: "549755885170",
        conversion_label: "lead"
      },
      refusal: byField({
        pixel_type: unprocessable("invalid_pixel_type"),
        pixel_id: unprocessable("invalid_pixel_id"),
        access_token: unprocessable("invalid_access_token")
      })
    })
  ),
  {
    method: "POST",
    path: "/v1/store/theme",
    body: { theme: "atlas" },
    refusal: always(unprocessable("invalid_theme"))
  },
  {
    method: "POST",
    path: "/v1/store/fast-checkout-theme",
    body: { theme: "commerce" },
    refusal: always(unprocessable("invalid_theme"))
  },
  {
    method: "POST",
    path: "/v1/store/variant-style",
    body: { style: "clay" },
    refusal: always(unprocessable("invalid_style"))
  },
  {
    method: "POST",
    path: "/v1/signups",
    signed: true,
    body: {
      user: { id: "u_1001", email: "amina@example.dz", phone: "0555 12 34 56", name: "Amina" },
      source: "landing-page-7",
      properties: { plan: "trial" }
    },
    refusal: always(BAD_REQUEST)
  },
  {
    method: "POST",
    path: "/v1/events",
    signed: true,
    body: { event: "add_to_cart", user_id: "u_1001", properties: { ref: "home" } },
    refusal: always(BAD_REQUEST)
  },
  {
    method: "POST",
    path: "/v1/categories",
    body: { name: "Robes", description: "Longues", image: "categories/robes.webp", position: 2 },
    refusal: always(BAD_REQUEST)
  },
  { method: "POST", path: `/v1/products/${f.productIds[0]}/stock`, body: { stock: 5 }, refusal: always(BAD_REQUEST) }
]

/** The value at `path` in `body`. */
const valueAt = (body: Json, path: ReadonlyArray<string | number>): unknown =>
  // biome-ignore lint/suspicious/noExplicitAny: walking a JSON value by a path found in it
  path.reduce<any>((node, key) => node[key], body)

const pathsOf = (body: Json, type: "string" | "number") =>
  paths(body).filter((path) => typeof valueAt(body, path) === type)

const replaced = (body: Json, path: ReadonlyArray<string | number>, value: unknown) => {
  const copy = structuredClone(body) as Record<string | number, unknown>
  // biome-ignore lint/suspicious/noExplicitAny: walking a JSON value by a path found in it
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy)
  parent[path.at(-1)!] = value
  return copy
}

/** `body` with the key at `path` (an object's member) renamed `key`. */
const renamed = (body: Json, path: ReadonlyArray<string | number>, key: string) => {
  const copy = structuredClone(body) as Record<string | number, unknown>
  // biome-ignore lint/suspicious/noExplicitAny: walking a JSON value by a path found in it
  const parent = path.slice(0, -1).reduce<any>((node, name) => node[name], copy)
  const old = String(path.at(-1))
  parent[key] = parent[old]
  delete parent[old]
  return copy
}

/** Every object member's path (its key is text too). */
const keyPaths = (body: Json) => paths(body).filter((path) => typeof path.at(-1) === "string" && path.length > 1)

/** A query parameter of a list, and what a value no stored text can hold gives (an empty page, or the status). */
interface Query {
  readonly path: string
  readonly parameter: string
  /** `empty`: 200 with no items (an exact filter); `lenient`: 200 (the spec's rule ignores the value); else the status. */
  readonly answer: "empty" | "lenient" | number
}

const everyQuery = (f: Fixture, customerId: number): ReadonlyArray<Query> => {
  const pages = (path: string, ...extra: ReadonlyArray<readonly [string, Query["answer"]]>): ReadonlyArray<Query> =>
    [["limit", "lenient"] as const, ["cursor", "lenient"] as const, ...extra].map(([parameter, answer]) => ({
      path,
      parameter,
      answer
    }))
  return [
    ...pages("/v1/orders", ["status", "lenient"], ["since", "lenient"], ["customer_phone", "empty"]),
    ...pages("/v1/customers", ["phone", "empty"], ["email", "empty"]),
    ...pages(`/v1/customers/${customerId}/orders`),
    ...pages("/v1/products", ["status", "lenient"], ["category_id", "lenient"]),
    ...pages("/v1/categories"),
    ...pages("/v1/landing-pages", ["status", "lenient"]),
    ...pages(`/v1/webhooks/${f.webhookIds[0]}/deliveries`),
    ...pages("/v1/promo-codes", ["is_active", "lenient"]),
    ...pages("/v1/pixels", ["pixel_type", "empty"]),
    ...pages("/v1/changes", ["entity", "lenient"]),
    { path: "/v1/usage/history", parameter: "from", answer: 400 },
    { path: "/v1/usage/history", parameter: "to", answer: 400 }
  ]
}

/** Query values PostgreSQL cannot keep, as sent in a URL: NUL, and bytes that are not UTF-8 (a lone surrogate's). */
const unstorableInQuery = ["%00", `${MARK}%00`, `%00${MARK}`, `${MARK}%ED%A0%80`, "%ED%B0%80", "%C0%80"]

/** Numbers in a query string: clamped or ignored, never a 5xx. */
const hugeInQuery = ["1e309", "-0", "9007199254740993", "1e308", "-1e309", "NaN", "Infinity", "0x10"]

for (const backend of backends) {
  const runs = runsOn(backend.name)
  const configRuns = configRunsOn(backend.name)
  /** Landing page sections and shipping, each endpoint (their full counts run in memory too). */
  const sectionRuns = configRuns
  // The access log of thousands of requests would cost more than the requests; failures are still logged.
  // Webhooks go to a loopback port nothing listens on: exempt from the URL rules, refused at once.
  const server = storeServer(backend, { webhooks: { allowHosts: { hosts: new Set(["127.0.0.1"]) } } }).pipe(
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )
  layer(server, { timeout: "120 seconds", excludeTestServices: true })(`store API fuzz (${backend.name})`, (it) => {
    socketTargets.forEach((target, index) => {
      const count = target.config === true ? configRuns : runs
      it.effect(
        `${target.name}: ${count} generated bodies answer 2xx or a 4xx in the envelope, never a 5xx; nothing invalid stored`,
        () =>
          Effect.gen(function* () {
            const setup = yield* fixture
            const { tally, seconds } = yield* fuzz(target, setup, count, SEED + index)
            console.log(
              `[fuzz ${backend.name}] ${target.name}: ${tally.total} requests in ${seconds.toFixed(1)} s`,
              Object.fromEntries(tally.summary())
            )
            assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
            assert.strictEqual(tally.total, count)
            assert.isAbove(tally.countBetween(400, 499), count / 5, "most generated bodies are refused")
            assert.isAbove(tally.countBetween(200, 299), 0, "valid bodies are accepted")
            assert.deepStrictEqual(yield* storedProblems, [])
          }),
        180_000
      )
    })

    it.effect(
      "a string PostgreSQL cannot keep, in any text field or key of any write, answers that field's refusal",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const tally = new Tally()
          const attempt = (write: Write, label: string, body: Json, expected: Expected) =>
            Effect.gen(function* () {
              const answer = yield* send(setup, write.method, write.path, serialise(body), write.signed)
              tally.record(`${write.method} ${write.path} ${label}`, { kind: "json", body }, answer, (answer) => {
                const [status, code] = expected
                return answer.status === status && answer.body?.error?.code === code
                  ? undefined
                  : `${answer.status} ${answer.body?.error?.code}, not ${status} ${code}`
              })
              if (write.path === "/v1/keys" && answer.status === 200) {
                yield* send(setup, "DELETE", `/v1/keys/${answer.body.data.key_id}`, undefined)
              }
            })
          for (const write of everyWrite(setup)) {
            for (const at of pathsOf(write.body, "string")) {
              for (const value of unstorable) {
                yield* attempt(write, at.join("."), replaced(write.body, at, value), write.refusal(at))
              }
            }
            // Keys of free-form objects are text too (a signup's or an event's properties).
            for (const at of keyPaths(write.body).filter((path) => path.includes("properties"))) {
              for (const value of unstorable) {
                yield* attempt(write, `${at.join(".")} (key)`, renamed(write.body, at, value), BAD_REQUEST)
              }
            }
          }
          assert.isAtLeast(tally.total, 400)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          // Refused means not stored: no row holds the mark the refused strings carried (the tracker writes behind
          // its answer: give it its batch interval).
          yield* Effect.sleep("1500 millis")
          assert.deepStrictEqual(yield* storedProblems, [])
        })
    )

    it.effect(
      "a huge number (1e308, 1e309 as written, 2^53 + 1, as a string) in any amount or quantity is refused",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const tally = new Tally()
          let zeroes = 0
          for (const write of everyWrite(setup)) {
            if (write.signed === true) continue
            for (const at of pathsOf(write.body, "number").concat(
              // Promo amounts and counts may be sent as decimal strings: those are numbers too.
              write.path.startsWith("/v1/promo-codes")
                ? pathsOf(write.body, "string").filter((path) => path[0] !== "code" && !String(path[0]).endsWith("_at"))
                : []
            )) {
              const expected = write.refusal(at)
              for (const value of [...HUGE, ...ZEROES]) {
                const body = replaced(write.body, at, value)
                const answer = yield* send(setup, write.method, write.path, serialise(body), write.signed)
                const zero = ZEROES.includes(value)
                tally.record(
                  `${write.method} ${write.path} ${at.join(".")}`,
                  { kind: "json", body },
                  answer,
                  (answer) => {
                    // Zero is valid wherever 0 is, and refused elsewhere (a quantity, an id, a discount value).
                    if (zero) return answer.status < 500 ? undefined : `${answer.status}`
                    const [status, code] = expected
                    return answer.status === status && answer.body?.error?.code === code
                      ? undefined
                      : `${answer.status} ${answer.body?.error?.code}, not ${status} ${code}`
                  }
                )
                if (zero && answer.status < 300) zeroes++
              }
            }
          }
          assert.isAtLeast(tally.total, 250)
          assert.isAbove(zeroes, 0, "zero is an amount")
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          assert.deepStrictEqual(yield* storedProblems, [])
        })
    )

    it.effect("a query value PostgreSQL cannot keep matches nothing or follows the parameter's rule, never a 5xx", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const tally = new Tally()
        const order = yield* call(setup.base, "GET", `/v1/orders/${setup.orderIds[0]}`, { token: setup.token })
        for (const query of everyQuery(setup, order.body.data.customer.id)) {
          for (const value of [...unstorableInQuery, ...hugeInQuery]) {
            const url = `${query.path}?${query.parameter}=${value}`
            const answer = yield* call(setup.base, "GET", url, { token: setup.token })
            tally.record(`GET ${query.path}`, url, answer, (answer) => {
              // A number is only a number for `limit` (clamped, or the default); anywhere else it is text.
              const expected = query.answer
              if (typeof expected === "number") return answer.status === expected ? undefined : `not ${expected}`
              if (answer.status !== 200) return `${answer.status}, not 200`
              return expected === "empty" && answer.body.data.items.length > 0 ? "items, not an empty page" : undefined
            })
          }
        }
        // Path parameters: an id that is not all digits is 400; a key id that is not ours names no key.
        for (const value of ["%00", `1%00`, "%ED%A0%80"]) {
          const answer = yield* call(setup.base, "GET", `/v1/orders/${value}`, { token: setup.token })
          // Bytes that are not UTF-8 never match the route (the router cannot decode them): its 404, in the envelope.
          const expected = value.includes("%ED") ? [400, 404] : [400]
          tally.record("GET /v1/orders/{id}", value, answer, (answer) =>
            expected.includes(answer.status) ? undefined : `not ${expected.join(" or ")}`
          )
          const revoked = yield* send(setup, "DELETE", `/v1/keys/twpk_live_${value}`, undefined)
          tally.record("DELETE /v1/keys/{key_id}", value, revoked, (answer) =>
            answer.status === 404 ? undefined : "not 404"
          )
        }
        assert.isAtLeast(tally.total, 300)
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
      })
    )

    it.effect("a pixel id outside its platform's usual format is saved as sent, with warnings never recorded", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const get = (path: string) => call(setup.base, "GET", path, { token: setup.token })
        const created = yield* send(
          setup,
          "POST",
          "/v1/pixels",
          JSON.stringify({ pixel_type: "GTM", pixel_id: "gtm_2" })
        )
        assert.strictEqual(created.status, 201, created.text)
        const warning = {
          field: "pixel_id",
          code: "unusual_pixel_id",
          message:
            "pixel_id is not in the usual gtm format (GTM- and 4 to 10 letters or digits); it was saved as sent: " +
            "check it against the platform"
        }
        assert.deepStrictEqual([created.body.data.pixel_id, created.body.data.warnings], ["gtm_2", [warning]])
        const patched = yield* send(setup, "PATCH", `/v1/pixels/${created.body.data.id}`, '{"pixel_name":"Ancien"}')
        assert.deepStrictEqual(patched.body.data.warnings, [warning])
        const listed = (yield* get("/v1/pixels")).body.data.items
        assert.deepStrictEqual(
          listed.map((pixel: { pixel_id: string; warnings: ReadonlyArray<unknown> }) => [
            pixel.pixel_id,
            pixel.warnings.length
          ]),
          [
            ["gtm_2", 1],
            ["legacy_tiktok_id", 1],
            ["123456789012345", 0],
            ["GTM-FZ12345", 0]
          ]
        )
        for (const item of (yield* get("/v1/changes?entity=pixels")).body.data.items) {
          const detail = (yield* get(`/v1/changes/${item.id}`)).body.data
          assert.notProperty(detail.after ?? {}, "warnings")
          assert.notProperty(detail.before ?? {}, "warnings")
        }
        // Only the spec's rule refuses: a facebook id is 15 to 17 digits.
        const refused = yield* send(setup, "POST", "/v1/pixels", '{"pixel_type":"facebook","pixel_id":"fb_pixel_1"}')
        assert.deepStrictEqual([refused.status, refused.body.error.code], [422, "invalid_pixel_id"])
      })
    )

    it.effect(`Idempotency-Key: ${HEADER_RUNS} generated values answer 400 or 200, never a 5xx`, () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const values = fc.sample(headerValues, { numRuns: HEADER_RUNS, seed: SEED })
        const tally = new Tally()
        // One body for every value: a repeated valid key replays the first answer instead of being reused.
        const body = { title: "Offre spéciale", product_id: setup.productIds[0] }
        yield* Effect.forEach(
          values,
          (value) =>
            Effect.gen(function* () {
              const answer = yield* call(setup.base, "POST", "/v1/landing-pages", {
                token: setup.token,
                body,
                headers: { "idempotency-key": value }
              })
              const expected = KEY_PATTERN.test(value.replace(/^[ \t]+|[ \t]+$/g, "")) ? 200 : 400
              tally.record("POST /v1/landing-pages", value, answer, (answer) =>
                answer.status === expected ? undefined : `${answer.status}, not ${expected}`
              )
            }),
          // One at a time: a repeated key sent concurrently would answer 409 while its first use runs.
          { concurrency: 1, discard: true }
        )
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
        assert.isAbove(tally.count(200), 0)
        assert.isAbove(tally.count(400), 0)
      })
    )

    it.effect(
      "landing page sections: generated bodies never a 5xx; unstorable text and huge numbers anywhere answer their 422",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const sections = `/v1/landing-pages/${setup.pageIds[0]}/sections`
          const hero = yield* send(setup, "POST", sections, '{"type":"hero"}')
          assert.strictEqual(hero.status, 201, hero.text)
          const section = `${sections}/${hero.body.data.id}`
          const targets = sectionTargets(sections, section).map(
            (target): SocketTarget =>
              target.method === "POST"
                ? {
                    ...target,
                    // At most 50 sections a page: the new one goes at once.
                    cleanUp: (answer) =>
                      Effect.flatMap(
                        sql,
                        (db) => db`DELETE FROM landing_page_sections WHERE id = ${answer.body.data.id}`
                      )
                  }
                : target
          )
          for (const [index, target] of targets.entries()) {
            const { tally } = yield* fuzz(target, setup, sectionRuns, SECTION_SEED + index)
            assert.deepStrictEqual(tally.problems, [], `${target.name}: ${tally.problemCount} answers broke the rules`)
            assert.strictEqual(tally.total, sectionRuns)
            assert.isAbove(tally.countBetween(400, 499), sectionRuns / 5, "most generated bodies are refused")
            assert.isAbove(tally.countBetween(200, 299), 0, "valid bodies are accepted")
          }
          const tally = new Tally()
          const attempt = (method: "POST" | "PATCH", path: string, label: string, body: Json, code: string) =>
            Effect.map(send(setup, method, path, serialise(body)), (answer) =>
              tally.record(`${method} ${path} ${label}`, { kind: "json", body }, answer, (answer) =>
                answer.status === 422 && answer.body?.error?.code === code
                  ? undefined
                  : `${answer.status} ${answer.body?.error?.code}, not 422 ${code}`
              )
            )
          const content = { title: "FAQ", items: [{ q: "Prix ?", a: "3900 DA", rank: 1 }], offer: { price: 3900 } }
          const numbers = HUGE.filter((value) => typeof value === "number" || String(value).startsWith("\u0001raw:"))
          for (const [method, path, body] of [
            ["POST", sections, { type: "faq", is_visible: true, settings: content }],
            ["PATCH", section, { is_visible: true, settings: content }]
          ] as const) {
            for (const at of pathsOf(body, "string")) {
              const code = at[0] === "type" ? "invalid_section_type" : "invalid_settings"
              for (const value of unstorable)
                yield* attempt(method, path, at.join("."), replaced(body, at, value), code)
            }
            for (const at of keyPaths(body)) {
              for (const value of unstorable) {
                yield* attempt(method, path, `${at.join(".")} (key)`, renamed(body, at, value), "invalid_settings")
              }
            }
            for (const at of pathsOf(body, "number")) {
              for (const value of numbers) {
                yield* attempt(method, path, at.join("."), replaced(body, at, value), "invalid_settings")
              }
            }
          }
          assert.isAtLeast(tally.total, 60)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          const [traces] = yield* Effect.flatMap(sql, (db) =>
            Effect.orDie(
              db<Count>`SELECT count(*)::int AS n FROM landing_page_sections AS t
                WHERE row_to_json(t)::text LIKE ${`%${MARK}%`}`
            )
          )
          assert.strictEqual(traces?.n, 0, "no refused string was stored")
          assert.deepStrictEqual(yield* storedProblems, [])
        }),
      180_000
    )

    it.effect(
      "shipping rates and settings, and the rate sync: generated bodies never a 5xx; unstorable text and huge numbers anywhere answer 400",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const shippingRuns = sectionRuns
          for (const [index, target] of shippingTargets.entries()) {
            // The sync prices from the origin wilaya: set again after the settings' fuzz.
            yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
            const { tally } = yield* fuzz(target, setup, shippingRuns, SHIPPING_SEED + index)
            assert.deepStrictEqual(tally.problems, [], `${target.name}: ${tally.problemCount} answers broke the rules`)
            assert.strictEqual(tally.total, shippingRuns)
            assert.isAbove(tally.countBetween(400, 499), shippingRuns / 5, "most generated bodies are refused")
            assert.isAbove(tally.countBetween(200, 299), 0, "valid bodies are accepted")
          }
          yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
          const tally = new Tally()
          const attempt = (method: "POST" | "PATCH", path: string, label: string, body: Json) =>
            Effect.map(send(setup, method, path, serialise(body)), (answer) =>
              tally.record(`${method} ${path} ${label}`, { kind: "json", body }, answer, (answer) =>
                answer.status === 400 && answer.body?.error?.code === "bad_request"
                  ? undefined
                  : `${answer.status} ${answer.body?.error?.code}, not 400 bad_request`
              )
            )
          for (const [method, path, body] of [
            ["POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: "450.00", desk_price: 300 }] }],
            [
              "PATCH",
              "/v1/shipping/settings",
              {
                origin_wilaya: 16,
                default_courier: "sandbox",
                free_shipping_threshold: "8000",
                default_delivery_type: "home",
                cod_fee_payer: "merchant",
                cod_fee_percent: 1
              }
            ],
            ["POST", "/v1/shipping/rates/sync", { courier: "sandbox", wilaya_ids: [16], tier: "economic" }]
          ] as const) {
            for (const at of pathsOf(body, "string")) {
              for (const value of unstorable) yield* attempt(method, path, at.join("."), replaced(body, at, value))
            }
            // Amounts may be decimal strings: those are numbers too.
            const amounts = pathsOf(body, "string").filter((at) => String(at.at(-1)).match(/price|threshold/))
            for (const at of [...pathsOf(body, "number"), ...amounts]) {
              for (const value of HUGE) yield* attempt(method, path, at.join("."), replaced(body, at, value))
            }
          }
          assert.isAtLeast(tally.total, 100)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          const [stored] = yield* Effect.flatMap(sql, (db) =>
            Effect.orDie(
              db<Count>`SELECT count(*)::int AS n FROM shipping_rates
                WHERE home_price > 100000000 OR desk_price > 100000000 OR row_to_json(shipping_rates)::text LIKE ${`%${MARK}%`}`
            )
          )
          assert.strictEqual(stored?.n, 0, "no price beyond the maximum, no refused string stored")
          const [settingsTraces] = yield* Effect.flatMap(sql, (db) =>
            Effect.orDie(
              db<Count>`SELECT count(*)::int AS n FROM shipping_settings AS t WHERE row_to_json(t)::text LIKE ${`%${MARK}%`}`
            )
          )
          assert.strictEqual(settingsTraces?.n, 0)
        }),
      180_000
    )
  })
}

// ---------------------------------------------------------------------------------------------------------------
// The store's own configuration (settings, design, home sections and layout; docs/store-api-config.md)

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store configuration fuzz (${backend.name})`,
    (it) => {
      it.effect(
        "a string PostgreSQL cannot keep, or a huge number, in any field of a configuration write answers 400",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const store = yield* createStore()
            yield* (yield* Admin.Admin).setQuota(store.id, { requestsPerMinute: -1 }).pipe(Effect.orDie)
            const request = (method: "POST" | "PATCH", path: string, text: string) =>
              call(base, method, path, { token: store.token, key: freshKey(), raw: text })
            const section = yield* request("POST", "/v1/store/home-layout/sections", '{"type":"categories"}')
            const id = section.body.data.section.id as number
            const tally = new Tally()
            const attempt = (method: "POST" | "PATCH", path: string, label: string, body: Json) =>
              Effect.map(request(method, path, serialise(body)), (answer) =>
                tally.record(`${method} ${path} ${label}`, { kind: "json", body }, answer, (answer) =>
                  answer.status === 400 && answer.body?.error?.code === "bad_request"
                    ? undefined
                    : `${answer.status} ${answer.body?.error?.code}, not 400 bad_request`
                )
              )
            const writes: ReadonlyArray<readonly ["POST" | "PATCH", string, Json]> = [
              [
                "PATCH",
                "/v1/store",
                {
                  name: "Boutique",
                  description: "Artisanat",
                  language: "fr",
                  logo: "stores/1/logo.png",
                  contact: { phone: "0555123456", email: "a@b.dz", address: "Oran", wilaya_id: 31 },
                  social_links: { instagram: "https://instagram.com/b" },
                  currency: { symbol: "DA", position: "after", decimals: 2 }
                }
              ],
              [
                "PATCH",
                "/v1/store/design",
                {
                  colors: { primary_color: "#0f766e", text_color: "#111" },
                  font_family: "Cairo",
                  heading_font: "Tajawal",
                  border_radius: 12,
                  button_style: "soft",
                  product_image_ratio: "square"
                }
              ],
              [
                "PATCH",
                "/v1/store/home-sections",
                {
                  hero: { title: "Soldes", image: "stores/1/hero.jpg", button_link: "/categories/robes" },
                  featured_products: { source: "newest", limit: 8 },
                  testimonials: { items: [{ name: "Amina", text: "Top", rating: 5, wilaya_id: 19 }] },
                  faq: { items: [{ question: "Délai ?", answer: "48 h" }] },
                  trust_badges: { badges: ["cash_on_delivery"] }
                }
              ],
              [
                "POST",
                "/v1/store/home-layout/sections",
                { type: "rich_text", settings: { title: "Livraison", text: "58 wilayas" }, position: 1 }
              ],
              [
                "POST",
                "/v1/store/home-layout/sections",
                { type: "banner", settings: { image: "stores/1/b.jpg", link: "/p/1" } }
              ],
              [
                "PATCH",
                `/v1/store/home-layout/sections/${id}`,
                { enabled: true, settings: { title: "Rayons", limit: 8 } }
              ],
              ["POST", "/v1/store/home-layout/move", { id, position: 1 }]
            ]
            for (const [method, path, body] of writes) {
              for (const at of pathsOf(body, "string")) {
                for (const value of unstorable) yield* attempt(method, path, at.join("."), replaced(body, at, value))
              }
              for (const at of pathsOf(body, "number")) {
                for (const value of HUGE) yield* attempt(method, path, at.join("."), replaced(body, at, value))
              }
            }
            assert.isAtLeast(tally.total, 300)
            assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
            const [stored] = yield* Effect.flatMap(sql, (db) =>
              Effect.orDie(
                db<Count>`SELECT count(*)::int AS n FROM stores AS t WHERE row_to_json(t)::text LIKE ${`%${MARK}%`}`
              )
            )
            assert.strictEqual(stored?.n, 0, "no refused string stored")
            const layout = yield* call(base, "GET", "/v1/store/home-layout?after=fuzz", { token: store.token })
            assert.strictEqual(layout.body.data.sections.length, 1, "no section added by a refused body")
          }),
        180_000
      )
    }
  )
}
