import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"

const ids = [Ids.StoreId, Ids.OrderId, Ids.CustomerId, Ids.ProductId, Ids.LandingPageId] as const

describe("Ids", () => {
  it("accept positive integers only", () => {
    for (const id of ids) {
      const is = Schema.is(id)
      for (const ok of [1, 42, Number.MAX_SAFE_INTEGER]) assert.isTrue(is(ok), String(ok))
      for (const bad of [0, -3, 1.5, "7", null, 2 ** 53]) assert.isFalse(is(bad), String(bad))
    }
  })

  it("keep one kind of id from standing for another", () => {
    const store = Schema.decodeSync(Ids.StoreId)(7)
    // @ts-expect-error a StoreId is not an OrderId
    const order: Ids.OrderId = store
    assert.strictEqual(order, 7)
  })

  it("accept request ids of 1 to 128 safe characters", () => {
    const is = Schema.is(Ids.RequestId)
    for (const ok of ["a", "req_01HZX3", "trace:abc.def-1", "A".repeat(128)]) assert.isTrue(is(ok), ok)
    for (const bad of ["", "A".repeat(129), "has space", "a/b", "é", "line\nbreak", 42]) {
      assert.isFalse(is(bad), String(bad))
    }
  })

  it("bound a stored id at 2 147 483 647, PostgreSQL's integer", () => {
    assert.strictEqual(Ids.MAX_ID, 2 ** 31 - 1)
    for (const ok of [1, 42, Ids.MAX_ID]) assert.isTrue(Ids.isStorableId(ok), String(ok))
    for (const bad of [0, -1, 1.5, Ids.MAX_ID + 1, Number.MAX_SAFE_INTEGER, 2 ** 53, Number.NaN, Infinity]) {
      assert.isFalse(Ids.isStorableId(bad), String(bad))
    }
  })

  it("read a path id of 1 to 20 digits as a number, whatever its size", () => {
    const decode = Schema.decodeUnknownSync(Ids.PathId)
    assert.strictEqual(decode("42"), 42)
    assert.strictEqual(decode("0042"), 42)
    assert.strictEqual(decode("0"), 0)
    assert.strictEqual(decode("2147483648"), Ids.MAX_ID + 1)
    assert.strictEqual(decode("9".repeat(20)), 1e20)
    assert.strictEqual(Schema.encodeSync(Ids.PathId)(42), "42")
  })

  it.effect("refuse any other path id with the message must be all digits", () =>
    Effect.gen(function* () {
      for (const bad of ["", "-1", "+1", "1.5", "1e3", " 1", "1 ", "abc", "0x10", "9".repeat(21), "١٢", 12, null]) {
        const error = yield* Effect.flip(Schema.decodeUnknownEffect(Ids.PathId)(bad))
        assert.strictEqual(error.message, "must be all digits", JSON.stringify(bad))
      }
    })
  )
})
