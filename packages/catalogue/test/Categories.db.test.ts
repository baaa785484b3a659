import { layer } from "@effect/vitest"
import { CategoriesSuite } from "./CategoriesSuite.ts"
import { backends, memory, sql } from "./RecordedBackends.ts"

layer(memory)("Categories (memory)", (it) => {
  CategoriesSuite(it)
})

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `Categories (sql, ${backend.name})`,
    (it) => {
      CategoriesSuite(it)
    }
  )
}
