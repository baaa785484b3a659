import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fc from "fast-check"
import type { CourierResponse } from "../src/CourierHttp.ts"
import * as Recorded from "../src/Recorded.ts"

const TOKEN = "tok+en/with=forms&more"

const answer = (body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  const bytes = new TextEncoder().encode(text)
  return { status: 200, headers, text, bytes } satisfies CourierResponse
}

const record = (body: unknown, kind: Recorded.Kind, extra: Partial<Parameters<typeof Recorded.record>[0]> = {}) =>
  Recorded.record({
    courier: "acme",
    step: "track T1",
    request: { method: "GET", path: "/v1/parcels/T1", query: { api_token: TOKEN } },
    response: answer(body),
    secrets: [TOKEN],
    kind,
    ...extra
  })

const text = (exchange: Recorded.Exchange) => JSON.stringify(exchange)

describe("Recorded", () => {
  it("blanks a credential in every form it travels in: query, header, JSON-escaped, URL-encoded", () => {
    const exchange = Recorded.record({
      courier: "acme",
      step: "checkCredentials",
      request: { method: "GET", path: "/v1/me", query: { api_token: TOKEN } },
      response: answer(
        { message: `token ${TOKEN} refused`, url: `/v1/me?api_token=${encodeURIComponent(TOKEN)}` },
        { "content-type": "application/json", "x-echo": TOKEN, "retry-after": "9", "set-cookie": "s=1" }
      ),
      secrets: [TOKEN],
      kind: "reference"
    })
    assert.notInclude(text(exchange), "tok+en")
    assert.notInclude(text(exchange), encodeURIComponent(TOKEN))
    assert.deepStrictEqual(exchange.request.query, { api_token: "<redacted>" })
    assert.deepStrictEqual(exchange.response.headers, { "content-type": "application/json", "retry-after": "9" })
  })

  it("reference data keeps its names and places, and blanks a customer's keys and whole customer objects", () => {
    const exchange = record(
      {
        data: [
          { id: 1611, name: "Bab Ezzouar", nom: "Bab Ezzouar", wilaya_name: "Alger", phone: "023 45 67 89" },
          { customer: { name: "Amina", id: "c-1" }, nom_client: "Amina", contact_phone: "0555123456" }
        ]
      },
      "reference"
    )
    assert.deepStrictEqual(exchange.response.body, {
      json: {
        data: [
          { id: 1611, name: "Bab Ezzouar", nom: "Bab Ezzouar", wilaya_name: "Alger", phone: "0500000000" },
          { customer: { name: "scrubbed", id: "scrubbed" }, nom_client: "scrubbed", contact_phone: "0500000000" }
        ]
      }
    })
  })

  it("an answer about parcels keeps what tracking reads and the statuses, wherever they are, and nothing else", () => {
    const exchange = record(
      {
        tracking: "ECS0551234567X",
        status: "Livré",
        date_status: "2026-04-18 10:00:00",
        recipientName: "Amina Benali",
        name: "2x robe kabyle",
        label: "https://acme.example/bordereau?token=abc",
        history: [
          { newState: { name: "en_livraison", description: "Amina's parcel" }, createdAt: "2026-04-18T09:00:00Z" }
        ],
        amount: 4500,
        declared: 4500
      },
      "parcels",
      { keep: new Set(["Livré", "en_livraison"]) }
    )
    assert.deepStrictEqual(exchange.response.body, {
      json: {
        tracking: "ECS0551234567X",
        status: "Livré",
        date_status: "2026-04-18 10:00:00",
        recipientName: "scrubbed",
        name: "scrubbed",
        label: "scrubbed",
        history: [{ newState: { name: "en_livraison", description: "scrubbed" }, createdAt: "2026-04-18T09:00:00Z" }],
        amount: 4500,
        declared: 0
      }
    })
  })

  it("no Algerian mobile or e-mail address survives, wherever it is and however the rest looks", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom("0661734925", "+213661734925", "0661 73 49 25", "213-661-734-925"),
        fc.constantFrom("amina.b@example.dz", "x+y@mail.example.com"),
        fc.constantFrom<Recorded.Kind>("reference", "parcels"),
        (value, mobile, email, kind) => {
          const body = { message: `Appelez ${mobile} ou ${email}\u0000`, nested: [value, { note: mobile }] }
          const out = text(record(body, kind))
          assert.notInclude(out, "661734925")
          assert.notInclude(out, "661 73 49 25")
          assert.notInclude(out, "661-734-925")
          assert.notInclude(out, email)
        }
      )
    )
  })

  it("keeps an answer that is not JSON as text, and bytes that are not text as base64, each replayed as it came", () => {
    const html = Recorded.record({
      courier: "acme",
      step: "rates",
      request: { method: "GET", path: "/fees" },
      response: answer("<html>maintenance</html>", { "content-type": "text/html" }),
      secrets: [],
      kind: "reference"
    })
    assert.deepStrictEqual(html.response.body, { text: "<html>maintenance</html>" })
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe])
    const pdf = Recorded.record({
      courier: "acme",
      step: "label",
      request: { method: "GET", path: "/label.pdf", host: "files.acme.example" },
      response: { status: 200, headers: { "content-type": "application/pdf" }, text: "", bytes },
      secrets: [],
      kind: "reference"
    })
    assert.strictEqual(pdf.request.path, "https://files.acme.example/label.pdf")
    assert.deepStrictEqual([...Recorded.responseOf(pdf).bytes], [...bytes])
    const decoded = Schema.decodeUnknownSync(Recorded.Exchange)(JSON.parse(JSON.stringify(html)))
    assert.strictEqual(Recorded.responseOf(decoded).text, "<html>maintenance</html>")
  })

  it.effect("replays an operation's answers in the order recorded, by method and path; anything else is refused", () =>
    Effect.gen(function* () {
      const first = record({ page: 1 }, "reference")
      const second = record({ page: 2 }, "reference")
      const http = Recorded.replay([first, second])
      const read = (path: `/${string}`) =>
        Effect.map(http.request({ method: "GET", path, query: { api_token: "another" } }), (r) => JSON.parse(r.text))
      assert.deepStrictEqual(yield* read("/v1/parcels/T1"), { page: 1 })
      assert.deepStrictEqual(yield* read("/v1/parcels/T1"), { page: 2 })
      const none = yield* Effect.flip(read("/v1/parcels/T1"))
      assert.strictEqual(none._tag, "BadResponse")
      assert.include(none.message, "GET /v1/parcels/T1")
    })
  )
})
