import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as fc from "fast-check"
import * as Push from "../src/Push.ts"

const request = (headers: Record<string, string>, query: Record<string, string> = {}): Push.PushRequest => ({
  method: "POST",
  query,
  headers,
  body: new Uint8Array()
})

describe("Push", () => {
  it("reads headers by name in any case, and never a prototype's member", () => {
    const pushed = request({ "x-signature": "abc" })
    assert.strictEqual(Push.header(pushed, "X-Signature"), "abc")
    assert.strictEqual(Push.header(pushed, "constructor"), undefined)
    assert.strictEqual(Push.header(pushed, "__proto__"), undefined)
    assert.strictEqual(Push.parameter(request({}, { subscribe: "" }), "subscribe"), "")
    assert.strictEqual(Push.parameter(request({}), "toString"), undefined)
  })

  it("reads a body as text only when it is UTF-8", () => {
    assert.strictEqual(Push.text(new TextEncoder().encode("Livré à Béjaïa")), "Livré à Béjaïa")
    assert.strictEqual(Push.text(new Uint8Array([0x7b, 0xff, 0x7d])), undefined)
    assert.strictEqual(Push.text(new Uint8Array([0xc3])), undefined)
    assert.isTrue(Option.isNone(Push.json(new Uint8Array([0x7b, 0xff, 0x7d]))))
    assert.deepStrictEqual(Push.json(new TextEncoder().encode('{"a":[1]}')), Option.some({ a: [1] }))
  })

  it("never throws reading any bytes, and reads back exactly the bytes it accepts", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 512 }),
          fc.string({ unit: "binary" }).map((text) => new TextEncoder().encode(text))
        ),
        (bytes) => {
          const decoded = Push.text(bytes)
          if (decoded !== undefined) assert.deepStrictEqual(new Uint8Array(Buffer.from(decoded, "utf8")), bytes)
          Push.json(bytes)
        }
      )
    )
  })

  it("compares secrets and digests by content only", () => {
    assert.isTrue(Push.sameText("s3cret-value", "s3cret-value"))
    assert.isFalse(Push.sameText("s3cret-value", "s3cret-valuE"))
    assert.isFalse(Push.sameText("s3cret-value", "s3cret"))
    assert.isTrue(Push.sameBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2])))
    assert.isFalse(Push.sameBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3])))
  })

  it("signs with HMAC-SHA256 over the parts in order (RFC 4231 test case 2)", () => {
    assert.strictEqual(
      Push.hmacSha256("Jefe", "what do ya want ", "for nothing?").toString("hex"),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )
  })

  it("decodes base64 and hex strictly", () => {
    assert.deepStrictEqual(Push.base64("aGk="), Buffer.from("hi"))
    assert.strictEqual(Push.base64("aGk"), undefined)
    assert.strictEqual(Push.base64("aGl="), undefined)
    assert.strictEqual(Push.base64("a-k="), undefined)
    assert.deepStrictEqual(Push.hex("0aFF", 2), Buffer.from([10, 255]))
    assert.strictEqual(Push.hex("0aF", 2), undefined)
    assert.strictEqual(Push.hex("zz", 1), undefined)
  })

  it("reads ids and texts of own members only", () => {
    const body = JSON.parse('{"__proto__":{"tracking":"x"},"id":42,"blank":"  ","note":" Client absent "}')
    assert.strictEqual(Push.firstId(body, ["tracking", "id"]), "42")
    assert.strictEqual(Push.firstId(body, ["blank"]), undefined)
    assert.strictEqual(Push.firstId({ n: Number.POSITIVE_INFINITY }, ["n"]), undefined)
    assert.strictEqual(Push.firstText(body, ["blank", "note"]), "Client absent")
    assert.strictEqual(Push.member([1], "0"), undefined)
  })
})
