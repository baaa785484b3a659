import { assert, it, layer } from "@effect/vitest"
import { Changes } from "@tawsil/changes"
import { BigDecimal, Effect } from "effect"
import { TestClock } from "effect/testing"
import { Promos } from "../src/Promos.ts"
import { Redemptions } from "../src/Redemptions.ts"
import { backends, Fixtures, memory, sql } from "./Backends.ts"
import { PromosSuite } from "./PromosSuite.ts"

layer(memory)("Promos (memory)", (it) => {
  PromosSuite(it)

  it.effect("a confirmation token is valid for 600 seconds", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const store = yield* (yield* Fixtures).newStore
      const writer = { storeId: store, keyId: null, dashboardKey: false }
      const body = { code: "FREE", discount_type: "percentage", discount_value: 100 }
      const token = (error: { readonly reason: unknown }) =>
        (error.reason as { readonly confirmToken: string }).confirmToken
      const first = token(yield* Effect.flip(promos.create(writer, body)))
      yield* TestClock.adjust("600 seconds")
      const late = yield* Effect.flip(promos.create(writer, { ...body, confirm_token: first }))
      assert.strictEqual(late.reason._tag, "ConfirmationStale")
      yield* TestClock.adjust("599 seconds")
      const created = yield* promos.create(writer, { ...body, confirm_token: token(late) })
      assert.strictEqual(created.code, "FREE", "the fresh token, 599 s later")
    })
  )
})

/** N checkouts redeem a code with M < N uses at once, each in its own transaction: exactly M succeed. */
const redemptionRace = (checkouts: number, maxUses: number) =>
  Effect.gen(function* () {
    const promos = yield* Promos
    const redemptions = yield* Redemptions
    const fixtures = yield* Fixtures
    const store = yield* fixtures.newStore
    const writer = { storeId: store, keyId: null, dashboardKey: false }
    yield* promos.create(writer, { code: "RUSH", discount_type: "fixed", discount_value: 500, max_uses: maxUses })
    const outcomes = yield* Effect.all(
      Array.from({ length: checkouts }, () =>
        fixtures.transaction(redemptions.redeem(store, "RUSH", BigDecimal.fromBigInt(3000n))).pipe(Effect.result)
      ),
      { concurrency: "unbounded" }
    )
    const succeeded = outcomes.filter((outcome) => outcome._tag === "Success")
    const refused = outcomes.flatMap((outcome) => (outcome._tag === "Failure" ? [outcome.failure.reason._tag] : []))
    assert.strictEqual(succeeded.length, maxUses)
    assert.deepStrictEqual(new Set(refused), new Set(["UsesExhausted"]))
    assert.deepStrictEqual(
      succeeded.map((outcome) => (outcome._tag === "Success" ? outcome.success.usedCount : 0)).sort((a, b) => a - b),
      Array.from({ length: maxUses }, (_, n) => n + 1)
    )
    assert.strictEqual((yield* promos.list(store)).items[0]!.used_count, maxUses)
  })

it.effect("Redemptions (memory): 40 simultaneous checkouts of a code with 7 uses, exactly 7 succeed", () =>
  redemptionRace(40, 7).pipe(Effect.provide(memory))
)

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(`Promos (sql, ${backend.name})`, (it) => {
    PromosSuite(it)

    it.effect("40 simultaneous checkouts of a code with 7 uses: exactly 7 succeed", () => redemptionRace(40, 7))

    it.effect("a write and its change record commit or roll back together", () =>
      Effect.gen(function* () {
        const promos = yield* Promos
        const changes = yield* Changes.Changes
        const fixtures = yield* Fixtures
        const store = yield* fixtures.newStore
        const writer = { storeId: store, keyId: null, dashboardKey: false }
        // The HTTP layer's transaction fails after the write (a defect stands in for any later failure).
        const exit = yield* fixtures
          .transaction(
            Effect.andThen(
              promos.create(writer, { code: "GHOST", discount_type: "fixed", discount_value: 1 }),
              Effect.die("boom")
            )
          )
          .pipe(Effect.exit)
        assert.isTrue(exit._tag === "Failure")
        assert.deepStrictEqual((yield* promos.list(store)).items, [])
        assert.deepStrictEqual((yield* changes.list(store)).items, [])
        yield* fixtures.transaction(promos.create(writer, { code: "REAL", discount_type: "fixed", discount_value: 1 }))
        assert.strictEqual((yield* changes.list(store)).items.length, 1)
      })
    )
  })
}
