/**
 * docs/mcp.md against the server: its tool table names every tool the server registers, with the scopes that show it,
 * whether it is destructive and whether it requires an `idempotencyKey`; its host configurations are JSON and start
 * the entry `npm run mcp` runs.
 */
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { McpProtocol, McpTest, type Toolkit } from "effect/ai"
import * as Apis from "../src/Apis.ts"
import * as ShippingTools from "../src/ShippingTools.ts"
import * as StoreTools from "../src/StoreTools.ts"
import * as TawsilMcp from "../src/TawsilMcp.ts"
import * as FakeApis from "./FakeApis.ts"

const ROOT = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
const page = readFileSync(Path.join(ROOT, "docs/mcp.md"), "utf8")

/** The tool table's rows: name → its scopes cell and its "marked" cell. */
const documented = new Map(
  page
    .split("## Tools")[1]!
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split("|").map((cell) => cell.trim())
      return [cells[1]!.replaceAll("`", ""), { scopes: cells[4]!, marked: cells[5]! }] as const
    })
)

const scopesOf = (cell: string) =>
  cell === "none" ? [] : [...cell.matchAll(/`([a-z_]+:(?:read|write))`/g)].map((m) => m[1]!)

const toolkits: ReadonlyArray<readonly [Toolkit.Any & { tools: Record<string, unknown> }, ReadonlyArray<string>]> = [
  [ShippingTools.ShippingTools, []],
  [StoreTools.OrderReads, StoreTools.scopes.orderReads],
  [StoreTools.OrderWrites, StoreTools.scopes.orderWrites],
  [StoreTools.ChangeReads, StoreTools.scopes.changeReads],
  [StoreTools.ChangeUndo, StoreTools.scopes.changeUndo]
]

describe("docs/mcp.md", () => {
  it.effect("the tool table is the server's tools, their scopes, marks and idempotency keys", () =>
    Effect.gen(function* () {
      const client = yield* McpTest.makeClient(TawsilMcp.registrations(Option.some(Redacted.make("full"))), {
        protocols: [McpProtocol.v2025_11_25]
      }).pipe(
        Effect.provide([
          Apis.layer(FakeApis.urls),
          FakeApis.make({ full: ["orders:read", "orders:write", "store:read", "store:write"] }).layer
        ])
      )
      const { tools } = yield* client.listTools()
      assert.sameMembers(
        [...documented.keys()],
        tools.map((tool) => tool.name)
      )
      for (const [toolkit, scopes] of toolkits) {
        for (const name of Object.keys(toolkit.tools)) {
          assert.sameMembers(scopesOf(documented.get(name)!.scopes), [...scopes], name)
        }
      }
      for (const tool of tools) {
        const marked = documented.get(tool.name)!.marked
        assert.strictEqual(marked.startsWith("destructive"), tool.annotations?.destructiveHint === true, tool.name)
        assert.strictEqual(marked.startsWith("read-only"), tool.annotations?.readOnlyHint === true, tool.name)
        const required = (tool.inputSchema as { required?: ReadonlyArray<string> }).required ?? []
        assert.strictEqual(marked.includes("`idempotencyKey` required"), required.includes("idempotencyKey"), tool.name)
      }
    }).pipe(Effect.scoped)
  )

  it("its host configurations are JSON, the stdio one running the entry npm run mcp runs", () => {
    const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!)
    const configurations = blocks.filter((block) => block.includes("mcpServers")).map((block) => JSON.parse(block))
    assert.lengthOf(configurations, 2)
    const stdio = configurations[0].mcpServers.tawsil
    const script = JSON.parse(readFileSync(Path.join(ROOT, "package.json"), "utf8")).scripts.mcp as string
    assert.strictEqual(script, `node ${stdio.args[0]} apps/mcp/src/main.ts`)
    assert.isTrue(stdio.args[1].endsWith("/apps/mcp/src/main.ts"))
    assert.include(Object.keys(stdio.env), "TAWSIL_STORE_KEY")
    assert.strictEqual(configurations[1].mcpServers.tawsil.type, "http")
    assert.isTrue(configurations[1].mcpServers.tawsil.url.endsWith("/mcp"))
  })
})
