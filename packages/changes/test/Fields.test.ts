import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Fields from "../src/Fields.ts"

const layout = { kept: ["id"], nested: ["colors"] }

describe("Fields", () => {
  it("changed: the fields whose values differ, nested objects key by key, kept keys on both sides", () => {
    const before = { id: 3, name: "a", tags: ["x"], colors: { primary: "#000", text: null }, radius: 8 }
    const after = { id: 3, name: "b", tags: ["x"], colors: { primary: "#000", text: "#111" }, radius: 8 }
    assert.deepStrictEqual(Fields.changed(before, after, layout), {
      before: { id: 3, name: "a", colors: { text: null } },
      after: { id: 3, name: "b", colors: { text: "#111" } }
    })
  })

  it("changed: ignored keys are never recorded", () => {
    assert.deepStrictEqual(
      Fields.changed({ a: 1, updated_at: "x" }, { a: 2, updated_at: "y" }, { ignored: ["updated_at"] }),
      { before: { a: 1 }, after: { a: 2 } }
    )
  })

  it("changed: a list and an object that is not nested are one field each; a key on one side only is kept", () => {
    assert.deepStrictEqual(
      Fields.changed({ tags: ["x", "y"], settings: { a: 1, b: 2 } }, { tags: ["x"], settings: { a: 1, b: 3 }, c: 1 }),
      { before: { tags: ["x", "y"], settings: { a: 1, b: 2 } }, after: { tags: ["x"], settings: { a: 1, b: 3 }, c: 1 } }
    )
  })

  it("changed: objects equal whatever their keys' order change nothing; not objects are kept as they are", () => {
    assert.deepStrictEqual(Fields.changed({ s: { a: 1, b: 2 } }, { s: { b: 2, a: 1 } }), { before: {}, after: {} })
    assert.deepStrictEqual(Fields.changed(null, { a: 1 }), { before: null, after: { a: 1 } })
    assert.deepStrictEqual(Fields.changed([1], [2]), { before: [1], after: [2] })
  })

  it("pick: the fields the other value has, nested objects key by key", () => {
    const whole = { id: 3, name: "b", colors: { primary: "#000", text: "#111" }, radius: 8 }
    assert.deepStrictEqual(Fields.pick(whole, { id: 1, colors: { text: null }, gone: 1 }, layout), {
      id: 3,
      colors: { text: "#111" }
    })
    assert.deepStrictEqual(Fields.pick(whole, { colors: { text: null } }), { colors: whole.colors })
    assert.strictEqual(Fields.pick(null, { a: 1 }), null)
  })

  it("property: writing a change's after over its before gives the after, and its before over that the before", () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom("a", "b", null), fc.array(fc.nat(2)))
    const record = fc.record({
      id: fc.constant(1),
      a: value,
      b: value,
      colors: fc.record({ p: value, q: value })
    })
    const write = (onto: Record<string, unknown>, values: Record<string, unknown>) => ({
      ...onto,
      ...values,
      colors: { ...(onto.colors as object), ...(values.colors as object | undefined) }
    })
    fc.assert(
      fc.property(record, record, (before, after) => {
        const change = Fields.changed(before, after, layout) as {
          before: Record<string, unknown>
          after: Record<string, unknown>
        }
        assert.deepStrictEqual(write(before, change.after), after)
        assert.deepStrictEqual(write(after, change.before), before)
        assert.deepStrictEqual(Fields.pick(after, change.after, layout), change.after)
        assert.deepStrictEqual(Fields.pick(before, change.before, layout), change.before)
      })
    )
  })
})
