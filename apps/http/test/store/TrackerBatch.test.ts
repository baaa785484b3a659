/**
 * The batch forms of the signed calls through the store API in memory (`src/store/tracker`): `POST /v1/events/batch`
 * and `POST /v1/signups/batch` carry up to 500 items under one signature and one nonce, answer 202 with how many were
 * accepted and the others by index (each with the error its single call would have answered), write and count each
 * accepted item as its single call would, and spend one call of the store's per-minute budget. What concerns the call
 * — signature, nonce, key, gates, budget, a body that is no batch — refuses it whole. A property walks bodies with
 * NUL and control characters, huge numbers, deep nesting, 0 and 501 items. Over a socket on both databases:
 * `../SignedBatch.db.test.ts`.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Ids } from "@tawsil/domain"
import { Nonce } from "@tawsil/signing"
import { Tracker, TrackerBodies, TrackerStore } from "@tawsil/tracker"
import { DateTime, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore, signed } = InMemory

/** A store (Enterprise and pilot unless told) and an active public key of it. */
const publicKeyStore = (input: Partial<Admin.CreateStoreInput> = {}) =>
  Effect.gen(function* () {
    const store = yield* createStore(input)
    return { ...store, signer: yield* InMemory.publicKey(store.id) }
  })

/** The rows the memory tracker store holds for a call's nonce, once everything accepted is written. */
const writtenFor = (nonce: string) =>
  Effect.gen(function* () {
    yield* (yield* Tracker.Tracker).flush
    const rows = yield* TrackerStore.MemoryRows
    const ofCall = (row: { readonly nonce: string }) => row.nonce.startsWith(`${nonce}:`)
    return { events: rows.events.filter(ofCall), signups: rows.signups.filter(ofCall) }
  })

/** The store's usage groups, as `GET /v1/usage` shows them. */
const usageOf = (store: InMemory.Caller) =>
  Effect.gen(function* () {
    yield* (yield* Tracker.Tracker).flush
    const usage = (yield* store.get("/v1/usage")).body.data.usage
    const groups = (Array.isArray(usage) ? {} : usage) as Record<string, { total: number; billable: number }>
    // The usage read is itself a `request`: only the tracker's groups are asked about here.
    const { request: _, ...tracked } = groups
    return tracked
  })

layer(InMemory.layer(), { excludeTestServices: true })("signed batches (memory)", (it) => {
  it.effect("a batch of events answers 202 with the accepted count and the refused items by index", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      const nonce = Nonce.make()
      const answer = yield* signed(
        "/v1/events/batch",
        store.signer,
        {
          events: [
            { event: "page_view", user_id: "u_1" },
            { event: "not an event" },
            { event: "add_to_cart", properties: { product_id: 7, quantity: 2 } },
            "page_view",
            { event: "page_view", user_id: "u_1" }
          ]
        },
        { nonce }
      )
      assert.strictEqual(answer.status, 202, answer.text)
      assert.deepStrictEqual(answer.body.data, {
        accepted: 3,
        rejected: [
          {
            index: 1,
            error: {
              code: "bad_request",
              message: "event is required: 1 to 64 characters among letters, digits and _ . : -"
            }
          },
          { index: 3, error: { code: "bad_request", message: "An event must be a JSON object" } }
        ]
      })
      assert.strictEqual(answer.headers.get("x-api-version"), "v1")
      assert.strictEqual(answer.headers.get("ratelimit-remaining"), "599", "one call of the budget, not five")
      // The refused item's error is the one its single call answers.
      const single = yield* signed("/v1/events", store.signer, { event: "not an event" })
      assert.deepStrictEqual(answer.body.data.rejected[0].error, {
        code: single.body.error.code,
        message: single.body.error.message
      })
      const written = yield* writtenFor(nonce)
      assert.deepStrictEqual(
        written.events.map((row) => [row.nonce, row.event, row.userId, row.keyId, row.storeId]),
        [
          [`${nonce}:0`, "page_view", "u_1", store.signer.keyId, store.id],
          [`${nonce}:2`, "add_to_cart", null, store.signer.keyId, store.id],
          [`${nonce}:4`, "page_view", "u_1", store.signer.keyId, store.id]
        ]
      )
      assert.deepStrictEqual((yield* usageOf(store)).event, { total: 3, billable: 3 }, "counted per item written")
    })
  )

  it.effect("a batch of signups counts every signup in total and each user's first in billable", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      yield* signed("/v1/signups", store.signer, { user: { id: "u_0" } })
      const nonce = Nonce.make()
      const answer = yield* signed(
        "/v1/signups/batch",
        store.signer,
        {
          signups: [
            { user: { id: "u_0" } },
            { user: { id: "u_1", email: "amina@example.dz" }, source: "landing" },
            { user: { id: "u_1" } },
            { source: "no user" },
            { user: { id: "u_2" }, signed_up_at: "2026-11-21T12:30:00+01:00" }
          ]
        },
        { nonce }
      )
      assert.strictEqual(answer.status, 202, answer.text)
      assert.deepStrictEqual(answer.body.data, {
        accepted: 4,
        rejected: [
          {
            index: 3,
            error: { code: "bad_request", message: "user is required: an object with the platform's id of the user" }
          }
        ]
      })
      const written = yield* writtenFor(nonce)
      assert.deepStrictEqual(
        written.signups.map((row) => [row.nonce, row.userId, row.email, row.source, row.first]),
        [
          [`${nonce}:0`, "u_0", null, null, false],
          [`${nonce}:1`, "u_1", "amina@example.dz", "landing", true],
          [`${nonce}:2`, "u_1", null, null, false],
          [`${nonce}:4`, "u_2", null, null, true]
        ]
      )
      assert.deepStrictEqual((yield* usageOf(store)).signup, { total: 5, billable: 3 })
    })
  )

  it.effect("a batch whose every item is refused is still 202, accepting none and writing nothing", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      const nonce = Nonce.make()
      const answer = yield* signed("/v1/events/batch", store.signer, { events: [{}, { event: "" }] }, { nonce })
      assert.strictEqual(answer.status, 202, answer.text)
      assert.deepStrictEqual(
        [answer.body.data.accepted, answer.body.data.rejected.map((item: { index: number }) => item.index)],
        [0, [0, 1]]
      )
      assert.deepStrictEqual(yield* writtenFor(nonce), { events: [], signups: [] })
      assert.notProperty(yield* usageOf(store), "event")
    })
  )

  it.effect("refuses the whole call for what concerns the call: signature, nonce, key, gates, not a batch", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      const body = { events: [{ event: "page_view" }] }
      const wrongSecret = yield* signed("/v1/events/batch", { ...store.signer, secret: "0".repeat(64) }, body)
      assert.deepStrictEqual(codeOf(wrongSecret), [401, "unauthorized"])
      const tampered = yield* signed("/v1/events/batch", store.signer, body, {
        tamper: (text) => text.replace("page_view", "page_vieW")
      })
      assert.deepStrictEqual(codeOf(tampered), [401, "unauthorized"], "one signature covers every item")
      // One nonce for the whole batch: used by a single call, it refuses the batch, and the other way round.
      const nonce = Nonce.make()
      assert.strictEqual((yield* signed("/v1/events", store.signer, { event: "e" }, { nonce })).status, 202)
      const reused = yield* signed("/v1/events/batch", store.signer, body, { nonce })
      assert.deepStrictEqual(
        [...codeOf(reused), reused.body.error.message.split(" ")[0]],
        [401, "unauthorized", "X-TW-Nonce"]
      )
      const batchNonce = Nonce.make()
      assert.strictEqual(
        (yield* signed("/v1/signups/batch", store.signer, { signups: [{ user: { id: "u" } }] }, { nonce: batchNonce }))
          .status,
        202
      )
      assert.deepStrictEqual(codeOf(yield* signed("/v1/events", store.signer, { event: "e" }, { nonce: batchNonce })), [
        401,
        "unauthorized"
      ])
      assert.deepStrictEqual(codeOf(yield* call("POST", "/v1/events/batch", { token: store.token, body })), [
        401,
        "unauthorized"
      ])
      const pro = yield* publicKeyStore({ plan: "pro" })
      assert.deepStrictEqual(codeOf(yield* signed("/v1/events/batch", pro.signer, body)), [403, "forbidden"])
      const unenrolled = yield* publicKeyStore({ pilot: false })
      assert.deepStrictEqual(
        codeOf(yield* signed("/v1/signups/batch", unenrolled.signer, { signups: [{ user: { id: "u" } }] })),
        [403, "forbidden"]
      )

      const refusals = [
        [{ events: [] }, "events must be an array of 1 to 500 events"],
        [{ events: Array.from({ length: 501 }, () => ({ event: "e" })) }, "events must be an array of 1 to 500 events"],
        [{ event: "page_view" }, "events must be an array of 1 to 500 events"],
        [[{ event: "page_view" }], 'Body must be a JSON object { "events": [ … ] } holding 1 to 500 events']
      ] as const
      for (const [bad, message] of refusals) {
        const answer = yield* signed("/v1/events/batch", store.signer, bad)
        assert.deepStrictEqual([...codeOf(answer), answer.body.error.message], [400, "bad_request", message])
      }
      const signupsUnderEvents = yield* signed("/v1/signups/batch", store.signer, body)
      assert.deepStrictEqual(
        [...codeOf(signupsUnderEvents), signupsUnderEvents.body.error.message],
        [400, "bad_request", "signups must be an array of 1 to 500 signups"]
      )
      const notJson = yield* call("POST", "/v1/events/batch", {
        headers: InMemory.signedHeaders(store.signer, '{"events":['),
        raw: '{"events":['
      })
      assert.deepStrictEqual(
        [...codeOf(notJson), notJson.body.error.message],
        [400, "bad_request", "Body must be valid JSON"]
      )
      // Nothing of the refused calls was written: the store's events are the single call's and the signup batch's.
      assert.deepStrictEqual(yield* usageOf(store), {
        event: { total: 1, billable: 1 },
        signup: { total: 1, billable: 1 }
      })
    })
  )

  it.effect("is absent from the origin listener: 404", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      for (const path of ["/v1/events/batch", "/v1/signups/batch"]) {
        const text = JSON.stringify({ events: [{ event: "e" }] })
        const answer = yield* call("POST", path, {
          listener: "origin",
          headers: InMemory.signedHeaders(store.signer, text),
          raw: text
        })
        assert.deepStrictEqual(codeOf(answer), [404, "not_found"], path)
      }
    })
  )

  it.effect("a property: any body is refused whole (400) or answered item by item as the single call would", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      yield* (yield* Admin.Admin).setQuota(store.id, { requestsPerMinute: 100_000 }).pipe(Effect.orDie)
      const context = yield* Effect.context<InMemory.Clients | Tracker.Tracker | TrackerStore.MemoryRows>()
      const run = <A>(effect: Effect.Effect<A, never, InMemory.Clients | Tracker.Tracker | TrackerStore.MemoryRows>) =>
        Effect.runPromiseExitWith(context)(effect).then((exit) => {
          if (Exit.isSuccess(exit)) return exit.value
          throw new Error(String(exit.cause))
        })
      const caller = { storeId: Ids.StoreId.make(store.id), keyId: store.signer.keyId, nonce: "n" }
      const receivedAt = DateTime.makeUnsafe(Date.now())
      /** Whether `POST /v1/events` alone would accept the item (the single form's own rules). */
      const singleAccepts = (item: unknown) =>
        Exit.isSuccess(Effect.runSyncExit(TrackerBodies.event(caller, item, receivedAt)))

      // What the runs met, so the property is known to have walked both outcomes and refused items.
      const met = { whole: 0, batches: 0, refusedItems: 0, acceptedItems: 0 }
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(body, async (text) => {
            const nonce = Nonce.make()
            const answer = await run(
              call("POST", "/v1/events/batch", {
                headers: InMemory.signedHeaders(store.signer, text, { nonce }),
                raw: text
              })
            )
            const parsed = parse(text)
            const items = itemsOf(parsed)
            const whole = items === undefined || items.length < 1 || items.length > 500 || depthOf(parsed) > 32
            if (whole) {
              assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], text.slice(0, 200))
              assert.deepStrictEqual(await run(writtenFor(nonce)), { events: [], signups: [] })
              met.whole++
              return
            }
            assert.strictEqual(answer.status, 202, answer.text)
            const expected = items.flatMap((item, index) => (singleAccepts(item) ? [] : [index]))
            const { accepted, rejected } = answer.body.data
            assert.deepStrictEqual(
              rejected.map((item: { index: number }) => item.index),
              expected,
              "refused exactly where the single call refuses"
            )
            assert.strictEqual(accepted + rejected.length, items.length)
            for (const item of rejected) {
              assert.strictEqual(item.error.code, "bad_request")
              assert.isAbove(item.error.message.length, 0)
            }
            const written = await run(writtenFor(nonce))
            assert.deepStrictEqual(
              written.events.map((row) => Number(row.nonce.slice(nonce.length + 1))),
              items.flatMap((_, index) => (expected.includes(index) ? [] : [index])),
              "every accepted item written, once"
            )
            met.batches++
            met.refusedItems += rejected.length
            met.acceptedItems += accepted
          }),
          { numRuns: 60, seed: 22 }
        )
      )
      for (const [what, count] of Object.entries(met)) assert.isAbove(count, 0, what)
    })
  )
})

describe("signed batches on TestClock time (memory)", () => {
  it.effect("a batch is one call of the store's per-minute budget; a spent budget refuses it whole: 429", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 10, 15, 10))
      const store = yield* publicKeyStore()
      yield* (yield* Admin.Admin).setQuota(store.id, { requestsPerMinute: 2 }).pipe(Effect.orDie)
      const events = { events: Array.from({ length: 500 }, (_, i) => ({ event: "page_view", properties: { i } })) }
      const first = yield* signed("/v1/events/batch", store.signer, events)
      assert.deepStrictEqual(
        [first.status, first.body.data.accepted, first.headers.get("ratelimit-remaining")],
        [202, 500, "1"]
      )
      const second = yield* signed("/v1/signups/batch", store.signer, { signups: [{ user: { id: "u_1" } }] })
      assert.deepStrictEqual([second.status, second.headers.get("ratelimit-remaining")], [202, "0"])
      const nonce = Nonce.make()
      const spent = yield* signed("/v1/events/batch", store.signer, events, { nonce })
      assert.deepStrictEqual([...codeOf(spent), spent.headers.get("retry-after")], [429, "rate_limited", "50"])
      assert.deepStrictEqual(yield* writtenFor(nonce), { events: [], signups: [] }, "nothing of a refused batch")
      yield* TestClock.adjust("50 seconds")
      assert.strictEqual((yield* signed("/v1/events/batch", store.signer, events)).status, 202)
      assert.deepStrictEqual(yield* usageOf(store), {
        event: { total: 1000, billable: 1000 },
        signup: { total: 1, billable: 1 }
      })
    }).pipe(Effect.provide(InMemory.layer()))
  )
})

// --- the property's bodies ------------------------------------------------------------------------------------------

/** The `events` array of a body that is an object holding one; else undefined. */
const itemsOf = (parsed: unknown): ReadonlyArray<unknown> | undefined => {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
  const events = (parsed as Record<string, unknown>).events
  return Array.isArray(events) ? events : undefined
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** How deep a parsed JSON value nests arrays and objects (a scalar is 0). */
const depthOf = (value: unknown): number =>
  typeof value !== "object" || value === null
    ? 0
    : 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf))

const eventName = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/)
/** Any code point, NUL, other control characters and lone surrogates included. */
const anyText = fc.string({ unit: "binary", maxLength: 12 })
const hugeNumber = fc.constantFrom(
  "1e400",
  "-1e400",
  "123456789012345678901234567890",
  "1e-400",
  "-0",
  "9007199254740993"
)

/** One item of a batch, as JSON text: well formed, with odd characters, with huge numbers, deep, or anything. */
const item = fc.oneof(
  fc
    .record({ event: eventName, user_id: fc.option(fc.string({ minLength: 1, maxLength: 20 })) })
    .map((value) => JSON.stringify(value)),
  fc
    .record({
      event: fc.oneof(eventName, anyText),
      user_id: anyText,
      properties: fc.dictionary(anyText, anyText, { maxKeys: 3 })
    })
    .map((value) => JSON.stringify(value)),
  fc.tuple(eventName, hugeNumber).map(([name, number]) => `{"event":"${name}","properties":{"n":${number}}}`),
  fc
    .tuple(eventName, fc.integer({ min: 1, max: 40 }))
    .map(([name, depth]) => `{"event":"${name}","properties":{"n":${"[".repeat(depth)}1${"]".repeat(depth)}}}`),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? "null")
)

/** A body's text: usually a batch of 0 to 8 items, sometimes exactly 500 or 501, sometimes no batch at all. */
const body = fc.oneof(
  { weight: 6, arbitrary: fc.array(item, { maxLength: 8 }).map((items) => `{"events":[${items.join(",")}]}`) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(500, 501)
      .map((n) => `{"events":[${Array.from({ length: n }, (_, i) => `{"event":"e${i}"}`).join(",")}]}`)
  },
  { weight: 1, arbitrary: fc.constant(`{"events":[]}`) },
  { weight: 1, arbitrary: item.map((text) => `{"events":${text}}`) },
  { weight: 1, arbitrary: fc.array(item, { maxLength: 3 }).map((items) => `[${items.join(",")}]`) }
)
