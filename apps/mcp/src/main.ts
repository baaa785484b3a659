/**
 * The stdio entry: an agent host starts this process and speaks MCP on its stdin and stdout.
 *
 *   node --conditions=@tawsil/source apps/mcp/src/main.ts --shipping-url http://127.0.0.1:8080 \
 *     --store-url http://127.0.0.1:8081
 *
 * (`npm run --silent mcp -- …` from the repository.) The store key, if any, comes from `TAWSIL_STORE_KEY`, never
 * from a flag (a process's arguments are visible to every user of the machine). stdout carries the protocol only:
 * logs, warnings and usage errors go to stderr.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Config, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import { Command, Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"
import * as Apis from "./Apis.ts"
import * as TawsilMcp from "./TawsilMcp.ts"

const url = (name: string, variable: string, fallback: string) =>
  Flag.String(name).pipe(
    Flag.withFallbackConfig(Config.String(variable)),
    Flag.withDefault(fallback),
    Flag.withDescription(`Default: ${variable}, else ${fallback}`)
  )

const mcp = Command.make(
  "tawsil-mcp",
  {
    shippingUrl: url("shipping-url", "TAWSIL_SHIPPING_URL", "http://127.0.0.1:8080").pipe(
      Flag.withDescription("The shipping API's base URL")
    ),
    storeUrl: url("store-url", "TAWSIL_STORE_URL", "http://127.0.0.1:8081").pipe(
      Flag.withDescription("The store API's base URL")
    )
  },
  (flags) =>
    Effect.gen(function* () {
      const storeKey = yield* Config.option(Config.Redacted("TAWSIL_STORE_KEY"))
      yield* Layer.launch(
        TawsilMcp.layerStdio(Option.filter(storeKey, (key) => Redacted.value(key) !== "")).pipe(
          Layer.provide([Apis.layer(flags), FetchHttpClient.layer])
        )
      )
    })
).pipe(Command.withDescription("An MCP server over a Tawsil deployment's shipping and store APIs, on stdio"))

/** Logs on stderr, warnings and above: stdout is the protocol's. */
const layer = Layer.mergeAll(
  NodeServices.layer,
  Logger.layer([Logger.formatJson.pipe(Logger.withConsoleError)]),
  Layer.succeed(References.MinimumLogLevel, "Warn")
)

if (import.meta.main) {
  NodeRuntime.runMain(Command.run(mcp, { version: "0.2.0" }).pipe(Effect.provide(layer)))
}
