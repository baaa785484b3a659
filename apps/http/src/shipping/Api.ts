/**
 * The shipping API's definition (spec: shipping-service.md). Interface version 1.1.0; tags `shipping` and
 * `reference` arrive with the courier endpoints. Definitions only: no handlers, no services.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"

export class ShippingApi extends HttpApi.make("shipping")
  .add(HealthGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "Tawsil shipping API",
      version: "1.1.0",
      description: "One request shape to create, track and price cash-on-delivery parcels with Algerian couriers."
    })
  ) {}
