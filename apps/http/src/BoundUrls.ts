/**
 * The URL each of the app's listeners was bound to, once it listens (a port of 0 picks a free one, so it is known
 * only then). The MCP endpoint (`Mcp.ts`) calls the app's own two APIs at these URLs, which the process's egress
 * guard lets it reach from then on.
 */
import { Context, Deferred, Effect, Layer } from "effect"
import * as EgressGuard from "./EgressGuard.ts"

export class BoundUrls extends Context.Service<
  BoundUrls,
  {
    /** Told by a listener once it listens, under its API's name (`shipping`, `store`). */
    readonly report: (api: string, url: string) => Effect.Effect<void>
    /** Waits for the listener of `api` to listen. */
    readonly urlOf: (api: string) => Effect.Effect<string>
  }
>()("@tawsil/http/BoundUrls") {}

/**
 * The URL to reach a listener from this process: a wildcard address (`0.0.0.0`, `::`) is reached on the loopback
 * interface.
 */
export const reachable = (url: string): string => {
  const parsed = new URL(url)
  if (parsed.hostname === "0.0.0.0") parsed.hostname = "127.0.0.1"
  else if (parsed.hostname === "[::]") parsed.hostname = "[::1]"
  return parsed.origin
}

export const layer = Layer.sync(BoundUrls, () => {
  const urls = new Map<string, Deferred.Deferred<string>>()
  const deferredOf = (api: string) => {
    let deferred = urls.get(api)
    if (deferred === undefined) {
      deferred = Deferred.makeUnsafe<string>()
      urls.set(api, deferred)
    }
    return deferred
  }
  return BoundUrls.of({
    report: (api, url) =>
      Effect.suspend(() => {
        const own = reachable(url)
        EgressGuard.allowOwnListener(own)
        return Effect.asVoid(Deferred.succeed(deferredOf(api), own))
      }),
    urlOf: (api) => Deferred.await(deferredOf(api))
  })
})
