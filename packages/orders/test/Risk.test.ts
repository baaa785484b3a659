import { layer } from "@effect/vitest"
import { Layer } from "effect"
import * as ConfirmationStore from "../src/ConfirmationStore.ts"
import * as Risk from "../src/Risk.ts"
import * as RiskStore from "../src/RiskStore.ts"
import * as Fixture from "./Fixture.ts"
import { RiskSuite } from "./RiskSuite.ts"

/** The risk service and the rules `Orders` asks, over one memory risk store. */
const rules = Layer.mergeAll(Risk.layer, Risk.orderRisk).pipe(
  Layer.provideMerge(RiskStore.layerMemory.pipe(Layer.provideMerge(ConfirmationStore.layerMemory)))
)

layer(Fixture.memory(rules))("Risk (memory)", (it) => {
  RiskSuite(it)
})
