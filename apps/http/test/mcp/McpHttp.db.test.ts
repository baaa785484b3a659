/**
 * The MCP server over Streamable HTTP, mounted at `/mcp` on the app's shipping listener, with the official MCP
 * TypeScript SDK as the agent host's client (`McpHarness`): the whole agent session with a key holding every scope,
 * the order's shipment calls, a key whose scopes show some tools only, no key (the shipping tools only), a bad bearer,
 * a hidden tool called anyway, and canary credentials in no log line or answer.
 */
import { assert, layer } from "@effect/vitest"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Context, Effect, Layer } from "effect"
import {
  agentSession,
  assertNoCanary,
  callTool,
  connect,
  type Deployment,
  deploy,
  ORDER_READ_TOOLS,
  SHIPPING_TOOLS,
  shipmentSession,
  toolNames
} from "./McpHarness.ts"

class Harness extends Context.Service<Harness, Deployment>()("test/McpHttp/Harness") {}

const connectHttp = (deployment: Deployment, token?: string) =>
  connect(
    new StreamableHTTPClientTransport(
      new URL("/mcp", deployment.app.shippingUrl),
      token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }
    )
  )

layer(Layer.effect(Harness, deploy), { timeout: "180 seconds", excludeTestServices: true })(
  "MCP over Streamable HTTP",
  (it) => {
    it.effect(
      "an agent with a full store key quotes, creates once, tracks, cancels, and works the store's orders",
      () =>
        Effect.gen(function* () {
          const deployment = yield* Harness
          const client = yield* connectHttp(deployment, deployment.platformToken)
          yield* agentSession(client, deployment, "http")
          yield* shipmentSession(client, deployment)
          assertNoCanary(deployment)
        }).pipe(Effect.scoped),
      120_000
    )

    it.effect(
      "a key sees the tools of its scopes only; no key sees the shipping tools; a hidden tool cannot be called",
      () =>
        Effect.gen(function* () {
          const deployment = yield* Harness
          const ordersRead = yield* connectHttp(deployment, deployment.ordersReadToken)
          assert.deepStrictEqual(yield* toolNames(ordersRead), [...SHIPPING_TOOLS, ...ORDER_READ_TOOLS].sort())
          const orders = yield* callTool(ordersRead, "list_orders", {})
          assert.isFalse(orders.isError, orders.text)
          const hidden = yield* Effect.promise(() =>
            ordersRead
              .callTool({ name: "change_order_status", arguments: { id: 1, status: "confirmed", idempotencyKey: "x" } })
              .then(
                () => "answered",
                (error: Error) => error.message
              )
          )
          assert.include(hidden, "not found")

          const anonymous = yield* connectHttp(deployment)
          assert.deepStrictEqual(yield* toolNames(anonymous), SHIPPING_TOOLS)
          const wrongKey = yield* connectHttp(deployment, "twpk_live_000000000000000000000000.nope")
          assert.deepStrictEqual(yield* toolNames(wrongKey), SHIPPING_TOOLS)
          assertNoCanary(deployment)
        }).pipe(Effect.scoped),
      120_000
    )
  }
)
