/**
 * The MCP server in memory (effect's `McpTest` client: the same JSON-RPC encoding, routing and middleware as the
 * transports), over a fake of the two APIs (`FakeApis`): which tools a key's scopes show, how every tool is marked
 * and described, the store tools' scopes against the store API's own definition, canary credentials reaching the API
 * and nothing else, and arbitrary arguments — control characters, huge numbers, deep nesting — answered as tool
 * errors or protocol errors, never a crash.
 */
import { assert, describe, it } from "@effect/vitest"
import { StoreApi } from "@tawsil/api/store"
import * as Endpoint from "@tawsil/api/store/Endpoint"
import { Context, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import { McpProtocol, McpTest } from "effect/ai"
import * as fc from "fast-check"
import * as Apis from "../src/Apis.ts"
import * as StoreTools from "../src/StoreTools.ts"
import * as TawsilMcp from "../src/TawsilMcp.ts"
import * as FakeApis from "./FakeApis.ts"

const SHIPPING_TOOLS = [
  "cancel_parcel",
  "compare_rates",
  "create_parcel",
  "get_label",
  "list_couriers",
  "list_stop_desks",
  "resolve_commune",
  "track_parcels"
]

/** A client of the server whose requests carry `key` (as the stdio process's own key), over `fake`. */
const clientWith = (fake: FakeApis.FakeApis, key?: string) =>
  McpTest.makeClient(TawsilMcp.registrations(Option.fromNullishOr(key).pipe(Option.map(Redacted.make))), {
    protocols: [McpProtocol.v2025_11_25]
  }).pipe(Effect.provide([Apis.layer(FakeApis.urls), fake.layer]))

const namesOf = (fake: FakeApis.FakeApis, key?: string) =>
  Effect.flatMap(clientWith(fake, key), (client) =>
    Effect.map(client.listTools(), (listed) => listed.tools.map((tool) => tool.name).sort())
  )

describe("TawsilMcp", () => {
  it.effect("a key's scopes decide which store tools exist", () =>
    Effect.gen(function* () {
      const fake = FakeApis.make({
        full: ["orders:read", "orders:write", "store:read", "store:write"],
        ordersRead: ["orders:read"],
        changesOnly: ["store:read"],
        promosWrite: ["promos:write"],
        none: []
      })
      assert.deepStrictEqual(yield* namesOf(fake), SHIPPING_TOOLS)
      assert.deepStrictEqual(yield* namesOf(fake, "none"), SHIPPING_TOOLS)
      assert.deepStrictEqual(yield* namesOf(fake, "refused"), SHIPPING_TOOLS)
      assert.deepStrictEqual(
        yield* namesOf(fake, "ordersRead"),
        [...SHIPPING_TOOLS, "get_order", "get_shipment_label", "list_orders"].sort()
      )
      assert.deepStrictEqual(
        yield* namesOf(fake, "changesOnly"),
        [...SHIPPING_TOOLS, "get_change", "list_changes"].sort()
      )
      // An entity's undo scope shows the undo tool alone.
      assert.deepStrictEqual(yield* namesOf(fake, "promosWrite"), [...SHIPPING_TOOLS, "undo_change"].sort())
      assert.lengthOf(yield* namesOf(fake, "full"), SHIPPING_TOOLS.length + 10)
      // A tool the key does not see cannot be called either.
      const client = yield* clientWith(fake, "ordersRead")
      const hidden = yield* Effect.flip(
        client.callTool({ name: "undo_change", arguments: { id: 1, idempotencyKey: "undo-1" } })
      )
      assert.include(hidden.message, "not found")
      // A key's scopes are read once per server (seven servers here), not once per tool listed or called.
      assert.strictEqual(fake.calls().filter((call) => call.path === "/v1/whoami").length, 7)
    }).pipe(Effect.scoped)
  )

  it.effect("destructive tools say to ask the user first; creates and store writes need an idempotency key", () =>
    Effect.gen(function* () {
      const client = yield* clientWith(
        FakeApis.make({ full: ["orders:read", "orders:write", "store:read", "store:write"] }),
        "full"
      )
      const { tools } = yield* client.listTools()
      const destructive = tools.filter((tool) => tool.annotations?.destructiveHint === true).map((tool) => tool.name)
      assert.sameMembers(destructive, [
        "create_parcel",
        "cancel_parcel",
        "change_order_status",
        "ship_order",
        "dispatch_shipment",
        "cancel_shipment",
        "undo_change"
      ])
      for (const tool of tools) {
        const isDestructive = destructive.includes(tool.name)
        assert.strictEqual(/Ask the user first/.test(tool.description ?? ""), isDestructive, tool.name)
        assert.strictEqual(tool.annotations?.readOnlyHint, !isDestructive, tool.name)
        const required = (tool.inputSchema as { required?: ReadonlyArray<string> }).required ?? []
        if (isDestructive && tool.name !== "cancel_parcel") assert.include(required, "idempotencyKey", tool.name)
        if (!isDestructive)
          assert.notProperty((tool.inputSchema as { properties: object }).properties, "idempotencyKey")
      }
    }).pipe(Effect.scoped)
  )

  it("each store tool's scopes include the scope its endpoint requires in the store API's definition", () => {
    const endpointOf = (group: string, endpoint: string) =>
      (
        StoreApi.groups as unknown as Record<
          string,
          { endpoints: Record<string, { annotations: Context.Context<never> }> }
        >
      )[group]!.endpoints[endpoint]!
    const calls: ReadonlyArray<readonly [keyof typeof StoreTools.scopes, string, string]> = [
      ["orderReads", "orders", "listOrders"],
      ["orderReads", "orders", "getOrder"],
      ["orderReads", "shipments", "getShipmentLabel"],
      ["orderWrites", "orders", "updateOrderStatus"],
      ["orderWrites", "shipments", "shipOrder"],
      ["orderWrites", "shipments", "dispatchShipment"],
      ["orderWrites", "shipments", "cancelShipment"],
      ["changeReads", "changes", "listChanges"],
      ["changeReads", "changes", "getChange"]
    ]
    for (const [toolkit, group, endpoint] of calls) {
      const required = Context.getOption(endpointOf(group, endpoint).annotations, Endpoint.RequiredScope)
      if (Option.isSome(required)) assert.include(StoreTools.scopes[toolkit], required.value, `${group}.${endpoint}`)
    }
  })

  it.effect("courier credentials reach the shipping API's request body and no answer or log line", () =>
    Effect.gen(function* () {
      const logged: Array<string> = []
      const fake = FakeApis.make({})
      // The server's every log line, at every level, from its start.
      const client = yield* clientWith(fake).pipe(
        Effect.provide([
          Logger.layer([Logger.make(({ message, cause }) => logged.push(JSON.stringify([message, String(cause)])))]),
          Layer.succeed(References.MinimumLogLevel, "All")
        ])
      )
      const canary = "canary-unit-credential-5d1f0b"
      const answer = yield* client.callTool({
        name: "list_stop_desks",
        arguments: { courier: "noest", credentials: { apiToken: canary, guid: `${canary}-guid` }, wilayaCode: 16 }
      })
      const sent = fake.calls().find((call) => call.path === "/v1/stop-desks")
      assert.deepStrictEqual(JSON.parse(sent!.body), {
        courier: "noest",
        credentials: { apiToken: canary, guid: `${canary}-guid` },
        wilayaCode: 16
      })
      assert.isFalse(answer.isError)
      assert.notInclude(JSON.stringify(answer), canary)
      assert.notInclude(logged.join("\n"), canary)
    }).pipe(Effect.scoped)
  )

  it.effect("the API's refusal reaches the agent as a tool error with its code, message and details", () =>
    Effect.gen(function* () {
      const client = yield* clientWith(FakeApis.make({}))
      const answer = yield* client.callTool({
        name: "resolve_commune",
        arguments: { wilayaCode: 16, communeName: "Bir" }
      })
      assert.isTrue(answer.isError)
      const failure = JSON.parse((answer.content[0] as { text: string }).text)
      assert.deepStrictEqual(failure, {
        code: "unknown_commune",
        message: FakeApis.UNKNOWN_COMMUNE_MESSAGE,
        details: { suggestions: FakeApis.SUGGESTIONS }
      })
    }).pipe(Effect.scoped)
  )

  it.effect("bad arguments of every tool answer an error with a message, and the server goes on answering", () =>
    Effect.gen(function* () {
      const client = yield* clientWith(
        FakeApis.make({ full: ["orders:read", "orders:write", "store:read", "store:write"] }),
        "full"
      )
      const names = (yield* client.listTools()).tools.map((tool) => tool.name)
      const text = fc.string({ unit: "binary", maxLength: 40 })
      const leaf = fc.oneof(
        text,
        fc.constantFrom("\u0000", "\u0007\u001b", "\ud800", "", " "),
        fc.integer(),
        fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 53, -0),
        fc.boolean(),
        fc.constant(null)
      )
      const { value } = fc.letrec((tie) => ({
        value: fc.oneof(
          { depthSize: "small", withCrossShrink: true },
          leaf,
          fc.array(tie("value"), { maxLength: 3 }),
          tie("object")
        ),
        object: fc.dictionary(
          fc.oneof(text, fc.constantFrom("id", "courier", "order", "credentials", "idempotencyKey")),
          tie("value"),
          {
            maxKeys: 4
          }
        )
      }))
      const deep = fc.integer({ min: 50, max: 200 }).map((depth) => {
        let nested: unknown = "x"
        for (let i = 0; i < depth; i++) nested = { order: nested }
        return nested as Record<string, unknown>
      })
      const args = fc.oneof(fc.dictionary(text, value, { maxKeys: 5 }), deep)
      const samples = fc.sample(fc.tuple(fc.constantFrom(...names), args), { numRuns: 60, seed: 35 })
      for (const [name, argument] of samples) {
        const result = yield* Effect.result(client.callTool({ name, arguments: argument as Record<string, unknown> }))
        if (result._tag === "Failure") {
          assert.isNotEmpty(result.failure.message, name)
        } else if (result.success.isError) {
          assert.isNotEmpty((result.success.content[0] as { text: string }).text, name)
        }
      }
      assert.lengthOf((yield* client.listTools()).tools, names.length)
    }).pipe(Effect.scoped)
  )
})
