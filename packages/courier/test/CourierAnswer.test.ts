import { assert, describe, it } from "@effect/vitest"
import { Option, Result, Schema } from "effect"
import * as CourierAnswer from "../src/CourierAnswer.ts"
import * as CourierError from "../src/CourierError.ts"
import type { CourierResponse } from "../src/CourierHttp.ts"

const answer = (status: number, text: string, headers: Readonly<Record<string, string>> = {}): CourierResponse => ({
  status,
  headers,
  text,
  bytes: new TextEncoder().encode(text)
})

const Created = Schema.Struct({ tracking: Schema.String })
const Refusal = Schema.Struct({ error: Schema.String })

/** A courier whose refusals are `{ error }` on 400 and 422, and inside a 200. */
const answers = CourierAnswer.reader({
  credentials: "the API token",
  refusal: (status, body) => {
    const refusal = Schema.decodeUnknownOption(Refusal)(body)
    return Option.isSome(refusal) && [200, 400, 422].includes(status) && refusal.value.error.trim() !== ""
      ? new CourierError.Refused({ message: CourierAnswer.clean(refusal.value.error) })
      : undefined
  }
})

const reasonOf = (result: Result.Result<unknown, CourierError.CourierErrorReason>) =>
  Result.isFailure(result) ? { _tag: result.failure._tag, message: result.failure.message } : "success"

describe("CourierAnswer", () => {
  it("decodes a 2xx body with the wire schema", () => {
    assert.deepStrictEqual(
      answers.decode(Created, answer(201, `{"tracking":"T1"}`)),
      Result.succeed({ tracking: "T1" })
    )
  })

  const cases: ReadonlyArray<
    readonly [
      string,
      CourierResponse,
      { readonly _tag: CourierError.CourierErrorReason["_tag"]; readonly message: string }
    ]
  > = [
    [
      "429 with Retry-After",
      answer(429, "{}", { "retry-after": "17" }),
      { _tag: "CourierRateLimited", message: "the courier limits this account's requests; retry in 17 s" }
    ],
    [
      "429 without it",
      answer(429, "slow down"),
      { _tag: "CourierRateLimited", message: "the courier limits this account's requests; retry in 60 s" }
    ],
    ["a 5xx", answer(503, "<html>"), { _tag: "Unreachable", message: "the courier answered HTTP 503" }],
    [
      "a 401",
      answer(401, `{"error":"bad token"}`),
      { _tag: "CredentialsRejected", message: "the courier refused the API token (HTTP 401)" }
    ],
    [
      "a 403",
      answer(403, ""),
      { _tag: "CredentialsRejected", message: "the courier refused the API token (HTTP 403)" }
    ],
    [
      "a redirect",
      answer(301, "", { location: "https://elsewhere.example/?token=secret" }),
      {
        _tag: "BadResponse",
        message: "the courier answered with a redirect (HTTP 301) instead of its API: its address may have moved"
      }
    ],
    [
      "an HTML page on 200",
      answer(200, "<!DOCTYPE html><p>maintenance</p>"),
      { _tag: "BadResponse", message: "the courier answered HTTP 200 with a body that is not JSON" }
    ],
    [
      "an HTML page on 404",
      answer(404, "<p>not found</p>"),
      { _tag: "BadResponse", message: "the courier answered HTTP 404 with a body that is not JSON" }
    ],
    [
      "a refusal inside a 200",
      answer(200, `{"error":"  solde \\n insuffisant "}`),
      { _tag: "Refused", message: "solde insuffisant" }
    ],
    ["a refusal on 422", answer(422, `{"error":"wilaya inconnue"}`), { _tag: "Refused", message: "wilaya inconnue" }],
    [
      "a refusal the courier does not document on this status",
      answer(404, `{"error":"no such route"}`),
      { _tag: "BadResponse", message: "the courier answered HTTP 404 with a body its API does not document" }
    ],
    [
      "JSON that is neither the success nor a refusal",
      answer(200, `{"surprise":true}`),
      { _tag: "BadResponse", message: "the courier answered HTTP 200 with a body its API does not document" }
    ]
  ]

  for (const [name, response, expected] of cases) {
    it(`decode: ${name}`, () => {
      assert.deepStrictEqual(reasonOf(answers.decode(Created, response)), expected)
    })
  }

  it("errorOf says the same of every answer that is not a success", () => {
    for (const [name, response, expected] of cases) {
      if (response.status >= 200 && response.status < 300) continue
      const reason = answers.errorOf(response)
      assert.deepStrictEqual({ _tag: reason._tag, message: reason.message }, expected, name)
    }
  })

  it("carries the courier's own retryAfter and its words on a refused credential", () => {
    const own = CourierAnswer.reader({
      credentials: "the API key",
      rejection: (body) => Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(Refusal)(body), (b) => b.error)),
      retryAfter: (headers) => (headers["x-quota-left"] === "0" ? 3600 : 60)
    })
    const limited = own.errorOf(answer(429, "", { "x-quota-left": "0" }))
    assert.strictEqual(limited._tag === "CourierRateLimited" && limited.retryAfterSeconds, 3600)
    assert.strictEqual(
      own.errorOf(answer(401, `{"error":"Invalid\\n token."}`)).message,
      "the courier refused the API key (HTTP 401: Invalid token.)"
    )
    assert.strictEqual(own.errorOf(answer(401, `{"error":"  "}`)).message, "the courier refused the API key (HTTP 401)")
    assert.strictEqual(own.errorOf(answer(401, "not json")).message, "the courier refused the API key (HTTP 401)")
    // Without a refusal rule, any JSON that is not the success is undocumented.
    assert.strictEqual(own.errorOf(answer(400, `{"error":"x"}`))._tag, "BadResponse")
  })

  it("clean keeps the courier's words on one line and cuts them", () => {
    assert.strictEqual(CourierAnswer.clean("  a\n\tb   c "), "a b c")
    assert.strictEqual(CourierAnswer.clean("x".repeat(400)).length, 300)
    assert.strictEqual(CourierAnswer.clean("abcdef", 4), "abc…")
  })

  it("json reads JSON text, and nothing else", () => {
    assert.deepStrictEqual(CourierAnswer.json(`{"a":[1]}`), Option.some({ a: [1] }))
    assert.deepStrictEqual(CourierAnswer.json("<html>"), Option.none())
    assert.deepStrictEqual(CourierAnswer.json(""), Option.none())
  })

  it("isPdf tells a PDF by its first bytes", () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    assert.isTrue(CourierAnswer.isPdf(bytes("%PDF-1.4\n")))
    assert.isFalse(CourierAnswer.isPdf(bytes("%PDF")))
    assert.isFalse(CourierAnswer.isPdf(bytes("<html>%PDF-")))
  })
})
