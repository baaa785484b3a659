/** The store server: the store API's handlers on its own listener. */
import { HttpApiBuilder } from "effect/http-api"
import type { AppConfig } from "../AppConfig.ts"
import * as Health from "../Health.ts"
import * as Server from "../Server.ts"
import { StoreApi } from "./Api.ts"
import { envelope } from "./Errors.ts"

const HealthHandlers = HttpApiBuilder.group(StoreApi, "health", (handlers) =>
  handlers.handle("health", () => Health.check("store"))
)

export const layer = (config: AppConfig) =>
  Server.make(config, {
    name: "store",
    api: StoreApi,
    serve: { handlers: HealthHandlers },
    envelope,
    port: config.storePort
  })
