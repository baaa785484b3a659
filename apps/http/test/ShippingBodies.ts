/**
 * Request bodies for the shipping API's fuzz tests: a valid sandbox order, values that break parsers, and a valid
 * body with one path replaced, removed or an unknown field added.
 */
import fc from "fast-check"

export const validOrder = {
  courier: "sandbox",
  order: {
    reference: "cmd-1",
    recipient: {
      fullName: "Amina B",
      phone: "0555123456",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "x"
    },
    deliveryType: "home",
    productList: "robe",
    codAmount: 4500
  }
}

/** Anything JSON can carry, weighted towards the shapes that break parsers. */
export const nasty = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(null, "", " ", -1, 0, 1e308, -0, 59, 1.5, true, [], {}, "0555123456", "\u0000", "🇩🇿", "<script>"),
  fc.string({ maxLength: 600 }),
  fc.integer(),
  fc.double({ noNaN: true })
)

/** A valid body with one path replaced, removed, or an unknown field added. */
export const mutated = (valid: unknown) =>
  fc.tuple(fc.nat(), nasty, fc.constantFrom("replace", "remove", "add")).map(([pick, value, how]) => {
    const body = structuredClone(valid) as Record<string, unknown>
    const paths: Array<Array<string>> = []
    const walk = (node: unknown, path: Array<string>) => {
      if (node === null || typeof node !== "object" || Array.isArray(node)) return
      for (const [key, child] of Object.entries(node)) {
        paths.push([...path, key])
        walk(child, [...path, key])
      }
    }
    walk(body, [])
    const path = paths[pick % paths.length]!
    const parent = path
      .slice(0, -1)
      .reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, body)
    const key = path.at(-1)!
    if (how === "replace") parent[key] = value
    else if (how === "remove") delete parent[key]
    else parent[`extra_${pick % 7}`] = value
    return body
  })
