import * as Path from "node:path"
import { assert } from "@effect/vitest"
import { Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Egress } from "@tawsil/egress"
import { Communes } from "@tawsil/reference"
import { Catalogue, CourierPacer, Discovery, HttpTransport, Shipping } from "@tawsil/shipping"
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
import { originsOf } from "./Platforms.ts"

export const ROOT = Path.resolve(import.meta.dirname, "../../../..")

/** Canary credentials, one a platform: none may appear in a report or a recording. */
export const C = {
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

export class Harness extends Context.Service<
  Harness,
  {
    readonly fakes: Fakes
    readonly origins: string
    readonly catalogue: Catalogue.Catalogue
    readonly layers: Layer.Layer<Shipping.Transport | Communes.Communes>
    readonly shipping: Shipping.Shipping["Service"]
  }
>()("test/couriers/CouriersCheck/Harness") {}

/** The fakes' own limits where they count on the real clock (Yalidine's quotas, Ecotrack's throttle). */
const generous = { second: 1000, minute: 10_000, hour: 100_000, day: 1_000_000 }

export const HarnessLive = Layer.effect(
  Harness,
  Effect.gen(function* () {
    const fakes: Fakes = {
      yalidine: yield* Yalidine.make({
        accounts: [{ apiId: C.yalidineId, apiToken: C.yalidineToken, quotas: generous }]
      }),
      ecotrack: yield* Ecotrack.make({ tokens: [C.ecotrack], perMinute: generous.minute }),
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
    const origins = originsOf(fakes).join(",")
    // The adapters as the command finds them, the host's transport pointed at the fakes, the bundled communes.
    const catalogue = Catalogue.make(yield* Discovery.discover(import.meta.url))
    const overrides = Result.getOrThrow(Egress.parseOverrides(origins))
    const layers = Layer.mergeAll(
      HttpTransport.layer({ overrides }).pipe(
        Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemoryScaled(0.001)])
      ),
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

export interface Platform {
  readonly courier: string
  readonly credentials: Readonly<Record<string, string>>
  readonly fromWilaya?: number
  readonly delivery: { readonly deliveryType: "home" | "stopdesk"; readonly stopDeskId?: string }
}

export const platforms: ReadonlyArray<Platform> = [
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
export const assertNoCanary = (text: string, where: string) => {
  const lower = text.toLowerCase()
  for (const canary of [...Object.values(C), ...CUSTOMER_CANARIES]) {
    assert.notInclude(lower, canary.toLowerCase(), `${where} holds ${canary}`)
  }
  assert.notInclude(lower, "canary", `${where} holds a canary`)
}

/** A parcel for the canary customer, created through the core (the check itself creates nothing). */
export const createdFor = (platform: Platform) =>
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

export const check = (options: CourierCheck.Options) =>
  Effect.flatMap(Harness, ({ catalogue, layers }) => CourierCheck.run(catalogue, options).pipe(Effect.provide(layers)))
