import { layer } from "@effect/vitest"
import * as Backends from "./Backends.ts"
import { StoresSuite } from "./StoresSuite.ts"

layer(Backends.memory())("stores (memory)", (it) => {
  StoresSuite(it, { concurrentClaims: false })
})

for (const backend of Backends.backends) {
  layer(Backends.sql(backend), { excludeTestServices: true, timeout: "120 seconds" })(
    `stores (sql, ${backend.name})`,
    (it) => {
      // The embedded database has one connection: claims queue; the server's pool claims at once.
      StoresSuite(it, { concurrentClaims: backend.name === "server" })
    }
  )
}
