import { layer } from "@effect/vitest"
import { backends, memory, sql } from "./Backends.ts"
import { SnapshotLimitSuite, StoreShippingSuite } from "./StoreShippingSuite.ts"

/** A limit the suite's writes of 30 wilayas pass and a write of 58 does not. */
const LOW_LIMIT = 1000

layer(memory())("StoreShipping (memory)", (it) => {
  StoreShippingSuite(it)
})

layer(memory(LOW_LIMIT))("StoreShipping (memory, a low snapshot limit)", (it) => {
  SnapshotLimitSuite(it)
})

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `StoreShipping (sql, ${backend.name})`,
    (it) => {
      StoreShippingSuite(it)
    }
  )
  layer(sql(backend, LOW_LIMIT), { excludeTestServices: true, timeout: "90 seconds" })(
    `StoreShipping (sql, ${backend.name}, a low snapshot limit)`,
    (it) => {
      SnapshotLimitSuite(it)
    }
  )
}
