/**
 * The operations around a parcel in memory (`src/shipping/shipping`): a create that corrects a misspelt commune or
 * refuses an unknown one with suggestions, batch tracking with a failure of its own per number, cancels, stop desks,
 * a commune resolved with and without a courier, a credential check, a capability a courier does not declare, and a
 * rate comparison under one deadline. The same against each platform's loopback fake through the app's process:
 * `../couriers/ParcelOperations.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as SandboxTrackingNumber from "../../../../adapters/sandbox/src/SandboxTrackingNumber.ts"
import * as InMemory from "./InMemory.ts"

const { codeOf, create, memcoCall, orderTo, post } = InMemory

const sandbox = { courier: "sandbox" }

layer(InMemory.layer(), { excludeTestServices: true })("parcel operations (memory)", (it) => {
  it.effect("a create corrects a misspelt commune and says so; an unknown one is 422 with suggestions, unsent", () =>
    Effect.gen(function* () {
      const corrected = yield* create({ order: orderTo({ communeName: "Bab Ezouar" }) })
      assert.strictEqual(corrected.status, 200, corrected.text)
      assert.deepStrictEqual(corrected.body.commune, { requested: "Bab Ezouar", sent: "Bab Ezzouar", corrected: true })
      const exact = yield* create({ order: orderTo({ communeName: "Hydra" }) })
      assert.deepStrictEqual(exact.body.commune, { requested: "Hydra", sent: "Hydra", corrected: false })
      const memco = yield* InMemory.Memco
      const sent = memco.creates.length
      const unknown = yield* post("/v1/orders", { ...memcoCall(), order: orderTo({ communeName: "Nowhere-ville" }) })
      assert.deepStrictEqual(codeOf(unknown), [422, "unknown_commune"])
      assert.deepStrictEqual(unknown.body.error.fields, { "order.recipient.communeName": unknown.body.error.message })
      assert.isArray(unknown.body.error.suggestions)
      const near = yield* create({ order: orderTo({ communeName: "Bab" }) })
      assert.deepStrictEqual(codeOf(near), [422, "unknown_commune"], "could be several: the caller must say which")
      assert.isAbove(near.body.error.suggestions.length, 0)
      for (const suggestion of near.body.error.suggestions) assert.hasAllKeys(suggestion, ["nameFr", "nameAr", "score"])
      // Bir sounds closest to El Biar but begins three other communes' names: no guess, all four suggested.
      const bir = yield* post("/v1/orders", { ...memcoCall(), order: orderTo({ communeName: "Bir" }) })
      assert.deepStrictEqual(codeOf(bir), [422, "unknown_commune"])
      assert.include(bir.body.error.message, '"Bir" could be several communes of wilaya 16')
      assert.deepStrictEqual(
        bir.body.error.suggestions.map((suggestion: { nameFr: string }) => suggestion.nameFr).sort(),
        ["Bir Mourad Rais", "Bir Touta", "Birkhadem", "El Biar"]
      )
      assert.strictEqual(memco.creates.length, sent, "nothing was sent")
      const noDesk = yield* post("/v1/orders", {
        ...memcoCall(),
        order: { ...orderTo({ communeName: "Hydra" }), deliveryType: "stopdesk" }
      })
      assert.deepStrictEqual(noDesk.body.error, {
        code: "commune_not_served",
        message: "memco has no desk in Hydra",
        fields: { "order.recipient.communeName": "memco has no desk in Hydra" }
      })
      const unserved = yield* post("/v1/orders", { ...memcoCall(), order: orderTo({ communeName: "Kouba" }) })
      assert.deepStrictEqual(codeOf(unserved), [422, "commune_not_served"], "a commune memco does not list")
      assert.strictEqual(memco.creates.length, sent, "nothing was sent")
      const unchecked = yield* post("/v1/orders", {
        courier: "memco_tenant",
        credentials: { token: "ok" },
        options: { resolveCommune: false, baseUrl: "https://a.ecotrack.dz" },
        order: orderTo({ communeName: "Nowhere-ville" })
      })
      assert.strictEqual(unchecked.status, 200, "resolveCommune: false sends the name as written")
      assert.notProperty(unchecked.body, "commune")
    })
  )

  it.effect("POST /v1/track with trackingNumbers answers each in order, an unknown one failing alone", () =>
    Effect.gen(function* () {
      const first = (yield* create()).body.trackingNumber
      const second = (yield* create()).body.trackingNumber
      const batch = yield* post("/v1/track", { ...sandbox, trackingNumbers: [first, "SBX0000000000ZZ", second] })
      assert.strictEqual(batch.status, 200, batch.text)
      assert.deepStrictEqual(
        batch.body.results.map((result: { trackingNumber: string; status?: string; error?: { code: string } }) => [
          result.trackingNumber,
          result.error === undefined ? result.status : result.error.code
        ]),
        [
          [first, "created"],
          ["SBX0000000000ZZ", "courier_refused"],
          [second, "created"]
        ]
      )
      assert.hasAllKeys(batch.body.results[1].error, ["code", "message"])
      const tooMany = yield* post("/v1/track", {
        ...sandbox,
        trackingNumbers: Array.from({ length: 101 }, () => first)
      })
      assert.deepStrictEqual(codeOf(tooMany), [400, "invalid_input"])
      assert.deepStrictEqual(codeOf(yield* post("/v1/track", { ...sandbox, trackingNumbers: [] })), [
        400,
        "invalid_input"
      ])
    })
  )

  it.effect("cancels a sandbox parcel (replayed under its key); one picked up is 409 not_cancellable", () =>
    Effect.gen(function* () {
      const parcel = (yield* create()).body.trackingNumber
      const key = { "idempotency-key": "cancel-sandbox-1" }
      const cancelled = yield* post("/v1/cancel", { ...sandbox, trackingNumber: parcel }, key)
      assert.deepStrictEqual([cancelled.status, cancelled.body], [200, { trackingNumber: parcel, status: "cancelled" }])
      const replayed = yield* post("/v1/cancel", { ...sandbox, trackingNumber: parcel }, key)
      assert.deepStrictEqual([replayed.status, replayed.body], [200, cancelled.body])
      // The cancelled parcel tracks as cancelled, alone and in a batch (issue 35: it answered `created`).
      const tracked = yield* post("/v1/track", { ...sandbox, trackingNumber: parcel })
      assert.strictEqual(tracked.body.status, "cancelled", tracked.text)
      assert.strictEqual(tracked.body.events.at(-1).rawStatus, "cancelled")
      const batch = yield* post("/v1/track", { ...sandbox, trackingNumbers: [parcel] })
      assert.strictEqual(batch.body.results[0].status, "cancelled", batch.text)
      // A parcel the sandbox issued ten minutes ago has been picked up (at five): it can no longer be cancelled.
      const old = SandboxTrackingNumber.encode(Math.floor(Date.now() / 1000) - 600, "home_delivered", [1, 2, 3])
      const late = yield* post("/v1/cancel", { ...sandbox, trackingNumber: old })
      assert.deepStrictEqual(codeOf(late), [409, "not_cancellable"])
    })
  )

  it.effect("lists a courier's desks in a wilaya, leaving out what it does not give; none where it has none", () =>
    Effect.gen(function* () {
      const desks = yield* post("/v1/stop-desks", { ...sandbox, wilayaCode: 16 })
      assert.strictEqual(desks.status, 200, desks.text)
      assert.deepStrictEqual(
        desks.body.map((desk: { id: string }) => desk.id),
        ["SBXD-16-1", "SBXD-16-2", "SBXD-16-3"]
      )
      for (const desk of desks.body as ReadonlyArray<Record<string, unknown>>) {
        assert.includeMembers(Object.keys(desk), ["id", "name", "wilayaCode"])
        assert.isTrue(Object.values(desk).every((value) => value !== null && value !== undefined))
      }
      assert.deepStrictEqual(codeOf(yield* post("/v1/stop-desks", { ...sandbox, wilayaCode: 64 })), [
        400,
        "invalid_input"
      ])
      assert.deepStrictEqual(codeOf(yield* post("/v1/stop-desks", { ...memcoCall(), wilayaCode: 16 })), [
        400,
        "unsupported"
      ])
    })
  )

  it.effect("resolves a commune however it is spelled, with the courier's own entry when asked", () =>
    Effect.gen(function* () {
      const resolved = yield* post("/v1/communes/resolve", { ...sandbox, wilayaCode: 16, communeName: "bab ezouar" })
      assert.strictEqual(resolved.status, 200, resolved.text)
      assert.deepStrictEqual(resolved.body, {
        wilayaCode: 16,
        nameFr: "Bab Ezzouar",
        nameAr: resolved.body.nameAr,
        exact: false,
        courier: { key: "sandbox", listed: true, name: "Bab Ezzouar", home: true, stopdesk: true }
      })
      const withoutCourier = yield* post("/v1/communes/resolve", { wilayaCode: 16, communeName: "باب الزوار" })
      assert.strictEqual(withoutCourier.body.nameFr, "Bab Ezzouar")
      assert.strictEqual(withoutCourier.body.exact, true)
      assert.notProperty(withoutCourier.body, "courier")
      const listed = yield* post("/v1/communes/resolve", { ...memcoCall(), wilayaCode: 16, communeName: "hydra" })
      assert.deepStrictEqual(listed.body.courier, {
        key: "memco",
        listed: true,
        name: "Hydra",
        home: true,
        stopdesk: false
      })
      const withId = yield* post("/v1/communes/resolve", {
        ...memcoCall(),
        courier: "MEM_CO",
        wilayaCode: 16,
        communeName: "Bab Ezzouar"
      })
      assert.deepStrictEqual(withId.body.courier, {
        key: "memco",
        listed: true,
        name: "Bab Ezzouar",
        id: "16-BEZ",
        home: true,
        stopdesk: true
      })
      const unlisted = yield* post("/v1/communes/resolve", { ...memcoCall(), wilayaCode: 16, communeName: "Kouba" })
      assert.strictEqual(unlisted.status, 200, unlisted.text)
      assert.deepStrictEqual(unlisted.body.courier, { key: "memco", listed: false, home: false, stopdesk: false })

      const unknown = yield* post("/v1/communes/resolve", { wilayaCode: 16, communeName: "Nowhere-ville" })
      assert.deepStrictEqual(codeOf(unknown), [422, "unknown_commune"])
      assert.deepStrictEqual(Object.keys(unknown.body.error.fields), ["communeName"], "the body's own field")
      assert.isArray(unknown.body.error.suggestions)
    })
  )

  it.effect("checks credentials without creating anything: valid, refused in the courier's words, or unfit", () =>
    Effect.gen(function* () {
      const check = yield* post("/v1/credentials/check", sandbox)
      assert.deepStrictEqual([check.status, check.body], [200, { courier: "sandbox", valid: true }])
      const byAlias = yield* post("/v1/credentials/check", { courier: "SANDBOX" })
      assert.strictEqual(byAlias.body.courier, "sandbox", "answered under the catalogue's key")
      const withCredentials = yield* post("/v1/credentials/check", { ...sandbox, credentials: { token: "x" } })
      assert.deepStrictEqual(codeOf(withCredentials), [400, "invalid_credentials"])
      assert.deepStrictEqual(codeOf(yield* post("/v1/credentials/check", memcoCall())), [400, "unsupported"])
    })
  )

  it.effect(
    "compares rates under one deadline: priced couriers cheapest first, then failures, a late one timed out",
    () =>
      Effect.gen(function* () {
        const started = Date.now()
        const compared = yield* post("/v1/rates/compare", {
          couriers: [memcoCall("slow"), memcoCall(), sandbox, memcoCall("rejected"), { courier: "nowhere" }],
          query: { toWilaya: 31, deliveryType: "home" },
          timeoutMs: 1000
        })
        assert.strictEqual(compared.status, 200, compared.text)
        assert.isBelow(Date.now() - started, 3000, "the slow courier is timed out at the deadline")
        const quotes = compared.body.quotes as ReadonlyArray<{
          index: number
          courier: string
          rates?: { total: number }
          error?: { code: string; message: string }
        }>
        const priced = quotes.filter((quote) => quote.rates !== undefined)
        assert.deepStrictEqual(
          priced.map((quote) => quote.index),
          [...priced].sort((a, b) => a.rates!.total - b.rates!.total).map((quote) => quote.index),
          "cheapest first"
        )
        assert.sameMembers(
          priced.map((quote) => quote.index),
          [1, 2]
        )
        const failed = quotes.slice(priced.length)
        assert.sameDeepMembers(
          failed.map((quote) => [quote.index, quote.courier, quote.error!.code]),
          [
            [0, "memco", "courier_timeout"],
            [3, "memco", "credentials_rejected"],
            [4, "nowhere", "unknown_courier"]
          ]
        )
        const late = failed.find((quote) => quote.index === 0)!
        assert.strictEqual(late.error!.message, "memco did not answer within 1000 ms")
        assert.deepStrictEqual(
          codeOf(yield* post("/v1/rates/compare", { couriers: [], query: { toWilaya: 31, deliveryType: "home" } })),
          [400, "invalid_input"]
        )
      })
  )
})
