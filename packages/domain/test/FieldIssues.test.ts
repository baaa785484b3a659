import { assert, describe, it } from "@effect/vitest"
import { Dzd, FieldIssues, WilayaCode } from "@tawsil/domain"
import { Effect, Schema } from "effect"

const Order = Schema.Struct({
  order: Schema.Struct({
    recipient: Schema.Struct({
      fullName: Schema.String.check(Schema.isBetweenLength(2, 120)),
      phone: Schema.String,
      wilayaCode: WilayaCode.WilayaCode
    }),
    codAmount: Dzd.Dzd
  }),
  items: Schema.Array(Schema.Struct({ quantity: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 9999 })) }))
})

const issueOf = <S extends Schema.Decoder<unknown>>(schema: S, input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input, { errors: "all" }).pipe(
    Effect.flip,
    Effect.map((error) => error.issue)
  )

describe("FieldIssues", () => {
  it.effect("reports every bad field of a nested input by its dotted path", () =>
    Effect.gen(function* () {
      const issue = yield* issueOf(Order, {
        order: { recipient: { fullName: "A", phone: 555, wilayaCode: 59 }, codAmount: -1 },
        items: [{ quantity: 1 }, { quantity: 2 }, { quantity: 0 }, {}]
      })
      assert.deepStrictEqual(FieldIssues.fromIssue(issue), {
        "order.recipient.fullName": "Expected a value with a length between 2 and 120",
        "order.recipient.phone": "Expected string",
        "order.recipient.wilayaCode": "Expected a wilaya code, an integer from 1 to 58",
        "order.codAmount": "Expected an amount in DZD, a non-negative integer",
        "items.2.quantity": "Expected a value between 1 and 9999",
        "items.3.quantity": "Missing key"
      })
    })
  )

  it.effect("puts a prefix before every path, and uses it for the input as a whole", () =>
    Effect.gen(function* () {
      const Query = Schema.Struct({ limit: Schema.Int, cursor: Schema.String })
      const fields = FieldIssues.fromIssue(yield* issueOf(Query, { limit: "x" }), { prefix: "query" })
      assert.deepStrictEqual(fields, { "query.limit": "Expected number", "query.cursor": "Missing key" })
      const whole = FieldIssues.fromIssue(yield* issueOf(Query, null), { prefix: "query" })
      assert.deepStrictEqual(Object.keys(whole), ["query"])
    })
  )

  it.effect("keys an issue about the whole input as $ without a prefix", () =>
    Effect.gen(function* () {
      const fields = FieldIssues.fromIssue(yield* issueOf(Order, "not an object"))
      assert.deepStrictEqual(Object.keys(fields), [FieldIssues.rootKey])
      assert.strictEqual(FieldIssues.rootKey, "$")
    })
  )

  it.effect("joins several messages on one path", () =>
    Effect.gen(function* () {
      const Code = Schema.Struct({
        code: Schema.String.check(Schema.isMinLength(3), Schema.isPattern(/^[A-Z]+$/, { message: "Expected capitals" }))
      })
      const fields = FieldIssues.fromIssue(yield* issueOf(Code, { code: "a" }))
      assert.deepStrictEqual(fields, { code: "Expected a value with a length of at least 3; Expected capitals" })
    })
  )

  it.effect("keeps paths named like Object.prototype members as plain fields (found by fuzzing)", () =>
    Effect.gen(function* () {
      const Strict = Schema.Struct({ name: Schema.String })
      const issue = yield* Schema.decodeUnknownEffect(Strict)(
        JSON.parse('{"name":1,"valueOf":{},"__proto__":1,"constructor":2,"hasOwnProperty":3}'),
        { errors: "all", onExcessProperty: "error" }
      ).pipe(
        Effect.flip,
        Effect.map((error) => error.issue)
      )
      const fields = FieldIssues.fromIssue(issue)
      assert.deepStrictEqual(Object.keys(fields).sort(), [
        "__proto__",
        "constructor",
        "hasOwnProperty",
        "name",
        "valueOf"
      ])
      assert.strictEqual(Object.getPrototypeOf(fields), Object.prototype, "no prototype was replaced")
    })
  )
})
