/**
 * The body of `POST /v1/orders` (spec "Order create body" and "Order create 400 messages"): what it may hold, in
 * which order its rules are checked, and the message of each. The first failing rule wins, in the spec's order:
 * customer (name, phone, wilaya_id, commune), items (non-empty, at most 50, then line by line: product_id, the product
 * belongs to the store, quantity), delivery.type, payment_method, the three amounts. The rules the spec does not word
 * come where they belong in that order, with messages of the same style: customer.email and customer.address after
 * commune; a line's variants after its quantity; delivery.type `digital` (refused unless every product of the order
 * is digital), delivery.desk_id and delivery.desk_name after delivery.type; notes (at most 1000 characters) last.
 *
 * Unknown fields are ignored, and an optional field sent as `null` counts as absent. Amounts are read exactly
 * (`StoreAmount.FromNumber`) and are at most `StoreAmount.MAXIMUM` (a variant's adjustment, of either sign); a line
 * holds at most `MAX_VARIANTS` variants (one per variant group): within these bounds no computed amount can leave
 * `Pricing.MAX_TOTAL`. Text is refused when PostgreSQL could not keep it as sent (`StoreText`: a NUL character, a
 * lone surrogate), with the field's own message. Checking is in two steps around the one catalogue read: `parse` checks everything
 * that needs no data and says which products to look up; `resolve` finishes with those products, so a product
 * rule still wins over a later line's, the delivery's or an amount's.
 *
 * `OrderCreateBody` is the same body as a Schema, for the OpenAPI document; the rules above are what answers.
 */
import { Ids, StoreAmount, StoreText } from "@tawsil/domain"
import { Pricing } from "@tawsil/pricing"
import { BigDecimal, Option, Result, Schema } from "effect"
import { InvalidOrder } from "./OrderError.ts"

export const PaymentMethod = Schema.Literals(["cod", "free_digital", "digital_payment"])
export type PaymentMethod = typeof PaymentMethod.Type

export const DeliveryType = Schema.Literals(["home", "desk", "digital"])
export type DeliveryType = typeof DeliveryType.Type

export const MAX_LINES = Pricing.MAX_LINES
export const MAX_QUANTITY = Pricing.MAX_QUANTITY
export const MAX_VARIANTS = Pricing.MAX_VARIANTS_PER_LINE
export const MAX_NOTES = 1000

export const messages = {
  customerRequired: "customer object is required",
  name: "customer.name is required (1-255 chars)",
  phone: "customer.phone is required (digits, optional leading +)",
  wilaya: "customer.wilaya_id must be 1-58",
  commune: "customer.commune is required (1-100 chars)",
  email: "customer.email must be a string or null",
  address: "customer.address must be a string",
  itemsRequired: "items must be a non-empty array",
  itemsMax: `items: max ${MAX_LINES} lines per order`,
  productId: (line: number) => `items[${line}].product_id is required`,
  foreignProduct: (productId: number) => `Product ${productId} does not belong to this store`,
  quantity: (line: number) => `items[${line}].quantity must be 1-${MAX_QUANTITY}`,
  variants: (line: number) => `items[${line}].variants must be an array`,
  variantsMax: (line: number) => `items[${line}].variants: max ${MAX_VARIANTS} per line (one per variant group)`,
  variant: (line: number, index: number) =>
    `items[${line}].variants[${index}] must have group_name and option_name (non-empty strings), color_code (string or null) and price_adjustment (number)`,
  adjustment: (line: number, index: number) =>
    `items[${line}].variants[${index}].price_adjustment must be between -${StoreAmount.MAXIMUM_TEXT} and ${StoreAmount.MAXIMUM_TEXT}`,
  delivery: "delivery must be an object",
  deliveryType: "delivery.type must be home, desk, or digital",
  digitalDelivery: "delivery.type digital is only for orders whose products are all digital",
  deskId: "delivery.desk_id must be a positive integer or null",
  deskName: "delivery.desk_name must be a string or null",
  paymentMethod: "payment_method must be cod, free_digital, or digital_payment",
  amounts: "shipping_cost, discount, payment_fee must be >= 0",
  amountMax: (field: "shipping_cost" | "discount" | "payment_fee") =>
    `${field} must be at most ${StoreAmount.MAXIMUM_TEXT}`,
  totalMax: `the order's subtotal and total must be at most ${BigDecimal.format(Pricing.MAX_TOTAL)}`,
  notes: `notes must be a string of at most ${MAX_NOTES} characters`
} as const

// ---------------------------------------------------------------------------------------------------------------
// Fields: each schema is used by the rules below and by `OrderCreateBody`.

const hasText = Schema.makeFilter((s: string) => s.trim().length > 0, { expected: "a string that is not blank" })

/** Text PostgreSQL keeps as sent (`StoreText`): every string the order writes is one of these. */
const Text = StoreText.StoreText

const int = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

export const Name = Text.check(Schema.isBetweenCodePoints(1, 255), hasText)
export const Phone = Schema.String.check(
  Schema.isPattern(/^\+?[0-9 ]{6,20}$/),
  Schema.makeFilter((s: string) => /[0-9]/.test(s), { expected: "a phone number with digits" })
)
export const WilayaId = int(1, 58)
export const Commune = Text.check(Schema.isBetweenCodePoints(1, 100), hasText)
export const Email = Schema.NullOr(Text)
export const Address = Text
export const ProductIdField = Schema.Int
export const Quantity = int(1, MAX_QUANTITY)
/** A sent variant adjustment: any sign, within the maximum (checked after the variant's shape, for its message). */
export const Adjustment = StoreAmount.FromNumber.check(StoreAmount.isWithinMaximum())
const VariantShape = Schema.Struct({
  group_name: Text.check(Schema.isMinLength(1)),
  option_name: Text.check(Schema.isMinLength(1)),
  color_code: Schema.optionalKey(Schema.NullOr(Text)),
  price_adjustment: Schema.optionalKey(StoreAmount.FromNumber)
})
export const VariantInput = Schema.Struct({ ...VariantShape.fields, price_adjustment: Schema.optionalKey(Adjustment) })
export const DeskId = Schema.NullOr(int(1, Ids.MAX_ID))
export const DeskName = Schema.NullOr(Text)
export const Amount = StoreAmount.FromNumber.check(StoreAmount.isNonNegative, StoreAmount.isAtMostMaximum())
export const Notes = Text.check(Schema.isMaxCodePoints(MAX_NOTES))

const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

/** The order create body, for documentation (OpenAPI). */
export const OrderCreateBody = Schema.Struct({
  customer: Schema.Struct({
    name: Name,
    phone: Phone,
    email: Schema.optionalKey(Email),
    wilaya_id: WilayaId,
    commune: Commune,
    address: optional(Address)
  }),
  delivery: optional(
    Schema.Struct({
      type: optional(DeliveryType),
      desk_id: Schema.optionalKey(DeskId),
      desk_name: Schema.optionalKey(DeskName)
    })
  ),
  items: Schema.Array(
    Schema.Struct({
      product_id: ProductIdField,
      quantity: Quantity,
      variants: optional(Schema.Array(VariantInput).check(Schema.isMaxLength(MAX_VARIANTS)))
    })
  ).check(Schema.isBetweenLength(1, MAX_LINES)),
  shipping_cost: optional(Amount),
  discount: optional(Amount),
  payment_fee: optional(Amount),
  payment_method: optional(PaymentMethod),
  notes: optional(Notes)
}).annotate({
  identifier: "OrderCreateBody",
  description:
    "Prices come from the catalogue: a sent price is ignored, and a sent price_adjustment only counts for a variant " +
    "the product does not have. Unknown fields are ignored; an optional field sent as null counts as absent."
})
export type OrderCreateBody = typeof OrderCreateBody.Encoded

// ---------------------------------------------------------------------------------------------------------------
// Checking

const bad = (message: string) => new InvalidOrder({ message })

type Decoder<A> = (input: unknown) => Option.Option<A>

const check =
  <A>(decode: Decoder<A>, message: string) =>
  (input: unknown): Result.Result<A, InvalidOrder> =>
    Option.match(decode(input), { onNone: () => Result.fail(bad(message)), onSome: Result.succeed })

/** An optional field: absent and null give `fallback`, anything else must decode. */
const checkOptional =
  <A, B>(decode: Decoder<A>, message: string, fallback: B) =>
  (input: unknown): Result.Result<A | B, InvalidOrder> =>
    input === undefined || input === null ? Result.succeed(fallback) : check(decode, message)(input)

const isObject = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// Own fields only: a body's "constructor" or "__proto__" must not reach Object.prototype's.
const field = (o: { readonly [key: string]: unknown }, key: string): unknown =>
  Object.hasOwn(o, key) ? o[key] : undefined

const decoder = <S extends Schema.Decoder<unknown>>(schema: S) => Schema.decodeUnknownOption(schema)

const checkName = check(decoder(Name), messages.name)
const checkPhone = check(decoder(Phone), messages.phone)
const checkWilaya = check(decoder(WilayaId), messages.wilaya)
const checkCommune = check(decoder(Commune), messages.commune)
const checkEmail = checkOptional(decoder(Email), messages.email, null)
const checkAddress = checkOptional(decoder(Address), messages.address, undefined)
const decodeProductId = decoder(ProductIdField)
const decodeQuantity = decoder(Quantity)
const decodeVariant = decoder(VariantShape)
const isWithinMaximum = (amount: StoreAmount.StoreAmount) =>
  BigDecimal.isLessThanOrEqualTo(BigDecimal.abs(amount), StoreAmount.MAXIMUM)
const checkDeliveryType = checkOptional(decoder(DeliveryType), messages.deliveryType, "home" as const)
const checkDeskId = checkOptional(decoder(DeskId), messages.deskId, null)
const checkDeskName = checkOptional(decoder(DeskName), messages.deskName, null)
const checkPaymentMethod = checkOptional(decoder(PaymentMethod), messages.paymentMethod, undefined)
const checkNonNegative = checkOptional(
  decoder(StoreAmount.FromNumber.check(StoreAmount.isNonNegative)),
  messages.amounts,
  StoreAmount.zero
)
const checkAmount =
  (field: "shipping_cost" | "discount" | "payment_fee") =>
  (input: unknown): Result.Result<StoreAmount.StoreAmount, InvalidOrder> =>
    Result.flatMap(checkNonNegative(input), (amount) =>
      BigDecimal.isLessThanOrEqualTo(amount, StoreAmount.MAXIMUM)
        ? Result.succeed(amount)
        : Result.fail(bad(messages.amountMax(field)))
    )
const checkNotes = checkOptional(decoder(Notes), messages.notes, null)

export interface Customer {
  readonly name: string
  readonly phone: string
  /** Null when not sent (or sent empty): a matched customer keeps theirs. */
  readonly email: string | null
  /** Undefined when not sent: a new customer gets "", a matched one keeps theirs. */
  readonly address: string | undefined
  readonly wilaya_id: number
  readonly commune: string
}

export interface Delivery {
  readonly type: DeliveryType
  readonly desk_id: number | null
  readonly desk_name: string | null
}

interface Line {
  readonly quantity: number
  readonly variants: ReadonlyArray<Pricing.ChosenVariant>
}

interface ParsedLine {
  readonly productId: Result.Result<number, InvalidOrder>
  /** The quantity and variants, checked after the product. */
  readonly rest: Result.Result<Line, InvalidOrder>
}

interface Tail {
  /** Checked first; `digital` is then checked against the products before the rest. */
  readonly deliveryType: Result.Result<DeliveryType, InvalidOrder>
  readonly rest: Result.Result<TailRest, InvalidOrder>
}

interface TailRest {
  readonly desk_id: number | null
  readonly desk_name: string | null
  readonly paymentMethod: PaymentMethod | undefined
  readonly shipping_cost: StoreAmount.StoreAmount
  readonly discount: StoreAmount.StoreAmount
  readonly payment_fee: StoreAmount.StoreAmount
  readonly notes: string | null
}

/** A body whose data-free rules are checked up to its lines; `resolve` finishes the check. */
export interface Parsed {
  readonly customer: Customer
  readonly lines: ReadonlyArray<ParsedLine>
  readonly tail: Tail
}

const parseCustomer = (body: { readonly [key: string]: unknown }) =>
  Result.gen(function* () {
    const customer = field(body, "customer")
    if (!isObject(customer)) return yield* Result.fail(bad(messages.customerRequired))
    const name = yield* checkName(field(customer, "name"))
    const phone = yield* checkPhone(field(customer, "phone"))
    const wilaya_id = yield* checkWilaya(field(customer, "wilaya_id"))
    const commune = yield* checkCommune(field(customer, "commune"))
    const email = yield* checkEmail(field(customer, "email"))
    const address = yield* checkAddress(field(customer, "address"))
    const sentEmail = email !== null && email.trim() !== "" ? email : null
    return { name, phone, email: sentEmail, wilaya_id, commune, address } satisfies Customer
  })

const parseVariants = (line: number, input: unknown) =>
  Result.gen(function* () {
    if (input === undefined || input === null) return []
    if (!Array.isArray(input)) return yield* Result.fail(bad(messages.variants(line)))
    if (input.length > MAX_VARIANTS) return yield* Result.fail(bad(messages.variantsMax(line)))
    const variants: Array<Pricing.ChosenVariant> = []
    for (const [index, entry] of input.entries()) {
      const variant = decodeVariant(entry)
      if (Option.isNone(variant)) return yield* Result.fail(bad(messages.variant(line, index)))
      const adjustment = variant.value.price_adjustment
      if (adjustment !== undefined && !isWithinMaximum(adjustment)) {
        return yield* Result.fail(bad(messages.adjustment(line, index)))
      }
      variants.push({
        group_name: variant.value.group_name,
        option_name: variant.value.option_name,
        color_code: variant.value.color_code ?? null,
        price_adjustment: variant.value.price_adjustment ?? StoreAmount.zero
      })
    }
    return variants
  })

const parseLine = (item: unknown, line: number): ParsedLine => {
  const fields = isObject(item) ? item : {}
  const productId = decodeProductId(field(fields, "product_id"))
  return {
    productId: Option.match(productId, {
      onNone: () => Result.fail(bad(messages.productId(line))),
      onSome: Result.succeed
    }),
    rest: Result.gen(function* () {
      const quantity = decodeQuantity(field(fields, "quantity"))
      if (Option.isNone(quantity)) return yield* Result.fail(bad(messages.quantity(line)))
      const variants = yield* parseVariants(line, field(fields, "variants"))
      return { quantity: quantity.value, variants }
    })
  }
}

const parseTail = (body: { readonly [key: string]: unknown }): Tail => {
  const input = field(body, "delivery")
  if (input !== undefined && input !== null && !isObject(input)) {
    const failed = Result.fail(bad(messages.delivery))
    return { deliveryType: failed, rest: failed }
  }
  const delivery = isObject(input) ? input : {}
  return {
    deliveryType: checkDeliveryType(field(delivery, "type")),
    rest: Result.gen(function* () {
      const desk_id = yield* checkDeskId(field(delivery, "desk_id"))
      const desk_name = yield* checkDeskName(field(delivery, "desk_name"))
      const paymentMethod = yield* checkPaymentMethod(field(body, "payment_method"))
      const shipping_cost = yield* checkAmount("shipping_cost")(field(body, "shipping_cost"))
      const discount = yield* checkAmount("discount")(field(body, "discount"))
      const payment_fee = yield* checkAmount("payment_fee")(field(body, "payment_fee"))
      const notes = yield* checkNotes(field(body, "notes"))
      return { desk_id, desk_name, paymentMethod, shipping_cost, discount, payment_fee, notes }
    })
  }
}

/**
 * Checks the rules that need no data, up to the lines' products. Fails with the first failing rule that comes before
 * any product rule; a later failure is kept in the result for `resolve` to report in its turn.
 */
export const parse = (body: unknown): Result.Result<Parsed, InvalidOrder> =>
  Result.gen(function* () {
    // A body that is not an object has no customer object.
    const fields = isObject(body) ? body : {}
    const customer = yield* parseCustomer(fields)
    const items = field(fields, "items")
    if (!Array.isArray(items) || items.length === 0) return yield* Result.fail(bad(messages.itemsRequired))
    if (items.length > MAX_LINES) return yield* Result.fail(bad(messages.itemsMax))
    return { customer, lines: items.map(parseLine), tail: parseTail(fields) }
  })

/**
 * The products to look up for `resolve`: every line's id that could be one of ours. An id out of our range cannot
 * name a product of the store; `resolve` refuses it like any unknown one.
 */
export const productIds = (parsed: Parsed): ReadonlyArray<number> => {
  const ids = new Set<number>()
  for (const line of parsed.lines) {
    if (Result.isSuccess(line.productId) && Ids.isStorableId(line.productId.success)) {
      ids.add(line.productId.success)
    }
  }
  return [...ids]
}

/** A product as an order needs it: the catalogue's prices, and whether it is digital. */
export interface Product extends Pricing.CatalogueProduct {
  readonly id: Ids.ProductId
  readonly digital: boolean
}

export interface ValidLine extends Line {
  readonly product: Product
}

/** A body that passed every rule but the monthly cap, with its defaults applied. */
export interface Valid {
  readonly customer: Customer
  readonly lines: ReadonlyArray<ValidLine>
  readonly delivery: Delivery
  readonly payment_method: PaymentMethod
  readonly shipping_cost: StoreAmount.StoreAmount
  readonly discount: StoreAmount.StoreAmount
  readonly payment_fee: StoreAmount.StoreAmount
  readonly notes: string | null
}

/**
 * Finishes the check with the store's live products found among `productIds(parsed)` (a missing id is unknown,
 * deleted or another store's), and applies the defaults: payment_method `free_digital` when every product is
 * digital, else `cod`.
 */
export const resolve = (parsed: Parsed, products: ReadonlyMap<number, Product>): Result.Result<Valid, InvalidOrder> =>
  Result.gen(function* () {
    const lines: Array<ValidLine> = []
    for (const line of parsed.lines) {
      const productId = yield* line.productId
      const product = products.get(productId)
      if (product === undefined) return yield* Result.fail(bad(messages.foreignProduct(productId)))
      const rest = yield* line.rest
      lines.push({ product, quantity: rest.quantity, variants: rest.variants })
    }
    const type = yield* parsed.tail.deliveryType
    const digital = lines.every((line) => line.product.digital)
    if (type === "digital" && !digital) return yield* Result.fail(bad(messages.digitalDelivery))
    const tail = yield* parsed.tail.rest
    return {
      customer: parsed.customer,
      lines,
      delivery: { type, desk_id: tail.desk_id, desk_name: tail.desk_name },
      payment_method: tail.paymentMethod ?? (digital ? "free_digital" : "cod"),
      shipping_cost: tail.shipping_cost,
      discount: tail.discount,
      payment_fee: tail.payment_fee,
      notes: tail.notes
    }
  })
