import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Effect } from "effect"
import * as TrackerBodies from "../src/TrackerBodies.ts"

const caller = { storeId: Ids.StoreId.make(1), keyId: "twpub_live_abcdefghijklm", nonce: "0".repeat(32) }
const receivedAt = DateTime.makeUnsafe(Date.parse("2026-11-21T11:30:00Z"))

const signupMessage = (body: unknown) =>
  Effect.map(Effect.flip(TrackerBodies.signup(caller, body, receivedAt)), (error) => error.message)
const eventMessage = (body: unknown) =>
  Effect.map(Effect.flip(TrackerBodies.event(caller, body, receivedAt)), (error) => error.message)

describe("TrackerBodies", () => {
  it.effect("reads a signup: the user's id and details, when, where from, properties", () =>
    Effect.gen(function* () {
      const row = yield* TrackerBodies.signup(
        caller,
        {
          user: { id: "u_1001", email: "amina@example.dz", phone: "0555 12 34 56", name: "Amina — أمينة" },
          signed_up_at: "2026-11-21T12:29:00+01:00",
          source: "landing-page-7",
          properties: { plan: "trial", seats: 3, newsletter: true, referrer: null },
          unknown: "ignored"
        },
        receivedAt
      )
      assert.deepStrictEqual(row, {
        ...caller,
        userId: "u_1001",
        email: "amina@example.dz",
        phone: "0555 12 34 56",
        name: "Amina — أمينة",
        source: "landing-page-7",
        properties: { plan: "trial", seats: 3, newsletter: true, referrer: null },
        signedUpAt: DateTime.makeUnsafe(Date.parse("2026-11-21T11:29:00Z")),
        receivedAt
      })
      const minimal = yield* TrackerBodies.signup(caller, { user: { id: "u_2" } }, receivedAt)
      assert.deepStrictEqual(
        [minimal.email, minimal.source, minimal.properties, minimal.signedUpAt],
        [null, null, {}, receivedAt]
      )
    })
  )

  it.effect("refuses a signup field by field", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* signupMessage("x"), "Body must be a JSON object")
      assert.strictEqual(yield* signupMessage({}), "user is required: an object with the platform's id of the user")
      assert.strictEqual(yield* signupMessage({ user: { id: "" } }), "user.id is required (1-128 characters)")
      assert.strictEqual(
        yield* signupMessage({ user: { id: "x".repeat(129) } }),
        "user.id is required (1-128 characters)"
      )
      assert.strictEqual(yield* signupMessage({ user: { id: 7 } }), "user.id is required (1-128 characters)")
      assert.strictEqual(
        yield* signupMessage({ user: { id: "u", email: 5 } }),
        "user.email must be a string of at most 254 characters, or null"
      )
      assert.strictEqual(
        yield* signupMessage({ user: { id: "u\u0000" } }),
        "user.id is required (1-128 characters)",
        "a NUL cannot be stored"
      )
      assert.strictEqual(
        yield* signupMessage({ user: { id: "u" }, signed_up_at: "2026-11-21 12:29:00" }),
        "signed_up_at must be an ISO 8601 date-time with an offset, not in the future"
      )
      assert.strictEqual(
        yield* signupMessage({ user: { id: "u" }, signed_up_at: "2026-11-21T12:36:00+01:00" }),
        "signed_up_at must be an ISO 8601 date-time with an offset, not in the future"
      )
      yield* TrackerBodies.signup(caller, { user: { id: "u" }, signed_up_at: "2026-11-21T12:34:00+01:00" }, receivedAt)
    })
  )

  it.effect("reads an event, anonymous or not; refuses a bad name, properties or time", () =>
    Effect.gen(function* () {
      const row = yield* TrackerBodies.event(
        caller,
        { event: "add_to_cart", user_id: "u_1001", occurred_at: "2026-11-21T11:20:00Z", properties: { product_id: 7 } },
        receivedAt
      )
      assert.deepStrictEqual(row, {
        ...caller,
        event: "add_to_cart",
        userId: "u_1001",
        properties: { product_id: 7 },
        occurredAt: DateTime.makeUnsafe(Date.parse("2026-11-21T11:20:00Z")),
        receivedAt
      })
      const anonymous = yield* TrackerBodies.event(caller, { event: "page.view:home-1" }, receivedAt)
      assert.deepStrictEqual([anonymous.userId, anonymous.occurredAt], [null, receivedAt])
      const name = "event is required: 1 to 64 characters among letters, digits and _ . : -"
      assert.strictEqual(yield* eventMessage({}), name)
      assert.strictEqual(yield* eventMessage({ event: "add to cart" }), name)
      assert.strictEqual(yield* eventMessage({ event: "x".repeat(65) }), name)
      const properties = yield* eventMessage({ event: "e", properties: { nested: { a: 1 } } })
      assert.match(properties, /^properties must be an object of at most 50 keys/)
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))
      assert.strictEqual(yield* eventMessage({ event: "e", properties: many }), properties)
      assert.strictEqual(yield* eventMessage({ event: "e", properties: [1] }), properties)
      assert.strictEqual(yield* eventMessage({ event: "e", properties: { long: "x".repeat(1001) } }), properties)
      assert.strictEqual(yield* eventMessage({ event: "e", properties: { ["k".repeat(65)]: 1 } }), properties)
      assert.strictEqual(yield* eventMessage({ event: "e", properties: { "": 1 } }), properties)
      // Properties go to a jsonb column, which refuses a NUL character and a lone surrogate in a value or a key.
      for (const bad of ["\u0000", "x\u0000", "\ud800"]) {
        assert.strictEqual(yield* eventMessage({ event: "e", properties: { k: bad } }), properties, JSON.stringify(bad))
        assert.strictEqual(
          yield* eventMessage({ event: "e", properties: { [bad]: 1 } }),
          properties,
          JSON.stringify(bad)
        )
        assert.strictEqual(yield* eventMessage({ event: `e${bad}` }), name)
        assert.strictEqual(
          yield* eventMessage({ event: "e", user_id: bad }),
          "user_id must be a string of 1 to 128 characters, or null"
        )
      }
      assert.strictEqual(
        yield* eventMessage({ event: "e", user_id: "" }),
        "user_id must be a string of 1 to 128 characters, or null"
      )
      assert.strictEqual(
        yield* eventMessage({ event: "e", occurred_at: "1999-12-31T23:59:59Z" }),
        "occurred_at must be an ISO 8601 date-time with an offset, not in the future"
      )
    })
  )

  it.effect("reads a batch item by item: rows under their own nonce, refused items by index with their message", () =>
    Effect.gen(function* () {
      const events = yield* TrackerBodies.events(
        caller,
        {
          events: [
            { event: "page_view" },
            { event: "not an event" },
            "x",
            { event: "add_to_cart", user_id: "u_1", properties: { product_id: 7 } },
            { event: "page_view" }
          ],
          sent_by: "ignored"
        },
        receivedAt
      )
      assert.deepStrictEqual(
        events.rows.map((row) => [row.nonce, row.event, row.userId, row.receivedAt]),
        [
          [`${caller.nonce}:0`, "page_view", null, receivedAt],
          [`${caller.nonce}:3`, "add_to_cart", "u_1", receivedAt],
          [`${caller.nonce}:4`, "page_view", null, receivedAt]
        ]
      )
      assert.deepStrictEqual(
        events.rejected.map(({ index, reason }) => [index, reason._tag, reason.message]),
        [
          [1, "InvalidEvent", "event is required: 1 to 64 characters among letters, digits and _ . : -"],
          [2, "InvalidEvent", "An event must be a JSON object"]
        ]
      )
      const signups = yield* TrackerBodies.signups(
        caller,
        { signups: [{ user: { id: "u_1" } }, { user: {} }, { user: { id: "u_1" }, source: "ad" }] },
        receivedAt
      )
      assert.deepStrictEqual(
        signups.rows.map((row) => [row.nonce, row.userId, row.source]),
        [
          [`${caller.nonce}:0`, "u_1", null],
          [`${caller.nonce}:2`, "u_1", "ad"]
        ]
      )
      assert.deepStrictEqual(
        signups.rejected.map(({ index, reason }) => [index, reason.message]),
        [[1, "user.id is required (1-128 characters)"]]
      )
      // An item's message is the one its single call answers, but for the word naming what is not an object.
      const alone = yield* Effect.flip(TrackerBodies.event(caller, { event: "not an event" }, receivedAt))
      assert.strictEqual(events.rejected[0]!.reason.message, alone.message)
    })
  )

  it.effect("refuses a body that is not a batch as a whole: not an object, no array, none or more than 500", () =>
    Effect.gen(function* () {
      const refusal = (body: unknown) =>
        Effect.map(Effect.flip(TrackerBodies.events(caller, body, receivedAt)), (error) => [error._tag, error.message])
      const notObject = ["InvalidBatch", 'Body must be a JSON object { "events": [ … ] } holding 1 to 500 events']
      const noArray = ["InvalidBatch", "events must be an array of 1 to 500 events"]
      for (const body of [null, "x", 7, [{ event: "e" }]]) assert.deepStrictEqual(yield* refusal(body), notObject)
      for (const body of [{}, { events: null }, { events: { 0: { event: "e" } } }, { signups: [{ event: "e" }] }]) {
        assert.deepStrictEqual(yield* refusal(body), noArray, JSON.stringify(body))
      }
      assert.deepStrictEqual(yield* refusal({ events: [] }), noArray)
      const many = Array.from({ length: TrackerBodies.MAX_BATCH + 1 }, () => ({ event: "e" }))
      assert.deepStrictEqual(yield* refusal({ events: many }), noArray)
      const full = yield* TrackerBodies.events(caller, { events: many.slice(1) }, receivedAt)
      assert.deepStrictEqual([full.rows.length, full.rejected.length], [500, 0])
      assert.strictEqual(new Set(full.rows.map((row) => row.nonce)).size, 500, "one nonce per item")
      const signups = yield* Effect.flip(TrackerBodies.signups(caller, { events: [{ user: { id: "u" } }] }, receivedAt))
      assert.deepStrictEqual(
        [signups._tag, signups.message],
        ["InvalidBatch", "signups must be an array of 1 to 500 signups"]
      )
    })
  )
})
