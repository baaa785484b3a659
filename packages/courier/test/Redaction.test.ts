import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CourierHttp } from "../src/CourierHttp.ts"
import * as Redaction from "../src/Redaction.ts"

describe("Redaction.scrubbing", () => {
  it.effect("blanks the credentials out of an answer's body and header values before the adapter reads them", () =>
    Effect.gen(function* () {
      const key = "canary-key-51e0c7a9"
      const http = CourierHttp.of({
        request: () =>
          Effect.succeed({
            status: 302,
            headers: { location: `https://api.example.dz/login?apiKey=${key}`, "content-type": "text/html" },
            text: `moved: apiKey=${encodeURIComponent(key)}`,
            bytes: new Uint8Array()
          })
      })
      const scrubbed = Redaction.scrubbing(http, Redaction.scrubber([key]))
      const response = yield* scrubbed.request({ method: "GET", path: "/x" })
      assert.notInclude(JSON.stringify(response.headers), key)
      assert.notInclude(response.text, key)
      assert.include(response.headers.location ?? "", Redaction.PLACEHOLDER)
      assert.strictEqual(response.headers["content-type"], "text/html")
    })
  )
})
