import { assert, describe, it } from "@effect/vitest"
import { AlgiersTime } from "@tawsil/domain"
import { BigDecimal, Cause, DateTime, Effect, Exit, Option } from "effect"
import * as fc from "fast-check"
import { parseDateTime } from "../src/internal/fields.ts"
import { PromoCode, PromoCodeId } from "../src/PromoCode.ts"
import * as PromoRules from "../src/PromoRules.ts"

const now = DateTime.makeUnsafe("2026-11-21T10:00:00Z")
const valid = { code: " summer-10 ", discount_type: "Percentage", discount_value: 10 }

const reasonOf = (effect: Effect.Effect<unknown, { readonly reason: { readonly _tag: string } }>) =>
  Effect.runSync(Effect.map(Effect.flip(effect), (error) => error.reason._tag))

const create = (body: unknown) => Effect.runSync(PromoRules.parseCreate(body, now))

const sql = (dt: DateTime.Utc | null) => (dt === null ? null : AlgiersTime.formatSql(dt))

const existing = new PromoCode({
  id: PromoCodeId.make(7),
  code: "FIXED500",
  discount_type: "fixed",
  discount_value: BigDecimal.fromBigInt(500n),
  min_order_amount: null,
  max_uses: null,
  used_count: 3,
  is_active: true,
  starts_at: DateTime.makeUnsafe("2026-12-01T00:00:00Z"),
  expires_at: DateTime.makeUnsafe("2026-01-01T00:00:00Z"),
  created_at: now,
  updated_at: now
})

describe("PromoRules", () => {
  it("normalises a create: code trimmed and upper-cased, type in any case, defaults", () => {
    const { values, approval } = create(valid)
    assert.strictEqual(values.code, "SUMMER-10")
    assert.strictEqual(values.discount_type, "percentage")
    assert.strictEqual(BigDecimal.format(values.discount_value), "10")
    assert.deepStrictEqual(
      [values.min_order_amount, values.max_uses, values.is_active, values.starts_at, values.expires_at],
      [null, null, true, null, null]
    )
    assert.deepStrictEqual(approval, { confirmToken: undefined, confirmFullDiscount: false })
  })

  it("refuses a create's fields in the spec's order, the first failure answering", () => {
    assert.strictEqual(reasonOf(PromoRules.parseCreate([], now)), "InvalidPromoBody")
    assert.strictEqual(reasonOf(PromoRules.parseCreate("x", now)), "InvalidPromoBody")
    const everythingWrong = {
      code: "x",
      discount_type: "free",
      discount_value: 0,
      min_order_amount: "a lot",
      max_uses: -1,
      starts_at: "soon",
      expires_at: "later"
    }
    const order = [
      ["code", "VALID", "InvalidCode"],
      ["discount_type", "fixed", "InvalidDiscountType"],
      ["discount_value", 50, "InvalidDiscountValue"],
      ["min_order_amount", null, "InvalidMinOrderAmount"],
      ["max_uses", null, "InvalidMaxUses"],
      ["starts_at", null, "InvalidStartsAt"],
      ["expires_at", null, "InvalidExpiresAt"]
    ] as const
    let body: Record<string, unknown> = everythingWrong
    for (const [field, fix, reason] of order) {
      assert.strictEqual(reasonOf(PromoRules.parseCreate(body, now)), reason, field)
      body = { ...body, [field]: fix }
    }
    assert.strictEqual(create(body).values.code, "VALID")
  })

  it("reads code, type and value by the table's rules", () => {
    for (const code of [undefined, null, 5, "A", "A".repeat(31), "SUMMER 10", "ÉTÉ", ""]) {
      assert.strictEqual(reasonOf(PromoRules.parseCreate({ ...valid, code }, now)), "InvalidCode", String(code))
    }
    assert.strictEqual(create({ ...valid, code: "ab" }).values.code, "AB")
    assert.strictEqual(create({ ...valid, code: "A".repeat(30) }).values.code, "A".repeat(30))
    for (const discount_type of [undefined, "", "percent", 1]) {
      assert.strictEqual(reasonOf(PromoRules.parseCreate({ ...valid, discount_type }, now)), "InvalidDiscountType")
    }
    assert.strictEqual(
      create({ ...valid, discount_type: "FIXED", discount_value: 250000 }).values.discount_type,
      "fixed"
    )
    for (const discount_value of [undefined, null, "ten", 0, -5, 100.01, "", true, 1e20]) {
      assert.strictEqual(
        reasonOf(PromoRules.parseCreate({ ...valid, discount_value }, now)),
        "InvalidDiscountValue",
        String(discount_value)
      )
    }
    assert.strictEqual(BigDecimal.format(create({ ...valid, discount_value: "12.5" }).values.discount_value), "12.5")
    assert.strictEqual(BigDecimal.format(create({ ...valid, discount_value: 0.1 }).values.discount_value), "0.1")
    assert.strictEqual(
      BigDecimal.format(create({ ...valid, discount_type: "fixed", discount_value: 1500.5 }).values.discount_value),
      "1500.5"
    )
  })

  it("bounds every amount by the store API's maximum (100000000), fixed values included", () => {
    const fixed = { ...valid, discount_type: "fixed" }
    assert.strictEqual(
      BigDecimal.format(create({ ...fixed, discount_value: 100_000_000 }).values.discount_value),
      "100000000"
    )
    assert.strictEqual(
      BigDecimal.format(create({ ...valid, min_order_amount: "100000000" }).values.min_order_amount!),
      "100000000"
    )
    for (const value of [100_000_000.01, 1e308, 2 ** 53 + 1, "1e308", "100000001", JSON.parse("1e309"), "-0"]) {
      assert.strictEqual(
        reasonOf(PromoRules.parseCreate({ ...fixed, discount_value: value }, now)),
        "InvalidDiscountValue",
        String(value)
      )
    }
    for (const value of [100_000_000.01, 1e308, 2 ** 53 + 1, "1e308", "100000001", JSON.parse("1e309")]) {
      assert.strictEqual(
        reasonOf(PromoRules.parseCreate({ ...valid, min_order_amount: value }, now)),
        "InvalidMinOrderAmount",
        String(value)
      )
    }
    // -0 is 0: no minimum.
    assert.isNull(create({ ...valid, min_order_amount: -0 }).values.min_order_amount)
    assert.strictEqual(
      reasonOf(PromoRules.parsePatch({ discount_value: 1e308 }, existing, now)),
      "InvalidDiscountValue"
    )
    assert.include(PromoRules.DISCOUNT_VALUE_MESSAGE, "100000000")
    assert.include(PromoRules.MIN_ORDER_MESSAGE, "100000000")
  })

  it("refuses text PostgreSQL cannot keep (NUL, a lone surrogate) with each field's own reason", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["code", "InvalidCode"],
      ["discount_type", "InvalidDiscountType"],
      ["discount_value", "InvalidDiscountValue"],
      ["min_order_amount", "InvalidMinOrderAmount"],
      ["max_uses", "InvalidMaxUses"],
      ["starts_at", "InvalidStartsAt"],
      ["expires_at", "InvalidExpiresAt"]
    ]
    for (const bad of ["\u0000", "SUMMER\u0000", "2027-01-01\u0000", "\ud800"]) {
      for (const [field, reason] of cases) {
        assert.strictEqual(
          reasonOf(PromoRules.parseCreate({ ...valid, [field]: bad }, now)),
          reason,
          `${field} ${JSON.stringify(bad)}`
        )
      }
    }
  })

  it("reads min_order_amount and max_uses: 0, empty or null mean none", () => {
    for (const none of [0, "", null, "0"]) {
      assert.isNull(create({ ...valid, min_order_amount: none }).values.min_order_amount, String(none))
      assert.isNull(create({ ...valid, max_uses: none }).values.max_uses, String(none))
    }
    assert.strictEqual(
      BigDecimal.format(create({ ...valid, min_order_amount: "2000" }).values.min_order_amount!),
      "2000"
    )
    assert.strictEqual(create({ ...valid, max_uses: "25" }).values.max_uses, 25)
    for (const bad of ["abc", -1, {}, true]) {
      assert.strictEqual(
        reasonOf(PromoRules.parseCreate({ ...valid, min_order_amount: bad }, now)),
        "InvalidMinOrderAmount"
      )
    }
    for (const bad of ["abc", -1, 2.5, {}, "1.5"]) {
      assert.strictEqual(
        reasonOf(PromoRules.parseCreate({ ...valid, max_uses: bad }, now)),
        "InvalidMaxUses",
        String(bad)
      )
    }
  })

  it("reads is_active as a boolean cast would: the string false is true", () => {
    const active = (is_active: unknown) => create({ ...valid, is_active }).values.is_active
    assert.deepStrictEqual(
      [active(true), active(false), active("false"), active("yes"), active(1), active(0), active(""), active("0")],
      [true, false, true, true, true, false, false, false]
    )
    assert.isTrue(active(null), "null is the default")
  })

  it("reads dates in Algeria time, converting an offset, in the common forms", () => {
    const dates = {
      "2026-12-01 08:30:00": "2026-12-01 08:30:00",
      "2026-12-01 08:30": "2026-12-01 08:30:00",
      "2026-12-01": "2026-12-01 00:00:00",
      "2026/12/01 08:30:00": "2026-12-01 08:30:00",
      "2026-12-01T08:30:00": "2026-12-01 08:30:00",
      "2026-12-01T08:30:00.250": "2026-12-01 08:30:00",
      "2026-12-01T07:30:00Z": "2026-12-01 08:30:00",
      "2026-12-01T07:30:00z": "2026-12-01 08:30:00",
      "2026-12-01T09:30:00+02:00": "2026-12-01 08:30:00",
      "2026-12-01T02:30:00-0500": "2026-12-01 08:30:00",
      "2026-12-01T08:30:00+01": "2026-12-01 08:30:00"
    }
    for (const [text, algiers] of Object.entries(dates)) {
      assert.strictEqual(sql(Option.getOrNull(parseDateTime(text))), algiers, text)
    }
    for (const bad of [
      "2026-02-30",
      "2026-13-01",
      "2026-12-01 24:00:00",
      "tomorrow",
      "01/12/2026",
      "2026-12-01T08:60"
    ]) {
      assert.isTrue(Option.isNone(parseDateTime(bad)), bad)
    }
    const { values } = create({ ...valid, starts_at: "", expires_at: "2027-01-01T00:00:00+00:00" })
    assert.deepStrictEqual([values.starts_at, sql(values.expires_at)], [null, "2027-01-01 01:00:00"])
  })

  it("wants expires_at in the future and after starts_at", () => {
    assert.strictEqual(
      reasonOf(PromoRules.parseCreate({ ...valid, expires_at: "2026-11-21 11:00:00" }, now)),
      "ExpiresAtInPast",
      "11:00 in Algiers is 10:00 UTC: now, not after it"
    )
    assert.strictEqual(
      create({ ...valid, expires_at: "2026-11-21 11:00:01" }).values.expires_at!.epochMilliseconds,
      now.epochMilliseconds + 1000
    )
    assert.strictEqual(
      reasonOf(PromoRules.parseCreate({ ...valid, starts_at: "2026-12-10", expires_at: "2026-12-10 00:00:00" }, now)),
      "InvalidDateWindow"
    )
    assert.strictEqual(
      reasonOf(PromoRules.parseCreate({ ...valid, starts_at: "nope", expires_at: "2020-01-01" }, now)),
      "InvalidStartsAt",
      "an unreadable date answers before a date in the past"
    )
  })

  it("checks a PATCH's discount as a pair with the stored one, and dates only as sent", () => {
    const patch = (body: unknown) => Effect.runSync(PromoRules.parsePatch(body, existing, now)).patch
    assert.deepStrictEqual(patch({}), {})
    assert.deepStrictEqual(patch({ used_count: 99, unknown: 1 }), {}, "used_count cannot be written")
    assert.strictEqual(
      reasonOf(PromoRules.parsePatch({ discount_type: "percentage" }, existing, now)),
      "InvalidDiscountValue",
      "percentage alone on a fixed code worth 500"
    )
    assert.strictEqual(patch({ discount_type: "percentage", discount_value: 20 }).discount_type, "percentage")
    // The stored expiry has passed: the code stays editable while expires_at is not sent.
    assert.strictEqual(patch({ is_active: false }).is_active, false)
    assert.strictEqual(reasonOf(PromoRules.parsePatch({ expires_at: "2026-01-02" }, existing, now)), "ExpiresAtInPast")
    assert.strictEqual(
      reasonOf(PromoRules.parsePatch({ expires_at: "2026-11-30" }, existing, now)),
      "InvalidDateWindow",
      "before the stored starts_at"
    )
    assert.isNull(patch({ expires_at: null }).expires_at)
    assert.strictEqual(sql(patch({ starts_at: null, expires_at: "2026-11-30" }).expires_at!), "2026-11-30 00:00:00")
  })

  it("answers any body with its values or a field's reason, never a defect (text, huge numbers, nesting)", () => {
    const nested = fc.integer({ min: 1, max: 1_000 }).map((depth) => {
      let value: unknown = "x"
      for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value }
      return value
    })
    const nasty = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom("\u0000", "SUMMER\u0000", "\ud800", "\u001b[2J", "2027-01-01\u0000", "1e309", "-0", ""),
      fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, 2 ** 53 + 1, Number.MIN_VALUE, -0, JSON.parse("1e309")),
      fc.double(),
      fc.jsonValue(),
      nested
    )
    const fields = ["code", "discount_type", "discount_value", "min_order_amount", "max_uses", "is_active"]
    const dates = ["starts_at", "expires_at", "confirm_token", "confirm_full_discount"]
    const body = fc.oneof(
      nasty,
      fc.record({ field: fc.constantFrom(...fields, ...dates), value: nasty }).map(({ field, value }) => ({
        ...valid,
        [field]: value
      })),
      fc.dictionary(fc.constantFrom(...fields, ...dates, "__proto__", "used_count"), nasty)
    )
    const messages = new Set([
      PromoRules.BODY_MESSAGE,
      PromoRules.CODE_MESSAGE,
      PromoRules.DISCOUNT_TYPE_MESSAGE,
      PromoRules.DISCOUNT_VALUE_MESSAGE,
      PromoRules.MIN_ORDER_MESSAGE,
      PromoRules.MAX_USES_MESSAGE,
      PromoRules.STARTS_AT_MESSAGE,
      PromoRules.EXPIRES_AT_MESSAGE,
      PromoRules.EXPIRES_IN_PAST_MESSAGE,
      PromoRules.DATE_WINDOW_MESSAGE
    ])
    // Each refusal is one of the spec's sentences, whatever was wrong with the value.
    const answered = (exit: Exit.Exit<unknown, { readonly message: string }>) =>
      Exit.isSuccess(exit) ||
      (!Cause.hasDies(exit.cause) &&
        Cause.findErrorOption(exit.cause).pipe(Option.exists((error) => messages.has(error.message))))
    fc.assert(
      fc.property(body, (sent) => {
        assert.isTrue(answered(Effect.runSyncExit(PromoRules.parseCreate(sent, now))))
        assert.isTrue(answered(Effect.runSyncExit(PromoRules.parsePatch(sent, existing, now))))
      }),
      { numRuns: 100 }
    )
  })

  it("knows a 100% code", () => {
    assert.isTrue(PromoRules.isFullDiscount(create({ ...valid, discount_value: 100 }).values))
    assert.isTrue(PromoRules.isFullDiscount(create({ ...valid, discount_value: "100.00" }).values))
    assert.isFalse(PromoRules.isFullDiscount(create({ ...valid, discount_type: "fixed", discount_value: 100 }).values))
  })

  it("discounts a subtotal: a percentage rounded down to the centime, a fixed amount never above it", () => {
    const amount = (text: string) => BigDecimal.fromStringUnsafe(text)
    const discount = (type: "percentage" | "fixed", value: string, subtotal: string) =>
      BigDecimal.format(
        BigDecimal.normalize(
          PromoRules.discountOf({ discount_type: type, discount_value: amount(value) }, amount(subtotal))
        )
      )
    assert.strictEqual(discount("percentage", "15", "4500"), "675")
    assert.strictEqual(discount("percentage", "33", "1001"), "330.33")
    assert.strictEqual(discount("percentage", "100", "4500"), "4500")
    assert.strictEqual(discount("fixed", "500", "4500"), "500")
    assert.strictEqual(discount("fixed", "5000", "4500"), "4500")
    assert.strictEqual(discount("fixed", "500", "0"), "0")
  })

  it("never discounts more than the subtotal, nor more than the percentage's share", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.boolean(),
        (centimes, value, percentage) => {
          const subtotal = BigDecimal.make(BigInt(centimes), 2)
          const discountValue = BigDecimal.make(BigInt(value), 2)
          const discount = PromoRules.discountOf(
            { discount_type: percentage ? "percentage" : "fixed", discount_value: discountValue },
            subtotal
          )
          const exact = BigDecimal.make(BigInt(centimes) * BigInt(value), 6)
          return (
            BigDecimal.isLessThanOrEqualTo(discount, subtotal) &&
            !BigDecimal.isNegative(discount) &&
            (!percentage ||
              (BigDecimal.isLessThanOrEqualTo(discount, exact) &&
                BigDecimal.isLessThan(BigDecimal.subtract(exact, discount), BigDecimal.make(1n, 2))))
          )
        }
      )
    )
  })

  it("refuses a code at checkout for the first reason that applies", () => {
    const at = (text: string) => DateTime.makeUnsafe(text)
    const subtotal = BigDecimal.fromBigInt(1000n)
    const refusal = (changes: Partial<PromoCode>, when = now) =>
      Option.getOrNull(
        PromoRules.checkoutRefusal({ ...existing, expires_at: null, starts_at: null, ...changes }, subtotal, when)
      )
    assert.isNull(refusal({}))
    assert.strictEqual(refusal({ is_active: false }), "inactive")
    assert.strictEqual(refusal({ starts_at: at("2026-11-21T10:00:01Z") }), "not_started")
    assert.strictEqual(refusal({ expires_at: at("2026-11-21T09:59:59Z") }), "expired")
    assert.strictEqual(refusal({ min_order_amount: BigDecimal.fromBigInt(1001n) }), "below_minimum")
    assert.strictEqual(refusal({ max_uses: 3 }), "used_up")
    assert.isNull(refusal({ max_uses: 4 }))
  })
})
