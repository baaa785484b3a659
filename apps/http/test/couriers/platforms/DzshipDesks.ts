/**
 * dzship's `desks()` call against the app of `Platforms.db.test.ts` (in this process, real sockets), through a client
 * written from dzship's published endpoint documentation (`../../DzshipDesks.ts`): the sandbox's desks as
 * `/v1/stop-desks` has them in dzship's shape, and each bad call — no wilaya, wilaya 0, 59 (2026 division) and 70, an
 * unknown courier, credentials the courier's schema refuses, credentials the courier itself refuses (MDM's fake), a
 * courier without desks — in the documented envelope, never a 5xx. The refused key is a canary: it must come back in
 * no answer.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { MdmFake } from "../../../../../adapters/mdm/test/fake/MdmFake.ts"
import { type DzshipError, rejected } from "../../Dzship.ts"
import { desksClient } from "../../DzshipDesks.ts"
import { Platforms } from "../Platforms.ts"

/** An MDM key the fake does not know: refused by the courier, never to be echoed. */
const REFUSED = "canary-desks-mdm-0b7e52a91c3d"

const fields = (error: DzshipError) => Object.keys(error.fields ?? {})

/** The suite: `Platforms.db.test.ts` runs it with the app and the MDM fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | MdmFake>) =>
  it.effect("dzship's desks() reads the sandbox's desks and every refusal in the envelope", () =>
    Effect.gen(function* () {
      const { app } = yield* Platforms
      const gateway = app.shippingUrl
      const sandbox = desksClient({ gateway, courier: "sandbox" })

      const desks = yield* Effect.promise(() => sandbox.desks(16))
      const stopDesks = yield* Effect.promise(() =>
        fetch(`${gateway}/v1/stop-desks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ courier: "sandbox", wilayaCode: 16 })
        }).then((response) => response.json() as Promise<Array<Record<string, unknown>>>)
      )
      assert.isNotEmpty(desks)
      assert.deepStrictEqual<ReadonlyArray<unknown>>(
        desks,
        stopDesks.map(({ phone: _, ...desk }) => desk)
      )
      for (const desk of desks) {
        assert.isString(desk.id)
        assert.isString(desk.name)
        assert.strictEqual(desk.wilayaCode, 16)
      }

      for (const wilayaCode of [0, 59, 70]) {
        const refused = yield* rejected(sandbox.desks(wilayaCode))
        assert.strictEqual(refused.name, "DzshipError")
        assert.deepStrictEqual([refused.status, refused.code], [400, "invalid_input"], String(wilayaCode))
        assert.deepStrictEqual(fields(refused), ["wilayaCode"])
        if (wilayaCode === 59) assert.include(String(refused.fields?.wilayaCode), "send wilayaCode 3")
      }
      const missing = yield* Effect.promise(() =>
        fetch(`${gateway}/v1/desks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ courier: "sandbox" })
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as { error: { code: string; fields?: Record<string, string> } }
        }))
      )
      assert.strictEqual(missing.status, 400)
      assert.strictEqual(missing.body.error.code, "invalid_input")
      assert.property(missing.body.error.fields, "wilayaCode")

      const unknown = yield* rejected(desksClient({ gateway, courier: "no_such_courier" }).desks(16))
      assert.deepStrictEqual([unknown.status, unknown.code], [400, "unknown_courier"])

      const fake = yield* MdmFake
      const sent = fake.requests.length
      const badShape = yield* rejected(
        desksClient({ gateway, courier: "mdm", credentials: { apiKey: "short" } }).desks(16)
      )
      assert.deepStrictEqual([badShape.status, badShape.code], [400, "invalid_credentials"])
      const noCredentials = yield* rejected(desksClient({ gateway, courier: "mdm" }).desks(16))
      assert.deepStrictEqual([noCredentials.status, noCredentials.code], [400, "invalid_credentials"])
      assert.strictEqual(fake.requests.length, sent, "nothing reached MDM")

      const refusedKey = yield* rejected(
        desksClient({ gateway, courier: "mdm", credentials: { apiKey: REFUSED } }).desks(16)
      )
      assert.deepStrictEqual([refusedKey.status, refusedKey.code], [422, "credentials_rejected"])
      assert.notInclude(refusedKey.message, REFUSED)
      assert.isAbove(fake.requests.length, sent, "MDM itself refused the key")

      const mylerz = yield* rejected(
        desksClient({ gateway, courier: "mylerz", credentials: { username: "merchant", password: REFUSED } }).desks(16)
      )
      assert.deepStrictEqual([mylerz.status, mylerz.code], [400, "unsupported"], "Mylerz documents no desk list")
      assert.notInclude(mylerz.message, REFUSED)

      const { afterStop } = yield* Platforms
      afterStop.push((everything) => {
        for (const [where, text] of [
          ["stdout", app.stdout()],
          ["stderr", app.stderr()],
          ["the database", everything]
        ] as const) {
          assert.notInclude(text, REFUSED, `the refused key leaked into ${where}`)
        }
      })
    })
  )
