import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Subscription from "../src/Subscription.ts"

const valid = { url: "https://hooks.example.com/tawsil", events: ["order.created"] }

const messageOf = <A>(effect: Effect.Effect<A, { readonly message: string }>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

describe("Subscription bodies", () => {
  it.effect("refuse text PostgreSQL cannot keep (NUL, a lone surrogate) with the field's message", () =>
    Effect.gen(function* () {
      const description = "description must be a string of at most 255 characters, or null"
      for (const bad of ["\u0000", "orders\u0000", "\ud800", "x\udc00"]) {
        assert.strictEqual(
          yield* messageOf(Subscription.decodeCreate({ ...valid, description: bad })),
          description,
          JSON.stringify(bad)
        )
        assert.strictEqual(yield* messageOf(Subscription.decodePatch({ description: bad })), description)
        assert.match(
          yield* messageOf(Subscription.decodeCreate({ ...valid, events: [`order.created${bad}`] })),
          /^events\[0\]/
        )
      }
      const kept = yield* Subscription.decodeCreate({ ...valid, description: "Commandes 🇩🇿\u0001" })
      assert.strictEqual(kept.description, "Commandes 🇩🇿\u0001")
    })
  )
})
