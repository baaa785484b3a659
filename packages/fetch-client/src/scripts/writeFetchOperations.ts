/**
 * `npm run client:fetch`: writes `src/ShippingOperations.ts` and `src/StoreOperations.ts` from
 * `docs/api/*.openapi.json` (run `npm run docs:api` first when the definitions changed).
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { GENERATOR, render, targets } from "../internal/FetchOperations.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../../..")

for (const target of targets) {
  const document = JSON.parse(readFileSync(Path.join(ROOT, target.document), "utf8"))
  writeFileSync(Path.join(ROOT, target.module), render(document, GENERATOR))
}
