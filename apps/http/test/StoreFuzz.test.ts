/**
 * Fuzzing the store API's writes on each database (embedded always, the real server with DATABASE_URL): every write
 * endpoint that takes a body — orders, products, landing pages, keys, webhooks, promo codes, pixels, the three theme
 * switches, signed signups and events — gets thousands of generated bodies: arbitrary JSON, mutations of a valid body
 * (wrong types, missing and extra fields, huge, negative and fractional numbers — 1e308, 1e309 as written, -0,
 * 2^53 + 1 —, long and unicode strings, NUL characters and lone surrogates, nulls, deep nesting), text that is not
 * JSON, and valid bodies — each under a fresh `Idempotency-Key`; then `Idempotency-Key` values themselves. Every answer
 * must be a 2xx `{ data, meta }` or a 4xx in the error envelope, never a 5xx, and nothing invalid may be stored
 * (`storedProblems`: amounts beyond the maximum, an infinite total in a webhook payload, a pixel id breaking the
 * spec's rule, a trace of a refused string).
 *
 * Then every text field of every body, and every text query parameter, gets each string PostgreSQL cannot keep (a
 * NUL, a lone surrogate) and must answer that field's own refusal (docs/store-api.md, "Text inputs"); every amount
 * and quantity gets each huge number and must be refused (docs/store-api.md, "Amounts").
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Nonce, RequestSignature } from "@tawsil/signing"
import { Effect, Layer, Redacted, References } from "effect"
import type { SqlClient } from "effect/sql"
import fc from "fast-check"
import { type Answer, backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const SEED = 20_261_204
/** Fewer runs on the real server: the embedded database already takes the full count. */
const runsOn = (backend: string) => (backend === "embedded" ? 2_000 : 300)
/** The configuration and signed endpoints: fewer fields, the same mix. */
const configRunsOn = (backend: string) => (backend === "embedded" ? 500 : 200)
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

/**
 * A placeholder for a number written as is in the body's text, which `JSON.stringify` cannot write: `1e309` (JSON
 * reads it as infinity), `-0`, `9007199254740993` (2^53 + 1, which JSON reads as 2^53).
 */
const RAW = /"\\u0001raw:([^"]+)"/g
const raw = (text: string) => `\u0001raw:${text}`

/** The text sent for a generated body. */
const serialise = (body: unknown) =>
  JSON.stringify(body)
    .replace(DEEP, (_, kind: string, depth: string) => deepText(kind, Number(depth)))
    .replace(RAW, (_, text: string) => text)

/** Numbers beyond every amount's and quantity's bound, as numbers, as written in the text, and as strings. */
const HUGE: ReadonlyArray<unknown> = [
  1e308,
  -1e308,
  Number.MAX_VALUE,
  2 ** 53 + 1,
  raw("1e309"),
  raw("-1e309"),
  raw("9007199254740993"),
  raw("123456789012345678901234567890"),
  "1e309",
  "1e308",
  "9007199254740993",
  "Infinity"
]

/** Numbers that read as zero: valid wherever 0 is. */
const ZEROES: ReadonlyArray<unknown> = [-0, raw("-0"), raw("-0.0"), raw("1e-400"), "-0"]

/** Strings PostgreSQL cannot keep (NUL, UTF-16 that is not well formed), each but the first carrying `MARK`. */
const MARK = "zqmark"
const unstorable = ["\u0000", `${MARK}\u0000`, `a\u0000${MARK}`, `${MARK}\ud800`, `x\udc00${MARK}`, `🇩🇿${MARK}\ud83d`]

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
    "\ud800",
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
    ...HUGE,
    ...ZEROES,
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
    for (const [pick, how, shared] of mutations) {
      // A copy: the generators' constants (`[]`, `{}`) are shared by every sample, and a later mutation of this body
      // must not grow them (it once made one contain itself, and walking it never ended).
      const value = structuredClone(shared)
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

/** A loopback receiver that refuses connections: exempt from the URL rules in this server (`allowHosts`). */
const HOOK_URL = "http://127.0.0.1:9/hooks"
const EVENTS = ["order.created", "order.confirmed", "order.shipped"] as const

const validWebhook = fc.record(
  {
    url: fc.nat({ max: 99 }).map((n) => `${HOOK_URL}/${n}`),
    events: fc.subarray([...EVENTS], { minLength: 1 }),
    active: fc.boolean(),
    description: fc.option(fc.string({ unit: "grapheme", maxLength: 60 }), { nil: null })
  },
  { requiredKeys: ["url", "events"] }
)

const validWebhookPatch = fc.record(
  {
    url: fc.nat({ max: 99 }).map((n) => `${HOOK_URL}/${n}`),
    events: fc.subarray([...EVENTS], { minLength: 1 }),
    active: fc.boolean(),
    description: fc.option(fc.string({ maxLength: 60 }), { nil: null }),
    rotate_secret: fc.boolean()
  },
  { requiredKeys: [] }
)

const promoFields = {
  code: fc.stringMatching(/^[A-Za-z0-9_-]{2,30}$/),
  discount_type: fc.constantFrom("percentage", "fixed", "Fixed"),
  discount_value: fc.oneof(fc.integer({ min: 1, max: 99 }), fc.constantFrom(12.5, "15.50", 2500)),
  min_order_amount: fc.oneof(
    fc.constantFrom(null, "", 0),
    fc.integer({ min: 1, max: 100_000 }),
    fc.constant("2500.50")
  ),
  max_uses: fc.oneof(fc.constantFrom(null, "", 0), fc.integer({ min: 1, max: 1000 })),
  is_active: fc.boolean(),
  starts_at: fc.constantFrom(null, "", "2026-01-01 00:00:00", "2026-01-01T00:00:00Z"),
  expires_at: fc.constantFrom(null, "", "2099-12-31 23:59:59", "2099-12-31T22:00:00+01:00")
}

const validPromo = fc.record(promoFields, { requiredKeys: ["code", "discount_type", "discount_value"] })
const validPromoPatch = fc.record(promoFields, { requiredKeys: [] })

const PIXEL_TYPES = ["facebook", "tiktok", "snapchat", "pinterest", "google_analytics", "gtm", "google_ads"] as const

const pixelFields = {
  pixel_name: fc.option(fc.string({ unit: "grapheme", maxLength: 120 }), { nil: null }),
  access_token: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{40,60}$/), { nil: null }),
  ad_account_id: fc.option(fc.stringMatching(/^[0-9]{6,20}$/), { nil: null }),
  conversion_label: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/), { nil: null }),
  is_active: fc.boolean(),
  is_default: fc.boolean()
}

const validPixel = fc.record(
  {
    pixel_type: fc.constantFrom(...PIXEL_TYPES, "GTM", "Facebook"),
    pixel_id: fc.oneof(fc.stringMatching(/^[0-9]{15,17}$/), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)),
    ...pixelFields
  },
  { requiredKeys: ["pixel_type", "pixel_id"] }
)
const validPixelPatch = fc.record(pixelFields, { requiredKeys: [] })

const validTheme = fc.record({ theme: fc.constantFrom("classic", "souk", "atlas", "medina", "noir", "sahara") })
const validFastCheckout = fc.record({ theme: fc.constantFrom("classic", "commerce", "editorial", "compact") })
const validStyle = fc.record({ style: fc.constantFrom("default", "minimal", "clay", "glass", "lux") })

const properties = fc.dictionary(
  fc.stringMatching(/^[a-z_]{1,20}$/),
  fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.boolean(), fc.constant(null)),
  { maxKeys: 8 }
)

const validSignup = fc.record(
  {
    user: fc.record(
      {
        id: fc.stringMatching(/^u_[a-z0-9]{1,20}$/),
        email: fc.option(fc.emailAddress(), { nil: null }),
        phone: fc.option(fc.stringMatching(/^\+?[0-9 ]{6,20}$/), { nil: null }),
        name: fc.option(fc.string({ unit: "grapheme", maxLength: 40 }), { nil: null })
      },
      { requiredKeys: ["id"] }
    ),
    source: fc.option(fc.stringMatching(/^[a-z0-9-]{1,30}$/), { nil: null }),
    properties
  },
  { requiredKeys: ["user"] }
)

const validEvent = fc.record(
  {
    event: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/),
    user_id: fc.option(fc.stringMatching(/^u_[a-z0-9]{1,20}$/), { nil: null }),
    properties
  },
  { requiredKeys: ["event"] }
)

// ---------------------------------------------------------------------------------------------------------------
// Checking answers

/** A stack frame or a source path in an answer would leak the server's insides. */
const LEAK = /\n\s+at |node_modules|\.ts:\d+|Error: /

/**
 * An amount JSON could not write as a number: `Infinity` or `NaN` as a string (how a schema encodes them), or `null`
 * where the field is never null.
 */
const NON_FINITE =
  /"(?:total|subtotal|price|shipping_cost|discount|payment_fee|compare_at_price|price_adjustment|discount_value|min_order_amount)":"(?:-?Infinity|NaN)"|"(?:total|subtotal|price|shipping_cost|discount|payment_fee|discount_value)":null/

/** What is wrong with an answer, or undefined when it is a 2xx `{ data, meta }` or a 4xx in the envelope. */
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
  if (status >= 200 && status < 300) {
    if (body === undefined || !("data" in body)) return `a ${status} without data`
    if (!metaOk) return `a ${status} without meta`
    if (NON_FINITE.test(answer.text)) return `a ${status} with a non-finite amount`
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

  /** Answers with a status in `from..to`. */
  countBetween(from: number, to: number) {
    let total = 0
    for (const [status, count] of this.statuses) if (status >= from && status <= to) total += count
    return total
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

interface Signer {
  readonly keyId: string
  readonly secret: string
}

interface Fixture {
  readonly base: string
  readonly storeId: number
  readonly token: string
  /** An active public key of the store, for signups and events. */
  readonly signer: Signer
  readonly productIds: ReadonlyArray<number>
  readonly orderIds: ReadonlyArray<number>
  readonly pageIds: ReadonlyArray<number>
  readonly webhookIds: ReadonlyArray<number>
  readonly promoIds: ReadonlyArray<number>
  readonly pixelIds: ReadonlyArray<number>
}

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
  const webhookIds: Array<number> = []
  for (const index of [0, 1]) {
    webhookIds.push(yield* write("/v1/webhooks", { url: `${HOOK_URL}/fixture-${index}`, events: ["order.shipped"] }))
  }
  const promoIds: Array<number> = []
  for (const index of [0, 1, 2]) {
    promoIds.push(
      yield* write("/v1/promo-codes", { code: `FZ-${index}-${store.id}`, discount_type: "fixed", discount_value: 100 })
    )
  }
  const pixelIds: Array<number> = []
  for (const [pixel_type, pixel_id] of [
    ["gtm", "GTM-FZ12345"],
    ["facebook", "123456789012345"],
    ["tiktok", "legacy_tiktok_id"]
  ] as const) {
    pixelIds.push(yield* write("/v1/pixels", { pixel_type, pixel_id }))
  }
  return {
    base,
    storeId: store.id,
    token: store.token,
    signer: { keyId: publicKey.key_id, secret: Redacted.value(publicKey.signing_secret!) },
    productIds,
    orderIds,
    pageIds,
    webhookIds,
    promoIds,
    pixelIds
  } satisfies Fixture
})

interface Target {
  readonly name: string
  readonly method: "POST" | "PATCH"
  /** The path of one request (`pick` chooses among the fixture's ids). */
  readonly path: (fixture: Fixture, pick: number) => string
  readonly valid: (fixture: Fixture) => fc.Arbitrary<Json>
  /** Signed with the store's public key instead of its bearer key. */
  readonly signed?: boolean
  /** The configuration and signed endpoints run `configRunsOn` bodies. */
  readonly config?: boolean
  /** What to undo after a success to keep room (a key revoked, a subscription removed): SQL, not a request. */
  readonly cleanUp?: (answer: Answer) => Effect.Effect<unknown, unknown, SqlClient.SqlClient>
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
  {
    name: "POST /v1/keys",
    method: "POST",
    path: () => "/v1/keys",
    valid: () => validKey,
    cleanUp: (answer) =>
      Effect.flatMap(
        sql,
        (db) => db`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE key_id = ${answer.body.data.key_id}`
      )
  },
  {
    name: "POST /v1/webhooks",
    method: "POST",
    path: () => "/v1/webhooks",
    valid: () => validWebhook,
    config: true,
    // At most 20 subscriptions a store: the new one goes at once.
    cleanUp: (answer) =>
      Effect.flatMap(sql, (db) => db`DELETE FROM webhook_subscriptions WHERE id = ${answer.body.data.id}`)
  },
  {
    name: "PATCH /v1/webhooks/{id}",
    method: "PATCH",
    path: (f, pick) => `/v1/webhooks/${at(f.webhookIds, pick)}`,
    valid: () => validWebhookPatch,
    config: true
  },
  {
    name: "POST /v1/promo-codes",
    method: "POST",
    path: () => "/v1/promo-codes",
    valid: () => validPromo,
    config: true
  },
  {
    name: "PATCH /v1/promo-codes/{id}",
    method: "PATCH",
    path: (f, pick) => `/v1/promo-codes/${at(f.promoIds, pick)}`,
    valid: () => validPromoPatch,
    config: true
  },
  { name: "POST /v1/pixels", method: "POST", path: () => "/v1/pixels", valid: () => validPixel, config: true },
  {
    name: "PATCH /v1/pixels/{id}",
    method: "PATCH",
    path: (f, pick) => `/v1/pixels/${at(f.pixelIds, pick)}`,
    valid: () => validPixelPatch,
    config: true
  },
  {
    name: "POST /v1/store/theme",
    method: "POST",
    path: () => "/v1/store/theme",
    valid: () => validTheme,
    config: true
  },
  {
    name: "POST /v1/store/fast-checkout-theme",
    method: "POST",
    path: () => "/v1/store/fast-checkout-theme",
    valid: () => validFastCheckout,
    config: true
  },
  {
    name: "POST /v1/store/variant-style",
    method: "POST",
    path: () => "/v1/store/variant-style",
    valid: () => validStyle,
    config: true
  },
  {
    name: "POST /v1/signups",
    method: "POST",
    path: () => "/v1/signups",
    valid: () => validSignup,
    signed: true,
    config: true
  },
  {
    name: "POST /v1/events",
    method: "POST",
    path: () => "/v1/events",
    valid: () => validEvent,
    signed: true,
    config: true
  },
  {
    name: "POST /v1/categories",
    method: "POST",
    path: () => "/v1/categories",
    valid: () => validCategory,
    config: true
  },
  {
    name: "POST /v1/products/{id}/stock",
    method: "POST",
    path: (f, pick) => `/v1/products/${at(f.productIds, pick)}/stock`,
    valid: () => validStock,
    config: true
  }
]

/** One request per generated body, `CONCURRENCY` at a time; what a success takes up is given back at once. */
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
          const text = sent.kind === "raw" ? sent.text : serialise(sent.body)
          const answer = yield* send(fixture, target.method, path, text, target.signed)
          tally.record(`${target.method} ${path}`, sent, answer, (answer) =>
            sent.kind === "raw" &&
            answer.status !== 413 &&
            !isJson(sent.text) &&
            answer.body?.error?.message !== "Body must be valid JSON"
              ? "not JSON, yet not 'Body must be valid JSON'"
              : undefined
          )
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
  // The access log of thousands of requests would cost more than the requests; failures are still logged.
  // Webhooks go to a loopback port nothing listens on: exempt from the URL rules, refused at once.
  const server = storeServer(backend, { webhooks: { allowHosts: { hosts: new Set(["127.0.0.1"]) } } }).pipe(
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )
  layer(server, { timeout: "120 seconds", excludeTestServices: true })(`store API fuzz (${backend.name})`, (it) => {
    targets.forEach((target, index) => {
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
          const settings = fc.dictionary(
            fc.string({ maxLength: 12 }),
            fc.oneof(fc.string({ maxLength: 40 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean()),
            { maxKeys: 4 }
          )
          const fields = {
            type: fc.constantFrom("hero", "FAQ", "order_form", "video"),
            is_visible: fc.boolean(),
            settings
          }
          const sectionTargets: ReadonlyArray<Target> = [
            {
              name: "POST /v1/landing-pages/{id}/sections",
              method: "POST",
              path: () => sections,
              valid: () => fc.record(fields, { requiredKeys: ["type"] }),
              config: true,
              // At most 50 sections a page: the new one goes at once.
              cleanUp: (answer) =>
                Effect.flatMap(sql, (db) => db`DELETE FROM landing_page_sections WHERE id = ${answer.body.data.id}`)
            },
            {
              name: "PATCH /v1/landing-pages/{id}/sections/{section_id}",
              method: "PATCH",
              path: () => section,
              valid: () => fc.record({ is_visible: fields.is_visible, settings }, { requiredKeys: [] }),
              config: true
            }
          ]
          for (const [index, target] of sectionTargets.entries()) {
            const { tally } = yield* fuzz(target, setup, configRuns, SEED + 900 + index)
            assert.deepStrictEqual(tally.problems, [], `${target.name}: ${tally.problemCount} answers broke the rules`)
            assert.strictEqual(tally.total, configRuns)
            assert.isAbove(tally.countBetween(400, 499), configRuns / 5, "most generated bodies are refused")
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
          const price = fc.oneof(
            fc.constant(null),
            fc.integer({ min: 0, max: 100_000 }),
            fc.constantFrom("450.00", "0")
          )
          const wilaya = fc.integer({ min: 1, max: 58 })
          const rates = fc.uniqueArray(
            fc.record({ wilaya_id: wilaya, home_price: price, desk_price: price }, { requiredKeys: ["wilaya_id"] }),
            { minLength: 1, maxLength: 5, selector: (rate) => rate.wilaya_id }
          )
          const settings = fc.record(
            {
              origin_wilaya: wilaya,
              default_courier: fc.constantFrom(null, "sandbox", "yalidine"),
              free_shipping_threshold: price,
              default_delivery_type: fc.constantFrom("home", "desk"),
              cod_fee_payer: fc.constantFrom("merchant", "customer"),
              cod_fee_percent: fc.integer({ min: 0, max: 100 })
            },
            { requiredKeys: [] }
          )
          const sync = fc.record(
            {
              courier: fc.constant("sandbox"),
              wilaya_ids: fc.uniqueArray(wilaya, { minLength: 1, maxLength: 3 }),
              tier: fc.constantFrom("economic", "express")
            },
            { requiredKeys: ["courier"] }
          )
          const shippingTargets: ReadonlyArray<Target> = [
            {
              name: "POST /v1/shipping/rates",
              method: "POST",
              path: () => "/v1/shipping/rates",
              valid: () => fc.record({ rates }),
              config: true
            },
            {
              name: "PATCH /v1/shipping/settings",
              method: "PATCH",
              path: () => "/v1/shipping/settings",
              valid: () => settings,
              config: true
            },
            {
              name: "POST /v1/shipping/rates/sync",
              method: "POST",
              path: () => "/v1/shipping/rates/sync",
              valid: () => sync,
              config: true
            }
          ]
          // Three endpoints in one test: half the configuration endpoints' count each.
          const shippingRuns = Math.ceil(configRuns / 2)
          for (const [index, target] of shippingTargets.entries()) {
            // The sync prices from the origin wilaya: set again after the settings' fuzz.
            yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
            const { tally } = yield* fuzz(target, setup, shippingRuns, SEED + 950 + index)
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

// ---------------------------------------------------------------------------------------------------------------
// Categories and stock (docs/store-api-config.md): their valid bodies, read by the targets above when they run.

const validCategory = fc.record(
  {
    name: nonBlank(40),
    description: fc.option(fc.string({ maxLength: 100 }), { nil: null }),
    image: fc.option(fc.constantFrom("categories/robes.webp", "c/bijoux_2.png"), { nil: null }),
    position: fc.nat(1000)
  },
  { requiredKeys: ["name"] }
)

const validStock = fc.oneof(
  fc.record({ stock: fc.option(fc.nat(1000), { nil: null }) }),
  fc.record({ adjust: fc.integer({ min: -50, max: 50 }) }),
  fc.record({
    variants: fc.constant([
      { group_name: "Taille", option_name: "M", stock: 3 },
      { group_name: "Couleur", option_name: "Rouge", stock: 1 }
    ])
  })
)
