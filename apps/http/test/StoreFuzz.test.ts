/**
 * Fuzzing the store API's writes on each database (embedded always, the real server with DATABASE_URL): every write
 * endpoint that takes a body gets thousands of generated bodies — arbitrary JSON, mutations of a valid body (wrong
 * types, missing and extra fields, huge, negative and fractional numbers, long and unicode strings, nulls, deep
 * nesting), text that is not JSON, and valid bodies — each under a fresh `Idempotency-Key`; then `Idempotency-Key`
 * values themselves. Every answer must be a 200 `{ data, meta }` or a 4xx in the error envelope, never a 5xx.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect, Layer, References } from "effect"
import fc from "fast-check"
import { type Answer, backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const SEED = 20_261_204
/** Fewer runs on the real server: the embedded database already takes the full count. */
const runsOn = (backend: string) => (backend === "embedded" ? 2_000 : 300)
const HEADER_RUNS = 300
const CONCURRENCY = 8
const MAX_BODY_BYTES = 1_048_576
/**
 * The deepest nesting generated. Bodies nested deeper than `MAX_BODY_DEPTH` (32) answer 400; before that rule,
 * about 2 920 levels overflowed the stack in the request fingerprint (a 500). 4 000 stays within what this test's
 * own recursive helpers and `JSON.stringify` handle.
 */
const MAX_DEPTH = 4_000

// ---------------------------------------------------------------------------------------------------------------
// Generated bodies

/**
 * A placeholder for a nesting too deep for `JSON.stringify` to build cheaply: the body is serialised with the
 * placeholder, which is then replaced by `depth` nested arrays or objects in the raw text.
 */
const DEEP = /"\\u0001deep:(array|object):(\d+)"/g
const deep = (kind: "array" | "object", depth: number) => `\u0001deep:${kind}:${depth}`
const deepText = (kind: string, depth: number) =>
  kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

/** The text sent for a generated body. */
const serialise = (body: unknown) =>
  JSON.stringify(body).replace(DEEP, (_, kind: string, depth: string) => deepText(kind, Number(depth)))

const loneSurrogates = fc.string({
  unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 4
})

/** Anything JSON can carry, weighted towards what breaks validators, decimal arithmetic and databases. */
const nasty: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "🇩🇿",
    "زبون جديد",
    "<script>alert(1)</script>",
    "'; DROP TABLE orders; --",
    "1",
    "#fff",
    "NaN",
    -1,
    0,
    -0,
    1.5,
    0.1,
    -0.000001,
    1e-7,
    5e-324,
    1e308,
    -1e308,
    1.7976931348623157e308,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    2 ** 53 + 2,
    59,
    9999,
    10_000,
    [],
    {},
    [null],
    { status: "confirmed" }
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 300 }),
  loneSurrogates,
  fc.integer({ min: 256, max: 20_000 }).map((length) => "é".repeat(length)),
  fc.array(fc.constant(1), { minLength: 51, maxLength: 120 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc
    .tuple(fc.constantFrom<"array" | "object">("array", "object"), fc.integer({ min: 2, max: MAX_DEPTH }))
    .map(([kind, depth]) => deep(kind, depth))
)

type Json = unknown

/** Every path to a member or element of `value`, with its parent. */
const paths = (value: Json): Array<Array<string | number>> => {
  const found: Array<Array<string | number>> = []
  const walk = (node: Json, path: Array<string | number>) => {
    if (Array.isArray(node)) {
      node.forEach((child, index) => {
        found.push([...path, index])
        walk(child, [...path, index])
      })
    } else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        found.push([...path, key])
        walk(child, [...path, key])
      }
    }
  }
  walk(value, [])
  return found
}

type Mutation = readonly [pick: number, how: "replace" | "remove" | "add", value: unknown]

const mutation: fc.Arbitrary<Mutation> = fc.tuple(
  fc.nat(),
  fc.constantFrom<"replace" | "remove" | "add">("replace", "replace", "remove", "add"),
  nasty
)

/** `valid` with one to three members replaced, removed or joined by an unknown one. */
const mutated = (valid: fc.Arbitrary<Json>) =>
  fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([body, mutations]) => {
    const copy = structuredClone(body) as Record<string, unknown>
    for (const [pick, how, value] of mutations) {
      const all = paths(copy)
      if (all.length === 0) break
      const path = all[pick % all.length]!
      const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>(
        // biome-ignore lint/suspicious/noExplicitAny: walking a JSON value by a path found in it
        (node, key) => (node as any)[key],
        copy
      )
      const key = path.at(-1)!
      if (how === "replace") parent[key] = value
      else if (how === "remove") {
        if (Array.isArray(parent)) parent.splice(Number(key), 1)
        else delete parent[key]
      } else if (Array.isArray(parent)) parent.push(value)
      else parent[`extra_${pick % 5}`] = value
    }
    return copy
  })

/** Text sent as is: mostly not JSON at all. */
const rawText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "{not json",
    '{"customer":',
    "{'title':'x'}",
    '{"title":"x",}',
    "[1,2,",
    "NaN",
    "undefined",
    '{"price":1e400}',
    '{"price":-}',
    "\u0000",
    '{"title":"\\ud800"}',
    "\ufeff{}",
    "null",
    "x".repeat(MAX_BODY_BYTES + 10)
  ),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 })
)

type Sent = { readonly kind: "json"; readonly body: Json } | { readonly kind: "raw"; readonly text: string }

const json = (arbitrary: fc.Arbitrary<Json>): fc.Arbitrary<Sent> => arbitrary.map((body) => ({ kind: "json", body }))

/** The mix sent to one endpoint: mutations of its valid body, arbitrary JSON, raw text, valid bodies. */
const sentTo = (valid: fc.Arbitrary<Json>): fc.Arbitrary<Sent> =>
  fc.oneof(
    { weight: 5, arbitrary: json(mutated(valid)) },
    { weight: 2, arbitrary: json(fc.jsonValue()) },
    { weight: 1, arbitrary: json(nasty) },
    { weight: 1, arbitrary: rawText.map((text): Sent => ({ kind: "raw", text })) },
    { weight: 2, arbitrary: json(valid) }
  )

// ---------------------------------------------------------------------------------------------------------------
// Valid bodies

const nonBlank = (maxLength: number) =>
  fc.string({ unit: "grapheme", minLength: 1, maxLength }).filter((s) => s.trim().length > 0)

const variantGroups = fc.constant([
  {
    name: "Taille",
    type: "text",
    options: [
      { value: "M", price_adjustment: 0, stock: 4 },
      { value: "XL", price_adjustment: 500.5, stock: 2 }
    ]
  },
  {
    name: "Couleur",
    type: "color",
    options: [{ value: "Rouge", color_code: "#c00", image_id: 3, price_adjustment: -100, stock: null }]
  }
])

const validProduct = fc.record({
  name: nonBlank(20),
  description: fc.option(fc.string({ maxLength: 100 }), { nil: null }),
  sku: fc.option(fc.stringMatching(/^[A-Z0-9-]{1,20}$/), { nil: null }),
  price: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(4500.75, 0.01)),
  compare_at_price: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: null }),
  status: fc.constantFrom("active", "draft"),
  digital: fc.boolean(),
  stock: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  variant_groups: fc.oneof(fc.constant([]), variantGroups)
})

const validOrder = (productIds: ReadonlyArray<number>) =>
  fc.record({
    customer: fc.record({
      name: nonBlank(20),
      phone: fc.oneof(fc.stringMatching(/^\+?[0-9]{6,15}$/), fc.constantFrom("0555 12 34 56", "+213 555 123456")),
      email: fc.option(fc.emailAddress(), { nil: null }),
      wilaya_id: fc.integer({ min: 1, max: 58 }),
      commune: nonBlank(20),
      address: fc.string({ maxLength: 40 })
    }),
    delivery: fc.record({
      type: fc.constantFrom("home", "desk"),
      desk_id: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
      desk_name: fc.option(fc.string({ maxLength: 30 }), { nil: null })
    }),
    items: fc.array(
      fc.record({
        product_id: fc.constantFrom(...productIds),
        quantity: fc.integer({ min: 1, max: 9999 }),
        price: fc.integer(),
        variants: fc.array(
          fc.record({
            group_name: fc.constantFrom("Taille", "Couleur", "Emballage"),
            option_name: fc.constantFrom("M", "XL", "Rouge", "Cadeau"),
            color_code: fc.constantFrom(null, "#c00"),
            price_adjustment: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(150.5))
          }),
          { maxLength: 3 }
        )
      }),
      { minLength: 1, maxLength: 5 }
    ),
    shipping_cost: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.constant(350.125)),
    discount: fc.integer({ min: 0, max: 500 }),
    payment_fee: fc.integer({ min: 0, max: 100 }),
    payment_method: fc.constantFrom("cod", "digital_payment"),
    notes: fc.string({ maxLength: 100 })
  })

const validOrderStatus = fc.record({
  status: fc.constantFrom("pending", "confirmed", "processing", "shipped", "delivered", "cancelled", "returned")
})

const validLandingPage = (productIds: ReadonlyArray<number>) =>
  fc.record(
    {
      title: nonBlank(30),
      slug: fc.stringMatching(/^[a-z0-9-]{0,30}$/),
      status: fc.constantFrom("active", "draft"),
      language: fc.constantFrom("ar", "fr", "en"),
      product_id: fc.option(fc.constantFrom(...productIds), { nil: null }),
      meta_title: fc.option(fc.string({ maxLength: 50 }), { nil: null }),
      meta_description: fc.option(fc.string({ maxLength: 100 }), { nil: null })
    },
    { requiredKeys: ["title"] }
  )

const validKey = fc.record(
  { type: fc.constantFrom("platform", "public"), name: fc.string({ maxLength: 120 }) },
  { requiredKeys: [] }
)

// ---------------------------------------------------------------------------------------------------------------
// Checking answers

/** A stack frame or a source path in an answer would leak the server's insides. */
const LEAK = /\n\s+at |node_modules|\.ts:\d+|Error: /

/** What is wrong with an answer, or undefined when it is a 200 `{ data, meta }` or a 4xx in the envelope. */
const problemOf = (answer: Answer): string | undefined => {
  const { status, body } = answer
  const requestId = answer.headers.get("x-request-id")
  const meta = body?.meta
  // A replay is the first answer byte for byte, its request id included; any other answer names its own request.
  const replayed = answer.headers.get("idempotency-replay") === "1"
  const metaOk =
    meta?.api_version === "v1" &&
    typeof meta?.request_id === "string" &&
    (replayed ? /^req_[0-9a-f]{24}$/.test(meta.request_id) : meta.request_id === requestId)
  if (status >= 500) return `a ${status}`
  if (status === 200) {
    if (body === undefined || !("data" in body)) return "a 200 without data"
    if (!metaOk) return "a 200 without meta"
    return undefined
  }
  if (status >= 400 && status < 500) {
    if (typeof body?.error?.code !== "string" || typeof body.error.message !== "string") {
      return `a ${status} outside the envelope`
    }
    if (!metaOk) return `a ${status} without meta`
    if (LEAK.test(body.error.message) || LEAK.test(answer.text)) return `a ${status} leaking a stack trace`
    return undefined
  }
  return `an unexpected ${status}`
}

const show = (sent: Sent) => {
  const text = sent.kind === "raw" ? sent.text : serialise(sent.body)
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text
}

/** Answers by status, and the answers that broke the rules (at most a few, with what was sent). */
class Tally {
  readonly statuses = new Map<number, number>()
  readonly problems: Array<string> = []
  problemCount = 0

  record(label: string, sent: Sent | string, answer: Answer, expected?: (answer: Answer) => string | undefined) {
    this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1)
    const problem = problemOf(answer) ?? expected?.(answer)
    if (problem === undefined) return
    this.problemCount++
    if (this.problems.length < 5) {
      const what = typeof sent === "string" ? JSON.stringify(sent) : show(sent)
      this.problems.push(`${label}: ${problem} for ${what}: ${answer.text.slice(0, 300)}`)
    }
  }

  count(status: number) {
    return this.statuses.get(status) ?? 0
  }

  get total() {
    let total = 0
    for (const count of this.statuses.values()) total += count
    return total
  }

  summary() {
    return [...this.statuses].sort(([a], [b]) => a - b)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The fuzz

let keys = 0
const freshKey = () => `fz-${Date.now().toString(36)}-${++keys}`

interface Fixture {
  readonly base: string
  readonly token: string
  readonly productIds: ReadonlyArray<number>
  readonly orderIds: ReadonlyArray<number>
  readonly pageIds: ReadonlyArray<number>
}

/** A store whose per-minute limit is lifted, with products, pending orders and landing pages to PATCH. */
const fixture = Effect.gen(function* () {
  const base = yield* baseUrl
  const admin = yield* Admin.Admin
  const store = yield* createStore()
  yield* admin.setQuota(store.id, { requestsPerMinute: -1 }).pipe(Effect.orDie)
  const write = (path: string, body: unknown) =>
    Effect.map(call(base, "POST", path, { token: store.token, key: freshKey(), body }), (answer) => {
      assert.strictEqual(answer.status, 200, answer.text)
      return answer.body.data.id as number
    })
  const productIds: Array<number> = []
  for (const [index, body] of fc.sample(validProduct, { numRuns: 4, seed: SEED }).entries()) {
    productIds.push(yield* write("/v1/products", { ...body, name: `Produit ${index}` }))
  }
  const orderIds: Array<number> = []
  for (const body of fc.sample(validOrder(productIds), { numRuns: 10, seed: SEED })) {
    orderIds.push(yield* write("/v1/orders", { ...body, items: body.items.map((item) => ({ ...item, variants: [] })) }))
  }
  const pageIds: Array<number> = []
  for (const body of fc.sample(validLandingPage(productIds), { numRuns: 5, seed: SEED })) {
    pageIds.push(yield* write("/v1/landing-pages", body))
  }
  return { base, token: store.token, productIds, orderIds, pageIds } satisfies Fixture
})

interface Target {
  readonly name: string
  readonly method: "POST" | "PATCH"
  /** The path of one request (`pick` chooses among the fixture's ids). */
  readonly path: (fixture: Fixture, pick: number) => string
  readonly valid: (fixture: Fixture) => fc.Arbitrary<Json>
}

const at = <A>(items: ReadonlyArray<A>, pick: number) => items[pick % items.length]!

const targets: ReadonlyArray<Target> = [
  { name: "POST /v1/orders", method: "POST", path: () => "/v1/orders", valid: (f) => validOrder(f.productIds) },
  {
    name: "PATCH /v1/orders/{id}",
    method: "PATCH",
    path: (f, pick) => `/v1/orders/${at(f.orderIds, pick)}`,
    valid: () => validOrderStatus
  },
  { name: "POST /v1/products", method: "POST", path: () => "/v1/products", valid: () => validProduct },
  {
    name: "PATCH /v1/products/{id}",
    method: "PATCH",
    path: (f, pick) => `/v1/products/${at(f.productIds, pick)}`,
    valid: () => validProduct
  },
  {
    name: "POST /v1/landing-pages",
    method: "POST",
    path: () => "/v1/landing-pages",
    valid: (f) => validLandingPage(f.productIds)
  },
  {
    name: "PATCH /v1/landing-pages/{id}",
    method: "PATCH",
    path: (f, pick) => `/v1/landing-pages/${at(f.pageIds, pick)}`,
    valid: (f) => validLandingPage(f.productIds)
  },
  { name: "POST /v1/keys", method: "POST", path: () => "/v1/keys", valid: () => validKey }
]

/** One request per generated body, `CONCURRENCY` at a time; a minted key is revoked at once to keep room. */
const fuzz = (target: Target, fixture: Fixture, runs: number, seed: number) =>
  Effect.gen(function* () {
    const cases = fc.sample(fc.tuple(sentTo(target.valid(fixture)), fc.nat()), { numRuns: runs, seed })
    const tally = new Tally()
    const started = performance.now()
    yield* Effect.forEach(
      cases,
      ([sent, pick]) =>
        Effect.gen(function* () {
          const path = target.path(fixture, pick)
          const answer = yield* call(fixture.base, target.method, path, {
            token: fixture.token,
            key: freshKey(),
            raw: sent.kind === "raw" ? sent.text : serialise(sent.body)
          })
          tally.record(`${target.method} ${path}`, sent, answer, (answer) =>
            sent.kind === "raw" &&
            answer.status !== 413 &&
            !isJson(sent.text) &&
            answer.body?.error?.message !== "Body must be valid JSON"
              ? "not JSON, yet not 'Body must be valid JSON'"
              : undefined
          )
          if (target.name === "POST /v1/keys" && answer.status === 200) {
            // Revoked in SQL, a statement rather than a request: room for the next mint.
            const db = yield* sql
            yield* db`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE key_id = ${answer.body.data.key_id}`
          }
        }),
      { concurrency: CONCURRENCY, discard: true }
    )
    return { tally, seconds: (performance.now() - started) / 1000 }
  })

/** Whether the server can read `text` as JSON: it decodes the body as UTF-8, dropping a leading BOM. */
const isJson = (text: string) => {
  try {
    JSON.parse(text.replace(/^\ufeff/, ""))
    return true
  } catch {
    return false
  }
}

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

/** Strings JSON carries and PostgreSQL cannot store as text: NUL, and UTF-16 that is not well formed. */
const unstorable = ["\u0000", "a\u0000b", "\ud800", "x\udc00", "🇩🇿\ud83d"]

/** A valid body of each write with every string field it takes, to put an unstorable string in each in turn. */
const everyStringField = (f: Fixture): ReadonlyArray<readonly [method: string, path: string, body: Json]> => [
  [
    "POST",
    "/v1/orders",
    {
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
      payment_method: "cod",
      notes: "Appeler avant"
    }
  ],
  ["PATCH", `/v1/orders/${f.orderIds[0]}`, { status: "pending" }],
  ...(["POST", "PATCH"] as const).map(
    (method) =>
      [
        method,
        method === "POST" ? "/v1/products" : `/v1/products/${f.productIds[1]}`,
        {
          name: "Robe",
          description: "Longue",
          sku: "RB-1",
          price: 10,
          status: "active",
          variant_groups: [{ name: "Couleur", type: "color", options: [{ value: "Rouge", color_code: "#c00" }] }]
        }
      ] as const
  ),
  ...(["POST", "PATCH"] as const).map(
    (method) =>
      [
        method,
        method === "POST" ? "/v1/landing-pages" : `/v1/landing-pages/${f.pageIds[0]}`,
        { title: "Offre", slug: "offre", status: "draft", language: "fr", meta_title: "Offre", meta_description: "x" }
      ] as const
  ),
  ["POST", "/v1/keys", { type: "platform", name: "erp" }]
]

const stringPaths = (body: Json) =>
  paths(body).filter(
    (path) =>
      // biome-ignore lint/suspicious/noExplicitAny: walking a JSON value by a path found in it
      typeof path.reduce<any>((node, key) => node[key], body) === "string"
  )

const replaced = (body: Json, path: ReadonlyArray<string | number>, value: unknown) => {
  const copy = structuredClone(body) as Record<string | number, unknown>
  // biome-ignore lint/suspicious/noExplicitAny: walking a JSON value by a path found in it
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy)
  parent[path.at(-1)!] = value
  return copy
}

for (const backend of backends) {
  const runs = runsOn(backend.name)
  // The access log of thousands of requests would cost more than the requests; failures are still logged.
  const server = storeServer(backend).pipe(Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error")))
  layer(server, { timeout: "120 seconds", excludeTestServices: true })(`store API fuzz (${backend.name})`, (it) => {
    targets.forEach((target, index) => {
      it.effect(
        `${target.name}: ${runs} generated bodies answer 200 or a 4xx in the envelope, never a 5xx`,
        () =>
          Effect.gen(function* () {
            const setup = yield* fixture
            const { tally, seconds } = yield* fuzz(target, setup, runs, SEED + index)
            console.log(
              `[fuzz ${backend.name}] ${target.name}: ${tally.total} requests in ${seconds.toFixed(1)} s`,
              Object.fromEntries(tally.summary())
            )
            assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
            assert.strictEqual(tally.total, runs)
            assert.isAbove(tally.count(400), runs / 3, "most generated bodies are refused")
            assert.isAbove(tally.count(200), 0, "valid bodies are accepted")
          }),
        180_000
      )
    })

    it.effect("a string PostgreSQL cannot store, in any string field of any write, is never a 5xx", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const tally = new Tally()
        for (const [method, path, body] of everyStringField(setup)) {
          for (const at of stringPaths(body)) {
            for (const value of unstorable) {
              const sent = replaced(body, at, value)
              const answer = yield* call(setup.base, method, path, {
                token: setup.token,
                key: freshKey(),
                body: sent
              })
              // Refused with the field's 400, never stored altered; a landing page's create coerces its enums.
              const coerced = path === "/v1/landing-pages" && (at[0] === "status" || at[0] === "language")
              const expected = coerced ? 200 : 400
              tally.record(`${method} ${path} ${at.join(".")}`, { kind: "json", body: sent }, answer, (answer) =>
                answer.status === expected ? undefined : `${answer.status}, not ${expected}`
              )
              if (method === "POST" && path === "/v1/keys" && answer.status === 200) {
                yield* call(setup.base, "DELETE", `/v1/keys/${answer.body.data.key_id}`, {
                  token: setup.token,
                  key: freshKey()
                })
              }
            }
          }
        }
        assert.isAtLeast(tally.total, 150)
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
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
  })
}
