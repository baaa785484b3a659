import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { files, render } from "../src/ApiReference.ts"

const docs = Path.resolve(import.meta.dirname, "../../../docs/api")

describe("ApiReference", () => {
  for (const file of files) {
    it(`docs/api/${file} matches the HttpApi definitions (run npm run docs:api)`, () => {
      assert.strictEqual(readFileSync(Path.join(docs, file), "utf8"), render(file))
    })
  }

  it("gives every error response of every endpoint an explicit status", () => {
    for (const file of files) {
      const spec = JSON.parse(render(file)) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
      }
      for (const [path, operations] of Object.entries(spec.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          // An error schema without httpApiStatus silently becomes a 500 response.
          const statuses = Object.keys(operation.responses)
          assert.notInclude(
            statuses,
            "500",
            `${file} ${method.toUpperCase()} ${path} declares an error without a status`
          )
        }
      }
    }
  })
})
