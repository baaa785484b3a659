import { assert, describe, it } from "@effect/vitest"
import { parseOtlpHeaders } from "../src/AppConfig.ts"
import { safeAttribute, withoutQuery } from "../src/Telemetry.ts"

describe("Telemetry", () => {
  it("exports no query string, client address or header among span attributes", () => {
    assert.strictEqual(
      safeAttribute("url.full", "http://user:pw@127.0.0.1:8080/v1/communes?wilaya=16&q=bab#x"),
      "http://127.0.0.1:8080/v1/communes"
    )
    assert.isUndefined(safeAttribute("url.query", "q=bab"))
    assert.isUndefined(safeAttribute("client.address", "203.0.113.7"))
    assert.isUndefined(safeAttribute("http.request.header.authorization", "Bearer x"))
    assert.isUndefined(safeAttribute("http.response.header.set-cookie", "a=b"))
    assert.strictEqual(safeAttribute("http.route", "/v1/orders/:id"), "/v1/orders/:id")
    assert.strictEqual(safeAttribute("http.response.status_code", 201), 201)
    assert.strictEqual(withoutQuery("/v1/orders?token=x"), "/v1/orders")
  })

  it("reads OTEL_EXPORTER_OTLP_HEADERS as the OTel spec writes it, and refuses what is not", () => {
    assert.deepStrictEqual(parseOtlpHeaders("x-api-key=abc%20def, Authorization=Basic%3D"), {
      "x-api-key": "abc def",
      authorization: "Basic="
    })
    assert.deepStrictEqual(parseOtlpHeaders(""), {})
    assert.isUndefined(parseOtlpHeaders("no-equals-sign"))
    assert.isUndefined(parseOtlpHeaders("bad name=x"))
    assert.isUndefined(parseOtlpHeaders("k=%E0%A4%A"))
  })
})
