/**
 * The MCP endpoint on the shipping listener (`POST /mcp`, Streamable HTTP; docs/mcp.md): `@tawsil/mcp`'s server, a
 * client of this app's own two APIs at their bound addresses, each request's store key its bearer token. It adds no
 * rule of its own: every tool call is one request to the shipping or the store API, which admit, limit and answer it
 * as they answer any client.
 */
import { Apis, TawsilMcp } from "@tawsil/mcp"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { BoundUrls } from "./BoundUrls.ts"

export const MCP_PATH = "/mcp"

const apis = Layer.effect(
  Apis.Apis,
  Effect.map(BoundUrls, (bound) =>
    Apis.Apis.of({ shippingUrl: bound.urlOf("shipping"), storeUrl: bound.urlOf("store") })
  )
)

/** The route, for `Server.make`'s `routes`. Its one failure is a server option effect refuses: a defect. */
export const routes = Layer.empty.pipe(
  Layer.provide(TawsilMcp.layerHttp(MCP_PATH).pipe(Layer.provide([apis, FetchHttpClient.layer]), Layer.orDie))
)
