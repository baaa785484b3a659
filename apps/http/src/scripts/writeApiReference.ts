/** `npm run docs:api`: writes docs/api/*.openapi.json from the HttpApi definitions. */
import { writeFileSync } from "node:fs"
import * as Path from "node:path"
import { files, render } from "../ApiReference.ts"

const target = Path.resolve(import.meta.dirname, "../../../../docs/api")
for (const file of files) {
  writeFileSync(Path.join(target, file), render(file))
  process.stdout.write(`wrote docs/api/${file}\n`)
}
