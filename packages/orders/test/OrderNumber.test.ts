import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Effect, Random } from "effect"
import * as OrderNumber from "../src/OrderNumber.ts"

const store = Ids.StoreId.make(42)

describe("OrderNumber", () => {
  it("formats ORD-{store}-{day in Algiers}-{hex}: 23:30 UTC is already the next day", () => {
    assert.strictEqual(
      OrderNumber.format(store, DateTime.makeUnsafe("2026-11-21T12:00:00Z"), "0A1B2C3D"),
      "ORD-42-20261121-0A1B2C3D"
    )
    assert.strictEqual(
      OrderNumber.format(store, DateTime.makeUnsafe("2026-12-31T23:30:00Z"), "FFFFFFFF"),
      "ORD-42-20270101-FFFFFFFF"
    )
  })

  it.effect("draws 8 uppercase hex digits, zero-padded, from Random", () =>
    Effect.gen(function* () {
      const suffixes = yield* Effect.all(Array.from({ length: 200 }, () => OrderNumber.suffix))
      for (const hex of suffixes) assert.match(hex, /^[0-9A-F]{8}$/)
      assert.isAbove(new Set(suffixes).size, 195)
      const seeded = yield* OrderNumber.make(store, DateTime.makeUnsafe("2026-06-02T08:00:00Z")).pipe(
        Random.withSeed("fixed")
      )
      const again = yield* OrderNumber.make(store, DateTime.makeUnsafe("2026-06-02T08:00:00Z")).pipe(
        Random.withSeed("fixed")
      )
      assert.strictEqual(seeded, again)
      assert.match(seeded, /^ORD-42-20260602-[0-9A-F]{8}$/)
    })
  )

  it("parses both suffix lengths and landing-page numbers", () => {
    assert.deepStrictEqual(OrderNumber.parse("ORD-42-20261121-0A1B2C3D"), {
      _tag: "Api",
      storeId: 42,
      day: "20261121",
      suffix: "0A1B2C3D"
    })
    assert.deepStrictEqual(OrderNumber.parse("ORD-7-20260101-BEEF"), {
      _tag: "Api",
      storeId: 7,
      day: "20260101",
      suffix: "BEEF"
    })
    assert.deepStrictEqual(OrderNumber.parse("LP-DEADBEEF"), { _tag: "LandingPage", suffix: "DEADBEEF" })
  })

  it("refuses anything else", () => {
    for (const text of [
      "",
      "ORD-42-20261121-0a1b2c3d",
      "ORD-42-20261121-0A1B2C",
      "ORD-42-20261121-0A1B2C3D4",
      "ORD-0-20261121-0A1B2C3D",
      "ORD-042-20261121-0A1B2C3D",
      "ORD-42-20261321-0A1B2C3D",
      "ORD-42-20261100-0A1B2C3D",
      "ORD-42-2026112-0A1B2C3D",
      "ORD--20261121-0A1B2C3D",
      " ORD-42-20261121-0A1B2C3D",
      "LP-BEEF",
      "LP-deadbeef",
      "LP-DEADBEEF0",
      "ord-42-20261121-0A1B2C3D"
    ]) {
      assert.isUndefined(OrderNumber.parse(text), text)
    }
  })

  it("round-trips what it formats", () => {
    const at = DateTime.makeUnsafe("2026-06-15T10:00:00Z")
    for (const hex of ["00000000", "0000ABCD", "FFFFFFFF", "12345678"]) {
      const parsed = OrderNumber.parse(OrderNumber.format(store, at, hex))
      assert.deepStrictEqual(parsed, { _tag: "Api", storeId: 42, day: "20260615", suffix: hex })
    }
  })
})
