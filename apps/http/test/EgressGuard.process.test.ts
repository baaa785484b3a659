/**
 * The egress guard in the app as users run it: started with a deliberately hostile plugin
 * (packages/courier/test/fixtures/hostile, loaded by entry path through COURIER_ADAPTERS), which tries to reach a
 * loopback trap around `CourierHttp` at import and in its operations — fetch with the caller's key in the query,
 * http, undici, net, tls, DNS, UDP. The app still serves, its couriers still reach their (fake) origins through the
 * transport, its MCP endpoint still reaches the app's own listeners, the trap gets nothing, and the refusals are
 * logged once per destination without the key.
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { EcotrackFake, TOKEN } from "../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { getJson, startApp } from "./AppProcess.ts"

const HOSTILE = Path.resolve(import.meta.dirname, "../../../packages/courier/test/fixtures/hostile/Hostile.ts")
/** The hostile plugin sends this at import (its own constant) and the caller's key in operations. */
const IMPORT_CANARY = "hostile-import-canary-5d1f9a3c7e"
const CANARY = "canary-egress-guard-4e81b07c2d"

const trap = Effect.acquireRelease(
  Effect.callback<{ origin: string; connections: () => number; close: () => void }>((resume) => {
    let connections = 0
    const server = Http.createServer((_request, response) => response.end())
    server.on("connection", () => {
      connections += 1
    })
    server.listen(0, "127.0.0.1", () =>
      resume(
        Effect.succeed({
          origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`,
          connections: () => connections,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })
      )
    )
  }),
  ({ close }) => Effect.sync(close)
)

const post = (url: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    return { status: response.status, text: await response.text() }
  })

const refusals = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { message: string; annotations?: Record<string, unknown> })
    .filter((entry) => entry.message === "egress refused")
    .map((entry) => entry.annotations ?? {})

describe("the egress guard in the app", () => {
  it.live("a hostile plugin loaded by the app reaches nothing; the app serves and its couriers still work", () =>
    Effect.gen(function* () {
      const { origin, connections } = yield* trap
      const fake = yield* Layer.build(EcotrackFake.layer({ tokens: [TOKEN] })).pipe(
        Effect.map((context) => context.mapUnsafe.get(EcotrackFake.key) as EcotrackFake["Service"])
      )
      const app = yield* startApp({
        DATA_DIR: yield* TestDatabase.migratedDataDir,
        COURIER_ADAPTERS: HOSTILE,
        TAWSIL_HOSTILE_TRAP: origin,
        TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${fake.origin}`
      })
      const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=hostile`)
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual(
        (listed.body as ReadonlyArray<{ key: string }>).map((entry) => entry.key),
        ["hostile"]
      )
      const call = { courier: "hostile", credentials: { key: CANARY } }
      const rates = yield* post(`${app.shippingUrl}/v1/rates`, {
        ...call,
        query: { toWilaya: 31, deliveryType: "home" }
      })
      assert.strictEqual(rates.status, 200, rates.text)
      const tracked = yield* post(`${app.shippingUrl}/v1/track`, { ...call, trackingNumber: "H1" })
      assert.strictEqual(tracked.status, 200, tracked.text)
      // A courier through the core transport, to its loopback stand-in: permitted.
      const dhd = yield* post(`${app.shippingUrl}/v1/rates`, {
        courier: "dhd",
        credentials: { token: TOKEN },
        query: { toWilaya: 31, deliveryType: "home" }
      })
      assert.strictEqual(dhd.status, 200, dhd.text)
      // The MCP endpoint calls the app's own listeners: the guard lets it (and nothing it refuses is added below).
      const mcp = new Client({ name: "egress-test", version: "1.0.0" })
      yield* Effect.acquireRelease(
        Effect.promise(() => mcp.connect(new StreamableHTTPClientTransport(new URL("/mcp", app.shippingUrl)))),
        () => Effect.promise(() => mcp.close())
      )
      const listedByAgent = yield* Effect.promise(() =>
        mcp.callTool({ name: "list_couriers", arguments: { platform: "hostile" } })
      )
      assert.notStrictEqual(listedByAgent.isError, true, JSON.stringify(listedByAgent))
      assert.deepStrictEqual(
        (listedByAgent.structuredContent as { couriers: ReadonlyArray<{ key: string }> }).couriers.map((c) => c.key),
        ["hostile"]
      )

      assert.strictEqual(connections(), 0, "the trap received no connection")
      const port = Number(new URL(origin).port)
      // The log is written in batches: wait for the lines of the operations' refusals.
      yield* Effect.sleep("200 millis")
      const lines = refusals(app.stdout())
      const destinations = lines.map(
        (line) => `${line.kind} ${line.host}${line.port === undefined ? "" : `:${line.port}`}`
      )
      assert.sameMembers(destinations, [
        `connect 127.0.0.1:${port}`,
        "lookup *.hostile-egress-test.example",
        `udp 127.0.0.1:${port}`
      ])
      // Once per destination, with the count refused so far: import (8 attempts) and two operations (8 each).
      const last = Math.max(...lines.map((line) => Number(line.refused)))
      assert.isAtLeast(last, 3)
      for (const output of [app.stdout(), app.stderr()]) {
        assert.notInclude(output, CANARY)
        assert.notInclude(output, IMPORT_CANARY)
        assert.notInclude(output, encodeURIComponent(CANARY))
      }
      assert.notInclude(rates.text + tracked.text, CANARY)
    }).pipe(Effect.scoped)
  )
})
