/**
 * `POST /v1/orders/batch` and `POST /v1/labels/batch` through the app in this process (real sockets, the embedded
 * database for the orders' idempotency records): 100 parcels to the sandbox and to the Yalidine engine's loopback
 * fake (its documented bulk create, one array), a few refused, one result each; the same batch again creates nothing
 * twice; one PDF of many labels read back with pdf-lib; bad batches answered with the 400 envelope, and fuzzed.
 */
import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import fc from "fast-check"
import { PDFDocument } from "pdf-lib"
import {
  EcotrackFake,
  type Fake as EcotrackFakeService,
  TOKEN,
  UNSERVED
} from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { type Fake, YalidineFake } from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import { postJson } from "../AppProcess.ts"
import { type AppInProcess, startApp } from "./AppInProcess.ts"

const ACCOUNT = { apiId: "94986571734304520846", apiToken: "fake-token-5MKfvcyQtO3eouL6tDv0VDFh" }
const generous = { second: 1000, minute: 10_000, hour: 100_000, day: 1_000_000 }
/** Credentials no answer or log line may ever show. */
const CANARY = { apiId: "canary-batch-id-4c1e9a07", apiToken: "canary-batch-token-b38d52f6e1a0" }

class Setup extends Context.Service<
  Setup,
  { readonly app: AppInProcess; readonly fake: Fake; readonly ecotrack: EcotrackFakeService }
>()("test/Batches/Setup") {}

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* YalidineFake
    const ecotrack = yield* EcotrackFake
    const app = yield* startApp(
      {
        DATA_DIR: yield* TestDatabase.migratedDataDir,
        TAWSIL_COURIER_ORIGINS: `https://api.yalidine.app=${fake.origin},https://platform.dhd-dz.com=${ecotrack.origin}`,
        SHIPPING_RATE_LIMIT_PER_MINUTE: "100000"
      },
      { within: 90_000 }
    )
    return { app, fake, ecotrack }
  })
).pipe(
  Layer.provideMerge(
    YalidineFake.layer({
      accounts: [
        { ...ACCOUNT, quotas: generous },
        { ...CANARY, quotas: generous }
      ],
      labelLinks: "api"
    })
  ),
  // The app paces the account on windows a thousandth as long (AppInProcess): the fake's 50 a minute is raised.
  Layer.provideMerge(EcotrackFake.layer({ perMinute: 10_000 }))
)

const post = (path: string, body: unknown) =>
  Effect.flatMap(Setup, ({ app }) => postJson(`${app.shippingUrl}${path}`, body))

/** An order of a batch, to Oran (a commune both the reference data and Yalidine's fake know). */
const order = (reference: string, overrides: Record<string, unknown> = {}) => ({
  reference,
  recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 31, communeName: "Bir El Djir" },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500,
  ...overrides
})

const recipient = (changes: Record<string, unknown>) => ({
  recipient: { ...order("x").recipient, ...changes }
})

/** What the results say, one word each: the parcel's status, or the failure's code. */
// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answer field by field
const outcomes = (results: ReadonlyArray<any>) =>
  results.map((result) => (result.error === undefined ? "created" : result.error.code))

layer(SetupLive, { timeout: "180 seconds", excludeTestServices: true })("batches through the app", (it) => {
  it.effect("sandbox: 100 parcels, a few refused, one result each; the batch again creates nothing twice", () =>
    Effect.gen(function* () {
      const orders = Array.from({ length: 100 }, (_, index) =>
        order(`sbx-${index}`, {
          // The sandbox's test phone it refuses, a phone that is not a mobile, a commune Oran does not have.
          ...(index === 7 ? recipient({ phone: "0500000422" }) : {}),
          ...(index === 42 ? recipient({ phone: "021234567" }) : {}),
          ...(index === 99 ? recipient({ communeName: "Nowhere At All" }) : {})
        })
      )
      const first = yield* post("/v1/orders/batch", { courier: "sandbox", orders })
      assert.strictEqual(first.status, 200, first.text)
      const words = outcomes(first.json.results)
      assert.deepStrictEqual([words[7], words[42], words[99]], ["courier_refused", "invalid_phone", "unknown_commune"])
      assert.deepStrictEqual([first.json.created, first.json.failed], [97, 3])
      // The failure is the single create's: its status, its code, its fields and suggestions.
      const refusedPhone = first.json.results[42]
      assert.strictEqual(refusedPhone.reference, "sbx-42")
      assert.strictEqual(refusedPhone.error.status, 422)
      assert.deepStrictEqual(Object.keys(refusedPhone.error.fields), ["order.recipient.phone"])
      assert.isArray(first.json.results[99].error.suggestions)
      const single = yield* post("/v1/orders", { courier: "sandbox", order: orders[42] })
      assert.deepStrictEqual(
        { status: single.status, code: single.json.error.code, message: single.json.error.message },
        { status: 422, code: "invalid_phone", message: refusedPhone.error.message }
      )
      // Every parcel in its order, under its reference.
      first.json.results.forEach((result: { reference: string }, index: number) => {
        assert.strictEqual(result.reference, `sbx-${index}`)
      })

      const again = yield* post("/v1/orders/batch", { courier: "sandbox", orders })
      assert.strictEqual(again.status, 200)
      assert.deepStrictEqual(outcomes(again.json.results), words)
      assert.deepStrictEqual(
        again.json.results.map((result: { trackingNumber?: string }) => result.trackingNumber),
        first.json.results.map((result: { trackingNumber?: string }) => result.trackingNumber),
        "the same parcels answered again"
      )
      // One order changed under a reference already used is refused alone.
      const changed = yield* post("/v1/orders/batch", {
        courier: "sandbox",
        orders: [order("sbx-0", { codAmount: 9999 }), order("sbx-new")]
      })
      assert.deepStrictEqual(outcomes(changed.json.results), ["idempotency_key_reuse", "created"])
    })
  )

  it.effect("yalidine: 100 parcels in one bulk request, the refused alone; the batch again creates nothing twice", () =>
    Effect.gen(function* () {
      const { fake } = yield* Setup
      const orders = Array.from({ length: 100 }, (_, index) =>
        order(`yal-batch-${index}`, index % 25 === 3 ? { deliveryType: "stopdesk", stopDeskId: "999999" } : {})
      )
      const posts = () => fake.requests.filter(({ method, path }) => method === "POST" && path === "/v1/parcels/")
      const postsBefore = posts().length
      const parcelsBefore = fake.parcels.size
      const call = { courier: "yalidine", credentials: ACCOUNT, options: { fromWilaya: 16 }, orders }
      const first = yield* post("/v1/orders/batch", call)
      assert.strictEqual(first.status, 200, first.text)
      const words = outcomes(first.json.results)
      assert.deepStrictEqual(
        words.flatMap((word, index) => (word === "created" ? [] : [[index, word]])),
        [3, 28, 53, 78].map((index) => [index, "courier_refused"])
      )
      assert.include(first.json.results[3].error.message, "stopdesk_id")
      assert.strictEqual(posts().length - postsBefore, 1, "one bulk request for the 100 parcels")
      assert.strictEqual(fake.parcels.size - parcelsBefore, 96)

      const again = yield* post("/v1/orders/batch", call)
      assert.deepStrictEqual(outcomes(again.json.results), words)
      assert.strictEqual(fake.parcels.size - parcelsBefore, 96, "no parcel made twice")
      // Only the four refused orders went to the courier again.
      assert.strictEqual(posts().length - postsBefore, 2)
      assert.lengthOf(posts().at(-1)?.body as ReadonlyArray<unknown>, 4)
    })
  )

  it.effect("canary credentials quoted by the courier in its refusals appear in no item, answer or log line", () =>
    Effect.gen(function* () {
      const { app, fake } = yield* Setup
      fake.misbehaveNext(
        { kind: "refuseParcel", message: `token ${CANARY.apiToken} of ${CANARY.apiId} refused` },
        "/v1/parcels/"
      )
      const answer = yield* post("/v1/orders/batch", {
        courier: "yalidine",
        credentials: CANARY,
        options: { fromWilaya: 16 },
        orders: [order("canary-1"), order("canary-2")]
      })
      assert.strictEqual(answer.status, 200, answer.text)
      assert.deepStrictEqual(outcomes(answer.json.results), ["courier_refused", "courier_refused"])
      // The courier's words are passed on, the credentials in them blanked out.
      assert.include(answer.json.results[0].error.message, "token <redacted> of <redacted> refused")
      const sheet = yield* post("/v1/labels/batch", {
        courier: "yalidine",
        credentials: CANARY,
        trackingNumbers: ["yal-NOSUCH"]
      })
      assert.strictEqual(sheet.status, 200, sheet.text)
      for (const text of [answer.text, sheet.text, app.stdout(), app.stderr()]) {
        assert.notInclude(text, CANARY.apiToken)
        assert.notInclude(text, CANARY.apiId)
      }
    })
  )

  it.effect("ecotrack (DHD): 100 parcels in one create/orders, each validated, the unserved alone; nothing twice", () =>
    Effect.gen(function* () {
      const { ecotrack } = yield* Setup
      const orders = Array.from({ length: 100 }, (_, index) =>
        order(
          `dhd-batch-${index}`,
          // Illizi (33) is a wilaya the fake tenant does not serve: its commune list has none there, so the host
          // refuses those orders before the courier (the courier's own refusals in a bulk answer: EcotrackBatch.test).
          recipient(
            index % 30 === 11
              ? { wilayaCode: UNSERVED[0], communeName: "Illizi" }
              : { wilayaCode: 16, communeName: "Bab Ezzouar" }
          )
        )
      )
      const count = (path: string) => ecotrack.requests.filter((request) => request.path === path).length
      const call = { courier: "dhd", credentials: { token: TOKEN }, orders }
      const first = yield* post("/v1/orders/batch", call)
      assert.strictEqual(first.status, 200, first.text)
      const words = outcomes(first.json.results)
      assert.deepStrictEqual(
        words.flatMap((word, index) => (word === "created" ? [] : [[index, word]])),
        [11, 41, 71].map((index) => [index, "commune_not_served"])
      )
      // One bulk create, a validation per parcel, and each wilaya's commune list read once for the 100 orders.
      assert.deepStrictEqual(
        [
          count("/api/v1/create/orders"),
          count("/api/v1/create/order"),
          count("/api/v1/valid/order"),
          count("/api/v1/get/communes")
        ],
        [1, 0, 97, 2]
      )
      const again = yield* post("/v1/orders/batch", call)
      assert.deepStrictEqual(outcomes(again.json.results), words)
      assert.strictEqual(ecotrack.parcels.size, 97, "no parcel made twice")
      // The three refused orders were checked again (their keys were freed) and refused again before the courier.
      assert.deepStrictEqual([count("/api/v1/create/orders"), count("/api/v1/valid/order")], [1, 97])
    })
  )

  it.effect("labels: one PDF of the labels asked, in order, the parcels left out listed beside it", () =>
    Effect.gen(function* () {
      const created = yield* post("/v1/orders/batch", {
        courier: "sandbox",
        orders: [order("lbl-1"), order("lbl-2"), order("lbl-3")]
      })
      const numbers = created.json.results.map((result: { trackingNumber: string }) => result.trackingNumber)
      const asked = [numbers[0], "SBXNOTONE", numbers[1], "SBXTEST502", numbers[2]]
      const sheet = yield* post("/v1/labels/batch", { courier: "sandbox", trackingNumbers: asked })
      assert.strictEqual(sheet.status, 200, sheet.text)
      assert.deepStrictEqual(
        sheet.json.labels.map((label: { index: number; trackingNumber: string }) => [
          label.index,
          label.trackingNumber
        ]),
        [
          [0, numbers[0]],
          [2, numbers[1]],
          [4, numbers[2]]
        ]
      )
      assert.deepStrictEqual(
        sheet.json.errors.map((failure: { index: number; error: { code: string } }) => [
          failure.index,
          failure.error.code
        ]),
        [
          [1, "courier_refused"],
          [3, "courier_unreachable"]
        ]
      )
      const pdf = Buffer.from(sheet.json.pdf, "base64")
      const document = yield* Effect.promise(() => PDFDocument.load(pdf))
      assert.strictEqual(document.getPageCount(), 3)
      assert.strictEqual(sheet.json.pageCount, 3)

      const yalidine = yield* post("/v1/orders/batch", {
        courier: "yalidine",
        credentials: ACCOUNT,
        options: { fromWilaya: 16 },
        orders: [order("yal-lbl-1"), order("yal-lbl-2")]
      })
      const yalidineSheet = yield* post("/v1/labels/batch", {
        courier: "yalidine",
        credentials: ACCOUNT,
        trackingNumbers: yalidine.json.results.map((result: { trackingNumber: string }) => result.trackingNumber)
      })
      assert.strictEqual(yalidineSheet.status, 200, yalidineSheet.text)
      assert.deepStrictEqual(yalidineSheet.json.errors, [])
      const merged = yield* Effect.promise(() => PDFDocument.load(Buffer.from(yalidineSheet.json.pdf, "base64")))
      assert.strictEqual(merged.getPageCount(), yalidineSheet.json.pageCount)
      assert.isAtLeast(merged.getPageCount(), 2)
    })
  )

  it.effect("bad batches: the documented 400 envelope, naming the field at fault", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, unknown, string]> = [
        ["no order", { courier: "sandbox", orders: [] }, "orders"],
        [
          "101 orders",
          { courier: "sandbox", orders: Array.from({ length: 101 }, (_, index) => order(`o-${index}`)) },
          "orders"
        ],
        [
          "an order for another courier",
          { courier: "sandbox", orders: [order("a"), { ...order("b"), courier: "yalidine" }] },
          "orders.1.courier"
        ],
        ["one reference twice", { courier: "sandbox", orders: [order("a"), order("a")] }, "orders.1.reference"],
        [
          "an order without its reference",
          { courier: "sandbox", orders: [{ ...order("a"), reference: undefined }] },
          "orders.0.reference"
        ],
        [
          "a malformed order",
          { courier: "sandbox", orders: [order("a", { codAmount: -5, deliveryType: "drone" })] },
          "orders.0.codAmount"
        ],
        ["no tracking number", { courier: "sandbox", trackingNumbers: [] }, "trackingNumbers"]
      ]
      for (const [name, body, field] of cases) {
        const path = "trackingNumbers" in (body as object) ? "/v1/labels/batch" : "/v1/orders/batch"
        const answer = yield* post(path, body)
        assert.strictEqual(answer.status, 400, `${name}: ${answer.text}`)
        assert.strictEqual(answer.json.error.code, "invalid_input", name)
        assert.isString(answer.json.error.fields?.[field], `${name}: ${answer.text}`)
      }
      const unknown = yield* post("/v1/orders/batch", { courier: "nobody", orders: [order("a")] })
      assert.deepStrictEqual([unknown.status, unknown.json.error.code], [400, "unknown_courier"])
    })
  )

  it.effect("fuzzed batch bodies: every answer is a 200 or a 4xx envelope, never a 5xx", () =>
    Effect.gen(function* () {
      const { app } = yield* Setup
      const nasty = fc.oneof(
        fc.string({ unit: fc.constantFrom("\u0000", "\u0007", "\u001f", "\u202e", "a", "é", "ع", "\ud83d\ude00") }),
        fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0.5, null, true, [], {}),
        fc.integer({ min: 1, max: 200 }).map((depth) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`)),
        fc.integer({ min: 1, max: 200 }).map((depth) => JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`))
      )
      const valid = () => ({ courier: "sandbox", orders: [order("f-1"), order("f-2")] })
      // A valid batch with one value replaced (a member of the body, of an order, or of a recipient) or added.
      const mutated = fc
        .tuple(
          fc.constantFrom("body", "order", "recipient"),
          fc.constantFrom(
            "courier",
            "orders",
            "options",
            "credentials",
            "reference",
            "recipient",
            "codAmount",
            "deliveryType",
            "phone",
            "wilayaCode",
            "communeName",
            "extra"
          ),
          nasty
        )
        .map(([where, key, value]) => {
          const body: Record<string, unknown> = valid()
          const orders = body.orders as Array<Record<string, unknown>>
          const target =
            where === "body" ? body : where === "order" ? orders[1]! : (orders[1]!.recipient as Record<string, unknown>)
          target[key] = value
          return body
        })
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.oneof(mutated, fc.jsonValue()), async (body) => {
            const response = await fetch(`${app.shippingUrl}/v1/orders/batch`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body)
            })
            const answer = (await response.json()) as { error?: { code: unknown; message: unknown }; results?: unknown }
            if (response.status === 200) return Array.isArray(answer.results)
            return (
              response.status >= 400 &&
              response.status < 500 &&
              typeof answer.error?.code === "string" &&
              typeof answer.error.message === "string"
            )
          }),
          { numRuns: 150, seed: 20_261_207 }
        )
      )
    })
  )
})
