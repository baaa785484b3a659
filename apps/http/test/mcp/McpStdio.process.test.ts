/**
 * The MCP server over stdio, as an agent host runs it: the official MCP TypeScript SDK spawns the entry
 * (`apps/mcp/src/main.ts`, what `npm run mcp` runs) as its own process, pointed at the app running in this process,
 * with the store key in `TAWSIL_STORE_KEY`. One spawn: the agent's whole session (`McpHarness.agentSession`), then
 * the canary checks over the app's log, every answer and the server's stderr (stdout is the protocol).
 */
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, it } from "@effect/vitest"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { agentSession, assertNoCanary, connect, deploy } from "./McpHarness.ts"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../..")

it.live(
  "an agent host spawns the stdio server and runs a whole session with a store key",
  () =>
    Effect.gen(function* () {
      const deployment = yield* deploy
      let stderr = ""
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          "--conditions=@tawsil/source",
          "apps/mcp/src/main.ts",
          "--shipping-url",
          deployment.app.shippingUrl,
          "--store-url",
          deployment.app.storeUrl
        ],
        cwd: root,
        env: { PATH: process.env.PATH ?? "", TAWSIL_STORE_KEY: deployment.platformToken },
        stderr: "pipe"
      })
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      const client = yield* connect(transport)
      yield* agentSession(client, deployment, "stdio")
      assert.notInclude(stderr, deployment.platformToken.split(".")[1]!)
      assertNoCanary(deployment, stderr)
    }).pipe(Effect.scoped),
  180_000
)
