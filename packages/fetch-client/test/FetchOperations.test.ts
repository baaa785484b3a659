import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { GENERATOR, type OpenApiDocument, render, targets, typeOf } from "../src/internal/FetchOperations.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const read = (file: string) => readFileSync(Path.join(ROOT, file), "utf8")

describe("FetchOperations", () => {
  it("the plain client's operation tables are the ones the OpenAPI documents give (npm run client:fetch)", () => {
    for (const target of targets) {
      const document = JSON.parse(read(target.document)) as OpenApiDocument
      assert.strictEqual(read(target.module), render(document, GENERATOR), `${target.module} is stale`)
      const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId))
      for (const id of ids) assert.include(read(target.module), `  ${JSON.stringify(id)}: { method:`)
    }
  })

  it.each([
    [{ type: "string", enum: ["a", "b"] }, '"a" | "b"'],
    [{ type: "array", items: { $ref: "#/components/schemas/Order" } }, "ReadonlyArray<Order>"],
    [
      {
        type: "object",
        properties: { id: { type: "integer" }, note: { type: "string" } },
        required: ["id"],
        additionalProperties: false
      },
      "{ readonly id: number; readonly note?: string }"
    ],
    [{ type: "object", additionalProperties: { type: "string" } }, "{ readonly [key: string]: string }"],
    [{ anyOf: [{ type: "string" }, { type: "null" }] }, "string | null"],
    [{}, "unknown"]
  ])("types the JSON a schema accepts: %j", (schema, expected) => {
    assert.strictEqual(typeOf(schema), expected)
  })
})
