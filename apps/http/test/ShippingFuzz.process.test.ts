import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import fc from "fast-check"
import { startApp } from "./AppProcess.ts"
import { mutated, nasty, validOrder } from "./ShippingBodies.ts"

const RUNS = 2000

const validTrack = { courier: "sandbox", trackingNumber: "SBX000000000000" }
const validRates = { courier: "sandbox", query: { toWilaya: 31, deliveryType: "home" } }
const validLabel = { courier: "sandbox", trackingNumber: "SBX000000000000" }

const bodies = (valid: unknown) =>
  fc.sample(fc.oneof({ weight: 3, arbitrary: mutated(valid) }, { weight: 1, arbitrary: nasty }), {
    numRuns: RUNS,
    seed: 20261121
  })

describe("fuzzing the shipping API's POST endpoints", () => {
  it.live(
    `${RUNS} generated bodies per endpoint get 200, 400 or 422 in the envelope — never a 5xx`,
    () =>
      Effect.gen(function* () {
        const app = yield* startApp({
          DATA_DIR: yield* TestDatabase.migratedDataDir,
          SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
          LOG_LEVEL: "warn"
        })
        for (const [path, valid] of [
          ["/v1/orders", validOrder],
          ["/v1/track", validTrack],
          ["/v1/rates", validRates],
          ["/v1/labels", validLabel]
        ] as const) {
          const statuses = new Map<number, number>()
          yield* Effect.forEach(
            bodies(valid),
            (body) =>
              Effect.promise(async () => {
                const response = await fetch(`${app.shippingUrl}${path}`, {
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: JSON.stringify(body)
                })
                const text = await response.text()
                statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
                if (response.status >= 400) {
                  const envelope = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
                  if (typeof envelope.error?.code !== "string" || typeof envelope.error.message !== "string") {
                    throw new Error(`${path} ${response.status} outside the envelope: ${text.slice(0, 200)}`)
                  }
                }
                if (![200, 400, 422].includes(response.status)) {
                  throw new Error(
                    `${path} answered ${response.status} to ${JSON.stringify(body).slice(0, 300)}: ${text.slice(0, 300)}`
                  )
                }
              }),
            { concurrency: 8, discard: true }
          )
          assert.isAbove(statuses.get(400) ?? 0, RUNS / 2, `${path}: most generated bodies are invalid`)
        }
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
})
