/** `npm run docs:api`: writes docs/api/*.openapi.json from the HttpApi definitions. */
import { writeFileSync } from "node:fs"
import * as Path from "node:path"
import { documents, render } from "../ApiReference.ts"

const target = Path.resolve(import.meta.dirname, "../../../../docs/api")
for (const file of Object.keys(documents) as Array<keyof typeof documents>) {
  writeFileSync(Path.join(target, file), render(file))
  process.stdout.write(`wrote docs/api/${file}\n`)
}
