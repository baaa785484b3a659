import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { spawnApp, startApp, waitForExit } from "./AppProcess.ts"
import { dzship, rejected } from "./Dzship.ts"

/** The app as users run it, on a throw-away embedded database; its shipping API's base URL. */
class Gateway extends Context.Service<Gateway, string>()("test/Gateway") {}

const GatewayLive = Layer.effect(
  Gateway,
  Effect.gen(function* () {
    // No configuration beyond a data directory: the reference data ships with the project.
    const app = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir })
    return app.shippingUrl
  })
)

const order = {
  reference: "cmd-1001",
  recipient: {
    fullName: "Amina Benali",
    phone: "+213 555 12 34 56",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet, bât. 3"
  },
  deliveryType: "home" as const,
  productList: "1x robe kabyle",
  codAmount: 4500
}

layer(GatewayLive, { timeout: "60 seconds" })("the dzship client against our shipping API", (it) => {
  it.effect("answers the first example of the dzship README: a home parcel without an address line or reference", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const created = yield* Effect.promise(() =>
        dzship({ courier: "sandbox", gateway }).createOrder({
          recipient: { fullName: "Amine Bouzid", phone: "0551234567", wilayaCode: 16, communeName: "Bab Ezzouar" },
          deliveryType: "home",
          productList: "Sneakers x1",
          codAmount: 4500
        })
      )
      assert.match(created.trackingNumber, /^SBX[0-9A-Z]{12}$/)
      assert.strictEqual(created.status, "created")
      assert.match(String(created.reference), /^TW-[0-9A-Z]{10}$/, "a reference is made when none is sent")
      // A desk order goes to a commune where the courier has a desk: the sandbox's, as POST /v1/stop-desks lists them.
      const desks = yield* Effect.promise(async () => {
        const response = await fetch(`${gateway}/v1/stop-desks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ courier: "sandbox", wilayaCode: 16 })
        })
        return (await response.json()) as ReadonlyArray<{ readonly communeName: string }>
      })
      const deskCommune = desks[0]!.communeName
      assert.notStrictEqual(deskCommune, "Bab Ezzouar")
      const deskOrder = (communeName: string) =>
        dzship({ courier: "sandbox", gateway }).createOrder({
          recipient: { fullName: "Amine Bouzid", phone: "0551234567", wilayaCode: 16, communeName },
          deliveryType: "stopdesk",
          productList: "Sneakers x1",
          codAmount: 4500
        })
      const stopdesk = yield* Effect.promise(() => deskOrder(deskCommune))
      assert.strictEqual(stopdesk.status, "created", "a stopdesk parcel without a desk id")
      // Bab Ezzouar has no sandbox desk of its own: the wilaya's desks serve it (docs/sandbox.md "Desks").
      const served = yield* Effect.promise(() => deskOrder("Bab Ezzouar"))
      assert.strictEqual(served.status, "created", "a desk order to a commune without a desk of its own")
    })
  )

  it.effect("answers every documented sandbox test value with its outcome, as the dzship client reads it", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const client = dzship({ courier: "sandbox", gateway })
      const withPhone = (phone: string) => client.createOrder({ ...order, recipient: { ...order.recipient, phone } })
      const expected: ReadonlyArray<readonly [phone: string, tracking: string, status: number, code: string]> = [
        ["0500000422", "SBXTEST422", 422, "courier_refused"],
        ["0500000401", "SBXTEST401", 422, "credentials_rejected"],
        ["0500000502", "SBXTEST502", 502, "courier_unreachable"],
        ["0500000504", "SBXTEST504", 502, "courier_unreachable"],
        ["0500000429", "SBXTEST429", 429, "rate_limited"]
      ]
      for (const [phone, tracking, status, code] of expected) {
        for (const error of [yield* rejected(withPhone(phone)), yield* rejected(client.track(tracking))]) {
          assert.deepStrictEqual([error.status, error.code], [status, code], phone)
          if (status === 429) assert.strictEqual(error.retryAfter, 30)
        }
      }
      const started = Date.now()
      const slow = yield* Effect.promise(() => withPhone("0500000200"))
      assert.strictEqual(slow.status, "created")
      assert.isAtLeast(Date.now() - started, 700, "the slow test value answers within the caller's timeout, slowly")
    })
  )

  it.effect("refuses a wilaya of the 2026 division with the code couriers deliver it as", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const error = yield* rejected(
        dzship({ courier: "sandbox", gateway }).createOrder({
          ...order,
          recipient: { ...order.recipient, wilayaCode: 64 }
        })
      )
      assert.deepStrictEqual([error.status, error.code], [400, "invalid_input"])
      assert.include(String(error.fields?.["order.recipient.wilayaCode"]), "send wilayaCode 28")
      const rates = yield* rejected(
        dzship({ courier: "sandbox", gateway }).rates({ toWilaya: 63, deliveryType: "home" })
      )
      assert.include(String(rates.fields?.["query.toWilaya"]), "send wilayaCode 5")
    })
  )

  it.effect("creates, tracks and prices a sandbox parcel", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const client = dzship({ courier: "sandbox", gateway })
      const created = yield* Effect.promise(() => client.createOrder(order))
      assert.match(created.trackingNumber, /^SBX[0-9A-Z]{12}$/)
      assert.strictEqual(created.status, "created")
      assert.strictEqual(created.reference, "cmd-1001")

      const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
      assert.strictEqual(tracked.status, "created")
      assert.deepStrictEqual(
        tracked.events.map((event) => [event.status, event.rawStatus]),
        [["created", "order_created"]]
      )
      assert.match(tracked.events[0]!.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+01:00$/)

      const rates = yield* Effect.promise(() =>
        client.rates({ toWilaya: 31, deliveryType: "stopdesk", codAmount: 12000 })
      )
      assert.deepStrictEqual([rates.deliveryFee, rates.returnFee, rates.total, rates.currency], [400, 200, 520, "DZD"])
    })
  )

  it.effect("answers a sandbox parcel's label as a PDF", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const created = yield* Effect.promise(() => dzship({ courier: "sandbox", gateway }).createOrder(order))
      const label = yield* Effect.promise(async () => {
        const response = await fetch(`${gateway}/v1/labels`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ courier: "sandbox", trackingNumber: created.trackingNumber })
        })
        return {
          status: response.status,
          type: response.headers.get("content-type"),
          body: Buffer.from(await response.arrayBuffer())
        }
      })
      assert.strictEqual(label.status, 200)
      assert.strictEqual(label.type, "application/pdf")
      assert.strictEqual(label.body.subarray(0, 5).toString(), "%PDF-")
      assert.include(label.body.toString("latin1"), created.trackingNumber)
      assert.include(label.body.toString("latin1"), "%%EOF")
      const unknown = yield* Effect.promise(() =>
        fetch(`${gateway}/v1/labels`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ courier: "sandbox", trackingNumber: "SBX0000000000ZZ" })
        }).then((response) => response.status)
      )
      assert.strictEqual(unknown, 422)
    })
  )

  it.effect("lists and searches couriers", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const all = yield* Effect.promise(() => dzship.couriers(undefined, { gateway }))
      const sandbox = all.find((courier) => courier.key === "sandbox")!
      assert.deepStrictEqual(sandbox.requiredCredentials, [])
      assert.deepStrictEqual(sandbox.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: false,
        trackBatch: true,
        createBatch: true,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: false
      })
      assert.isFalse(sandbox.requiresBaseUrl)
      assert.deepStrictEqual(
        (yield* Effect.promise(() => dzship.couriers({ q: "sand" }, { gateway }))).map((courier) => courier.key),
        ["sandbox"]
      )
      assert.deepStrictEqual(yield* Effect.promise(() => dzship.couriers({ platform: "nowhere" }, { gateway })), [])
    })
  )

  it.effect("reports every invalid field as a 400 with fields", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const client = dzship({ courier: "sandbox", gateway })
      const error = yield* rejected(
        client.createOrder({
          ...order,
          recipient: { ...order.recipient, fullName: "A", wilayaCode: 59 },
          codAmount: -5,
          notes: "x".repeat(256)
        })
      )
      assert.strictEqual(error.status, 400)
      assert.strictEqual(error.code, "invalid_input")
      assert.deepStrictEqual(Object.keys(error.fields ?? {}).sort(), [
        "order.codAmount",
        "order.notes",
        "order.recipient.fullName",
        "order.recipient.wilayaCode"
      ])
    })
  )

  it.effect("answers 422 for a phone that is not an Algerian mobile, and for a courier's refusal", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const client = dzship({ courier: "sandbox", gateway })
      const phone = yield* rejected(
        client.createOrder({ ...order, recipient: { ...order.recipient, phone: "021 23 45 67" } })
      )
      assert.strictEqual(phone.status, 422)
      assert.strictEqual(phone.code, "invalid_phone")
      assert.hasAllKeys(phone.fields, ["order.recipient.phone"])
      const refused = yield* rejected(
        client.createOrder({ ...order, recipient: { ...order.recipient, phone: "0500000422" } })
      )
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(refused.code, "courier_refused")
      const unknownParcel = yield* rejected(client.track("SBX0000000000ZZ"))
      assert.strictEqual(unknownParcel.status, 422)
    })
  )

  it.effect(
    "answers 400 for an unknown courier, naming the list endpoint, and for credentials sent to the sandbox",
    () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const unknown = yield* rejected(dzship({ courier: "no_such_courier", gateway }).createOrder(order))
        assert.strictEqual(unknown.status, 400)
        assert.strictEqual(unknown.code, "unknown_courier")
        assert.include(unknown.message, "/v1/couriers")
        const credentials = yield* rejected(
          dzship({ courier: "sandbox", credentials: { token: "abc" }, gateway }).createOrder(order)
        )
        assert.strictEqual(credentials.status, 400)
        assert.strictEqual(credentials.code, "invalid_credentials")
        const baseUrl = yield* rejected(
          dzship({ courier: "sandbox", options: { baseUrl: "https://evil.example" }, gateway }).createOrder(order)
        )
        assert.strictEqual(baseUrl.status, 400)
        assert.strictEqual(baseUrl.code, "blocked_egress")
      })
  )

  it.effect("serves the wilayas in dzship's shape: 58, or 69 with the 2026 division; one by code; search", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      type Wilaya = {
        code: number
        nameFr: string
        nameAr: string
        isDeepSouth: boolean
        communeCount: number
        courierSupported: boolean
        shipAs?: number
      }
      const all = (yield* Effect.promise(() => dzship.wilayas(undefined, { gateway }))) as ReadonlyArray<Wilaya>
      assert.deepStrictEqual(
        all.map((wilaya) => wilaya.code),
        Array.from({ length: 58 }, (_, i) => i + 1)
      )
      for (const wilaya of all) {
        assert.hasAllKeys(wilaya, ["code", "nameFr", "nameAr", "isDeepSouth", "communeCount", "courierSupported"])
        assert.isTrue(wilaya.courierSupported)
      }
      assert.deepStrictEqual(
        all.filter((wilaya) => wilaya.isDeepSouth).map((wilaya) => wilaya.code),
        [11, 33, 37, 49, 50, 52, 53, 54, 56]
      )
      assert.strictEqual(
        all.reduce((sum, wilaya) => sum + wilaya.communeCount, 0),
        1541
      )
      const algiers: unknown = yield* Effect.promise(() => dzship.wilayas(16, { gateway }))
      assert.deepStrictEqual(algiers, {
        code: 16,
        nameFr: "Alger",
        nameAr: "الجزائر",
        isDeepSouth: false,
        communeCount: 57,
        courierSupported: true
      })
      const division = (yield* Effect.promise(() =>
        dzship.wilayas({ all: true }, { gateway })
      )) as ReadonlyArray<Wilaya>
      assert.lengthOf(division, 69)
      const added = division.filter((wilaya) => wilaya.code > 58)
      assert.deepStrictEqual(
        added.map((wilaya) => [wilaya.courierSupported, wilaya.shipAs]),
        [3, 32, 13, 7, 5, 28, 12, 26, 14, 17, 17].map((shipAs) => [false, shipAs])
      )
      const aflou = (yield* Effect.promise(() => dzship.wilayas(59, { gateway }))) as Wilaya
      assert.deepInclude(aflou, { code: 59, nameFr: "Aflou", courierSupported: false, shipAs: 3 })
      const byName = (query: string) =>
        Effect.promise(() => dzship.wilayas(query, { gateway }) as Promise<ReadonlyArray<{ code: number }>>)
      assert.strictEqual((yield* byName("ORAN"))[0]!.code, 31)
      assert.strictEqual((yield* byName("وهران"))[0]!.code, 31)
      assert.strictEqual((yield* byName("bordj bou arreridj"))[0]!.code, 34)
      const missing = yield* rejected(dzship.wilayas({ code: 70 }, { gateway }))
      assert.strictEqual(missing.status, 404)
    })
  )

  it.effect("serves the communes of a wilaya from the bundled dataset, matching names loosely", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const algiers = yield* Effect.promise(() => dzship.communes(16, { gateway }))
      assert.lengthOf(algiers, 57)
      assert.isTrue(algiers.every((commune) => commune.wilayaCode === 16))
      const found = yield* Effect.promise(() => dzship.communes({ wilaya: 16, q: "bab-ezzouar" }, { gateway }))
      assert.deepStrictEqual(
        found.map((commune) => commune.nameFr),
        ["Bab Ezzouar"]
      )
      const everywhere = yield* Effect.promise(() => dzship.communes({ q: "el marsa" }, { gateway }))
      assert.includeMembers(
        everywhere.map((commune) => commune.wilayaCode),
        [2, 16, 21]
      )
      const bad = yield* rejected(dzship.communes({ wilaya: 70 }, { gateway }))
      assert.strictEqual(bad.status, 400)
    })
  )

  it.effect("answers the health probe", () =>
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const health = yield* Effect.promise(() => dzship.health({ gateway }))
      assert.strictEqual(health.status, "ok")
    })
  )
})

describe("the shipping API with a broken COMMUNES_FILE", () => {
  it.live("answers /v1/communes with 503 and says what is wrong; wilayas still work", () =>
    Effect.gen(function* () {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-communes-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const file = Path.join(dir, "communes.json")
      Fs.writeFileSync(file, "not json")
      const app = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir, COMMUNES_FILE: file })
      const error = yield* rejected(dzship.communes(16, { gateway: app.shippingUrl }))
      assert.strictEqual(error.status, 503)
      assert.strictEqual(error.code, "communes_unavailable")
      assert.include(error.message, "COMMUNES_FILE")
      const wilayas = yield* Effect.promise(() => dzship.wilayas(undefined, { gateway: app.shippingUrl }))
      assert.lengthOf(wilayas as ReadonlyArray<unknown>, 58)
    }).pipe(Effect.scoped)
  )
})

describe("the shipping API's per-client rate limit", () => {
  it.live("answers 429 with Retry-After past the limit, which the dzship client reads as retryAfter", () =>
    Effect.gen(function* () {
      const app = yield* startApp({
        DATA_DIR: yield* TestDatabase.migratedDataDir,
        SHIPPING_RATE_LIMIT_PER_MINUTE: "3"
      })
      const client = dzship({ courier: "sandbox", gateway: app.shippingUrl })
      for (let i = 0; i < 3; i++) {
        yield* Effect.promise(() => client.rates({ toWilaya: 16, deliveryType: "home" }))
      }
      const limited = yield* rejected(client.track("SBX000000000000"))
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.code, "rate_limited")
      assert.isAbove(limited.retryAfter ?? 0, 0)
      assert.isAtMost(limited.retryAfter ?? 0, 60)
      // Reference data is not limited.
      yield* Effect.promise(() => dzship.couriers(undefined, { gateway: app.shippingUrl }))
    }).pipe(Effect.scoped)
  )
})

describe("courier adapters named in configuration", () => {
  const writeModule = (source: string) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-adapter-"))
        const file = Path.join(dir, "adapter.mjs")
        Fs.writeFileSync(file, source)
        return file
      }),
      (file) => Effect.sync(() => Fs.rmSync(Path.dirname(file), { recursive: true, force: true }))
    )

  it.live("are loaded besides the installed ones (COURIER_ADAPTERS)", () =>
    Effect.gen(function* () {
      const file = yield* writeModule(`export const adapter = {
        platform: "extra",
        couriers: [{ key: "extra_courier", name: "Extra Courier", aliases: [], endpoint: { origin: "https://api.extra.dz" } }],
        statuses: {},
        operations: {}
      }`)
      const app = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir, COURIER_ADAPTERS: file })
      const found = yield* Effect.promise(() => dzship.couriers({ q: "extra" }, { gateway: app.shippingUrl }))
      assert.deepStrictEqual(
        found.map((courier) => [courier.key, courier.capabilities]),
        [
          [
            "extra_courier",
            {
              create: false,
              track: false,
              rates: false,
              label: false,
              cancel: false,
              dispatch: false,
              trackBatch: false,
              createBatch: false,
              stopDesks: false,
              communes: false,
              checkCredentials: false,
              push: false
            }
          ]
        ]
      )
    }).pipe(Effect.scoped)
  )

  it.live("refuse the start with one line when malformed or clashing (fail closed)", () =>
    Effect.gen(function* () {
      for (const source of [
        `export const adapter = { platform: "bad", couriers: [{ key: "Bad Key", name: "x", aliases: [], endpoint: { origin: "https://x.dz" } }], statuses: {}, operations: {} }`,
        `export const adapter = { platform: "clash", couriers: [{ key: "sandbox", name: "Clash", aliases: [], endpoint: { origin: "https://x.dz" } }], statuses: {}, operations: {} }`,
        `export const nothing = 1`
      ]) {
        const file = yield* writeModule(source)
        // Refused before the database is opened: the data directory is never made.
        const dataDir = Path.join(Path.dirname(file), "data")
        const app = yield* spawnApp({ DATA_DIR: dataDir, COURIER_ADAPTERS: file })
        const exit = yield* waitForExit(app)
        assert.strictEqual(exit.code, 1)
        const lines = app.stderr().trim().split("\n")
        assert.lengthOf(lines, 1, app.stderr())
        assert.match(lines[0]!, /^tawsil: cannot start: courier adapter /)
        assert.isFalse(Fs.existsSync(dataDir), "the database was not opened")
      }
    }).pipe(Effect.scoped)
  )
})
