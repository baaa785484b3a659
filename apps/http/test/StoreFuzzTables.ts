/**
 * The store API's exhaustive write and query tables, run in memory (`store/Fuzz.test.ts`) and over sockets on each
 * database (`StoreFuzz.db.test.ts`, which then checks what the database stored): every text field of every write, and
 * every text query parameter, gets each string PostgreSQL cannot keep (a NUL, a lone surrogate) and must answer that
 * field's own refusal (docs/store-api.md, "Text inputs"); every amount and quantity gets each huge number and must be
 * refused (docs/store-api.md, "Amounts"); `Idempotency-Key` values answer 400 or 200. Not sampled: every field, every
 * value. Each runner takes how a request is sent and gives back the tally of the answers.
 */
import { Effect } from "effect"
import fc from "fast-check"
import {
  type Fixture,
  HOOK_URL,
  HUGE,
  type Json,
  MARK,
  paths,
  serialise,
  Tally,
  unstorable,
  ZEROES
} from "./StoreFuzzBodies.ts"
import type { Answer } from "./StoreHarness.ts"

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

/** How a runner sends a write: the store's bearer key and a fresh `Idempotency-Key`, or signed with the public key. */
export type Send<E, R> = (
  method: string,
  path: string,
  text: string | undefined,
  signed?: boolean
) => Effect.Effect<Answer, E, R>

/**
 * Which fields of each write a runner fills with each bad value: `every` field (in memory), or the `first` of each
 * kind (over sockets on a database: every write endpoint, every bad value, each reaching the listener, the
 * transaction and the stored replay of its refusal).
 */
export type Fields = "every" | "first"

const chosen = <A>(fields: Fields, all: ReadonlyArray<A>): ReadonlyArray<A> =>
  fields === "every" ? all : all.slice(0, 1)

/** How a runner reads: a GET with the store's bearer key. */
export type Get<E, R> = (path: string) => Effect.Effect<Answer, E, R>

/** Checks `answer` against one expected status and code. */
const expecting =
  ([status, code]: Expected) =>
  (answer: Answer) =>
    answer.status === status && answer.body?.error?.code === code
      ? undefined
      : `${answer.status} ${answer.body?.error?.code}, not ${status} ${code}`

/**
 * A string PostgreSQL cannot keep, in any text field (and any key of a free-form object) of any write: that field's
 * refusal. At least 400 answers.
 */
export const unstorableText = <E, R>(f: Fixture, send: Send<E, R>, fields: Fields = "every") =>
  Effect.gen(function* () {
    const tally = new Tally()
    const attempt = (write: Write, label: string, body: Json, expected: Expected) =>
      Effect.gen(function* () {
        const answer = yield* send(write.method, write.path, serialise(body), write.signed)
        tally.record(`${write.method} ${write.path} ${label}`, { kind: "json", body }, answer, expecting(expected))
        if (write.path === "/v1/keys" && answer.status === 200) {
          yield* send("DELETE", `/v1/keys/${answer.body.data.key_id}`, undefined)
        }
      })
    for (const write of everyWrite(f)) {
      for (const at of chosen(fields, pathsOf(write.body, "string"))) {
        for (const value of unstorable) {
          yield* attempt(write, at.join("."), replaced(write.body, at, value), write.refusal(at))
        }
      }
      // Keys of free-form objects are text too (a signup's or an event's properties).
      for (const at of chosen(
        fields,
        keyPaths(write.body).filter((path) => path.includes("properties"))
      )) {
        for (const value of unstorable) {
          yield* attempt(write, `${at.join(".")} (key)`, renamed(write.body, at, value), BAD_REQUEST)
        }
      }
    }
    return tally
  })

/**
 * A huge number (1e308, 1e309 as written, 2^53 + 1, as a string) in any amount or quantity of an unsigned write: its
 * refusal; a zero (-0, 1e-400) anywhere: never a 5xx. `zeroes` counts the zeroes accepted.
 */
export const hugeNumbers = <E, R>(f: Fixture, send: Send<E, R>, fields: Fields = "every") =>
  Effect.gen(function* () {
    const tally = new Tally()
    let zeroes = 0
    for (const write of everyWrite(f)) {
      if (write.signed === true) continue
      for (const at of chosen(fields, pathsOf(write.body, "number")).concat(
        // Promo amounts and counts may be sent as decimal strings: those are numbers too.
        write.path.startsWith("/v1/promo-codes")
          ? chosen(
              fields,
              pathsOf(write.body, "string").filter((path) => path[0] !== "code" && !String(path[0]).endsWith("_at"))
            )
          : []
      )) {
        const expected = write.refusal(at)
        for (const value of [...HUGE, ...ZEROES]) {
          const body = replaced(write.body, at, value)
          const answer = yield* send(write.method, write.path, serialise(body), write.signed)
          const zero = ZEROES.includes(value)
          tally.record(`${write.method} ${write.path} ${at.join(".")}`, { kind: "json", body }, answer, (answer) =>
            // Zero is valid wherever 0 is, and refused elsewhere (a quantity, an id, a discount value).
            zero ? (answer.status < 500 ? undefined : `${answer.status}`) : expecting(expected)(answer)
          )
          if (zero && answer.status < 300) zeroes++
        }
      }
    }
    return { tally, zeroes }
  })

/**
 * A query value PostgreSQL cannot keep, or a huge number, in every text query parameter of every list: an empty page,
 * or what the parameter's rule says; an id path parameter with a NUL or bytes that are not UTF-8: 400 (or the router's
 * 404), a key id: 404. At least 300 answers.
 */
export const queryValues = <E, R>(f: Fixture, customerId: number, get: Get<E, R>, send: Send<E, R>) =>
  Effect.gen(function* () {
    const tally = new Tally()
    for (const query of everyQuery(f, customerId)) {
      for (const value of [...unstorableInQuery, ...hugeInQuery]) {
        const url = `${query.path}?${query.parameter}=${value}`
        const answer = yield* get(url)
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
      const answer = yield* get(`/v1/orders/${value}`)
      // Bytes that are not UTF-8 never match the route (the router cannot decode them): its 404, in the envelope.
      const expected = value.includes("%ED") ? [400, 404] : [400]
      tally.record("GET /v1/orders/{id}", value, answer, (answer) =>
        expected.includes(answer.status) ? undefined : `not ${expected.join(" or ")}`
      )
      const revoked = yield* send("DELETE", `/v1/keys/twpk_live_${value}`, undefined)
      tally.record("DELETE /v1/keys/{key_id}", value, revoked, (answer) =>
        answer.status === 404 ? undefined : "not 404"
      )
    }
    return tally
  })

/**
 * `runs` generated `Idempotency-Key` values on a landing page create, one at a time (a repeated key sent concurrently
 * would answer 409 while its first use runs): 200 when the trimmed value keeps the rule, else 400.
 */
export const idempotencyKeys = <E, R>(
  f: Fixture,
  runs: number,
  seed: number,
  create: (key: string, body: Json) => Effect.Effect<Answer, E, R>
) =>
  Effect.gen(function* () {
    const values = fc.sample(headerValues, { numRuns: runs, seed })
    const tally = new Tally()
    // One body for every value: a repeated valid key replays the first answer instead of being reused.
    const body = { title: "Offre spéciale", product_id: f.productIds[0] }
    for (const value of values) {
      const answer = yield* create(value, body)
      const expected = KEY_PATTERN.test(value.replace(/^[ \t]+|[ \t]+$/g, "")) ? 200 : 400
      tally.record("POST /v1/landing-pages", value, answer, (answer) =>
        answer.status === expected ? undefined : `${answer.status}, not ${expected}`
      )
    }
    return tally
  })

/**
 * A string PostgreSQL cannot keep in any text field or key, or a huge number in any number, of a landing page
 * section's create (`sections`) and update (`section`): 422 `invalid_section_type` or `invalid_settings`.
 * At least 60 answers.
 */
export const sectionValues = <E, R>(sections: string, section: string, send: Send<E, R>) =>
  Effect.gen(function* () {
    const tally = new Tally()
    const attempt = (method: "POST" | "PATCH", path: string, label: string, body: Json, code: string) =>
      Effect.map(send(method, path, serialise(body)), (answer) =>
        tally.record(`${method} ${path} ${label}`, { kind: "json", body }, answer, expecting([422, code]))
      )
    const content = { title: "FAQ", items: [{ q: "Prix ?", a: "3900 DA", rank: 1 }], offer: { price: 3900 } }
    const numbers = HUGE.filter((value) => typeof value === "number" || String(value).startsWith("\u0001raw:"))
    for (const [method, path, body] of [
      ["POST", sections, { type: "faq", is_visible: true, settings: content }],
      ["PATCH", section, { is_visible: true, settings: content }]
    ] as const) {
      for (const at of pathsOf(body, "string")) {
        const code = at[0] === "type" ? "invalid_section_type" : "invalid_settings"
        for (const value of unstorable) yield* attempt(method, path, at.join("."), replaced(body, at, value), code)
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
    return tally
  })

/** Each field of a write, in turn, with each string PostgreSQL cannot keep, and each number with each huge number. */
const everyFieldRefused = <E, R>(
  writes: ReadonlyArray<readonly ["POST" | "PATCH", string, Json]>,
  send: Send<E, R>,
  amounts: (body: Json) => ReadonlyArray<ReadonlyArray<string | number>> = () => [],
  fields: Fields = "every"
) =>
  Effect.gen(function* () {
    const tally = new Tally()
    const attempt = (method: "POST" | "PATCH", path: string, label: string, body: Json) =>
      Effect.map(send(method, path, serialise(body)), (answer) =>
        tally.record(`${method} ${path} ${label}`, { kind: "json", body }, answer, expecting(BAD_REQUEST))
      )
    for (const [method, path, body] of writes) {
      for (const at of chosen(fields, pathsOf(body, "string"))) {
        for (const value of unstorable) yield* attempt(method, path, at.join("."), replaced(body, at, value))
      }
      for (const at of chosen(fields, [...pathsOf(body, "number"), ...amounts(body)])) {
        for (const value of HUGE) yield* attempt(method, path, at.join("."), replaced(body, at, value))
      }
    }
    return tally
  })

/**
 * Shipping rates, settings and the rate sync: a string PostgreSQL cannot keep, or a huge number (amounts may be
 * decimal strings: those are numbers too), anywhere: 400 `bad_request`. At least 100 answers.
 */
export const shippingValues = <E, R>(send: Send<E, R>) =>
  everyFieldRefused(
    [
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
    ],
    send,
    (body) => pathsOf(body, "string").filter((at) => String(at.at(-1)).match(/price|threshold/))
  )

/**
 * The store's own configuration (settings, design, home sections and layout; docs/store-api-config.md), with `id` a
 * home layout section there is: a string PostgreSQL cannot keep, or a huge number, in any field: 400 `bad_request`.
 * At least 300 answers.
 */
export const configurationValues = <E, R>(id: number, send: Send<E, R>, fields: Fields = "every") =>
  everyFieldRefused(
    [
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
      ["PATCH", `/v1/store/home-layout/sections/${id}`, { enabled: true, settings: { title: "Rayons", limit: 8 } }],
      ["POST", "/v1/store/home-layout/move", { id, position: 1 }]
    ],
    send,
    () => [],
    fields
  )
