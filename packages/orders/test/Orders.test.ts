import { layer } from "@effect/vitest"
import { DateTime, Layer } from "effect"
import * as Fixture from "./Fixture.ts"
import { OrderShipmentsSuite } from "./OrderShipmentsSuite.ts"
import { OrdersSuite } from "./OrdersSuite.ts"

layer(Fixture.memory().pipe(Layer.provideMerge(Fixture.heard)))("Orders (memory)", (it) => {
  OrdersSuite(it, { now: DateTime.now })
  OrderShipmentsSuite(it)
})
