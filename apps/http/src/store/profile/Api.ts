/** The store's profile (spec store-api-core "Store"), cached 30 s; `PATCH /v1/store` is reserved (405). */
import { Store, StoreProfileError } from "@tawsil/catalogue"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** A deleted store reads as any unknown resource here (`store_not_found` is the theme switches' code). */
export const reasons = Reasons.of(StoreProfileError.StoreProfileErrorReason, { StoreNotFound: "not_found" })

export const RESERVED = "PATCH /v1/store is reserved; store settings cannot be written through the API yet"

export class StoreGroup extends HttpApiGroup.make("store")
  .add(
    HttpApiEndpoint.get("getStore", "/v1/store", { success: Endpoint.Data(Store.Store), error: Errors.reads }).annotate(
      Endpoint.ReadCached,
      true
    ),
    /** Reserved: 405 (400 first without `Idempotency-Key`). */
    Endpoint.patch("updateStore", "/v1/store", {
      success: Endpoint.Data(Store.Store),
      error: [...Errors.writes, Errors.MethodNotAllowed]
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(OpenApi.annotations({ title: "store", description: "The store's profile (cached 30 s)." })) {}
