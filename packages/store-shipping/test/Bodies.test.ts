import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Cause, Effect, Exit, Option, Redacted } from "effect"
import * as fc from "fast-check"
import { parseRatesBody, parseSyncBody } from "../src/Rate.ts"
import { settingsPatchParser } from "../src/Settings.ts"

const KEYS: Readonly<Record<string, string>> = { sandbox: "sandbox", testco: "testco", tc: "testco" }
const parseSettings = settingsPatchParser((keyOrAlias) => KEYS[keyOrAlias])

const refusal = <A>(effect: Effect.Effect<A, string>) => Effect.runSync(Effect.flip(effect))

/** A refusal names the body, or a field the body schema has, first, then says what it must be. */
const FIELDS =
  /^(Body must be a JSON object|(rates(\[\d+\](\.(wilaya_id|home_price|desk_price))?)?|courier|credentials|base_url|tier|wilaya_ids(\[\d+\])?|origin_wilaya|default_courier|free_shipping_threshold|default_delivery_type|cod_fee_payer|cod_fee_percent)(:| must be ))/

const nested = fc.integer({ min: 1, max: 1_000 }).map((depth) => {
  let value: unknown = 16
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value }
  return value
})

const nasty = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.constantFrom("\u0000", "testco\u0000", "\ud800", "\u001b[2J", "4\u000000", "1e309", "-0", "", " "),
  fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, 2 ** 53 + 1, Number.MIN_VALUE, -0, 59, 69, 0, 58.5),
  fc.double(),
  fc.jsonValue(),
  nested
)

/** Any exit of a parser: its value, or a refusal naming its field; never a defect. */
const answered = (exit: Exit.Exit<unknown, string>) =>
  Exit.isSuccess(exit) ||
  (!Cause.hasDies(exit.cause) && Cause.findErrorOption(exit.cause).pipe(Option.exists((text) => FIELDS.test(text))))

describe("store-shipping bodies", () => {
  it("reads a rates body: prices sent, null or kept", () => {
    const patches = Effect.runSync(
      parseRatesBody({ rates: [{ wilaya_id: 16, home_price: "450.50", desk_price: null }, { wilaya_id: 9 }] })
    )
    assert.deepStrictEqual(
      patches.map(
        (patch): ReadonlyArray<unknown> => [
          patch.wilaya_id,
          patch.home_price === null || patch.home_price === undefined
            ? patch.home_price
            : BigDecimal.format(patch.home_price),
          patch.desk_price
        ]
      ),
      [
        [16, "450.5", null],
        [9, undefined, undefined]
      ]
    )
  })

  it("names the field and the wilaya in each refusal", () => {
    assert.strictEqual(
      refusal(parseRatesBody({ rates: [{ wilaya_id: 16 }, { wilaya_id: 9 }, { wilaya_id: 16, home_price: 1 }] })),
      "rates[2].wilaya_id: wilaya 16 is listed twice"
    )
    assert.strictEqual(
      refusal(parseRatesBody({ rates: [{ home_price: 1 }] })),
      "rates[0].wilaya_id must be a wilaya code, an integer from 1 to 58"
    )
    assert.strictEqual(refusal(parseSyncBody({ courier: "sandbox", tier: "fast" })), "tier must be economic or express")
    assert.strictEqual(refusal(parseRatesBody({})), "rates must be an array of 1 to 58 rates")
    assert.strictEqual(
      refusal(parseSyncBody({ courier: "sandbox", wilaya_ids: [16, 16.5] })),
      "wilaya_ids[1] must be a wilaya code, an integer from 1 to 58"
    )
    assert.strictEqual(
      refusal(parseSettings({ origin_wilaya: 16, default_courier: "nobody", cod_fee_payer: "courier" })),
      "default_courier must be a courier key of GET /v1/couriers, or null"
    )
    assert.strictEqual(
      refusal(parseSettings({ cod_fee_percent: "abc" })),
      'cod_fee_percent must be an amount from 0 to 100 (a number, or a decimal string such as "450.00")'
    )
  })

  it("reads a sync body: the courier trimmed, credentials redacted, all 58 wilayas by default", () => {
    const request = Effect.runSync(parseSyncBody({ courier: " testco ", credentials: { token: "t" }, tier: null }))
    assert.strictEqual(request.courier, "testco")
    assert.deepStrictEqual(Redacted.value(request.credentials!), { token: "t" })
    assert.strictEqual(request.tier, undefined)
    assert.strictEqual(request.wilayas.length, 58)
  })

  it("never echoes a credential in a refusal", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 12 }), nasty, (secret, other) => {
        const text = refusal(parseSyncBody({ courier: "testco", credentials: { token: `${secret}\u0000`, other } }))
        return !text.includes(secret) && text.startsWith("credentials must be")
      }),
      { numRuns: 100 }
    )
  })

  it("reads settings: an alias is saved as its key, null clears", () => {
    const patch = Effect.runSync(parseSettings({ default_courier: "tc", origin_wilaya: null, cod_fee_percent: "1.5" }))
    assert.strictEqual(patch.default_courier, "testco")
    assert.strictEqual(patch.origin_wilaya, null)
    assert.strictEqual(BigDecimal.format(patch.cod_fee_percent!), "1.5")
  })

  it("answers any body with its values or a refusal naming the field, never a defect", () => {
    const ratesField = fc.constantFrom("wilaya_id", "home_price", "desk_price", "__proto__")
    const syncField = fc.constantFrom("courier", "credentials", "base_url", "tier", "wilaya_ids", "__proto__")
    const settingsField = fc.constantFrom(
      "origin_wilaya",
      "default_courier",
      "free_shipping_threshold",
      "default_delivery_type",
      "cod_fee_payer",
      "cod_fee_percent",
      "__proto__"
    )
    const rates = fc.oneof(
      nasty,
      fc.record({
        rates: fc.oneof(nasty, fc.array(fc.oneof(nasty, fc.dictionary(ratesField, nasty)), { maxLength: 60 }))
      })
    )
    const sync = fc.oneof(nasty, fc.dictionary(syncField, nasty))
    const settings = fc.oneof(nasty, fc.dictionary(settingsField, nasty))
    fc.assert(
      fc.property(rates, sync, settings, (ratesBody, syncBody, settingsBody) => {
        assert.isTrue(answered(Effect.runSyncExit(parseRatesBody(ratesBody))), JSON.stringify(ratesBody))
        assert.isTrue(answered(Effect.runSyncExit(parseSyncBody(syncBody))), JSON.stringify(syncBody))
        assert.isTrue(answered(Effect.runSyncExit(parseSettings(settingsBody))), JSON.stringify(settingsBody))
      }),
      { numRuns: 100 }
    )
  })
})
