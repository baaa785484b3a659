/**
 * The store API's writes over sockets on each database (embedded always, the real server with DATABASE_URL), for what
 * only a database shows: nothing invalid stored (`storedProblems`: amounts beyond the maximum, an infinite total in a
 * webhook payload, a pixel id breaking the spec's rule, a trace of a refused string), strings PostgreSQL cannot keep
 * (a NUL, a lone surrogate) never reaching it, in a body or a query.
 *
 * The generated bodies (`StoreFuzzBodies.ts`: arbitrary JSON, mutations of a valid body, nasty values, text that is
 * not JSON, valid bodies) run their full count in memory (`store/Fuzz.test.ts`, the same generators and seeds); here
 * each write endpoint gets the first few of them (`RUNS`), enough for the listener, the transaction and the database
 * to meet every kind of body the mix sends, then the database is searched. The exhaustive tables
 * (`StoreFuzzTables.ts`: each unstorable string in every text field and key of every write, each huge number in every
 * amount, every text query parameter, the configuration and shipping writes, landing page sections) run in full in
 * memory; here every write endpoint gets every bad value in the first field of each kind (`"first"`: each refusal
 * reaches the listener, the transaction and the stored replay of its answer), the queries, sections and shipping in
 * full, and the database is searched after them.
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
  MARK,
  notJsonAnswered,
  SECTION_SEED,
  SEED,
  SHIPPING_SEED,
  sectionTargets,
  sentTo,
  serialise,
  shippingTargets,
  Tally,
  type Target,
  targets
} from "./StoreFuzzBodies.ts"
import * as Tables from "./StoreFuzzTables.ts"
import { type Answer, backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

/**
 * Generated bodies a write endpoint gets over sockets, the first of those its full count sends in memory: every kind
 * of body the mix sends (mutations, arbitrary JSON, nasty values, raw text, valid bodies) meets the listener, the
 * transaction and the database.
 */
const RUNS = 25
/** `Idempotency-Key` values over sockets (300 in memory): every class of value reaches the idempotency table. */
const HEADER_RUNS = 40

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

/** The generated bodies' rule for a fuzzed endpoint: never a 5xx, most refused, some accepted. */
const judge = (name: string, tally: Tally, count: number) => {
  assert.deepStrictEqual(tally.problems, [], `${name}: ${tally.problemCount} answers broke the rules`)
  assert.strictEqual(tally.total, count)
  assert.isAbove(tally.countBetween(400, 499), count / 5, `${name}: most generated bodies are refused`)
  assert.isAbove(tally.countBetween(200, 299), 0, `${name}: valid bodies are accepted`)
}

/** How the exhaustive tables send a write to the fixture's store over the socket. */
const sender = (fixture: Fixture) => (method: string, path: string, text: string | undefined, signed?: boolean) =>
  send(fixture, method, path, text, signed)

/** Rows of `table` holding `MARK` (only ever sent in strings that must be refused). */
const traces = (table: string) =>
  Effect.flatMap(sql, (db) =>
    Effect.orDie(
      db<Count>`SELECT count(*)::int AS n FROM ${db(table)} AS t WHERE row_to_json(t)::text LIKE ${`%${MARK}%`}`
    )
  ).pipe(Effect.map(([row]) => row?.n))

for (const backend of backends) {
  // The access log of thousands of requests would cost more than the requests; failures are still logged.
  // Webhooks go to a loopback port nothing listens on: exempt from the URL rules, refused at once.
  const server = storeServer(backend, { webhooks: { allowHosts: { hosts: new Set(["127.0.0.1"]) } } }).pipe(
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )
  layer(server, { timeout: "120 seconds", excludeTestServices: true })(`store API fuzz (${backend.name})`, (it) => {
    it.effect(
      `every write endpoint: ${RUNS} generated bodies each answer 2xx or a 4xx in the envelope, never a 5xx; nothing invalid stored`,
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          for (const [index, target] of socketTargets.entries()) {
            const { tally } = yield* fuzz(target, setup, RUNS, SEED + index)
            judge(target.name, tally, RUNS)
          }
          assert.deepStrictEqual(yield* storedProblems, [])
        }),
      180_000
    )

    it.effect(
      "a string PostgreSQL cannot keep, in any text field or key of any write, answers that field's refusal; none stored",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const tally = yield* Tables.unstorableText(setup, sender(setup), "first")
          assert.isAtLeast(tally.total, 100)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          // Refused means not stored: no row holds the mark the refused strings carried (the tracker writes behind
          // its answer: give it its batch interval).
          yield* Effect.sleep("1500 millis")
          assert.deepStrictEqual(yield* storedProblems, [])
        }),
      180_000
    )

    it.effect(
      "a huge number (1e308, 1e309 as written, 2^53 + 1, as a string) in any amount or quantity is refused; none stored",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const { tally, zeroes } = yield* Tables.hugeNumbers(setup, sender(setup), "first")
          assert.isAtLeast(tally.total, 100)
          assert.isAbove(zeroes, 0, "zero is an amount")
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          assert.deepStrictEqual(yield* storedProblems, [])
        }),
      180_000
    )

    it.effect("a query value PostgreSQL cannot keep matches nothing or follows the parameter's rule, never a 5xx", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const get = (path: string) => call(setup.base, "GET", path, { token: setup.token })
        const order = yield* get(`/v1/orders/${setup.orderIds[0]}`)
        const tally = yield* Tables.queryValues(setup, order.body.data.customer.id, get, sender(setup))
        assert.isAtLeast(tally.total, 300)
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
      })
    )

    it.effect(`Idempotency-Key: ${HEADER_RUNS} generated values answer 400 or 200, never a 5xx`, () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const tally = yield* Tables.idempotencyKeys(setup, HEADER_RUNS, SEED, (key, body) =>
          call(setup.base, "POST", "/v1/landing-pages", {
            token: setup.token,
            body,
            headers: { "idempotency-key": key }
          })
        )
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
        assert.isAbove(tally.count(200), 0)
        assert.isAbove(tally.count(400), 0)
      })
    )

    it.effect(
      "landing page sections: generated bodies never a 5xx; unstorable text and huge numbers anywhere answer their 422; none stored",
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
            const { tally } = yield* fuzz(target, setup, RUNS, SECTION_SEED + index)
            judge(target.name, tally, RUNS)
          }
          const tally = yield* Tables.sectionValues(sections, section, sender(setup))
          assert.isAtLeast(tally.total, 60)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          assert.strictEqual(yield* traces("landing_page_sections"), 0, "no refused string was stored")
          assert.deepStrictEqual(yield* storedProblems, [])
        }),
      180_000
    )

    it.effect(
      "shipping rates and settings, and the rate sync: generated bodies never a 5xx; unstorable text and huge numbers anywhere answer 400; none stored",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          for (const [index, target] of shippingTargets.entries()) {
            // The sync prices from the origin wilaya: set again after the settings' fuzz.
            yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
            const { tally } = yield* fuzz(target, setup, RUNS, SHIPPING_SEED + index)
            judge(target.name, tally, RUNS)
          }
          yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
          const tally = yield* Tables.shippingValues(sender(setup))
          assert.isAtLeast(tally.total, 100)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          const [stored] = yield* Effect.flatMap(sql, (db) =>
            Effect.orDie(
              db<Count>`SELECT count(*)::int AS n FROM shipping_rates
                WHERE home_price > 100000000 OR desk_price > 100000000 OR row_to_json(shipping_rates)::text LIKE ${`%${MARK}%`}`
            )
          )
          assert.strictEqual(stored?.n, 0, "no price beyond the maximum, no refused string stored")
          assert.strictEqual(yield* traces("shipping_settings"), 0)
        }),
      180_000
    )

    it.effect(
      "a string PostgreSQL cannot keep, or a huge number, in any field of a configuration write answers 400; none stored",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const section = yield* send(setup, "POST", "/v1/store/home-layout/sections", '{"type":"categories"}')
          const tally = yield* Tables.configurationValues(
            section.body.data.section.id as number,
            sender(setup),
            "first"
          )
          assert.isAtLeast(tally.total, 50)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          assert.strictEqual(yield* traces("stores"), 0, "no refused string stored")
          const layout = yield* call(setup.base, "GET", "/v1/store/home-layout?after=fuzz", { token: setup.token })
          assert.strictEqual(layout.body.data.sections.length, 1, "no section added by a refused body")
        }),
      180_000
    )
  })
}
