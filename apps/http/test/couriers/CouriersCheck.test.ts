/**
 * `npm run couriers:check` (apps/http/src/CourierCheck.ts, scripts/checkCouriers.ts) against each platform's loopback
 * fake, as an operator runs it against the live courier: only reads, through the host's transport; what it read, every
 * answer the adapter could not read and every raw status its table does not know; and the recordings, which carry no
 * credential and no customer datum. Each platform's fake first holds a parcel created through the core for a canary
 * customer (name, mobile, address, products), which the check then tracks.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, layer } from "@effect/vitest"
import { CourierHttp, Recorded, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Egress } from "@tawsil/egress"
import { Communes } from "@tawsil/reference"
import { Catalogue, CourierPacer, Discovery, HttpTransport, Shipping, Tracking } from "@tawsil/shipping"
import { Context, Effect, Layer, Result, Schema } from "effect"
import * as Colivraison from "../../../../adapters/colivraison/test/fake/ColivraisonFake.ts"
import * as EcomDelivery from "../../../../adapters/ecomdelivery/test/fake/EcomDeliveryFake.ts"
import * as Ecotrack from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import * as Elogistia from "../../../../adapters/elogistia/test/fake/ElogistiaFake.ts"
import * as Maystro from "../../../../adapters/maystro/test/fake/MaystroFake.ts"
import * as Mdm from "../../../../adapters/mdm/test/fake/MdmFake.ts"
import * as NearDelivery from "../../../../adapters/neardelivery/test/fake/NearDeliveryFake.ts"
import * as Noest from "../../../../adapters/noest/test/fake/NoestFake.ts"
import * as Procolis from "../../../../adapters/procolis/test/fake/ProcolisFake.ts"
import * as Yalidine from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as Zimou from "../../../../adapters/zimou/test/fake/ZimouFake.ts"
import * as ZrExpressNew from "../../../../adapters/zrexpress-new/test/fake/ZrExpressNewFake.ts"
import * as CourierCheck from "../../src/CourierCheck.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../../..")

/** Canary credentials, one a platform: none may appear in a report or a recording. */
const C = {
  yalidineId: "canary-yal-id-3e81c5a0d7f9",
  yalidineToken: "canary-yal-token-91b4e06c2a7d5f",
  ecotrack: "canary-ecotrack-token-2a9d7c1e5b04",
  noestToken: "canary-noest-token-6c3f0a8e1d95",
  noestGuid: "canary-noest-guid-8b1e",
  zrKey: "canary-zr-key-7e2c9b4a1f06d358",
  maystro: "canary-maystro-key-4f9a2d6c8e13",
  procolisToken: "canary-procolis-token-0e7b3c9a5d21",
  procolisKey: "canary-procolis-key-5a1c",
  nearKey: "canary-near-key-9d3b7f1e5a20",
  nearSecret: "canary-near-secret-1c8e4a6b0f37",
  mdm: "canary-mdm-key-6e0a2c8f4b19",
  ecomKey: "canary-ecom-key-3b7d",
  ecomToken: "canary-ecom-token-0f6a9d2c4e81",
  elogistia: "canary-elogistia-key-8a4c1e7b3d50",
  colivKey: "canary-coliv-key-2d6f0b8a4c17",
  colivToken: "canary-coliv-token-5e9b3d7f1a06",
  zimou: "canary-zimou-token-4c0e8a2f6b19d573"
} as const
const ZR_TENANT = "7b2e0c4a-9d1f-4e6b-8a35-c2f0d9e4b716"

/** The canary customer: name, mobile, address and products, each of which must be scrubbed from every recording. */
const CUSTOMER = {
  fullName: "Canaria Zohra Oulmane",
  phone: "0661734925",
  addressLine: "17 rue Canarienne des Oliviers",
  productList: "Canaria robe kabyle"
}
const CUSTOMER_CANARIES = ["canaria", "canarienne", "661734925", "0661734925"]

interface Fakes {
  readonly yalidine: Yalidine.Fake
  readonly ecotrack: Ecotrack.Fake
  readonly noest: Noest.Fake
  readonly zr: ZrExpressNew.Fake
  readonly maystro: Maystro.Fake
  readonly procolis: Procolis.Fake
  readonly near: NearDelivery.Fake
  readonly mdm: Mdm.Fake
  readonly ecom: EcomDelivery.Fake
  readonly elogistia: Elogistia.Fake
  readonly colivraison: Colivraison.Fake
  readonly zimou: Zimou.Fake
}

class Harness extends Context.Service<
  Harness,
  {
    readonly fakes: Fakes
    readonly origins: string
    readonly catalogue: Catalogue.Catalogue
    readonly layers: Layer.Layer<Shipping.Transport | Communes.Communes>
    readonly shipping: Shipping.Shipping["Service"]
  }
>()("test/couriers/CouriersCheck/Harness") {}

const HarnessLive = Layer.effect(
  Harness,
  Effect.gen(function* () {
    const fakes: Fakes = {
      yalidine: yield* Yalidine.make({ accounts: [{ apiId: C.yalidineId, apiToken: C.yalidineToken }] }),
      ecotrack: yield* Ecotrack.make({ tokens: [C.ecotrack] }),
      noest: yield* Noest.make({ accounts: [[C.noestToken, C.noestGuid]] }),
      zr: yield* ZrExpressNew.make({ accounts: [{ tenantId: ZR_TENANT, apiKey: C.zrKey }] }),
      maystro: yield* Maystro.make({ keys: [C.maystro] }),
      procolis: yield* Procolis.make({ accounts: [{ token: C.procolisToken, key: C.procolisKey }] }),
      near: yield* NearDelivery.make({ accounts: [[C.nearKey, C.nearSecret]] }),
      mdm: yield* Mdm.make({ keys: [C.mdm] }),
      ecom: yield* EcomDelivery.make({ accounts: [{ key: C.ecomKey, token: C.ecomToken }] }),
      elogistia: yield* Elogistia.make({ keys: [C.elogistia] }),
      colivraison: yield* Colivraison.make({ accounts: [[C.colivKey, C.colivToken]] }),
      zimou: yield* Zimou.make({ tokens: [C.zimou] })
    }
    const origins = [
      ["https://api.yalidine.app", fakes.yalidine.origin],
      ["https://yalidine.app", fakes.yalidine.origin],
      ["https://platform.dhd-dz.com", fakes.ecotrack.origin],
      ["https://app.noest-dz.com", fakes.noest.origin],
      ["https://api.zrexpress.app", fakes.zr.origin],
      ["https://*.blob.core.windows.net", fakes.zr.origin],
      ["https://backend.maystro-delivery.com", fakes.maystro.origin],
      ["https://procolis.com", fakes.procolis.origin],
      ["https://api.neardelivery.app", fakes.near.origin],
      ["https://api.mdm.express", fakes.mdm.origin],
      ["https://ecom-dz.net", fakes.ecom.origin],
      ["https://api.elogistia.com", fakes.elogistia.origin],
      ["https://api.colivraison.express", fakes.colivraison.origin],
      ["https://zimou.express", fakes.zimou.origin]
    ]
      .map(([origin, fake]) => `${origin}=${fake}`)
      .join(",")
    // The adapters as the command finds them, the host's transport pointed at the fakes, the bundled communes.
    const catalogue = Catalogue.make(yield* Discovery.discover(import.meta.url))
    const overrides = Result.getOrThrow(Egress.parseOverrides(origins))
    const layers = Layer.mergeAll(
      HttpTransport.layer({ overrides }).pipe(Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemory])),
      Communes.layerBundled
    )
    const context = yield* Layer.build(layers)
    const communes = Context.get(context, Communes.Communes)
    const shipping = Context.get(
      yield* Layer.build(
        Shipping.Shipping.layer(catalogue, { communes }).pipe(Layer.provide(Layer.succeedContext(context)))
      ),
      Shipping.Shipping
    )
    return { fakes, origins, catalogue, layers: Layer.succeedContext(context), shipping }
  })
)

interface Platform {
  readonly courier: string
  readonly credentials: Readonly<Record<string, string>>
  readonly fromWilaya?: number
  readonly delivery: { readonly deliveryType: "home" | "stopdesk"; readonly stopDeskId?: string }
}

const platforms: ReadonlyArray<Platform> = [
  {
    courier: "yalidine",
    credentials: { apiId: C.yalidineId, apiToken: C.yalidineToken },
    fromWilaya: 16,
    delivery: { deliveryType: "home" }
  },
  { courier: "dhd", credentials: { token: C.ecotrack }, delivery: { deliveryType: "home" } },
  { courier: "noest", credentials: { apiToken: C.noestToken, guid: C.noestGuid }, delivery: { deliveryType: "home" } },
  {
    courier: "zrexpress_new",
    credentials: { apiKey: C.zrKey, tenantId: ZR_TENANT },
    delivery: { deliveryType: "home" }
  },
  { courier: "maystro", credentials: { apiKey: C.maystro }, delivery: { deliveryType: "home" } },
  {
    courier: "zrexpress",
    credentials: { token: C.procolisToken, key: C.procolisKey },
    delivery: { deliveryType: "home" }
  },
  {
    courier: "neardelivery",
    credentials: { apiKey: C.nearKey, apiSecret: C.nearSecret },
    fromWilaya: 16,
    delivery: { deliveryType: "stopdesk", stopDeskId: "101" }
  },
  { courier: "mdm", credentials: { apiKey: C.mdm }, delivery: { deliveryType: "home" } },
  {
    courier: "ecomdelivery",
    credentials: { apiKey: C.ecomKey, apiToken: C.ecomToken },
    delivery: { deliveryType: "home" }
  },
  { courier: "elogistia", credentials: { apiKey: C.elogistia }, delivery: { deliveryType: "home" } },
  {
    courier: "colivraison",
    credentials: { publicKey: C.colivKey, token: C.colivToken },
    delivery: { deliveryType: "home" }
  },
  { courier: "zimou", credentials: { token: C.zimou }, delivery: { deliveryType: "home" } }
]

/** Fails naming the first canary a text holds, credential or customer datum. */
const assertNoCanary = (text: string, where: string) => {
  const lower = text.toLowerCase()
  for (const canary of [...Object.values(C), ...CUSTOMER_CANARIES]) {
    assert.notInclude(lower, canary.toLowerCase(), `${where} holds ${canary}`)
  }
  assert.notInclude(lower, "canary", `${where} holds a canary`)
}

/** A parcel for the canary customer, created through the core (the check itself creates nothing). */
const createdFor = (platform: Platform) =>
  Effect.gen(function* () {
    const { shipping } = yield* Harness
    const created = yield* shipping.create({
      courier: platform.courier,
      credentials: platform.credentials,
      ...(platform.fromWilaya === undefined
        ? {}
        : { options: { fromWilaya: WilayaCode.WilayaCode.make(platform.fromWilaya) } }),
      order: Schema.decodeUnknownSync(Shipment.ParcelOrder)({
        reference: `check-${platform.courier}`,
        recipient: { ...CUSTOMER, wilayaCode: 16, communeName: "Bab Ezzouar" },
        ...platform.delivery,
        productList: CUSTOMER.productList,
        codAmount: 4500
      })
    })
    return created.trackingNumber
  })

const check = (options: CourierCheck.Options) =>
  Effect.flatMap(Harness, ({ catalogue, layers }) => CourierCheck.run(catalogue, options).pipe(Effect.provide(layers)))

layer(HarnessLive, { timeout: "120 seconds", excludeTestServices: true })("npm run couriers:check", (it) => {
  for (const platform of platforms) {
    it.effect(`${platform.courier}: every read answered and read; the recordings hold no canary`, () =>
      Effect.gen(function* () {
        const trackingNumber = yield* createdFor(platform)
        const report = yield* check({
          courier: platform.courier,
          credentials: platform.credentials,
          fromWilaya: platform.fromWilaya,
          wilayas: [16],
          trackingNumbers: [trackingNumber]
        })
        const { entry } = (yield* Harness).catalogue.resolve(platform.courier)!
        const text = CourierCheck.render(report, entry.name)
        assert.isTrue(CourierCheck.isClean(report), text)
        const ran = report.steps.filter((step) => step.outcome === "ok").map((step) => step.name.split(" ")[0])
        for (const capability of ["checkCredentials", "communes", "stopDesks", "rates", "track"] as const) {
          if (entry.capabilities[capability]) assert.include(ran, capability, text)
        }
        assert.include(text, `track ${trackingNumber}`)
        assert.isNotEmpty(report.exchanges)
        for (const exchange of report.exchanges) {
          // A fixture as a file holds it, and as a test replays it.
          const file = JSON.stringify(exchange, null, 2)
          assertNoCanary(file, `${platform.courier} ${exchange.step}`)
          const replayed = Recorded.responseOf(Schema.decodeUnknownSync(Recorded.Exchange)(JSON.parse(file)))
          assert.strictEqual(replayed.status, exchange.response.status)
        }
        assertNoCanary(text, `${platform.courier}'s report`)
        // The recorded tracking answers, replayed through the adapter's own track, read as the live answers did.
        const tracked = report.exchanges.filter((exchange) => exchange.step === `track ${trackingNumber}`)
        assert.isNotEmpty(tracked, "the tracking answers are recorded")
        const { adapter } = (yield* Harness).catalogue.resolve(platform.courier)!
        const replayed = yield* adapter.operations.track!(trackingNumber, {
          credentials: Schema.decodeUnknownSync(adapter.credentials!)(platform.credentials),
          fromWilaya: undefined
        }).pipe(Effect.provideService(CourierHttp.CourierHttp, Recorded.replay(tracked)))
        const live = yield* (yield* Harness).shipping.track({
          courier: platform.courier,
          credentials: platform.credentials,
          trackingNumber
        })
        assert.deepStrictEqual(
          // As the core reads a timeline: cash only for a courier whose tracking reports it (`codTracked`).
          Tracking.timeline(
            trackingNumber,
            adapter.statuses,
            replayed,
            adapter.codTracked ? adapter.codStatuses : undefined
          ).result,
          live
        )
      })
    )
  }

  it.effect("the sandbox: reads with no credentials, and nothing leaves the process", () =>
    Effect.gen(function* () {
      const report = yield* check({ courier: "sandbox", credentials: {}, wilayas: [16, 31], trackingNumbers: [] })
      assert.isTrue(CourierCheck.isClean(report), CourierCheck.render(report, "Sandbox"))
      assert.deepStrictEqual(report.exchanges, [])
    })
  )

  it.effect("reports an answer the adapter cannot read, and a raw status its table does not know", () =>
    Effect.gen(function* () {
      const { fakes } = yield* Harness
      const yalidine = platforms[0]!
      const trackingNumber = yield* createdFor(yalidine)
      fakes.yalidine.addHistory(trackingNumber, "Statut jamais documenté")
      // The fees answer in a shape no documentation shows.
      fakes.yalidine.misbehaveNext({ kind: "json", status: 200, body: { fees: "soon" } }, "/v1/fees/")
      const report = yield* check({
        courier: "yalidine",
        credentials: yalidine.credentials,
        fromWilaya: 16,
        wilayas: [16],
        trackingNumbers: [trackingNumber]
      })
      const text = CourierCheck.render(report, "Yalidine")
      assert.isFalse(CourierCheck.isClean(report))
      assert.deepStrictEqual(
        report.steps.filter((step) => step.outcome === "unreadable").map((step) => step.name),
        ["rates 16→16 home"],
        text
      )
      assert.deepStrictEqual(report.unknownStatuses, [{ rawStatus: "Statut jamais documenté", trackingNumber }])
      assert.include(text, 'raw status not in the adapter\'s table: "Statut jamais documenté"')
      assert.include(text, "READ rates 16→16 home")
      const unreadable = report.exchanges.find((exchange) => exchange.step === "rates 16→16 home")!
      assert.deepStrictEqual(
        unreadable.response.body,
        { json: { fees: "soon" } },
        "the answer to look into is recorded"
      )
    })
  )

  it.effect("the command: credentials from the environment, --record writes the fixtures, usage mistakes exit 2", () =>
    Effect.gen(function* () {
      const { origins } = yield* Harness
      const dhd = platforms[1]!
      const trackingNumber = yield* createdFor(dhd)
      const dir = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-couriers-check-"))
      try {
        // Spawned, not spawnSync: the fakes answer from this process's event loop.
        const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
          Effect.callback<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>(
            (resume) => {
              const child = spawn(
                process.execPath,
                ["--conditions=@tawsil/source", "apps/http/src/scripts/checkCouriers.ts", ...args],
                { cwd: ROOT, env: { PATH: process.env.PATH ?? "", TAWSIL_COURIER_ORIGINS: origins, ...env } }
              )
              let stdout = ""
              let stderr = ""
              child.stdout.on("data", (chunk) => {
                stdout += chunk
              })
              child.stderr.on("data", (chunk) => {
                stderr += chunk
              })
              child.on("close", (status) => resume(Effect.succeed({ status, stdout, stderr })))
              return Effect.sync(() => child.kill())
            }
          )
        const ok = yield* run(["--courier", "dhd", "--wilaya", "16", "--track", trackingNumber, "--record", dir], {
          [CourierCheck.credentialVariable("token")]: C.ecotrack
        })
        assert.strictEqual(ok.status, 0, `${ok.stdout}\n${ok.stderr}`)
        assert.include(ok.stdout, "couriers:check dhd (DHD, platform ecotrack): reads only")
        assert.include(ok.stdout, `track ${trackingNumber}`)
        assert.include(ok.stdout, "every read answered, every answer read, every status known")
        const files = readdirSync(Path.join(dir, "dhd"))
        assert.isNotEmpty(files)
        for (const file of files) {
          const text = readFileSync(Path.join(dir, "dhd", file), "utf8")
          assertNoCanary(text, file)
          Schema.decodeUnknownSync(Recorded.Exchange)(JSON.parse(text))
        }
        assertNoCanary(`${ok.stdout}${ok.stderr}`, "the command's output")

        const missing = yield* run(["--courier", "dhd"], {})
        assert.strictEqual(missing.status, 2, missing.stderr)
        assert.include(missing.stderr, "DHD needs its credentials in COURIER_TOKEN")
        const unknown = yield* run(["--courier", "nobody"], {})
        assert.strictEqual(unknown.status, 2, unknown.stderr)
        assert.include(unknown.stderr, 'no installed adapter serves "nobody"')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  )
})
