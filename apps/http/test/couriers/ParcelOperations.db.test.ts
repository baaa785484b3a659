/**
 * Issue 21's "Done when", through the whole app in this process, one for the file (`AppInProcess`: `npm start`'s
 * configuration and layers, real sockets, trace logs): every operation around a parcel — cancel, batch tracking,
 * stop desks, a commune resolved for a courier, a credential check, a create that corrects the commune or refuses an
 * unknown one — against the loopback fake of each platform that declares it, and through the sandbox with no
 * credentials; a capability a platform does not declare answers 400 `unsupported` with nothing sent; one comparison
 * across ten couriers, one of them stalled, answers within its deadline; the listing and the OpenAPI document show
 * the new capabilities and routes. Every platform is called with canary credentials (valid and refused ones), which
 * reach the fakes and nothing else: no log line, response body or database row.
 */
import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import * as Colivraison from "../../../../adapters/colivraison/test/fake/ColivraisonFake.ts"
import * as EcomDelivery from "../../../../adapters/ecomdelivery/test/fake/EcomDeliveryFake.ts"
import * as Ecotrack from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import * as Elogistia from "../../../../adapters/elogistia/test/fake/ElogistiaFake.ts"
import * as Mdm from "../../../../adapters/mdm/test/fake/MdmFake.ts"
import * as NearDelivery from "../../../../adapters/neardelivery/test/fake/NearDeliveryFake.ts"
import * as Noest from "../../../../adapters/noest/test/fake/NoestFake.ts"
import * as SandboxTrackingNumber from "../../../../adapters/sandbox/src/SandboxTrackingNumber.ts"
import * as Yalidine from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as Zimou from "../../../../adapters/zimou/test/fake/ZimouFake.ts"
import * as ZrExpressNew from "../../../../adapters/zrexpress-new/test/fake/ZrExpressNewFake.ts"
import { getJson } from "../AppProcess.ts"
import { type AppInProcess, everyRow, startApp } from "./AppInProcess.ts"
import { originsOf } from "./Platforms.ts"

/** The capabilities a courier may declare (`GET /v1/couriers`). */
const CAPABILITIES = [
  "create",
  "track",
  "rates",
  "label",
  "cancel",
  "dispatch",
  "trackBatch",
  "createBatch",
  "stopDesks",
  "communes",
  "checkCredentials",
  "push"
] as const
type Capability = (typeof CAPABILITIES)[number]

/** Canary credentials: no code path may print, store or return them. */
const C = {
  yalidineId: "canary-yal-id-7d30a9e1c4b2",
  yalidineToken: "canary-yal-token-e94c1b07d6a3f2",
  ecotrack: "canary-ecotrack-token-58a0c3e7b1d9",
  noestToken: "canary-noest-token-0b7e4f9a2c61",
  noestGuid: "canary-noest-guid-6e2d",
  zrKey: "canary-zr-key-1f9c7a3e5b08d246",
  nearKey: "canary-near-key-4a8e2c6b0d17",
  nearSecret: "canary-near-secret-93d1f5b7e2a0",
  mdm: "canary-mdm-ops-key-c71a0e4b9d28",
  ecomKey: "canary-ecom-key-2e6b",
  ecomToken: "canary-ecom-token-8f0d3a5c7e19",
  elogistia: "canary-elogistia-key-5c2e9a7f1b30",
  colivKey: "canary-coliv-key-0d4b8f2a6c19",
  colivToken: "canary-coliv-token-a7e3c1f5b9d2",
  zimou: "canary-zimou-token-6b2f9d1e4a73c058"
} as const
const CANARIES: ReadonlyArray<string> = Object.values(C)
/** The ZR Express tenant id is a UUID: it is the key that is the canary there. */
const ZR_TENANT = "3c0b8e2f-6a1d-4f7e-9b25-0d4c8a6e1f93"
/** An Ecotrack order left unvalidated, the only kind the platform still deletes. */
const ECOTRACK_PENDING = "ECTPND0000000021"
/** A NOEST parcel created and never validated: through the shipping API every parcel is validated at once. */
const NOEST_PENDING = "NOEPND000000021FK"

/** The fakes, the app pointed at all of them, its data directory, and every body the app answered. */
interface Fakes {
  readonly yalidine: Yalidine.Fake
  readonly ecotrack: Ecotrack.Fake
  readonly noest: Noest.Fake
  readonly zr: ZrExpressNew.Fake
  readonly near: NearDelivery.Fake
  readonly mdm: Mdm.Fake
  readonly ecom: EcomDelivery.Fake
  readonly elogistia: Elogistia.Fake
  readonly colivraison: Colivraison.Fake
  readonly zimou: Zimou.Fake
}

class Harness extends Context.Service<
  Harness,
  { readonly fakes: Fakes; readonly app: AppInProcess; readonly dataDir: string; readonly bodies: Array<string> }
>()("test/couriers/ParcelOperations/Harness") {}

/**
 * The fakes' own limits where they count on the real clock (Yalidine's quotas, Ecotrack's throttle): raised, as the
 * app here paces accounts on windows a thousandth as long (`AppInProcess`); `Documented.db.test.ts` checks the pace
 * against the documented ones.
 */
const generous = { second: 1000, minute: 10_000, hour: 100_000, day: 1_000_000 }

const HarnessLive = Layer.effect(
  Harness,
  Effect.gen(function* () {
    const fakes: Fakes = {
      yalidine: yield* Yalidine.make({
        accounts: [
          { apiId: C.yalidineId, apiToken: C.yalidineToken, quotas: generous },
          { apiId: Yalidine.API_ID, apiToken: Yalidine.API_TOKEN, quotas: generous }
        ]
      }),
      ecotrack: yield* Ecotrack.make({
        tokens: [C.ecotrack, Ecotrack.TOKEN],
        pending: [ECOTRACK_PENDING],
        perMinute: generous.minute
      }),
      noest: yield* Noest.make({ accounts: [[C.noestToken, C.noestGuid]] }).pipe(
        Effect.tap((noest) => Effect.sync(() => noest.upload(NOEST_PENDING)))
      ),
      zr: yield* ZrExpressNew.make({ accounts: [{ tenantId: ZR_TENANT, apiKey: C.zrKey }] }),
      near: yield* NearDelivery.make({ accounts: [[C.nearKey, C.nearSecret]] }),
      mdm: yield* Mdm.make({ keys: [C.mdm] }),
      ecom: yield* EcomDelivery.make({ accounts: [{ key: C.ecomKey, token: C.ecomToken }] }),
      elogistia: yield* Elogistia.make({ keys: [C.elogistia] }),
      colivraison: yield* Colivraison.make({ accounts: [[C.colivKey, C.colivToken]] }),
      zimou: yield* Zimou.make({ tokens: [C.zimou] })
    }
    const origins = originsOf(fakes)
    const dataDir = yield* TestDatabase.migratedDataDir
    const app = yield* startApp(
      {
        DATA_DIR: dataDir,
        TAWSIL_COURIER_ORIGINS: origins.join(","),
        SHIPPING_RATE_LIMIT_PER_MINUTE: "100000",
        LOG_LEVEL: "trace"
      },
      { within: 90_000 }
    )
    return { fakes, app, dataDir, bodies: [] }
  })
)

// biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
type Json = any

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const { app, bodies } = yield* Harness
    const answer = yield* Effect.tryPromise({
      try: async () => {
        const response = await fetch(`${app.shippingUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body)
        })
        const text = Buffer.from(await response.arrayBuffer()).toString("utf8")
        const json: Json = (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined
        return { status: response.status, text, json }
      },
      // A call the app did not answer: say what the app wrote to stderr.
      catch: (cause) =>
        new Error(`POST ${path} failed (${String(cause)}); the app's stderr:\n${app.stderr().slice(-4000)}`)
    })
    bodies.push(answer.text)
    return answer
  })

/** What one platform needs in these tests: its canary call, where it ships, and how its fake cancels. */
interface Platform {
  readonly courier: string
  readonly fake: (fakes: Fakes) => { readonly requests: ReadonlyArray<{ method: string; path: string }> }
  readonly credentials: Readonly<Record<string, string>>
  /** The same credentials with the canary field(s) refused by the courier. */
  readonly refused: Readonly<Record<string, string>>
  readonly options?: { readonly fromWilaya: number }
  readonly declares: ReadonlySet<Capability>
  /** The recipient's commune misspelt, and what the courier must receive instead (its own spelling). */
  readonly misspelt: string
  readonly sent: string
  readonly delivery: { readonly deliveryType: "home" | "stopdesk"; readonly stopDeskId?: string }
  /** A tracking number of the courier's form that it does not know. */
  readonly unknownTracking: string
  /** The desks of Algiers the fake lists (ids), and the courier's entry for Bab Ezzouar there. */
  readonly algiersDesks: ReadonlyArray<string>
  readonly babEzzouar: {
    readonly name: string
    readonly home: boolean
    readonly stopdesk: boolean
    readonly id?: string
  }
  /** Whether the request is the platform's delete (cancel) call. */
  readonly isDelete?: (request: { readonly method: string; readonly path: string }) => boolean
  /** Moves a created parcel past where it can be cancelled, or names one already past it. */
  readonly late?: (fakes: Fakes, trackingNumber: string) => void
  /** A parcel that can be cancelled: a fresh create, or one the fake holds (Ecotrack's unvalidated order). */
  readonly cancellable?: "created" | string
}

/**
 * The shipping API's own operations; `dispatch` and `push` serve a store's shipments, and `createBatch` (a platform's
 * bulk create: every courier with `create` takes `POST /v1/orders/batch`, Batches.db.test.ts) is named where declared.
 */
const operations = CAPABILITIES.filter(
  (capability) => capability !== "dispatch" && capability !== "push" && capability !== "createBatch"
)
const all: ReadonlySet<Capability> = new Set(operations)
const without = (...missing: ReadonlyArray<Capability>): ReadonlySet<Capability> =>
  new Set(operations.filter((capability) => !missing.includes(capability)))
const plus = (declared: ReadonlySet<Capability>, ...more: ReadonlyArray<Capability>): ReadonlySet<Capability> =>
  new Set([...declared, ...more])

const platforms: ReadonlyArray<Platform> = [
  {
    courier: "yalidine",
    fake: (fakes) => fakes.yalidine,
    credentials: { apiId: C.yalidineId, apiToken: C.yalidineToken },
    refused: { apiId: C.yalidineId, apiToken: `${C.yalidineToken}-revoked` },
    options: { fromWilaya: 16 },
    declares: plus(all, "push", "createBatch"),
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "yal-NONE00",
    algiersDesks: ["160101", "161101", "163001"],
    babEzzouar: { name: "Bab Ezzouar", id: "1611", home: true, stopdesk: true },
    isDelete: ({ method, path }) => method === "DELETE" && path.startsWith("/v1/parcels"),
    late: (fakes, trackingNumber) => fakes.yalidine.addHistory(trackingNumber, "Ramassé"),
    cancellable: "created"
  },
  {
    courier: "dhd",
    fake: (fakes) => fakes.ecotrack,
    credentials: { token: C.ecotrack },
    refused: { token: `${C.ecotrack}-revoked` },
    declares: plus(all, "dispatch", "createBatch"),
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "ECTNONE0000000",
    algiersDesks: ["16001", "16020", "16030"],
    babEzzouar: { name: "Bab Ezzouar", home: true, stopdesk: true },
    isDelete: ({ method, path }) => method === "DELETE" && path === "/api/v1/delete/order",
    // Ecotrack validates every parcel it creates, and a validated parcel is "Commande non modifiable".
    late: () => undefined,
    cancellable: ECOTRACK_PENDING
  },
  {
    courier: "noest",
    fake: (fakes) => fakes.noest,
    credentials: { apiToken: C.noestToken, guid: C.noestGuid },
    refused: { apiToken: `${C.noestToken}-revoked`, guid: C.noestGuid },
    declares: plus(all, "dispatch", "createBatch"),
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "NOEST-NONE-0001",
    algiersDesks: ["16A", "16B"],
    babEzzouar: { name: "Bab Ezzouar", home: true, stopdesk: true },
    isDelete: ({ method, path }) => method === "POST" && path === "/api/public/delete/order",
    // NOEST validates every parcel the shipping API creates; a validated parcel is never deleted.
    late: () => undefined,
    cancellable: NOEST_PENDING
  },
  {
    courier: "zrexpress_new",
    fake: (fakes) => fakes.zr,
    credentials: { apiKey: C.zrKey, tenantId: ZR_TENANT },
    refused: { apiKey: `${C.zrKey}-revoked`, tenantId: ZR_TENANT },
    declares: plus(without("trackBatch"), "dispatch", "push"),
    misspelt: "Bir Mourad Rai",
    sent: "Bir Mourad Raïs",
    delivery: { deliveryType: "home" },
    unknownTracking: "ZR-NONE-000001",
    algiersDesks: [ZrExpressNew.uuidOf("hub:16:bab-ezzouar")],
    babEzzouar: {
      name: "Bab Ezzouar",
      id: ZrExpressNew.communeId(16, "Bab Ezzouar"),
      home: true,
      stopdesk: true
    },
    isDelete: ({ method, path }) => method === "DELETE" && path.startsWith("/api/v1/parcels/"),
    late: (fakes, trackingNumber) => fakes.zr.addState(trackingNumber, "ConfirmedAtBranch"),
    cancellable: "created"
  },
  {
    courier: "neardelivery",
    fake: (fakes) => fakes.near,
    credentials: { apiKey: C.nearKey, apiSecret: C.nearSecret },
    refused: { apiKey: C.nearKey, apiSecret: `${C.nearSecret}-revoked` },
    options: { fromWilaya: 16 },
    declares: without("label", "cancel", "trackBatch"),
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "stopdesk", stopDeskId: "101" },
    unknownTracking: "NRD-NONE-0001",
    algiersDesks: ["101", "102"],
    babEzzouar: { name: "Bab Ezzouar", home: false, stopdesk: true }
  },
  {
    courier: "mdm",
    fake: (fakes) => fakes.mdm,
    credentials: { apiKey: C.mdm },
    refused: { apiKey: `${C.mdm}-revoked` },
    declares: without("rates", "cancel", "trackBatch"),
    misspelt: "Bordj El Kifan",
    sent: "Bordj El Kiffan",
    delivery: { deliveryType: "home" },
    unknownTracking: "ORD-999999",
    algiersDesks: ["OFC-ALG-01", "OFC-ALG-02"],
    babEzzouar: { name: "Bab Ezzouar", id: "DZA161628", home: true, stopdesk: true }
  },
  {
    courier: "ecomdelivery",
    fake: (fakes) => fakes.ecom,
    credentials: { apiKey: C.ecomKey, apiToken: C.ecomToken },
    refused: { apiKey: C.ecomKey, apiToken: `${C.ecomToken}-revoked` },
    declares: plus(without("label", "stopDesks", "communes"), "dispatch"),
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "EC999999",
    algiersDesks: [],
    babEzzouar: { name: "Bab Ezzouar", home: true, stopdesk: true },
    isDelete: ({ method, path }) => method === "PUT" && /\/supprimer$/i.test(path),
    late: (fakes, trackingNumber) => fakes.ecom.setState(trackingNumber, { avancement: "Dispatcher" }),
    cancellable: "created"
  },
  {
    courier: "elogistia",
    fake: (fakes) => fakes.elogistia,
    credentials: { apiKey: C.elogistia },
    refused: { apiKey: `${C.elogistia}-revoked` },
    declares: all,
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "L-NOPE00",
    algiersDesks: ["Agence Bab Ezzouar", "Agence Hydra"],
    babEzzouar: { name: "Bab Ezzouar", home: true, stopdesk: true },
    isDelete: ({ method, path }) => method === "GET" && path === "/deleteOrder/",
    late: (fakes, trackingNumber) => fakes.elogistia.addStatus(trackingNumber, "Ramassée"),
    cancellable: "created"
  },
  {
    courier: "colivraison",
    fake: (fakes) => fakes.colivraison,
    credentials: { publicKey: C.colivKey, token: C.colivToken },
    refused: { publicKey: C.colivKey, token: `${C.colivToken}-revoked` },
    declares: without("cancel", "stopDesks", "communes"),
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "COL-NONE-0001",
    algiersDesks: [],
    babEzzouar: { name: "Bab Ezzouar", home: true, stopdesk: true }
  },
  {
    courier: "zimou",
    fake: (fakes) => fakes.zimou,
    credentials: { token: C.zimou },
    refused: { token: `${C.zimou}-revoked` },
    declares: all,
    misspelt: "Bab Ezouar",
    sent: "Bab Ezzouar",
    delivery: { deliveryType: "home" },
    unknownTracking: "ZM-999999",
    algiersDesks: ["101", "102"],
    babEzzouar: { name: "Bab Ezzouar", home: true, stopdesk: true },
    isDelete: ({ method, path }) => method === "DELETE" && path === "/api/v3/packages/bulk",
    // Status 3: shipped (EXPEDIE), past pickup.
    late: (fakes, trackingNumber) => fakes.zimou.setStatus(trackingNumber, 3),
    cancellable: "created"
  }
]

const callOf = (platform: Platform) => ({
  courier: platform.courier,
  credentials: platform.credentials,
  ...(platform.options === undefined ? {} : { options: platform.options })
})

const order = (platform: Platform, communeName: string, fullName = "Amina Benali") => ({
  reference: `ops-${platform.courier}-${Math.random().toString(36).slice(2, 8)}`,
  recipient: { fullName, phone: "0555123456", wilayaCode: 16, communeName, addressLine: "Cité 5 juillet" },
  ...platform.delivery,
  productList: "1x robe",
  codAmount: 4500
})

/** Creates a parcel with the courier, in its own spelling of Bab Ezzouar (or the platform's commune). */
const created = (platform: Platform, fullName?: string) =>
  Effect.gen(function* () {
    const answer = yield* post("/v1/orders", { ...callOf(platform), order: order(platform, platform.sent, fullName) })
    assert.strictEqual(answer.status, 200, `${platform.courier}: ${answer.text}`)
    return answer.json.trackingNumber as string
  })

/** The fake's requests from `from` on, as `METHOD /path`. */
const sentSince = (platform: Platform, fakes: Fakes, from: number) =>
  platform
    .fake(fakes)
    .requests.slice(from)
    .map(({ method, path }) => `${method} ${path}`)

/** Asserts a 400 `unsupported` naming the capability, with no request to the courier. */
const assertUnsupported = (
  platform: Platform,
  capability: Capability,
  answer: { readonly status: number; readonly text: string; readonly json: Json },
  sent: ReadonlyArray<string>
) => {
  assert.strictEqual(answer.status, 400, `${platform.courier} ${capability}: ${answer.text}`)
  assert.strictEqual(answer.json.error.code, "unsupported")
  assert.include(answer.json.error.message, capability)
  assert.deepStrictEqual(sent, [], `${platform.courier} ${capability}: nothing reached the courier`)
}

layer(HarnessLive, { timeout: "150 seconds", excludeTestServices: true })(
  "issue 21's parcel operations through HTTP",
  (it) => {
    it.effect("GET /v1/couriers shows each platform's capabilities, the new ones included", () =>
      Effect.gen(function* () {
        const { app } = yield* Harness
        const { status, body } = yield* getJson(`${app.shippingUrl}/v1/couriers`)
        assert.strictEqual(status, 200)
        const byKey = new Map<string, Json>((body as ReadonlyArray<Json>).map((entry) => [entry.key, entry]))
        for (const platform of [
          ...platforms,
          { courier: "sandbox", declares: plus(all, "createBatch") } as Pick<Platform, "courier" | "declares">
        ]) {
          const entry = byKey.get(platform.courier)
          assert.isDefined(entry, platform.courier)
          assert.deepStrictEqual(
            entry.capabilities,
            Object.fromEntries(CAPABILITIES.map((capability) => [capability, platform.declares.has(capability)])),
            platform.courier
          )
        }
      })
    )

    it.effect("the OpenAPI document lists the new routes and the batch track request", () =>
      Effect.gen(function* () {
        const { app } = yield* Harness
        const { status, body } = yield* getJson(`${app.shippingUrl}/v1/openapi.json`)
        assert.strictEqual(status, 200)
        for (const path of ["/v1/cancel", "/v1/stop-desks", "/v1/credentials/check", "/v1/communes/resolve"]) {
          assert.isDefined(body.paths[path]?.post, path)
        }
        assert.isDefined(body.paths["/v1/rates/compare"]?.post)
        assert.isDefined(body.paths["/v1/track"]?.post)
        const schemas = Object.keys(body.components.schemas)
        for (const name of [
          "BatchTrackRequest",
          "BatchTrackResult",
          "CancelRequest",
          "ParcelCancelled",
          "StopDesksRequest",
          "StopDesk",
          "CredentialsCheck",
          "ResolveCommuneRequest",
          "CommuneResolution",
          "CompareRatesRequest",
          "RatesComparison"
        ]) {
          assert.include(schemas, name)
        }
        const cancelHeaders = (body.paths["/v1/cancel"].post.parameters ?? []).map((p: Json) => p.name.toLowerCase())
        assert.include(cancelHeaders, "idempotency-key")
        assert.property(body.paths["/v1/cancel"].post.responses, "409")
      })
    )

    for (const platform of platforms) {
      it.effect(`${platform.courier}: a create corrects a misspelt commune; an unknown one is 422, unsent`, () =>
        Effect.gen(function* () {
          const { fakes } = yield* Harness
          const answer = yield* post("/v1/orders", {
            ...callOf(platform),
            order: order(platform, platform.misspelt)
          })
          assert.strictEqual(answer.status, 200, answer.text)
          assert.deepStrictEqual(answer.json.commune, {
            requested: platform.misspelt,
            sent: platform.sent,
            corrected: true
          })
          assert.isString(answer.json.trackingNumber)

          for (const communeName of ["Nowhere-ville", "Bordj El"]) {
            const before = platform.fake(fakes).requests.length
            const unknown = yield* post("/v1/orders", { ...callOf(platform), order: order(platform, communeName) })
            assert.strictEqual(unknown.status, 422, unknown.text)
            assert.strictEqual(unknown.json.error.code, "unknown_commune")
            assert.isArray(unknown.json.error.suggestions)
            assert.isAtMost(unknown.json.error.suggestions.length, 5)
            assert.deepStrictEqual(sentSince(platform, fakes, before), [], `${communeName}: nothing reached the fake`)
          }
          const ambiguous = yield* post("/v1/orders", { ...callOf(platform), order: order(platform, "Bordj El") })
          const suggested = ambiguous.json.error.suggestions.map((s: Json) => s.nameFr)
          assert.includeMembers(suggested, ["Bordj El Bahri", "Bordj El Kiffan"])
        })
      )

      it.effect(`${platform.courier}: POST /v1/track with trackingNumbers, an unknown one failing alone`, () =>
        Effect.gen(function* () {
          const first = yield* created(platform, "Karim Haddad")
          const second = yield* created(platform, "Nadia Saidi")
          const answer = yield* post("/v1/track", {
            ...callOf(platform),
            trackingNumbers: [first, platform.unknownTracking, second]
          })
          assert.strictEqual(answer.status, 200, answer.text)
          const results: ReadonlyArray<Json> = answer.json.results
          assert.deepStrictEqual(
            results.map((result) => result.trackingNumber),
            [first, platform.unknownTracking, second]
          )
          for (const result of [results[0], results[2]]) {
            assert.notProperty(result, "error", JSON.stringify(result))
            assert.isString(result.status)
            assert.isArray(result.events)
          }
          assert.property(results[1], "error")
          // Through the platform's batch read, a number it leaves out is named; one read per number fails in the
          // courier's own words, as the single track would.
          assert.strictEqual(results[1].error.code, "courier_refused", JSON.stringify(results[1]))
          if (platform.declares.has("trackBatch")) {
            assert.include(results[1].error.message, platform.unknownTracking)
          }
        })
      )

      it.effect(
        `${platform.courier}: cancel ${platform.declares.has("cancel") ? "(idempotent; 409 once late)" : "is 400 unsupported"}`,
        () =>
          Effect.gen(function* () {
            const { fakes } = yield* Harness
            if (!platform.declares.has("cancel")) {
              const trackingNumber = yield* created(platform)
              const before = platform.fake(fakes).requests.length
              const answer = yield* post("/v1/cancel", { ...callOf(platform), trackingNumber })
              assertUnsupported(platform, "cancel", answer, sentSince(platform, fakes, before))
              return
            }
            const trackingNumber =
              platform.cancellable === "created" ? yield* created(platform) : (platform.cancellable as string)
            const key = `cancel-${platform.courier}-1`
            const before = platform.fake(fakes).requests.length
            const first = yield* post("/v1/cancel", { ...callOf(platform), trackingNumber }, { "idempotency-key": key })
            assert.strictEqual(first.status, 200, first.text)
            assert.deepStrictEqual(first.json, { trackingNumber, status: "cancelled" })
            const again = yield* post("/v1/cancel", { ...callOf(platform), trackingNumber }, { "idempotency-key": key })
            assert.strictEqual(again.status, 200, again.text)
            assert.deepStrictEqual(again.json, first.json)
            const deletes = platform
              .fake(fakes)
              .requests.slice(before)
              .filter((request) => platform.isDelete!(request))
            assert.lengthOf(deletes, 1, "the courier saw one delete")
            // The key with another parcel is refused before the courier.
            const sent = platform.fake(fakes).requests.length
            const reused = yield* post(
              "/v1/cancel",
              { ...callOf(platform), trackingNumber: platform.unknownTracking },
              { "idempotency-key": key }
            )
            assert.strictEqual(reused.status, 422, reused.text)
            assert.strictEqual(reused.json.error.code, "idempotency_key_reuse")
            assert.strictEqual(platform.fake(fakes).requests.length, sent)

            const late = yield* created(platform, "Yacine Ferhat")
            platform.late!(fakes, late)
            const refused = yield* post("/v1/cancel", { ...callOf(platform), trackingNumber: late })
            assert.strictEqual(refused.status, 409, refused.text)
            assert.strictEqual(refused.json.error.code, "not_cancellable")
            assert.include(refused.json.error.message, platform.courier)
          })
      )

      it.effect(
        `${platform.courier}: POST /v1/stop-desks ${platform.declares.has("stopDesks") ? "lists Algiers' desks" : "is 400 unsupported"}`,
        () =>
          Effect.gen(function* () {
            const { fakes } = yield* Harness
            const before = platform.fake(fakes).requests.length
            const answer = yield* post("/v1/stop-desks", { ...callOf(platform), wilayaCode: 16 })
            if (!platform.declares.has("stopDesks")) {
              return assertUnsupported(platform, "stopDesks", answer, sentSince(platform, fakes, before))
            }
            assert.strictEqual(answer.status, 200, answer.text)
            const desks: ReadonlyArray<Json> = answer.json
            assert.sameMembers(
              desks.map((desk) => desk.id),
              [...platform.algiersDesks]
            )
            for (const desk of desks) {
              assert.strictEqual(desk.wilayaCode, 16)
              assert.isString(desk.name)
            }
            assert.isNotEmpty(sentSince(platform, fakes, before), "the desks came from the courier")
          })
      )

      it.effect(
        `${platform.courier}: POST /v1/communes/resolve with the courier ${platform.declares.has("communes") ? "gives its own entry" : "is 400 unsupported"}`,
        () =>
          Effect.gen(function* () {
            const { fakes } = yield* Harness
            const before = platform.fake(fakes).requests.length
            const answer = yield* post("/v1/communes/resolve", {
              ...callOf(platform),
              wilayaCode: 16,
              communeName: "bab ezouar"
            })
            if (!platform.declares.has("communes")) {
              return assertUnsupported(platform, "communes", answer, sentSince(platform, fakes, before))
            }
            assert.strictEqual(answer.status, 200, answer.text)
            const { id, ...entry } = platform.babEzzouar
            assert.deepInclude(answer.json, { wilayaCode: 16, nameFr: "Bab Ezzouar", exact: false })
            assert.deepInclude(answer.json.courier, { key: platform.courier, listed: true, ...entry })
            if (id !== undefined) assert.strictEqual(answer.json.courier.id, id)

            const unknown = yield* post("/v1/communes/resolve", {
              ...callOf(platform),
              wilayaCode: 16,
              communeName: "Bordj El"
            })
            assert.strictEqual(unknown.status, 422, unknown.text)
            assert.strictEqual(unknown.json.error.code, "unknown_commune")
            assert.isNotEmpty(unknown.json.error.suggestions)
          })
      )

      it.effect(`${platform.courier}: POST /v1/credentials/check, valid and refused`, () =>
        Effect.gen(function* () {
          const valid = yield* post("/v1/credentials/check", callOf(platform))
          assert.strictEqual(valid.status, 200, valid.text)
          assert.deepStrictEqual(valid.json, { courier: platform.courier, valid: true })
          const refused = yield* post("/v1/credentials/check", { ...callOf(platform), credentials: platform.refused })
          assert.strictEqual(refused.status, 200, refused.text)
          assert.strictEqual(refused.json.courier, platform.courier)
          assert.strictEqual(refused.json.valid, false)
          assert.isString(refused.json.message)
        })
      )

      const otherUndeclared = (["rates", "label"] as const).filter((capability) => !platform.declares.has(capability))
      if (otherUndeclared.length > 0) {
        it.effect(`${platform.courier}: ${otherUndeclared.join(" and ")} answer 400 unsupported, unsent`, () =>
          Effect.gen(function* () {
            const { fakes } = yield* Harness
            const trackingNumber = yield* created(platform)
            for (const capability of otherUndeclared) {
              const before = platform.fake(fakes).requests.length
              const answer =
                capability === "rates"
                  ? yield* post("/v1/rates", { ...callOf(platform), query: { toWilaya: 31, deliveryType: "home" } })
                  : yield* post("/v1/labels", { ...callOf(platform), trackingNumber })
              assertUnsupported(platform, capability, answer, sentSince(platform, fakes, before))
            }
          })
        )
      }
    }

    it.effect("zrexpress_new: POST /v1/labels, the PDF at ZR's storage link, which is sent no credential", () =>
      // Issue 34: ZR documents a PDF label (`parcels/labels/individual/pdf`, its `fileUrl` on Azure Blob Storage).
      Effect.gen(function* () {
        const { fakes } = yield* Harness
        const zr = platforms.find((platform) => platform.courier === "zrexpress_new")!
        const trackingNumber = yield* created(zr)
        const before = fakes.zr.requests.length
        const label = yield* post("/v1/labels", { ...callOf(zr), trackingNumber })
        assert.strictEqual(label.status, 200, label.text)
        assert.isTrue(label.text.startsWith("%PDF-"))
        assert.include(label.text, trackingNumber)
        const sent = fakes.zr.requests.slice(before)
        assert.deepStrictEqual(
          sent.map(({ method, path }) => `${method} ${path}`),
          ["POST /api/v1/parcels/labels/individual/pdf", `GET /labels/${trackingNumber}.pdf`]
        )
        assert.strictEqual(sent[1]!.query.sig, ZrExpressNew.LABEL_SIGNATURE)
        assert.notProperty(sent[1]!.headers, "x-api-key")
        assert.notProperty(sent[1]!.headers, "x-tenant")
      })
    )

    it.effect("the sandbox: every operation, with no credentials", () =>
      Effect.gen(function* () {
        const sandbox = { courier: "sandbox" }
        const make = (communeName: string) =>
          post("/v1/orders", {
            ...sandbox,
            order: {
              recipient: {
                fullName: "Amina Benali",
                phone: "0555123456",
                wilayaCode: 16,
                communeName,
                addressLine: "Cité 5 juillet"
              },
              deliveryType: "home",
              productList: "1x robe",
              codAmount: 4500
            }
          })
        const corrected = yield* make("Bab Ezouar")
        assert.strictEqual(corrected.status, 200, corrected.text)
        assert.deepStrictEqual(corrected.json.commune, {
          requested: "Bab Ezouar",
          sent: "Bab Ezzouar",
          corrected: true
        })
        const unknown = yield* make("Nowhere-ville")
        assert.strictEqual(unknown.status, 422, unknown.text)
        assert.strictEqual(unknown.json.error.code, "unknown_commune")

        const second = yield* make("Hydra")
        assert.strictEqual(second.status, 200, second.text)
        assert.deepStrictEqual(second.json.commune, { requested: "Hydra", sent: "Hydra", corrected: false })
        const batch = yield* post("/v1/track", {
          ...sandbox,
          trackingNumbers: [corrected.json.trackingNumber, "SBX0000000000ZZ", second.json.trackingNumber]
        })
        assert.strictEqual(batch.status, 200, batch.text)
        assert.deepStrictEqual(
          batch.json.results.map((result: Json) => ("error" in result ? result.error.code : result.status)),
          ["created", "courier_refused", "created"]
        )

        const key = "cancel-sandbox-1"
        const cancelled = yield* post(
          "/v1/cancel",
          { ...sandbox, trackingNumber: corrected.json.trackingNumber },
          { "idempotency-key": key }
        )
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        assert.deepStrictEqual(cancelled.json, { trackingNumber: corrected.json.trackingNumber, status: "cancelled" })
        const replayed = yield* post(
          "/v1/cancel",
          { ...sandbox, trackingNumber: corrected.json.trackingNumber },
          { "idempotency-key": key }
        )
        assert.deepStrictEqual([replayed.status, replayed.json], [200, cancelled.json])
        // A parcel the sandbox issued ten minutes ago has been picked up (at five): it can no longer be cancelled.
        const old = SandboxTrackingNumber.encode(Math.floor(Date.now() / 1000) - 600, "home_delivered", [1, 2, 3])
        const late = yield* post("/v1/cancel", { ...sandbox, trackingNumber: old })
        assert.strictEqual(late.status, 409, late.text)
        assert.strictEqual(late.json.error.code, "not_cancellable")

        const desks = yield* post("/v1/stop-desks", { ...sandbox, wilayaCode: 16 })
        assert.strictEqual(desks.status, 200, desks.text)
        assert.deepStrictEqual(
          desks.json.map((desk: Json) => desk.id),
          ["SBXD-16-1", "SBXD-16-2", "SBXD-16-3"]
        )
        const resolved = yield* post("/v1/communes/resolve", { ...sandbox, wilayaCode: 16, communeName: "bab ezouar" })
        assert.strictEqual(resolved.status, 200, resolved.text)
        assert.deepStrictEqual(resolved.json.courier, {
          key: "sandbox",
          listed: true,
          name: "Bab Ezzouar",
          home: true,
          stopdesk: true
        })
        const withoutCourier = yield* post("/v1/communes/resolve", { wilayaCode: 16, communeName: "باب الزوار" })
        assert.strictEqual(withoutCourier.status, 200, withoutCourier.text)
        assert.strictEqual(withoutCourier.json.nameFr, "Bab Ezzouar")
        assert.notProperty(withoutCourier.json, "courier")

        const check = yield* post("/v1/credentials/check", sandbox)
        assert.deepStrictEqual([check.status, check.json], [200, { courier: "sandbox", valid: true }])
        const withCredentials = yield* post("/v1/credentials/check", { ...sandbox, credentials: { token: "x" } })
        assert.strictEqual(withCredentials.status, 400, withCredentials.text)
        assert.strictEqual(withCredentials.json.error.code, "invalid_credentials")
      })
    )

    it.effect("POST /v1/rates/compare: ten couriers, one stalled, answered within timeoutMs + 100 ms", () =>
      Effect.gen(function* () {
        const { fakes } = yield* Harness
        const byCourier = new Map(platforms.map((platform) => [platform.courier, platform]))
        // Every courier here that prices a desk delivery (Colivraison's price list is for the door only, Near
        // Delivery's for relay points only), one stalled on its price list: Elogistia.
        const couriers: Array<{
          courier: string
          credentials?: Record<string, string>
          options?: { fromWilaya: number }
        }> = ["yalidine", "dhd", "noest", "zrexpress_new", "neardelivery", "ecomdelivery", "elogistia"].map((courier) =>
          callOf(byCourier.get(courier)!)
        )
        // The same platforms with a second account: Guepex on the Yalidine fake, DHD with another token.
        couriers.push(
          {
            courier: "guepex",
            credentials: { apiId: Yalidine.API_ID, apiToken: Yalidine.API_TOKEN },
            options: { fromWilaya: 16 }
          },
          { courier: "dhd", credentials: { token: Ecotrack.TOKEN } },
          { courier: "sandbox" }
        )
        assert.lengthOf(couriers, 10)
        const stalled = "elogistia"
        fakes.elogistia.misbehaveNext({ kind: "hang" }, "/getShippingCost/")
        const timeoutMs = 2000
        const body = {
          couriers,
          query: { fromWilaya: 16, toWilaya: 31, deliveryType: "stopdesk", codAmount: 4500 },
          timeoutMs
        }
        const started = performance.now()
        const answer = yield* post("/v1/rates/compare", body)
        const elapsed = performance.now() - started
        console.log(`rates/compare across ${couriers.length} couriers, one stalled: ${elapsed.toFixed(0)} ms`)
        assert.strictEqual(answer.status, 200, answer.text)
        assert.isAtMost(elapsed, timeoutMs + 100, `answered in ${elapsed.toFixed(0)} ms`)
        const quotes: ReadonlyArray<Json> = answer.json.quotes
        assert.lengthOf(quotes, 10)
        const priced = quotes.filter((quote) => "rates" in quote)
        const failed = quotes.filter((quote) => "error" in quote)
        assert.deepStrictEqual(
          failed.map((quote) => [quote.courier, quote.error.code]),
          [[stalled, "courier_timeout"]],
          answer.text
        )
        assert.sameMembers(
          priced.map((quote) => quote.courier),
          couriers.map((call) => call.courier).filter((courier) => courier !== stalled)
        )
        const totals = priced.map((quote) => quote.rates.total as number)
        assert.deepStrictEqual(
          totals,
          [...totals].sort((a, b) => a - b),
          "cheapest first"
        )
        // Each quote names its place in the request: the two DHD accounts are told apart.
        assert.sameMembers(
          quotes.map((quote) => quote.index as number),
          couriers.map((_, index) => index)
        )
        for (const quote of quotes) assert.strictEqual(quote.courier, couriers[quote.index as number]!.courier)
        assert.strictEqual(quotes.at(-1).courier, stalled, "the failure after the priced")
        assert.include(quotes.at(-1).error.message, `${timeoutMs} ms`)
      })
    )

    it.effect("the canary credentials appear in no log line, response body or database row", () =>
      Effect.gen(function* () {
        const { fakes, app, dataDir, bodies } = yield* Harness
        const reached = [
          ...fakes.yalidine.requests,
          ...fakes.ecotrack.requests,
          ...fakes.noest.requests,
          ...fakes.zr.requests,
          ...fakes.near.requests,
          ...fakes.mdm.requests,
          ...fakes.ecom.requests,
          ...fakes.elogistia.requests,
          ...fakes.colivraison.requests,
          ...fakes.zimou.requests
        ]
          .map((request) => JSON.stringify([request.headers, request.query, request.text]))
          .join("\n")
        for (const canary of CANARIES) assert.include(reached, canary, "the canary did reach its courier")

        yield* app.stop
        const everything = yield* everyRow(dataDir)

        assert.isAbove(bodies.length, 100)
        assert.include(everything, "cancel-yalidine-1", "the cancel's idempotency record was stored")
        assert.isAbove(app.stdout().split("\n").length, 100, "the app logged at trace level")
        for (const [where, text] of [
          ["responses and error bodies", bodies.join("\n")],
          ["stdout", app.stdout()],
          ["stderr", app.stderr()],
          ["the database", everything]
        ] as const) {
          for (const canary of CANARIES) {
            assert.notInclude(text, canary, `a canary leaked into ${where}`)
            assert.notInclude(text, encodeURIComponent(canary), `a canary leaked into ${where}, encoded`)
          }
        }
      })
    )
  }
)
