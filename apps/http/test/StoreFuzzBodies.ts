/**
 * What the store API's fuzz sends and how it judges the answers, shared by the fuzz over sockets on each database
 * (`StoreFuzz.db.test.ts`) and the same fuzz in memory (`store/Fuzz.test.ts`, which runs the full counts): the generated
 * bodies (mutations of a valid body, arbitrary JSON, nasty values, text that is not JSON), each write endpoint's
 * valid bodies, the endpoints fuzzed, and the rule every answer must keep (`problemOf`).
 */
import { Effect } from "effect"
import fc from "fast-check"
import type { Answer } from "./StoreHarness.ts"

export const SEED = 20_261_204
/** Generated bodies for each write endpoint, sent in memory (`store/Fuzz.test.ts`). */
export const FULL_RUNS = 2_000
/** The configuration and signed endpoints: fewer fields, the same mix. */
export const FULL_CONFIG_RUNS = 500
/** Requests in flight at once. */
export const CONCURRENCY = 8
export const MAX_BODY_BYTES = 1_048_576
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
export const DEEP = /"\\u0001deep:(array|object):(\d+)"/g
export const deep = (kind: "array" | "object", depth: number) => `\u0001deep:${kind}:${depth}`
export const deepText = (kind: string, depth: number) =>
  kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

/**
 * A placeholder for a number written as is in the body's text, which `JSON.stringify` cannot write: `1e309` (JSON
 * reads it as infinity), `-0`, `9007199254740993` (2^53 + 1, which JSON reads as 2^53).
 */
export const RAW = /"\\u0001raw:([^"]+)"/g
export const raw = (text: string) => `\u0001raw:${text}`

/** The text sent for a generated body. */
export const serialise = (body: unknown) =>
  JSON.stringify(body)
    .replace(DEEP, (_, kind: string, depth: string) => deepText(kind, Number(depth)))
    .replace(RAW, (_, text: string) => text)

/** Numbers beyond every amount's and quantity's bound, as numbers, as written in the text, and as strings. */
export const HUGE: ReadonlyArray<unknown> = [
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
export const ZEROES: ReadonlyArray<unknown> = [-0, raw("-0"), raw("-0.0"), raw("1e-400"), "-0"]

/** Strings PostgreSQL cannot keep (NUL, UTF-16 that is not well formed), each but the first carrying `MARK`. */
export const MARK = "zqmark"
export const unstorable = [
  "\u0000",
  `${MARK}\u0000`,
  `a\u0000${MARK}`,
  `${MARK}\ud800`,
  `x\udc00${MARK}`,
  `🇩🇿${MARK}\ud83d`
]

export const loneSurrogates = fc.string({
  unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 4
})

/** Anything JSON can carry, weighted towards what breaks validators, decimal arithmetic and databases. */
export const nasty: fc.Arbitrary<unknown> = fc.oneof(
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

export type Json = unknown

/** Every path to a member or element of `value`, with its parent. */
export const paths = (value: Json): Array<Array<string | number>> => {
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

export type Mutation = readonly [pick: number, how: "replace" | "remove" | "add", value: unknown]

export const mutation: fc.Arbitrary<Mutation> = fc.tuple(
  fc.nat(),
  fc.constantFrom<"replace" | "remove" | "add">("replace", "replace", "remove", "add"),
  nasty
)

/** `valid` with one to three members replaced, removed or joined by an unknown one. */
export const mutated = (valid: fc.Arbitrary<Json>) =>
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
export const rawText: fc.Arbitrary<string> = fc.oneof(
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

export type Sent = { readonly kind: "json"; readonly body: Json } | { readonly kind: "raw"; readonly text: string }

export const json = (arbitrary: fc.Arbitrary<Json>): fc.Arbitrary<Sent> =>
  arbitrary.map((body) => ({ kind: "json", body }))

/** The mix sent to one endpoint: mutations of its valid body, arbitrary JSON, raw text, valid bodies. */
export const sentTo = (valid: fc.Arbitrary<Json>): fc.Arbitrary<Sent> =>
  fc.oneof(
    { weight: 5, arbitrary: json(mutated(valid)) },
    { weight: 2, arbitrary: json(fc.jsonValue()) },
    { weight: 1, arbitrary: json(nasty) },
    { weight: 1, arbitrary: rawText.map((text): Sent => ({ kind: "raw", text })) },
    { weight: 2, arbitrary: json(valid) }
  )

// ---------------------------------------------------------------------------------------------------------------
// Valid bodies

export const nonBlank = (maxLength: number) =>
  fc.string({ unit: "grapheme", minLength: 1, maxLength }).filter((s) => s.trim().length > 0)

export const variantGroups = fc.constant([
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

export const validProduct = fc.record({
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

export const validOrder = (productIds: ReadonlyArray<number>) =>
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

export const validOrderStatus = fc.record({
  status: fc.constantFrom("pending", "confirmed", "processing", "shipped", "delivered", "cancelled", "returned")
})

export const validLandingPage = (productIds: ReadonlyArray<number>) =>
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

export const validKey = fc.record(
  { type: fc.constantFrom("platform", "public"), name: fc.string({ maxLength: 120 }) },
  { requiredKeys: [] }
)

/** A loopback receiver that refuses connections: exempt from the URL rules in this server (`allowHosts`). */
export const HOOK_URL = "http://127.0.0.1:9/hooks"
export const EVENTS = ["order.created", "order.confirmed", "order.shipped"] as const

export const validWebhook = fc.record(
  {
    url: fc.nat({ max: 99 }).map((n) => `${HOOK_URL}/${n}`),
    events: fc.subarray([...EVENTS], { minLength: 1 }),
    active: fc.boolean(),
    description: fc.option(fc.string({ unit: "grapheme", maxLength: 60 }), { nil: null })
  },
  { requiredKeys: ["url", "events"] }
)

export const validWebhookPatch = fc.record(
  {
    url: fc.nat({ max: 99 }).map((n) => `${HOOK_URL}/${n}`),
    events: fc.subarray([...EVENTS], { minLength: 1 }),
    active: fc.boolean(),
    description: fc.option(fc.string({ maxLength: 60 }), { nil: null }),
    rotate_secret: fc.boolean()
  },
  { requiredKeys: [] }
)

export const promoFields = {
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

export const validPromo = fc.record(promoFields, { requiredKeys: ["code", "discount_type", "discount_value"] })
export const validPromoPatch = fc.record(promoFields, { requiredKeys: [] })

export const PIXEL_TYPES = [
  "facebook",
  "tiktok",
  "snapchat",
  "pinterest",
  "google_analytics",
  "gtm",
  "google_ads"
] as const

export const pixelFields = {
  pixel_name: fc.option(fc.string({ unit: "grapheme", maxLength: 120 }), { nil: null }),
  access_token: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{40,60}$/), { nil: null }),
  ad_account_id: fc.option(fc.stringMatching(/^[0-9]{6,20}$/), { nil: null }),
  conversion_label: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/), { nil: null }),
  is_active: fc.boolean(),
  is_default: fc.boolean()
}

export const validPixel = fc.record(
  {
    pixel_type: fc.constantFrom(...PIXEL_TYPES, "GTM", "Facebook"),
    pixel_id: fc.oneof(fc.stringMatching(/^[0-9]{15,17}$/), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)),
    ...pixelFields
  },
  { requiredKeys: ["pixel_type", "pixel_id"] }
)
export const validPixelPatch = fc.record(pixelFields, { requiredKeys: [] })

export const validTheme = fc.record({ theme: fc.constantFrom("classic", "souk", "atlas", "medina", "noir", "sahara") })
export const validFastCheckout = fc.record({ theme: fc.constantFrom("classic", "commerce", "editorial", "compact") })
export const validStyle = fc.record({ style: fc.constantFrom("default", "minimal", "clay", "glass", "lux") })

export const properties = fc.dictionary(
  fc.stringMatching(/^[a-z_]{1,20}$/),
  fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.boolean(), fc.constant(null)),
  { maxKeys: 8 }
)

export const validSignup = fc.record(
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

export const validEvent = fc.record(
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
export const LEAK = /\n\s+at |node_modules|\.ts:\d+|Error: /

/**
 * An amount JSON could not write as a number: `Infinity` or `NaN` as a string (how a schema encodes them), or `null`
 * where the field is never null.
 */
export const NON_FINITE =
  /"(?:total|subtotal|price|shipping_cost|discount|payment_fee|compare_at_price|price_adjustment|discount_value|min_order_amount)":"(?:-?Infinity|NaN)"|"(?:total|subtotal|price|shipping_cost|discount|payment_fee|discount_value)":null/

/** What is wrong with an answer, or undefined when it is a 2xx `{ data, meta }` or a 4xx in the envelope. */
export const problemOf = (answer: Answer): string | undefined => {
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

export const show = (sent: Sent) => {
  const text = sent.kind === "raw" ? sent.text : serialise(sent.body)
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text
}

/** Answers by status, and the answers that broke the rules (at most a few, with what was sent). */
export class Tally {
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
// Categories and stock (docs/store-api-config.md): their valid bodies, read by the targets above when they run.

export const validCategory = fc.record(
  {
    name: nonBlank(40),
    description: fc.option(fc.string({ maxLength: 100 }), { nil: null }),
    image: fc.option(fc.constantFrom("categories/robes.webp", "c/bijoux_2.png"), { nil: null }),
    position: fc.nat(1000)
  },
  { requiredKeys: ["name"] }
)

export const validStock = fc.oneof(
  fc.record({ stock: fc.option(fc.nat(1000), { nil: null }) }),
  fc.record({ adjust: fc.integer({ min: -50, max: 50 }) }),
  fc.record({
    variants: fc.constant([
      { group_name: "Taille", option_name: "M", stock: 3 },
      { group_name: "Couleur", option_name: "Rouge", stock: 1 }
    ])
  })
)

// ---------------------------------------------------------------------------------------------------------------
// The endpoints fuzzed

export interface Signer {
  readonly keyId: string
  readonly secret: string
}

export interface Fixture {
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

/**
 * The entities every fuzz run targets, made through `write` (a create answering the new id): 4 products, 10 orders,
 * 5 landing pages, 2 webhooks, 3 promo codes and 3 pixels, from the same seed whatever the transport.
 */
export const fixtureEntities = <E, R>(
  storeId: number,
  write: (path: string, body: unknown) => Effect.Effect<number, E, R>
) =>
  Effect.gen(function* () {
    const productIds: Array<number> = []
    for (const [index, body] of fc.sample(validProduct, { numRuns: 4, seed: SEED }).entries()) {
      productIds.push(yield* write("/v1/products", { ...body, name: `Produit ${index}` }))
    }
    const orderIds: Array<number> = []
    for (const body of fc.sample(validOrder(productIds), { numRuns: 10, seed: SEED })) {
      orderIds.push(
        yield* write("/v1/orders", { ...body, items: body.items.map((item) => ({ ...item, variants: [] })) })
      )
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
        yield* write("/v1/promo-codes", { code: `FZ-${index}-${storeId}`, discount_type: "fixed", discount_value: 100 })
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
    return { productIds, orderIds, pageIds, webhookIds, promoIds, pixelIds }
  })

/** The rule for a body sent as raw text that is not JSON: answered "Body must be valid JSON" (unless too large). */
export const notJsonAnswered =
  (sent: Sent) =>
  (answer: Answer): string | undefined =>
    sent.kind === "raw" &&
    answer.status !== 413 &&
    !isJson(sent.text) &&
    answer.body?.error?.message !== "Body must be valid JSON"
      ? "not JSON, yet not 'Body must be valid JSON'"
      : undefined

export interface Target {
  readonly name: string
  readonly method: "POST" | "PATCH"
  /** The path of one request (`pick` chooses among the fixture's ids). */
  readonly path: (fixture: Fixture, pick: number) => string
  readonly valid: (fixture: Fixture) => fc.Arbitrary<Json>
  /** Signed with the store's public key instead of its bearer key. */
  readonly signed?: boolean
  /** The configuration and signed endpoints: fewer fields, fewer runs (`FULL_CONFIG_RUNS`). */
  readonly config?: boolean
}

export const at = <A>(items: ReadonlyArray<A>, pick: number) => items[pick % items.length]!

export const targets: ReadonlyArray<Target> = [
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
    valid: () => validKey
  },
  {
    name: "POST /v1/webhooks",
    method: "POST",
    path: () => "/v1/webhooks",
    valid: () => validWebhook,
    config: true
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

/** Whether the server can read `text` as JSON: it decodes the body as UTF-8, dropping a leading BOM. */
export const isJson = (text: string) => {
  try {
    JSON.parse(text.replace(/^\ufeff/, ""))
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Landing page sections and shipping: endpoints a test fuzzes on fixtures of its own

export const SECTION_SEED = SEED + 900
export const SHIPPING_SEED = SEED + 950

const sectionSettings = fc.dictionary(
  fc.string({ maxLength: 12 }),
  fc.oneof(fc.string({ maxLength: 40 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean()),
  { maxKeys: 4 }
)

/** A landing page's sections (`sections`: their path) and one of them (`section`). */
export const sectionTargets = (sections: string, section: string): ReadonlyArray<Target> => {
  const fields = {
    type: fc.constantFrom("hero", "FAQ", "order_form", "video"),
    is_visible: fc.boolean(),
    settings: sectionSettings
  }
  return [
    {
      name: "POST /v1/landing-pages/{id}/sections",
      method: "POST",
      path: () => sections,
      valid: () => fc.record(fields, { requiredKeys: ["type"] }),
      config: true
    },
    {
      name: "PATCH /v1/landing-pages/{id}/sections/{section_id}",
      method: "PATCH",
      path: () => section,
      valid: () => fc.record({ is_visible: fields.is_visible, settings: sectionSettings }, { requiredKeys: [] }),
      config: true
    }
  ]
}

const price = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 100_000 }), fc.constantFrom("450.00", "0"))
const wilaya = fc.integer({ min: 1, max: 58 })
const rates = fc.uniqueArray(
  fc.record({ wilaya_id: wilaya, home_price: price, desk_price: price }, { requiredKeys: ["wilaya_id"] }),
  { minLength: 1, maxLength: 5, selector: (rate) => rate.wilaya_id }
)
const shippingSettings = fc.record(
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

/** Shipping rates, settings and the rate sync (which prices from the origin wilaya: set it before). */
export const shippingTargets: ReadonlyArray<Target> = [
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
    valid: () => shippingSettings,
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
