/**
 * dzship's `POST /v1/desks` in memory (`src/shipping/shipping`): the same desks as `/v1/stop-desks` in dzship's
 * answer shape (`{ id, name, wilayaCode, communeName?, address? }`, no `phone`), and every bad call in the envelope —
 * a missing or out-of-range wilaya (0, 59 of the 2026 division, 70), an unknown courier, credentials the courier
 * needs and was not given or refuses, a courier without desks. Through the app's socket with dzship's own client:
 * `../couriers/platforms/DzshipDesks.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, memcoCall, post } = InMemory

const sandbox = { courier: "sandbox" }

layer(InMemory.layer(), { excludeTestServices: true })("POST /v1/desks (memory)", (it) => {
  it.effect("answers the stop desks of /v1/stop-desks in dzship's shape, in the same order", () =>
    Effect.gen(function* () {
      for (const wilayaCode of [16, 31, 11]) {
        const desks = yield* post("/v1/desks", { ...sandbox, wilayaCode })
        const stopDesks = yield* post("/v1/stop-desks", { ...sandbox, wilayaCode })
        assert.strictEqual(desks.status, 200, desks.text)
        assert.strictEqual(stopDesks.status, 200, stopDesks.text)
        assert.isArray(desks.body)
        assert.deepStrictEqual(
          desks.body,
          (stopDesks.body as ReadonlyArray<Record<string, unknown>>).map(({ phone: _, ...desk }) => desk)
        )
        for (const desk of desks.body as ReadonlyArray<Record<string, unknown>>) {
          assert.includeMembers(Object.keys(desk), ["id", "name", "wilayaCode"])
          for (const key of Object.keys(desk)) {
            assert.include(["id", "name", "wilayaCode", "communeName", "address"], key, "dzship's fields only")
          }
          assert.strictEqual(desk.wilayaCode, wilayaCode)
          assert.isTrue(Object.values(desk).every((value) => value !== null && value !== undefined))
        }
      }
      const algiers = yield* post("/v1/desks", { ...sandbox, wilayaCode: 16 })
      assert.isNotEmpty(algiers.body, "the sandbox has desks in Algiers")
    })
  )

  it.effect("refuses a missing or out-of-range wilaya with 400 invalid_input naming wilayaCode", () =>
    Effect.gen(function* () {
      const missing = yield* post("/v1/desks", sandbox)
      assert.deepStrictEqual(codeOf(missing), [400, "invalid_input"])
      assert.property(missing.body.error.fields, "wilayaCode")
      for (const wilayaCode of [0, 59, 70, -1, 16.5, "16", null]) {
        const refused = yield* post("/v1/desks", { ...sandbox, wilayaCode })
        assert.deepStrictEqual(codeOf(refused), [400, "invalid_input"], JSON.stringify(wilayaCode))
        assert.property(refused.body.error.fields, "wilayaCode", JSON.stringify(wilayaCode))
      }
      const newWilaya = yield* post("/v1/desks", { ...sandbox, wilayaCode: 59 })
      const stopDesks = yield* post("/v1/stop-desks", { ...sandbox, wilayaCode: 59 })
      assert.include(newWilaya.body.error.fields.wilayaCode, "send wilayaCode 3", "the code couriers deliver it as")
      assert.deepStrictEqual(newWilaya.body, stopDesks.body, "the same words as /v1/stop-desks")
      const beyond = yield* post("/v1/desks", { ...sandbox, wilayaCode: 70 })
      assert.strictEqual(beyond.body.error.fields.wilayaCode, "Expected a wilaya code, an integer from 1 to 58")
      const extra = yield* post("/v1/desks", { ...sandbox, wilayaCode: 16, wilaya: 16 })
      assert.deepStrictEqual(codeOf(extra), [400, "invalid_input"], "an unknown field is refused, as everywhere")
    })
  )

  it.effect("an unknown courier, missing or refused credentials and a courier without desks, in the envelope", () =>
    Effect.gen(function* () {
      const unknown = yield* post("/v1/desks", { courier: "no_such_courier", wilayaCode: 16 })
      const unknownStopDesks = yield* post("/v1/stop-desks", { courier: "no_such_courier", wilayaCode: 16 })
      assert.strictEqual(unknown.status, 400, unknown.text)
      assert.deepStrictEqual(unknown.body, unknownStopDesks.body)
      const memco = InMemory.Memco
      const sent = (yield* memco).creates.length
      const noCredentials = yield* post("/v1/desks", { courier: "memco", wilayaCode: 16 })
      assert.strictEqual(noCredentials.status, 400, noCredentials.text)
      const badShape = yield* post("/v1/desks", { courier: "memco", credentials: { apiKey: "x" }, wilayaCode: 16 })
      assert.strictEqual(badShape.status, 400, badShape.text)
      // memco lists no desks: the host answers before any courier call.
      const unsupported = yield* post("/v1/desks", { ...memcoCall("rejected"), wilayaCode: 16 })
      assert.deepStrictEqual(codeOf(unsupported), [400, "unsupported"])
      assert.strictEqual((yield* memco).creates.length, sent)
      for (const answer of [unknown, noCredentials, badShape, unsupported]) {
        assert.hasAllKeys(answer.body, ["error"])
        assert.isString(answer.body.error.code)
        assert.isString(answer.body.error.message)
        assert.notInclude(answer.text, "rejected", "no credential in an error body")
      }
    })
  )
})
