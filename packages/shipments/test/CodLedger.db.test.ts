import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Backends from "./Backends.ts"
import { CodLedgerSuite } from "./CodLedgerSuite.ts"

// Statements are dated from 2000 on: the memory twin's test clock starts on a day of 2026, not in 1970.
const in2026 = Layer.effectDiscard(TestClock.setTime(Date.UTC(2026, 10, 15, 12)))

layer(Layer.provideMerge(in2026, Backends.memory()))("COD ledger (memory)", (it) => {
  CodLedgerSuite(it)
})

for (const backend of Backends.backends) {
  layer(Backends.sql(backend), { excludeTestServices: true, timeout: "120 seconds" })(
    `COD ledger (sql, ${backend.name})`,
    (it) => {
      CodLedgerSuite(it)
    }
  )
}
