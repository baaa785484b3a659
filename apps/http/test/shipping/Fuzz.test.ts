/**
 * Generated bodies against the shipping API's POST endpoints in memory: each answers 200, 400 or 422 in the
 * envelope (the harness checks every refusal's shape), never a 5xx. The same bodies (same seed) through the app's
 * process: `../ShippingFuzz.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { mutated, nasty, validOrder } from "../ShippingBodies.ts"
import * as InMemory from "./InMemory.ts"

const RUNS = 2000

const bodies = (valid: unknown) =>
  fc.sample(fc.oneof({ weight: 3, arbitrary: mutated(valid) }, { weight: 1, arbitrary: nasty }), {
    numRuns: RUNS,
    seed: 20261121
  })

const endpoints = [
  ["/v1/orders", validOrder],
  ["/v1/track", { courier: "sandbox", trackingNumber: "SBX000000000000" }],
  ["/v1/rates", { courier: "sandbox", query: { toWilaya: 31, deliveryType: "home" } }],
  ["/v1/labels", { courier: "sandbox", trackingNumber: "SBX000000000000" }],
  ["/v1/cancel", { courier: "sandbox", trackingNumber: "SBX000000000000" }],
  ["/v1/stop-desks", { courier: "sandbox", wilayaCode: 16 }],
  ["/v1/desks", { courier: "sandbox", wilayaCode: 16 }],
  ["/v1/communes/resolve", { courier: "sandbox", wilayaCode: 16, communeName: "Hydra" }],
  ["/v1/rates/compare", { couriers: [{ courier: "sandbox" }], query: { toWilaya: 31, deliveryType: "home" } }]
] as const

layer(InMemory.layer(), { excludeTestServices: true })("fuzzing the shipping API (memory)", (it) => {
  for (const [path, valid] of endpoints) {
    it.effect(`${path}: ${RUNS} generated bodies get 200, 400 or 422 in the envelope — never a 5xx`, () =>
      Effect.gen(function* () {
        const statuses = new Map<number, number>()
        for (const body of bodies(valid)) {
          const answer = yield* InMemory.post(path, body)
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
          if (![200, 400, 422].includes(answer.status)) {
            assert.fail(`${path} answered ${answer.status} to ${JSON.stringify(body).slice(0, 300)}: ${answer.text}`)
          }
        }
        assert.isAbove(statuses.get(400) ?? 0, RUNS / 2, `${path}: most generated bodies are invalid`)
      })
    )
  }
})
