import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { BigDecimal, Result, Schema } from "effect"
import * as OrderCreate from "../src/OrderCreate.ts"

const decimal = BigDecimal.fromStringUnsafe

const products = new Map<number, OrderCreate.Product>([
  [
    1,
    {
      id: Ids.ProductId.make(1),
      digital: false,
      price: decimal("1000"),
      options: [{ group_name: "Taille", option_name: "M", price_adjustment: decimal("10") }]
    }
  ],
  [2, { id: Ids.ProductId.make(2), digital: true, price: decimal("500"), options: [] }],
  [3, { id: Ids.ProductId.make(3), digital: true, price: decimal("0"), options: [] }]
])

const valid = {
  customer: { name: "Amine", phone: "0555 12 34 56", wilaya_id: 16, commune: "Hydra" },
  items: [{ product_id: 1, quantity: 2 }]
}

type Body = Record<string, unknown>
const withCustomer = (fields: Body): Body => ({ ...valid, customer: { ...valid.customer, ...fields } })
const withItems = (items: unknown): Body => ({ ...valid, items })

const check = (body: unknown) =>
  Result.flatMap(OrderCreate.parse(body), (parsed) => OrderCreate.resolve(parsed, products))

const messageOf = (body: unknown) => {
  const result = check(body)
  if (Result.isSuccess(result)) return "valid"
  assert.strictEqual(result.failure._tag, "InvalidOrder")
  return result.failure.message
}

/** Bodies breaking exactly one rule, with the spec's (or our) message. */
const cases: ReadonlyArray<readonly [string, unknown, string]> = [
  ["no customer", { items: valid.items }, "customer object is required"],
  ["customer not an object", { ...valid, customer: "Amine" }, "customer object is required"],
  ["customer null", { ...valid, customer: null }, "customer object is required"],
  ["customer an array", { ...valid, customer: [] }, "customer object is required"],
  ["not an object body", [valid], "customer object is required"],
  ["no name", withCustomer({ name: undefined }), "customer.name is required (1-255 chars)"],
  ["empty name", withCustomer({ name: "" }), "customer.name is required (1-255 chars)"],
  ["blank name", withCustomer({ name: "   " }), "customer.name is required (1-255 chars)"],
  ["long name", withCustomer({ name: "a".repeat(256) }), "customer.name is required (1-255 chars)"],
  ["name a number", withCustomer({ name: 12 }), "customer.name is required (1-255 chars)"],
  ["no phone", withCustomer({ phone: undefined }), "customer.phone is required (digits, optional leading +)"],
  ["short phone", withCustomer({ phone: "05551" }), "customer.phone is required (digits, optional leading +)"],
  ["long phone", withCustomer({ phone: "0".repeat(21) }), "customer.phone is required (digits, optional leading +)"],
  [
    "phone letters",
    withCustomer({ phone: "0555-12-34-56" }),
    "customer.phone is required (digits, optional leading +)"
  ],
  [
    "phone plus inside",
    withCustomer({ phone: "0555+123456" }),
    "customer.phone is required (digits, optional leading +)"
  ],
  ["phone spaces only", withCustomer({ phone: "+       " }), "customer.phone is required (digits, optional leading +)"],
  ["phone a number", withCustomer({ phone: 555123456 }), "customer.phone is required (digits, optional leading +)"],
  ["no wilaya", withCustomer({ wilaya_id: undefined }), "customer.wilaya_id must be 1-58"],
  ["wilaya 0", withCustomer({ wilaya_id: 0 }), "customer.wilaya_id must be 1-58"],
  ["wilaya 59", withCustomer({ wilaya_id: 59 }), "customer.wilaya_id must be 1-58"],
  ["wilaya fraction", withCustomer({ wilaya_id: 16.5 }), "customer.wilaya_id must be 1-58"],
  ["wilaya a string", withCustomer({ wilaya_id: "16" }), "customer.wilaya_id must be 1-58"],
  ["no commune", withCustomer({ commune: undefined }), "customer.commune is required (1-100 chars)"],
  ["long commune", withCustomer({ commune: "c".repeat(101) }), "customer.commune is required (1-100 chars)"],
  ["email a number", withCustomer({ email: 5 }), "customer.email must be a string or null"],
  ["address a number", withCustomer({ address: 5 }), "customer.address must be a string"],
  ["no items", { customer: valid.customer }, "items must be a non-empty array"],
  ["empty items", withItems([]), "items must be a non-empty array"],
  ["items an object", withItems({ 0: valid.items[0] }), "items must be a non-empty array"],
  ["51 lines", withItems(Array.from({ length: 51 }, () => valid.items[0])), "items: max 50 lines per order"],
  ["no product_id", withItems([{ quantity: 1 }]), "items[0].product_id is required"],
  ["product_id a string", withItems([{ product_id: "1", quantity: 1 }]), "items[0].product_id is required"],
  ["product_id a fraction", withItems([{ product_id: 1.5, quantity: 1 }]), "items[0].product_id is required"],
  ["line not an object", withItems([valid.items[0], 7]), "items[1].product_id is required"],
  ["unknown product", withItems([{ product_id: 99, quantity: 1 }]), "Product 99 does not belong to this store"],
  ["product 0", withItems([{ product_id: 0, quantity: 1 }]), "Product 0 does not belong to this store"],
  ["no quantity", withItems([{ product_id: 1 }]), "items[0].quantity must be 1-9999"],
  ["quantity 0", withItems([{ product_id: 1, quantity: 0 }]), "items[0].quantity must be 1-9999"],
  ["quantity 10000", withItems([{ product_id: 1, quantity: 10_000 }]), "items[0].quantity must be 1-9999"],
  ["quantity a fraction", withItems([{ product_id: 1, quantity: 1.5 }]), "items[0].quantity must be 1-9999"],
  ["quantity a string", withItems([{ product_id: 1, quantity: "2" }]), "items[0].quantity must be 1-9999"],
  [
    "variants not an array",
    withItems([{ product_id: 1, quantity: 1, variants: {} }]),
    "items[0].variants must be an array"
  ],
  [
    "variant without option",
    withItems([{ product_id: 1, quantity: 1, variants: [{ group_name: "Taille" }] }]),
    "items[0].variants[0] must have group_name and option_name (non-empty strings), color_code (string or null) and price_adjustment (number)"
  ],
  [
    "variant adjustment a string",
    withItems([
      {
        product_id: 1,
        quantity: 1,
        variants: [
          { group_name: "A", option_name: "B" },
          { group_name: "Taille", option_name: "M", price_adjustment: "10" }
        ]
      }
    ]),
    "items[0].variants[1] must have group_name and option_name (non-empty strings), color_code (string or null) and price_adjustment (number)"
  ],
  ["delivery a string", { ...valid, delivery: "home" }, "delivery must be an object"],
  ["delivery type unknown", { ...valid, delivery: { type: "drone" } }, "delivery.type must be home, desk, or digital"],
  ["delivery type case", { ...valid, delivery: { type: "Home" } }, "delivery.type must be home, desk, or digital"],
  [
    "digital delivery of a physical product",
    { ...valid, delivery: { type: "digital" } },
    "delivery.type digital is only for orders whose products are all digital"
  ],
  [
    "desk id a string",
    { ...valid, delivery: { type: "desk", desk_id: "12" } },
    "delivery.desk_id must be a positive integer or null"
  ],
  [
    "desk name a number",
    { ...valid, delivery: { type: "desk", desk_name: 12 } },
    "delivery.desk_name must be a string or null"
  ],
  [
    "payment method unknown",
    { ...valid, payment_method: "card" },
    "payment_method must be cod, free_digital, or digital_payment"
  ],
  ["negative shipping", { ...valid, shipping_cost: -1 }, "shipping_cost, discount, payment_fee must be >= 0"],
  ["negative discount", { ...valid, discount: -0.01 }, "shipping_cost, discount, payment_fee must be >= 0"],
  ["fee a string", { ...valid, payment_fee: "5" }, "shipping_cost, discount, payment_fee must be >= 0"],
  ["notes too long", { ...valid, notes: "n".repeat(1001) }, "notes must be a string of at most 1000 characters"],
  ["notes a number", { ...valid, notes: 5 }, "notes must be a string of at most 1000 characters"],
  // Text PostgreSQL cannot keep as sent (text and jsonb refuse NUL, jsonb a lone surrogate): the field's message.
  ["a NUL in the name", withCustomer({ name: "Ami\u0000ne" }), "customer.name is required (1-255 chars)"],
  ["a lone surrogate in the name", withCustomer({ name: "Amine\ud83d" }), "customer.name is required (1-255 chars)"],
  ["a NUL in the commune", withCustomer({ commune: "\u0000" }), "customer.commune is required (1-100 chars)"],
  ["a lone surrogate in the email", withCustomer({ email: "\udc00@x.dz" }), "customer.email must be a string or null"],
  ["a NUL in the address", withCustomer({ address: "Cité\u0000" }), "customer.address must be a string"],
  [
    "a lone surrogate in a variant's group",
    withItems([{ product_id: 1, quantity: 1, variants: [{ group_name: "\ud800", option_name: "M" }] }]),
    "items[0].variants[0] must have group_name and option_name (non-empty strings), color_code (string or null) and price_adjustment (number)"
  ],
  [
    "a NUL in a variant's colour",
    withItems([
      { product_id: 1, quantity: 1, variants: [{ group_name: "C", option_name: "R", color_code: "\u0000" }] }
    ]),
    "items[0].variants[0] must have group_name and option_name (non-empty strings), color_code (string or null) and price_adjustment (number)"
  ],
  [
    "a NUL in the desk name",
    { ...valid, delivery: { type: "desk", desk_name: "\u0000" } },
    "delivery.desk_name must be a string or null"
  ],
  ["a lone surrogate in the notes", { ...valid, notes: "\udbff" }, "notes must be a string of at most 1000 characters"],
  // Amounts beyond StoreAmount.MAXIMUM (100000000) and quantities beyond 9999: named with the maximum.
  ["shipping 1e308", { ...valid, shipping_cost: 1e308 }, "shipping_cost must be at most 100000000"],
  ["discount just above the maximum", { ...valid, discount: 100_000_000.01 }, "discount must be at most 100000000"],
  ["fee 2^53 + 1", { ...valid, payment_fee: 2 ** 53 + 1 }, "payment_fee must be at most 100000000"],
  [
    "fee Infinity (1e309 in JSON)",
    { ...valid, payment_fee: JSON.parse("1e309") },
    "shipping_cost, discount, payment_fee must be >= 0"
  ],
  [
    'shipping "1e308" as a string',
    { ...valid, shipping_cost: "1e308" },
    "shipping_cost, discount, payment_fee must be >= 0"
  ],
  [
    "an adjustment of 1e308",
    withItems([
      { product_id: 1, quantity: 1, variants: [{ group_name: "G", option_name: "O", price_adjustment: 1e308 }] }
    ]),
    "items[0].variants[0].price_adjustment must be between -100000000 and 100000000"
  ],
  [
    "an adjustment of -1e8 - 1",
    withItems([
      { product_id: 1, quantity: 1, variants: [{ group_name: "G", option_name: "O", price_adjustment: -100_000_001 }] }
    ]),
    "items[0].variants[0].price_adjustment must be between -100000000 and 100000000"
  ],
  [
    "21 variants on a line",
    withItems([
      {
        product_id: 1,
        quantity: 1,
        variants: Array.from({ length: 21 }, (_, index) => ({ group_name: `G${index}`, option_name: "O" }))
      }
    ]),
    "items[0].variants: max 20 per line (one per variant group)"
  ],
  ["quantity 2^53 + 1", withItems([{ product_id: 1, quantity: 2 ** 53 + 1 }]), "items[0].quantity must be 1-9999"],
  ["quantity 1e308", withItems([{ product_id: 1, quantity: 1e308 }]), "items[0].quantity must be 1-9999"],
  ["product id 1e308", withItems([{ product_id: 1e308, quantity: 1 }]), "items[0].product_id is required"]
]

describe("OrderCreate", () => {
  it("accepts a minimal body and applies the defaults", () => {
    const result = check(valid)
    assert.isTrue(Result.isSuccess(result))
    if (Result.isFailure(result)) return
    const order = result.success
    assert.deepStrictEqual(order.customer, {
      name: "Amine",
      phone: "0555 12 34 56",
      email: null,
      wilaya_id: 16,
      commune: "Hydra",
      address: undefined
    })
    assert.deepStrictEqual(order.delivery, { type: "home", desk_id: null, desk_name: null })
    assert.strictEqual(order.payment_method, "cod")
    assert.isTrue(BigDecimal.equals(order.shipping_cost, decimal("0")))
    assert.strictEqual(order.notes, null)
    assert.deepStrictEqual(
      order.lines.map((line) => [line.product.id, line.quantity, line.variants]),
      [[1, 2, []]]
    )
  })

  for (const [name, body, message] of cases) {
    it(`refuses ${name}: "${message}"`, () => {
      assert.strictEqual(messageOf(body), message)
    })
  }

  it("agrees with the documented body schema on every data-free rule", () => {
    const decodes = (body: unknown) => Result.isSuccess(Schema.decodeUnknownResult(OrderCreate.OrderCreateBody)(body))
    assert.isTrue(decodes(valid))
    const dataRules = ["Product ", "delivery.type digital"]
    for (const [name, body, message] of cases) {
      if (dataRules.some((prefix) => message.startsWith(prefix))) continue
      assert.isFalse(decodes(body), name)
    }
  })

  it("checks in the spec's order: the first failing rule wins", () => {
    const everythingWrong = {
      customer: { name: "", phone: "x", wilaya_id: 99, commune: "" },
      items: [],
      delivery: { type: "drone" },
      payment_method: "card",
      shipping_cost: -1
    }
    const steps: ReadonlyArray<readonly [Body, string]> = [
      [{}, "customer.name is required (1-255 chars)"],
      [
        { customer: { ...everythingWrong.customer, name: "A" } },
        "customer.phone is required (digits, optional leading +)"
      ],
      [{ customer: { name: "A", phone: "0555123456", wilaya_id: 99, commune: "" } }, "customer.wilaya_id must be 1-58"],
      [
        { customer: { name: "A", phone: "0555123456", wilaya_id: 16, commune: "" } },
        "customer.commune is required (1-100 chars)"
      ],
      [{ customer: valid.customer }, "items must be a non-empty array"],
      [
        { customer: valid.customer, items: [{ product_id: 98, quantity: 0 }, { quantity: 1 }] },
        "Product 98 does not belong to this store"
      ],
      [
        { customer: valid.customer, items: [{ product_id: 1, quantity: 0 }, { quantity: 1 }] },
        "items[0].quantity must be 1-9999"
      ],
      [
        { customer: valid.customer, items: [{ product_id: 1, quantity: 1 }, { quantity: 1 }] },
        "items[1].product_id is required"
      ],
      [{ customer: valid.customer, items: valid.items }, "delivery.type must be home, desk, or digital"],
      [
        { customer: valid.customer, items: valid.items, delivery: { type: "digital", desk_id: "x" } },
        "delivery.type digital is only for orders whose products are all digital"
      ],
      [
        { customer: valid.customer, items: valid.items, delivery: { type: "desk", desk_id: "x" } },
        "delivery.desk_id must be a positive integer or null"
      ],
      [
        { customer: valid.customer, items: valid.items, delivery: {} },
        "payment_method must be cod, free_digital, or digital_payment"
      ],
      [
        { customer: valid.customer, items: valid.items, delivery: {}, payment_method: "cod" },
        "shipping_cost, discount, payment_fee must be >= 0"
      ]
    ]
    for (const [fixed, message] of steps) {
      assert.strictEqual(messageOf({ ...everythingWrong, ...fixed }), message)
    }
  })

  it("takes amounts up to the maximum, -0 as 0, and 20 variants of a line", () => {
    const result = check({
      ...withItems([
        {
          product_id: 1,
          quantity: 9999,
          variants: Array.from({ length: 20 }, (_, index) => ({
            group_name: `G${index}`,
            option_name: "O",
            price_adjustment: index % 2 === 0 ? 100_000_000 : -100_000_000
          }))
        }
      ]),
      shipping_cost: 100_000_000,
      discount: -0,
      payment_fee: 99_999_999.99
    })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isFailure(result)) return
    assert.strictEqual(result.success.lines[0]!.variants.length, 20)
    assert.isTrue(BigDecimal.equals(result.success.discount, decimal("0")))
    assert.isTrue(BigDecimal.equals(result.success.shipping_cost, decimal("100000000")))
  })

  it("looks up only the ids that can be products, once each", () => {
    const parsed = OrderCreate.parse(
      withItems([
        { product_id: 1, quantity: 1 },
        { product_id: 1, quantity: 2 },
        { product_id: 0, quantity: 1 },
        { product_id: 3_000_000_000, quantity: 1 },
        { product_id: 2, quantity: 1 },
        { quantity: 1 }
      ])
    )
    assert.isTrue(Result.isSuccess(parsed))
    if (Result.isSuccess(parsed)) assert.deepStrictEqual(OrderCreate.productIds(parsed.success), [1, 2])
  })

  it("defaults payment_method to free_digital when every product is digital, and allows digital delivery then", () => {
    const result = check(
      withItems([
        { product_id: 2, quantity: 1 },
        { product_id: 3, quantity: 1 }
      ])
    )
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) assert.strictEqual(result.success.payment_method, "free_digital")
    assert.strictEqual(
      messageOf({ ...withItems([{ product_id: 2, quantity: 1 }]), delivery: { type: "digital" } }),
      "valid"
    )
    const mixed = check(
      withItems([
        { product_id: 1, quantity: 1 },
        { product_id: 2, quantity: 1 }
      ])
    )
    if (Result.isSuccess(mixed)) assert.strictEqual(mixed.success.payment_method, "cod")
  })

  it("reads amounts exactly, and treats null optional fields as absent", () => {
    const result = check({
      ...valid,
      customer: { ...valid.customer, email: null, address: null },
      shipping_cost: 350.125,
      discount: 0.1,
      payment_fee: null,
      delivery: null,
      payment_method: null,
      notes: null,
      items: [{ product_id: 1, quantity: 1, variants: null }]
    })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isFailure(result)) return
    assert.strictEqual(BigDecimal.format(result.success.shipping_cost), "350.125")
    assert.strictEqual(BigDecimal.format(result.success.discount), "0.1")
    assert.isTrue(BigDecimal.equals(result.success.payment_fee, decimal("0")))
    assert.strictEqual(result.success.customer.address, undefined)
  })

  it("keeps variants as sent, defaulting colour to null and adjustment to 0, and ignores unknown fields", () => {
    const result = check({
      ...valid,
      extra: { nested: true },
      customer: { ...valid.customer, loyalty: 3, email: "  " },
      items: [
        {
          product_id: 1,
          quantity: 1,
          price: 1,
          sku: "X",
          variants: [
            { group_name: "Taille", option_name: "M", price_adjustment: -999 },
            { group_name: "Couleur", option_name: "Bleu", color_code: "#0000ff", price_adjustment: 12.5, image: 4 }
          ]
        }
      ]
    })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isFailure(result)) return
    assert.strictEqual(result.success.customer.email, null)
    assert.deepStrictEqual(
      result.success.lines[0]!.variants.map((v) => [
        v.group_name,
        v.option_name,
        v.color_code,
        BigDecimal.format(v.price_adjustment)
      ]),
      [
        ["Taille", "M", null, "-999"],
        ["Couleur", "Bleu", "#0000ff", "12.5"]
      ]
    )
  })

  it("reads only a body's own fields", () => {
    const inherited = Object.create({ customer: valid.customer, items: valid.items })
    assert.strictEqual(messageOf(inherited), "customer object is required")
    assert.strictEqual(
      messageOf(JSON.parse('{"__proto__": {"customer": {}}, "items": []}')),
      "customer object is required"
    )
  })

  it("counts characters, not UTF-16 units", () => {
    assert.strictEqual(messageOf(withCustomer({ name: "😀".repeat(255) })), "valid")
    assert.strictEqual(messageOf(withCustomer({ name: "أ".repeat(255) })), "valid")
    assert.strictEqual(messageOf({ ...valid, notes: "😀".repeat(1000) }), "valid")
  })
})
