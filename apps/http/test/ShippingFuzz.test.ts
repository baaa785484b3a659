import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import fc from "fast-check"
import { startApp } from "./AppProcess.ts"

const RUNS = 2000

const validOrder = {
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
const validTrack = { courier: "sandbox", trackingNumber: "SBX000000000000" }
const validRates = { courier: "sandbox", query: { toWilaya: 31, deliveryType: "home" } }
const validLabel = { courier: "sandbox", trackingNumber: "SBX000000000000" }

/** Anything JSON can carry, weighted towards the shapes that break parsers. */
const nasty = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(null, "", " ", -1, 0, 1e308, -0, 59, 1.5, true, [], {}, "0555123456", "\u0000", "🇩🇿", "<script>"),
  fc.string({ maxLength: 600 }),
  fc.integer(),
  fc.double({ noNaN: true })
)

/** A valid body with one path replaced, removed, or an unknown field added. */
const mutated = (valid: unknown) =>
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
          DATA_DIR: yield* TestDatabase.freshDataDir,
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
