import { layer } from "@effect/vitest"
import { DateTime } from "effect"
import * as Fixture from "./Fixture.ts"
import { OrdersSuite } from "./OrdersSuite.ts"

layer(Fixture.memory())("Orders (memory)", (it) => {
  OrdersSuite(it, { now: DateTime.now })
})
