/** BoundUrls: a listener's bound URL, told once it listens and awaited by the app's own clients (the MCP endpoint). */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as BoundUrls from "../src/BoundUrls.ts"

describe("BoundUrls", () => {
  it("reaches a wildcard address on the loopback interface, and any other as bound", () => {
    assert.strictEqual(BoundUrls.reachable("http://0.0.0.0:8080"), "http://127.0.0.1:8080")
    assert.strictEqual(BoundUrls.reachable("http://[::]:8080"), "http://[::1]:8080")
    assert.strictEqual(BoundUrls.reachable("http://127.0.0.1:41234"), "http://127.0.0.1:41234")
    assert.strictEqual(BoundUrls.reachable("http://10.0.0.5:8081/"), "http://10.0.0.5:8081")
  })

  it.effect("a URL asked before its listener listens is answered once it does", () =>
    Effect.gen(function* () {
      const bound = yield* BoundUrls.BoundUrls
      const waiting = yield* Effect.forkChild(bound.urlOf("store"))
      yield* bound.report("shipping", "http://0.0.0.0:8080")
      assert.strictEqual(yield* bound.urlOf("shipping"), "http://127.0.0.1:8080")
      assert.isUndefined(waiting.pollUnsafe())
      yield* bound.report("store", "http://[::]:8081")
      assert.strictEqual(yield* Fiber.join(waiting), "http://[::1]:8081")
    }).pipe(Effect.provide(BoundUrls.layer))
  )
})
