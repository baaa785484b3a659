import { layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as Risk from "../src/Risk.ts"
import * as Fixture from "./Fixture.ts"
import { RiskSuite } from "./RiskSuite.ts"

for (const backend of TestDatabase.backends) {
  layer(Risk.layerSql.pipe(Layer.provideMerge(Fixture.sql(backend, Risk.orderRiskSql))), {
    excludeTestServices: true,
    timeout: "120 seconds"
  })(`Risk (sql, ${backend.name})`, (it) => {
    RiskSuite(it)
  })
}
