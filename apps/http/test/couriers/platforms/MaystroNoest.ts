/**
 * The Maystro and NOEST suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of each courier's
 * documented API, through the app the platforms' suites share (`Platforms.ts`, in this process, real sockets). The
 * app reaches the fakes only through TAWSIL_COURIER_ORIGINS; the adapters are found by discovery, as any installed
 * adapter is.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { KEY, MaystroFake } from "../../../../../adapters/maystro/test/fake/MaystroFake.ts"
import { GUID, NoestFake, TOKEN } from "../../../../../adapters/noest/test/fake/NoestFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { type DzshipError, dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { besideCachedLookups, originsOf, Platforms } from "../Platforms.ts"

/** Credentials no code path may ever print, store or return: a Maystro key, a NOEST token and a NOEST GUID. */
const CANARY_KEY = "canary-maystro-6e1f3a9c0b4d7e28"
const CANARY_TOKEN = "canary-noest-token-8d2c5b7e1f9a"
const CANARY_GUID = "canary-noest-guid-3a7f"
const CANARIES = [CANARY_KEY, CANARY_TOKEN, CANARY_GUID]

const maystro = { courier: "maystro", credentials: { apiKey: KEY } }
const noest = { courier: "noest", credentials: { apiToken: TOKEN, guid: GUID } }

const order = (fullName = "Amina Benali", phone = "0555123456") => ({
  reference: "cmd-77",
  recipient: { fullName, phone, wilayaCode: 16, communeName: "Bab Ezzouar", addressLine: "Cité 5 juillet" },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
})

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/**
 * Both fakes, and the shared app whose Maystro and NOEST origins point at them. Each test creates for a customer
 * of its own: Maystro refuses a second order of the day for the same name and phone.
 */
class Setup extends Context.Service<
  Setup,
  {
    readonly maystroFake: MaystroFake["Service"]
    readonly noestFake: NoestFake["Service"]
    readonly app: AppInProcess
    readonly dataDir: string
  }
>()("test/MaystroNoest/Setup") {}

/** The fakes with this suite's accounts: `Platforms.db.test.ts` starts them before the app. */
export const fake = Layer.mergeAll(
  MaystroFake.layer({ keys: [KEY, CANARY_KEY] }),
  NoestFake.layer({
    accounts: [
      [TOKEN, GUID],
      [CANARY_TOKEN, CANARY_GUID]
    ]
  })
)

/** The origins these fakes stand for. */
export const origins = Effect.map(Effect.all([MaystroFake, NoestFake]), ([maystro, noest]) =>
  originsOf({ maystro, noest })
)

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const maystroFake = yield* MaystroFake
    const noestFake = yield* NoestFake
    const { app, dataDir } = yield* Platforms
    return { maystroFake, noestFake, app, dataDir }
  })
)

const paths = (requests: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  requests.map(({ method, path }) => `${method} ${path}`)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fakes. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | MaystroFake | NoestFake>) =>
  it.layer(SetupLive)("the shipping API with the Maystro and NOEST adapters", (it) => {
    it.effect("lists both couriers with every capability and the dzship credential names", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const { status, body } = yield* getJson(`${app.shippingUrl}/v1/couriers`)
        assert.strictEqual(status, 200)
        // biome-ignore lint/suspicious/noExplicitAny: the listing is read field by field
        const byKey = new Map(body.map((entry: any) => [entry.key, entry]))
        // The four core operations each, and the optional ones each platform's documented API has (READMEs).
        const core = { create: true, track: true, rates: true, label: true }
        assert.deepInclude(byKey.get("maystro"), {
          platform: "maystro",
          requiredCredentials: ["apiKey"],
          capabilities: {
            ...core,
            cancel: true,
            dispatch: false,
            trackBatch: false,
            createBatch: false,
            stopDesks: false,
            communes: true,
            checkCredentials: true,
            push: true
          },
          endpoint: "https://backend.maystro-delivery.com"
        })
        assert.deepInclude(byKey.get("noest"), {
          platform: "noest",
          requiredCredentials: ["apiToken", "guid"],
          capabilities: {
            ...core,
            cancel: true,
            dispatch: true,
            trackBatch: true,
            createBatch: true,
            stopDesks: true,
            communes: true,
            checkCredentials: true,
            push: false
          },
          endpoint: "https://app.noest-dz.com"
        })
      })
    )

    it.effect("Maystro: create (commune id looked up), track, rates and label reach its fake", () =>
      Effect.gen(function* () {
        const { maystroFake, app } = yield* Setup
        const before = maystroFake.requests.length
        const created = yield* post(app, "/v1/orders", { ...maystro, order: order() })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "created")
        assert.strictEqual(created.json.reference, "cmd-77")
        assert.strictEqual(created.json.courierReference, "880001")
        const stored = maystroFake.orders.get(created.json.trackingNumber)
        assert.strictEqual(stored?.fields.commune, 1628, "the commune went as Maystro's id")

        maystroFake.setClock("2026-04-20", "14:02:33")
        maystroFake.addStatus(created.json.trackingNumber, 41)
        const tracked = yield* post(app, "/v1/track", { ...maystro, trackingNumber: created.json.trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "delivered")
        assert.deepStrictEqual(tracked.json.events, [
          { status: "created", rawStatus: "4", timestamp: "2026-04-18T19:45:06+01:00" },
          { status: "delivered", rawStatus: "41", timestamp: "2026-04-20T14:02:33+01:00" }
        ])

        const rates = yield* post(app, "/v1/rates", {
          ...maystro,
          query: { toWilaya: 31, toCommune: "Oran", deliveryType: "home", tier: "express" }
        })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.strictEqual(rates.json.tier, "express")
        assert.strictEqual(rates.json.deliveryFee, 950)
        assert.strictEqual(rates.json.currency, "DZD")

        const label = yield* post(app, "/v1/labels", { ...maystro, trackingNumber: created.json.trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.include(label.headers.get("content-type") ?? "", "application/pdf")
        assert.isTrue(label.latin1.startsWith("%PDF-"))
        assert.include(label.latin1, created.json.trackingNumber)

        // The create looks the wilaya's communes up, and the rates the destination's: each list once at most (kept
        // for a day by the adapter, so possibly already kept by an earlier file of this worker).
        const communes = "GET /api/shared/communes/"
        const received = besideCachedLookups(maystroFake.requests.slice(before), [communes])
        assert.deepStrictEqual(received.calls, [
          "POST /api/stores/orders/",
          `GET /api/stores/history_order/${created.json.trackingNumber}`,
          ...Array.from({ length: 4 }, () => "GET /api/stores/delivery_price/"),
          "POST /api/delivery/starter/v2/starter_bordureau/"
        ])
        assert.isAtMost(received.lookups(communes), 2)
        for (const request of maystroFake.requests.slice(before))
          assert.strictEqual(request.headers.authorization, `Token ${KEY}`)
      })
    )

    it.effect("Maystro: the same-day duplicate is the caller's to handle — 422 courier_refused, nothing created", () =>
      Effect.gen(function* () {
        const { maystroFake, app } = yield* Setup
        const orders = maystroFake.orders.size
        const first = yield* post(app, "/v1/orders", { ...maystro, order: order("Karim Haddad", "0770123401") })
        assert.strictEqual(first.status, 200, first.text)
        const again = yield* post(app, "/v1/orders", {
          ...maystro,
          order: { ...order("Karim Haddad", "0770123401"), reference: "cmd-78" }
        })
        assert.strictEqual(again.status, 422)
        assert.strictEqual(again.json.error.code, "courier_refused")
        assert.include(again.json.error.message, "Une commande existe déjà aujourd'hui pour ce client")
        assert.strictEqual(maystroFake.orders.size, orders + 1)
        const otherPhone = yield* post(app, "/v1/orders", { ...maystro, order: order("Karim Haddad", "0661234567") })
        assert.strictEqual(otherPhone.status, 200, "another phone is another customer")
      })
    )

    it.effect("NOEST: create (with the validation step), track, rates and label reach its fake; cash stays apart", () =>
      Effect.gen(function* () {
        const { noestFake, app } = yield* Setup
        const before = noestFake.requests.length
        const created = yield* post(app, "/v1/orders", { ...noest, order: order() })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "pending_pickup")
        assert.isTrue(noestFake.parcels.get(created.json.trackingNumber)?.validated, "the courier sees the parcel")

        for (const [date, time, key] of [
          ["2026-04-20", "14:02:33", "livre"],
          ["2026-04-21", "09:00:00", "edit_price"],
          ["2026-04-27", "10:00:00", "verssement_admin_cust"]
        ] as const) {
          noestFake.setClock(date, time)
          noestFake.addEvent(created.json.trackingNumber, key)
        }
        const tracked = yield* post(app, "/v1/track", { ...noest, trackingNumber: created.json.trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "delivered", "the payment did not move the parcel")
        assert.strictEqual(tracked.json.cod, "remitted")
        assert.deepStrictEqual(
          // biome-ignore lint/suspicious/noExplicitAny: events read field by field
          tracked.json.events.map((event: any) => event.rawStatus),
          ["upload", "customer_validation", "livre", "verssement_admin_cust"]
        )

        const rates = yield* post(app, "/v1/rates", { ...noest, query: { toWilaya: 31, deliveryType: "stopdesk" } })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.strictEqual(rates.json.deliveryFee, 450)
        assert.strictEqual(rates.json.returnFee, 150)

        const label = yield* post(app, "/v1/labels", { ...noest, trackingNumber: created.json.trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.isTrue(label.latin1.startsWith("%PDF-"))
        assert.include(label.latin1, created.json.trackingNumber)

        assert.deepStrictEqual(paths(noestFake.requests.slice(before)), [
          // The create first reads NOEST's communes of the wilaya (home from is_active, the desk flag from its desks).
          "GET /api/public/get/communes/16",
          "GET /api/public/desks",
          "POST /api/public/create/order",
          "POST /api/public/valid/order",
          "POST /api/public/get/trackings/info",
          "GET /api/public/fees",
          "GET /api/public/get/order/label"
        ])
      })
    )

    it.effect(
      "the unchanged dzship client creates, tracks and prices through both, and sees a 429 with retryAfter",
      () =>
        Effect.gen(function* () {
          const { maystroFake, noestFake, app } = yield* Setup
          for (const [call, fake] of [
            [maystro, maystroFake],
            [noest, noestFake]
          ] as const) {
            const client = dzship({ ...call, gateway: app.shippingUrl })
            const created = yield* Effect.promise(() =>
              client.createOrder(order("Yasmine Kaci", "0770123402") as never)
            )
            assert.isNotEmpty(created.trackingNumber, call.courier)
            const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
            assert.strictEqual(tracked.trackingNumber, created.trackingNumber)
            assert.isNotEmpty(tracked.events)
            const rates = (yield* Effect.promise(() =>
              client.rates({ toWilaya: 16, deliveryType: "home" } as never)
            )) as {
              deliveryFee: number
              total: number
            }
            assert.isAbove(rates.deliveryFee, 0)
            assert.strictEqual(rates.total, rates.deliveryFee)

            fake.misbehaveNext({ kind: "rateLimited", retryAfter: "30" })
            const limited: DzshipError = yield* rejected(client.rates({ toWilaya: 16, deliveryType: "home" }))
            assert.strictEqual(limited.name, "DzshipError")
            assert.strictEqual(limited.status, 429, call.courier)
            assert.strictEqual(limited.code, "rate_limited")
            assert.strictEqual(limited.retryAfter, 30)
          }
        })
    )

    it.effect("the canary credentials appear in no log, response, error body or database row", () =>
      Effect.gen(function* () {
        const { maystroFake, noestFake, app } = yield* Setup
        const bodies: Array<string> = []
        const record = (response: { text: string }) => bodies.push(response.text)
        const calls = [
          [{ courier: "maystro", credentials: { apiKey: CANARY_KEY } }, maystroFake],
          [{ courier: "noest", credentials: { apiToken: CANARY_TOKEN, guid: CANARY_GUID } }, noestFake]
        ] as const
        for (const [call, fake] of calls) {
          const key = `canary-${call.courier}-1`
          const created = yield* post(
            app,
            "/v1/orders",
            { ...call, order: order("Nadia Cherif", "0770123403") },
            { "idempotency-key": key }
          )
          assert.strictEqual(created.status, 200, created.text)
          record(created)
          record(
            yield* post(
              app,
              "/v1/orders",
              { ...call, order: order("Nadia Cherif", "0770123403") },
              { "idempotency-key": key }
            )
          )
          record(yield* post(app, "/v1/track", { ...call, trackingNumber: created.json.trackingNumber }))
          record(yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 16, deliveryType: "home" } }))
          const label = yield* post(app, "/v1/labels", { ...call, trackingNumber: created.json.trackingNumber })
          assert.strictEqual(label.status, 200)
          bodies.push(label.latin1)
          const misbehaviours = [
            { kind: "status", status: 500 },
            { kind: "html" },
            { kind: "echoToken" },
            { kind: "rateLimited" },
            { kind: "reset" }
          ] as const
          for (const [index, misbehaviour] of misbehaviours.entries()) {
            fake.misbehaveNext(misbehaviour)
            record(yield* post(app, "/v1/orders", { ...call, order: order(`Client ${index}`) }))
            fake.misbehaveNext(misbehaviour)
            record(yield* post(app, "/v1/track", { ...call, trackingNumber: created.json.trackingNumber }))
          }
          record(yield* post(app, "/v1/orders", { ...call, order: { ...order(), codAmount: -1 } }))
          record(
            yield* post(app, "/v1/orders", {
              ...call,
              credentials: { ...call.credentials, extra: CANARY_KEY },
              order: order("Nadia Cherif", "0770123403")
            })
          )
          for (const field of Object.keys(call.credentials)) {
            record(
              yield* post(app, "/v1/rates", {
                ...call,
                credentials: { ...call.credentials, [field]: `${CANARY_TOKEN} with spaces` },
                query: { toWilaya: 16, deliveryType: "home" }
              })
            )
          }
        }
        for (const canary of CANARIES) {
          assert.isTrue(
            [...maystroFake.requests, ...noestFake.requests].some((request) =>
              JSON.stringify(request).includes(canary)
            ),
            `${canary} did reach its courier`
          )
        }

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 30)
          assert.isTrue(
            bodies.some((body) => body.includes("<redacted>")),
            "a courier that quoted a credential back was answered with it blanked out"
          )
          assert.include(app.stdout(), "courier adapters loaded", "the app's log was captured")
          assert.include(everything, "canary-maystro-1", "the idempotency records were stored")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            for (const canary of CANARIES) {
              assert.notInclude(text, canary, `${canary} leaked into ${where}`)
              assert.notInclude(text, encodeURIComponent(canary), `${canary} leaked into ${where}, encoded`)
            }
          }
        })
      })
    )
  })
