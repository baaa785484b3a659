import { readdirSync, readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Fetch from "../src/index.ts"

/** The modules a caller loads (the generator under `internal/` and `scripts/` runs in this repository only). */
const FETCH = Path.resolve(import.meta.dirname, "../src")

/** A `fetch` that answers one status and body, and records what it was asked. */
const answering = (status: number, body: unknown) => {
  const asked: Array<{ url: string; init: RequestInit | undefined }> = []
  const fetch = (async (url: string, init?: RequestInit) => {
    asked.push({ url, init })
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })
  }) as typeof globalThis.fetch
  return { fetch, asked }
}

describe("Fetch", () => {
  it("has no runtime dependency: its modules import only one another (and types)", () => {
    for (const file of readdirSync(FETCH).filter((name) => name.endsWith(".ts"))) {
      const text = readFileSync(Path.join(FETCH, file), "utf8")
      for (const [statement, specifier] of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)) {
        if (!specifier!.startsWith("./")) assert.match(statement, /^(import|export) type /, `${file}: ${statement}`)
      }
    }
  })

  it("fills the path, query and headers, sends the bearer token and the JSON body", async () => {
    const { fetch, asked } = answering(200, { data: { id: 7 }, meta: { request_id: "r", api_version: "v1" } })
    const store = Fetch.store({ baseUrl: "http://store.test/", token: "twpk_test_1.secret", fetch })
    const answer = await store.call("orders.updateOrderStatus", {
      params: { id: 7 },
      body: { status: "confirmed" },
      headers: { "idempotency-key": "k-1" }
    })
    assert.isTrue(answer.ok)
    const { url, init } = asked[0]!
    assert.strictEqual(url, "http://store.test/v1/orders/7")
    assert.strictEqual(init?.method, "PATCH")
    assert.deepInclude(init?.headers as Record<string, string>, {
      authorization: "Bearer twpk_test_1.secret",
      "idempotency-key": "k-1",
      "content-type": "application/json"
    })
    assert.strictEqual(init?.body, JSON.stringify({ status: "confirmed" }))
  })

  it("answers a declared failure as a value narrowed by status, and throws on an undeclared one", async () => {
    const refused = answering(401, { error: { code: "unauthorized", message: "no" }, meta: { request_id: "r" } })
    const answer = await Fetch.store({ baseUrl: "http://store.test", fetch: refused.fetch }).call("access.whoami")
    assert.deepStrictEqual(
      [answer.ok, !answer.ok && answer.status === 401 && answer.error.error.code],
      [false, "unauthorized"]
    )
    const teapot = answering(418, { error: { code: "teapot", message: "no" } })
    const failed = await Fetch.shipping({ baseUrl: "http://ship.test", fetch: teapot.fetch })
      .call("reference.couriers")
      .then(
        () => undefined,
        (error: unknown) => error
      )
    assert.instanceOf(failed, Fetch.UnexpectedAnswer)
    assert.strictEqual((failed as Fetch.UnexpectedAnswer).status, 418)
    const { url } = teapot.asked[0]!
    assert.strictEqual(url, "http://ship.test/v1/couriers")
  })
})
