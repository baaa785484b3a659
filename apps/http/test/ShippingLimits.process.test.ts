/**
 * The shipping API's per-client window across instances, as users run it: two app processes, one client address.
 * With `REDIS_URL` the window is shared — the two together admit the limit once — and without it each process
 * keeps its own (the documented fallback). The Redis half runs where `REDIS_URL` is set (`.ci/run` sets it to the
 * machine's Redis), as the server-database tests run where `DATABASE_URL` is.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import { createClient } from "redis"
import { startApp } from "./AppProcess.ts"

const LIMIT = 5
const redisUrl = process.env.REDIS_URL

/** Rates for the sandbox: cheap, and counted by the window like every shipping call. */
const rates = (base: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/v1/rates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ courier: "sandbox", query: { toWilaya: 16, deliveryType: "home" } })
    })
    await response.arrayBuffer()
    return { status: response.status, retryAfter: response.headers.get("retry-after") }
  })

/** Two apps on their own embedded databases, with `env` besides; 20 calls from one address, alternating. */
const twoInstances = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const common = { SHIPPING_RATE_LIMIT_PER_MINUTE: String(LIMIT), ...env }
    const first = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir, ...common })
    const second = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir, ...common })
    const answers = []
    for (let i = 0; i < 20; i++) answers.push(yield* rates(i % 2 === 0 ? first.shippingUrl : second.shippingUrl))
    return answers
  }).pipe(Effect.scoped)

describe("the shipping API's per-client window across instances", () => {
  it.live("without REDIS_URL, each instance keeps its own window", () =>
    Effect.gen(function* () {
      const answers = yield* twoInstances({})
      assert.strictEqual(answers.filter((answer) => answer.status === 200).length, 2 * LIMIT)
    })
  )

  if (redisUrl !== undefined) {
    it.live("with REDIS_URL, the instances share it: the limit is admitted once in all", () =>
      Effect.gen(function* () {
        // A window of an earlier run may still be open for this address: start from none.
        yield* Effect.acquireUseRelease(
          Effect.promise(() => createClient({ url: redisUrl }).connect()),
          (client) => Effect.promise(() => client.del("tawsil:ratelimit:tawsil:shipping:client:127.0.0.1")),
          (client) => Effect.promise(() => client.close())
        )
        const answers = yield* twoInstances({ REDIS_URL: redisUrl })
        assert.strictEqual(answers.filter((answer) => answer.status === 200).length, LIMIT)
        const refused = answers.filter((answer) => answer.status === 429)
        assert.strictEqual(refused.length, 20 - LIMIT)
        for (const answer of refused) assert.match(answer.retryAfter ?? "", /^[1-9][0-9]*$/)
      })
    )
  }
})
