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

    it.effect(
      "requests that are not MCP get a JSON-RPC error or the API's envelope, never a 500",
      () =>
        Effect.gen(function* () {
          const deployment = yield* Harness
          const url = new URL("/mcp", deployment.app.shippingUrl)
          const post = (body: string, headers: Record<string, string> = {}) =>
            Effect.promise(async () => {
              const response = await fetch(url, {
                method: "POST",
                headers: {
                  "content-type": "application/json",
                  accept: "application/json, text/event-stream",
                  ...headers
                },
                body
              })
              return { status: response.status, text: await response.text() }
            })
          const bodies = [
            "not json",
            "{}",
            "[]",
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_parcel"}}',
            `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${"[".repeat(500)}${"]".repeat(500)}}`,
            '{"jsonrpc":"2.0","id":1,"method":"\\u0000","params":{}}'
          ]
          for (const body of bodies) {
            const answer = yield* post(body)
            assert.isBelow(answer.status, 500, `${body.slice(0, 40)}: ${answer.text}`)
            assert.isAtLeast(answer.status, 200, body.slice(0, 40))
            if (answer.status >= 400) assert.doesNotThrow(() => JSON.parse(answer.text), answer.text)
          }
          // A browser's request (an Origin header) is refused.
          const fromPage = yield* post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { origin: "https://evil.example" })
          assert.isAtLeast(fromPage.status, 400)
          assert.isBelow(fromPage.status, 500)
          const get = yield* Effect.promise(() => fetch(url).then((response) => response.status))
          assert.strictEqual(get, 405)
        }),
      60_000
    )
  }
)
