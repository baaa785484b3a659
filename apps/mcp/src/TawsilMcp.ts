/**
 * The MCP server over Tawsil's two APIs, built on effect's `McpServer`: the shipping tools for everyone, and the store
 * tools each behind the scopes that show it (`StoreTools.scopes`), for a request that carries a store key. Served over
 * stdio (`layerStdio`: an agent host starts the process; `main.ts`) and over Streamable HTTP (`layerHttp`: a route on
 * an `HttpRouter`, which the app mounts at `/mcp`).
 */
import { Layer, Option, type Redacted } from "effect"
import { McpProtocol, McpServer, type Tool, type Toolkit } from "effect/ai"
import * as ShippingTools from "./ShippingTools.ts"
import * as StoreKey from "./StoreKey.ts"
import * as StoreTools from "./StoreTools.ts"

const INSTRUCTIONS = [
  "Tawsil ships cash-on-delivery parcels with Algerian couriers and runs a merchant's store.",
  "Quote with compare_rates and check a commune with resolve_commune before creating a parcel.",
  "Tools marked destructive create, cancel, spend or undo: ask the user first, every time.",
  "Creates need an idempotencyKey: make one per operation and send the same one on every retry.",
  "Courier credentials are arguments of each call: never repeat them in an answer."
].join(" ")

const server = { name: "tawsil", version: "0.2.0", instructions: INSTRUCTIONS } as const

/** The protocol revisions offered: the sessionful ones agent hosts speak today. */
const protocols = [
  McpProtocol.v2025_11_25,
  McpProtocol.v2025_06_18,
  McpProtocol.v2025_03_26,
  McpProtocol.v2024_11_05
] as const

/** A store toolkit, shown to a request whose key holds one of `scopes`. */
const storeToolkit = <Tools extends Record<string, Tool.Any>, E, R>(
  toolkit: Toolkit.Toolkit<Tools>,
  handlers: Layer.Layer<Tool.HandlersFor<Tools>, E, R>,
  scopes: ReadonlyArray<string>,
  key: ReturnType<typeof StoreKey.middleware>
) =>
  McpServer.toolkit(toolkit).pipe(Layer.provide(StoreKey.requiring(scopes).combine(key).layer), Layer.provide(handlers))

/**
 * Every tool, registered. `fallbackKey` is the store key of a request that carries none (the stdio process's own);
 * over HTTP there is none.
 */
export const registrations = (fallbackKey: Option.Option<Redacted.Redacted<string>>) => {
  const key = StoreKey.middleware(fallbackKey)
  return Layer.mergeAll(
    McpServer.toolkit(ShippingTools.ShippingTools).pipe(Layer.provide(ShippingTools.layerHandlers)),
    storeToolkit(StoreTools.OrderReads, StoreTools.layerOrderReads, StoreTools.scopes.orderReads, key),
    storeToolkit(StoreTools.OrderWrites, StoreTools.layerOrderWrites, StoreTools.scopes.orderWrites, key),
    storeToolkit(StoreTools.ChangeReads, StoreTools.layerChangeReads, StoreTools.scopes.changeReads, key),
    storeToolkit(StoreTools.ChangeUndo, StoreTools.layerChangeUndo, StoreTools.scopes.changeUndo, key)
  ).pipe(Layer.provide(StoreKey.layerSessions))
}

/** Over stdio, the store key given at start (none: the shipping tools only). */
export const layerStdio = (storeKey: Option.Option<Redacted.Redacted<string>>) =>
  McpServer.layerStdio({ ...server, protocols, registrations: registrations(storeKey) })

/**
 * Over Streamable HTTP at `path`, each request's store key its bearer token. A session lives in this process's memory
 * until its client ends it (`DELETE` with its `Mcp-Session-Id`) or the process stops: effect's transport has no expiry.
 */
export const layerHttp = (path: `/${string}`) =>
  McpServer.layerHttp({
    ...server,
    path,
    protocols,
    allowSessionTermination: true,
    registrations: registrations(Option.none())
  })
