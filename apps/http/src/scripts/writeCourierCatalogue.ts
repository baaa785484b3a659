/** `npm run docs:couriers`: writes docs/couriers.md from the installed courier adapters' manifests. */
import { writeFileSync } from "node:fs"
import * as Path from "node:path"
import { Effect } from "effect"
import { discover, render } from "../CourierCatalogue.ts"

const target = Path.resolve(import.meta.dirname, "../../../../docs/couriers.md")
writeFileSync(target, render(await Effect.runPromise(discover)))
process.stdout.write("wrote docs/couriers.md\n")
