import { layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as ConfirmationStoreSql from "../src/ConfirmationStoreSql.ts"
import * as Risk from "../src/Risk.ts"
import * as Fixture from "./Fixture.ts"
import { RiskSuite } from "./RiskSuite.ts"

for (const backend of TestDatabase.backends) {
  layer(
    Layer.merge(Risk.layerSql, ConfirmationStoreSql.layer).pipe(
      Layer.provideMerge(Fixture.sql(backend, Risk.orderRiskSql))
    ),
    {
      excludeTestServices: true,
      timeout: "120 seconds"
    }
  )(`Risk (sql, ${backend.name})`, (it) => {
    RiskSuite(it)
  })
}
