/** Is the API up? No key, not metered. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"

export class PingGroup extends HttpApiGroup.make("ping")
  .add(
    HttpApiEndpoint.get("ping", "/v1/ping", {
      success: Endpoint.Data(
        Schema.Struct({ pong: Schema.Literal(true), time: Schema.String, edge: Schema.Literal(true) })
      )
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "ping", description: "Is the API up? No key needed." })) {}
