/**
 * The shipping API with each courier platform's adapter — Colivraison, E-COM Delivery, Ecotrack (DHD), Elogistia,
 * Maystro and NOEST, MDM, Mylerz, Near Delivery, Procolis and the new ZR Express, the Yalidine engine, Zimou — against
 * the loopback fake of its courier, through one app in this process (`Platforms.ts`) for all of them: each platform's
 * suite (`platforms/*.ts`) lists it, runs its operations, reads its refusals, calls it through the unchanged dzship
 * client, and sends its canary credentials through every path; the last test stops the app and finds no canary in
 * its log or its database; dzship's `desks()` call reads desks and refusals (`platforms/DzshipDesks.ts`). (Every
 * operation across all platforms at once: `ParcelOperations.db.test.ts`.)
 */
import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Platforms from "./Platforms.ts"
import * as Colivraison from "./platforms/Colivraison.ts"
import * as DzshipDesks from "./platforms/DzshipDesks.ts"
import * as EcomDelivery from "./platforms/EcomDelivery.ts"
import * as Ecotrack from "./platforms/Ecotrack.ts"
import * as Elogistia from "./platforms/Elogistia.ts"
import * as MaystroNoest from "./platforms/MaystroNoest.ts"
import * as Mdm from "./platforms/Mdm.ts"
import * as Mylerz from "./platforms/Mylerz.ts"
import * as NearDelivery from "./platforms/NearDelivery.ts"
import * as Procolis from "./platforms/Procolis.ts"
import * as Yalidine from "./platforms/Yalidine.ts"
import * as Zimou from "./platforms/Zimou.ts"

const origins = Effect.map(
  Effect.all([
    Colivraison.origins,
    EcomDelivery.origins,
    Ecotrack.origins,
    Elogistia.origins,
    MaystroNoest.origins,
    Mdm.origins,
    Mylerz.origins,
    NearDelivery.origins,
    Procolis.origins,
    Yalidine.origins,
    Zimou.origins
  ]),
  (each) => each.flat()
)

const fakes = Layer.mergeAll(
  Colivraison.fake,
  EcomDelivery.fake,
  Ecotrack.fake,
  Elogistia.fake,
  MaystroNoest.fake,
  Mdm.fake,
  Mylerz.fake,
  NearDelivery.fake,
  Procolis.fake,
  Yalidine.fake,
  Zimou.fake
)

layer(Platforms.layer(origins).pipe(Layer.provideMerge(fakes)), { timeout: "120 seconds", excludeTestServices: true })(
  "the courier platforms' adapters, one app",
  (it) => {
    Colivraison.suite(it)
    EcomDelivery.suite(it)
    Ecotrack.suite(it)
    Elogistia.suite(it)
    MaystroNoest.suite(it)
    Mdm.suite(it)
    Mylerz.suite(it)
    NearDelivery.suite(it)
    Procolis.suite(it)
    Yalidine.suite(it)
    Zimou.suite(it)
    DzshipDesks.suite(it)

    it.effect(
      "the canaries of every platform appear in no log line or database row once the app has stopped",
      () => Platforms.stopAndCheck
    )
  }
)
