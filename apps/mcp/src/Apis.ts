/**
 * Where the Tawsil deployment this MCP server speaks for is: the base URLs of its shipping API and its store API. The
 * server is a client of those two APIs (through `@tawsil/client`), so it works against any deployment; the stdio entry
 * is told the URLs, the app's own `/mcp` mount reads its listeners' bound addresses (known only once they listen, hence
 * effects).
 */
import { Context, Effect, Layer } from "effect"

export class Apis extends Context.Service<
  Apis,
  {
    /** `http://127.0.0.1:8080` for a local app. */
    readonly shippingUrl: Effect.Effect<string>
    /** `http://127.0.0.1:8081` for a local app. */
    readonly storeUrl: Effect.Effect<string>
  }
>()("@tawsil/mcp/Apis") {}

/** Fixed URLs (the stdio entry's flags). */
export const layer = (urls: { readonly shippingUrl: string; readonly storeUrl: string }) =>
  Layer.succeed(
    Apis,
    Apis.of({ shippingUrl: Effect.succeed(urls.shippingUrl), storeUrl: Effect.succeed(urls.storeUrl) })
  )
