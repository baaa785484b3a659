/**
 * The Procolis (legacy ZR Express and its sister couriers) and new ZR Express suite of `Platforms.db.test.ts`: the
 * shipping API against loopback fakes of their documented APIs, through the app the platforms' suites share
 * (`Platforms.ts`, in this process). The app reaches the fakes only through TAWSIL_COURIER_ORIGINS, process
 * configuration; every other host stays behind the egress rules. The public dzship client, unchanged, talks to the
 * app as it would to the hosted service.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ACCOUNT as PROCOLIS_ACCOUNT, ProcolisFake } from "../../../../../adapters/procolis/test/fake/ProcolisFake.ts"
import {
  PICKUP_POINTS,
  ACCOUNT as ZR_ACCOUNT,
  ZrExpressNewFake
} from "../../../../../adapters/zrexpress-new/test/fake/ZrExpressNewFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** Credentials no code path may ever print, store or return. */
const CANARY = "canary-3d8f1b6e0a4c-procolis-zr"
const CANARY_KEY = "canary-key-95e2c7a1f04b"
const CANARY_TENANT = "c0a1e2b3-d4c5-4e6f-8a7b-9c0d1e2f3a4b"

const order = {
  reference: "cmd-1042",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
}

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/** Both fakes, and the shared app whose Procolis and ZR Express origins point at them. */
class Setup extends Context.Service<
  Setup,
  {
    readonly procolis: ProcolisFake["Service"]
    readonly zr: ZrExpressNewFake["Service"]
    readonly app: AppInProcess
    readonly dataDir: string
  }
>()("test/Procolis/Setup") {}

/** The fakes with this suite's accounts: `Platforms.db.test.ts` starts them before the app. */
export const fake = Layer.mergeAll(
  ProcolisFake.layer({ accounts: [PROCOLIS_ACCOUNT, { token: CANARY, key: CANARY_KEY }] }),
  ZrExpressNewFake.layer({ accounts: [ZR_ACCOUNT, { tenantId: CANARY_TENANT, apiKey: CANARY }] })
)

/** The origins these fakes stand for; ZR's label files are on its storage host, a document host it declares. */
export const origins = Effect.map(Effect.all([ProcolisFake, ZrExpressNewFake]), ([procolis, zr]) =>
  originsOf({ procolis, zr })
)

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const procolis = yield* ProcolisFake
    const zr = yield* ZrExpressNewFake
    const { app, dataDir } = yield* Platforms
    return { procolis, zr, app, dataDir }
  })
)

const procolisCall = { courier: "zrexpress", credentials: { token: PROCOLIS_ACCOUNT.token, key: PROCOLIS_ACCOUNT.key } }
const zrCall = { courier: "zrexpress_new", credentials: { apiKey: ZR_ACCOUNT.apiKey, tenantId: ZR_ACCOUNT.tenantId } }

/** The suite: `Platforms.db.test.ts` runs it with the app and the fakes. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | ProcolisFake | ZrExpressNewFake>) =>
  it.layer(SetupLive)("the shipping API with the Procolis and new ZR Express adapters", (it) => {
    it.effect("lists both platforms' couriers, with label false, as the app discovers them", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const procolis = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=procolis`)
        assert.strictEqual(procolis.status, 200)
        const entries = procolis.body as ReadonlyArray<{
          key: string
          requiredCredentials: ReadonlyArray<string>
          capabilities: Record<string, boolean>
          endpoint: string
        }>
        assert.sameMembers(
          entries.map((entry) => entry.key),
          ["abex", "colilog", "flash_delivery", "leopard_express", "zrexpress"]
        )
        for (const entry of entries) {
          assert.deepStrictEqual(entry.requiredCredentials, ["token", "key"])
          // Batch tracking (lire) and the credential check (token) are documented; no label, cancel, desks or communes.
          assert.deepStrictEqual(entry.capabilities, {
            create: true,
            track: true,
            rates: true,
            label: false,
            cancel: false,
            dispatch: false,
            trackBatch: true,
            createBatch: false,
            stopDesks: false,
            communes: false,
            checkCredentials: true,
            push: false
          })
          assert.strictEqual(entry.endpoint, "https://procolis.com")
        }
        const zr = yield* getJson(`${app.shippingUrl}/v1/couriers?q=zrexpressnew`)
        assert.deepStrictEqual(
          (zr.body as ReadonlyArray<{ key: string; requiredCredentials: ReadonlyArray<string> }>).map((entry) => [
            entry.key,
            entry.requiredCredentials
          ]),
          [["zrexpress_new", ["apiKey", "tenantId"]]]
        )
      })
    )

    it.effect("creates, tracks and prices through zrexpress and zrexpress_new; labels: Procolis none, ZR its PDF", () =>
      Effect.gen(function* () {
        const { procolis, zr, app } = yield* Setup
        let zrTracking = ""
        for (const [call, fake] of [
          [procolisCall, procolis],
          [zrCall, zr]
        ] as const) {
          const created = yield* post(app, "/v1/orders", { ...call, order })
          assert.strictEqual(created.status, 200, created.text)
          assert.strictEqual(created.json.status, "pending_pickup", call.courier)
          assert.strictEqual(created.json.reference, "cmd-1042")
          if (call === zrCall) zrTracking = created.json.trackingNumber
          const tracked = yield* post(app, "/v1/track", { ...call, trackingNumber: created.json.trackingNumber })
          assert.strictEqual(tracked.status, 200, tracked.text)
          assert.strictEqual(tracked.json.trackingNumber, created.json.trackingNumber)
          assert.strictEqual(tracked.json.status, "pending_pickup")
          assert.isAbove(tracked.json.events.length, 0)
          for (const event of tracked.json.events)
            assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+01:00$/)
          const rates = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } })
          assert.strictEqual(rates.status, 200, rates.text)
          assert.strictEqual(rates.json.currency, "DZD")
          // The fakes' tariffs: Procolis 700 to Oran's doors, the new platform 750.
          assert.strictEqual(rates.json.deliveryFee, call === procolisCall ? 700 : 750)

          const before = fake.requests.length
          const label = yield* post(app, "/v1/labels", { ...call, trackingNumber: created.json.trackingNumber })
          if (call === procolisCall) {
            assert.strictEqual(label.status, 400, label.text)
            assert.strictEqual(label.json.error.code, "unsupported")
            assert.strictEqual(fake.requests.length, before, "no label request reached the courier")
          } else {
            // ZR documents a PDF label (parcels/labels/individual/pdf, then the file at its link): issue 34.
            assert.strictEqual(label.status, 200, label.text)
            assert.isTrue(label.latin1.startsWith("%PDF-"))
          }
        }
        assert.includeMembers(
          procolis.requests.map((request) => `${request.method} ${request.path}`),
          ["POST /api_v1/add_colis", "POST /api_v1/lire", "POST /api_v1/tarification"]
        )
        const parcel = zr.byTracking(zrTracking)
        assert.strictEqual(parcel?.state, "ReadyToDispatch", "the ready-to-dispatch step reached the platform")
        assert.includeMembers(
          zr.requests.map((request) => `${request.method} ${request.path}`),
          [
            "POST /api/v1/territories/search",
            "POST /api/v1/workflows/search",
            "POST /api/v1/parcels",
            `PATCH /api/v1/parcels/${parcel?.id}/state`,
            `GET /api/v1/parcels/${parcel?.id}/state-history`,
            "GET /api/v1/delivery-pricing/rates"
          ]
        )

        // A sister courier on the same API, by the name the public dzship catalogue gives it.
        const abex = yield* post(app, "/v1/orders", { ...procolisCall, courier: "abexexpress", order })
        assert.strictEqual(abex.status, 200, abex.text)
        // A pickup point on the new platform.
        const hub = Object.keys(PICKUP_POINTS).find((id) => PICKUP_POINTS[id] === 16)
        const desk = yield* post(app, "/v1/orders", {
          ...zrCall,
          order: { ...order, deliveryType: "stopdesk", stopDeskId: hub }
        })
        assert.strictEqual(desk.status, 200, desk.text)
      })
    )

    it.effect(
      "maps the couriers' failures: refused on HTTP 200 → 422, bad credentials → 422, down → 502, 429 → 429",
      () =>
        Effect.gen(function* () {
          const { procolis, zr, app } = yield* Setup
          // Bab Ezzouar in Illizi (33), Bir El Djir in Algiers (16): no such communes, so the API answers 422
          // unknown_commune itself and neither courier hears of the order.
          const inIllizi = { ...order, recipient: { ...order.recipient, wilayaCode: 33 } }
          const birElDjirInAlgiers = { ...order, recipient: { ...order.recipient, communeName: "Bir El Djir" } }
          for (const [call, fake, wrong] of [
            [procolisCall, procolis, inIllizi],
            [zrCall, zr, birElDjirInAlgiers]
          ] as const) {
            const sentBefore = fake.requests.length
            const stopped = yield* post(app, "/v1/orders", { ...call, order: wrong })
            assert.strictEqual(stopped.status, 422, call.courier)
            assert.strictEqual(stopped.json.error.code, "unknown_commune", call.courier)
            assert.strictEqual(fake.requests.length, sentBefore, `nothing reached ${call.courier}`)
          }
          // The couriers' own refusals, the commune sent as written, unchecked (resolveCommune: false).
          const unchecked = { resolveCommune: false }
          const unserved = yield* post(app, "/v1/orders", { ...procolisCall, options: unchecked, order: inIllizi })
          assert.strictEqual(unserved.status, 422)
          assert.strictEqual(unserved.json.error.code, "courier_refused")
          assert.include(unserved.json.error.message, "Wilaya non desservie")
          const unknownCommune = yield* post(app, "/v1/orders", {
            ...zrCall,
            options: unchecked,
            order: birElDjirInAlgiers
          })
          assert.strictEqual(unknownCommune.status, 422)
          assert.strictEqual(unknownCommune.json.error.code, "courier_refused")
          for (const call of [
            { ...procolisCall, credentials: { token: PROCOLIS_ACCOUNT.token, key: "wrong-key-123456" } },
            { ...zrCall, credentials: { ...zrCall.credentials, apiKey: "wrong-key-123456" } }
          ]) {
            const refused = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 16, deliveryType: "home" } })
            assert.strictEqual(refused.status, 422, call.courier)
            assert.strictEqual(refused.json.error.code, "credentials_rejected")
          }
          for (const [call, fake] of [
            [procolisCall, procolis],
            [zrCall, zr]
          ] as const) {
            fake.misbehaveNext({ kind: "status", status: 503 })
            const down = yield* post(app, "/v1/track", { ...call, trackingNumber: "16-000001-ZR" })
            assert.strictEqual(down.status, 502, call.courier)
            assert.strictEqual(down.json.error.code, "courier_unreachable")
            fake.misbehaveNext({ kind: "rateLimited", retryAfter: "21" })
            const limited = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 16, deliveryType: "home" } })
            assert.strictEqual(limited.status, 429, call.courier)
            assert.strictEqual(limited.headers.get("retry-after"), "21")
            assert.strictEqual(limited.json.error.code, "rate_limited")
          }
        })
    )

    it.effect("the unchanged dzship client creates, tracks and prices through zrexpress, and reads a courier 429", () =>
      Effect.gen(function* () {
        const { procolis, zr, app } = yield* Setup
        const client = dzship({ ...procolisCall, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder(order as never))
        assert.match(created.trackingNumber, /^TWL[0-9A-Z]{12}$/)
        assert.strictEqual(created.status, "pending_pickup")
        assert.isTrue(procolis.parcels.has(created.trackingNumber))
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "pending_pickup")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["Prêt à expédier"]
        )
        const rates = yield* Effect.promise(() => client.rates({ toWilaya: 31, deliveryType: "stopdesk" }))
        assert.strictEqual(rates.deliveryFee, 500)
        assert.strictEqual(rates.returnFee, 200)
        assert.strictEqual(rates.currency, "DZD")

        for (const [path, run] of [
          ["/api_v1/tarification", () => client.rates({ toWilaya: 31, deliveryType: "home" })],
          ["/api_v1/lire", () => client.track(created.trackingNumber)],
          ["/api_v1/add_colis", () => client.createOrder(order as never)]
        ] as const) {
          procolis.misbehaveNext({ kind: "rateLimited", retryAfter: "25" }, path)
          const error = yield* rejected(run())
          assert.strictEqual(error.name, "DzshipError", path)
          assert.strictEqual(error.status, 429, path)
          assert.strictEqual(error.code, "rate_limited", path)
          assert.strictEqual(error.retryAfter, 25, path)
        }

        // The new platform by dzship's own key and credential names.
        const zrClient = dzship({
          courier: "zrexpressnew",
          credentials: { ...zrCall.credentials },
          gateway: app.shippingUrl
        })
        const zrCreated = yield* Effect.promise(() => zrClient.createOrder(order as never))
        assert.strictEqual(zr.byTracking(zrCreated.trackingNumber)?.state, "ReadyToDispatch")
        assert.strictEqual(
          (yield* Effect.promise(() => zrClient.track(zrCreated.trackingNumber))).status,
          "pending_pickup"
        )
        // The account's documented discountedPrice (400) beside the list price (450): what it pays.
        assert.strictEqual(
          (yield* Effect.promise(() => zrClient.rates({ toWilaya: 16, deliveryType: "home" }))).deliveryFee,
          400
        )
      })
    )

    it.effect("the canary credentials appear in no log, response, error body or database row", () =>
      Effect.gen(function* () {
        const { procolis, zr, app } = yield* Setup
        const bodies: Array<string> = []
        const record = (response: { text: string }) => bodies.push(response.text)
        const calls = [
          { courier: "zrexpress", credentials: { token: CANARY, key: CANARY_KEY } },
          { courier: "zrexpress_new", credentials: { apiKey: CANARY, tenantId: CANARY_TENANT } }
        ]
        for (const [call, fake] of [
          [calls[0]!, procolis],
          [calls[1]!, zr]
        ] as const) {
          const key = `canary-${call.courier}`
          const created = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": key })
          assert.strictEqual(created.status, 200, created.text)
          record(created)
          record(yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": key }))
          record(yield* post(app, "/v1/track", { ...call, trackingNumber: created.json.trackingNumber }))
          record(yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 16, deliveryType: "stopdesk" } }))
          record(yield* post(app, "/v1/labels", { ...call, trackingNumber: created.json.trackingNumber }))
          for (const misbehaviour of [
            { kind: "status", status: 500 },
            { kind: "html" },
            { kind: "echoToken" },
            { kind: "rateLimited" },
            { kind: "reset" }
          ] as const) {
            fake.misbehaveNext(misbehaviour)
            record(yield* post(app, "/v1/orders", { ...call, order }))
          }
          record(yield* post(app, "/v1/orders", { ...call, order: { ...order, codAmount: -1 } }))
          record(
            yield* post(app, "/v1/orders", { ...call, credentials: { ...call.credentials, extra: CANARY }, order })
          )
          assert.isAbove(
            fake.requests.filter((request) => JSON.stringify(request).includes(CANARY)).length,
            0,
            `the canary did reach ${call.courier}`
          )
        }
        procolis.misbehaveNext({ kind: "refuse", message: "Refus" })
        record(yield* post(app, "/v1/orders", { ...calls[0], order }))
        zr.misbehaveNext({ kind: "refuse", detail: "Refus" })
        record(yield* post(app, "/v1/orders", { ...calls[1], order }))

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 20)
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            for (const secret of [CANARY, CANARY_KEY, CANARY_TENANT]) {
              assert.notInclude(text, secret, `a credential leaked into ${where}`)
            }
          }
        })
      })
    )
  })
