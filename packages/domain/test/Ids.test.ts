import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Schema } from "effect"

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
})
