/** The `health` group: the shipping server's probe (`../../Health.ts`). */
import { ShippingApi } from "@tawsil/api/shipping/Api"
import { HttpApiBuilder } from "effect/http-api"
import * as Health from "../../Health.ts"

export const handlers = HttpApiBuilder.group(ShippingApi, "health", (handlers) =>
  handlers.handle("health", () => Health.check("shipping"))
)
