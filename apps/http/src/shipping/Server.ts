/** The shipping server: the shipping API's handlers on its own listener. */
import { HttpApiBuilder } from "effect/http-api"
import type { AppConfig } from "../AppConfig.ts"
import * as Health from "../Health.ts"
import * as Server from "../Server.ts"
import { ShippingApi } from "./Api.ts"
import { envelope } from "./Errors.ts"

const HealthHandlers = HttpApiBuilder.group(ShippingApi, "health", (handlers) =>
  handlers.handle("health", () => Health.check("shipping"))
)

export const layer = (config: AppConfig) =>
  Server.make(config, {
    name: "shipping",
    api: ShippingApi,
    handlers: HealthHandlers,
    envelope,
    port: config.shippingPort
  })
