/**
 * The merchant store API's definition (spec: store-api-core.md, store-api-config.md). Definitions only.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"

export class StoreApi extends HttpApi.make("store")
  .add(HealthGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "Tawsil store API",
      version: "v1",
      description: "Orders, customers, products, store, landing pages, keys, usage and quotas for a merchant's store."
    })
  ) {}
