/**
 * The API reference in docs/api is generated from the HttpApi definitions, never written by hand: one OpenAPI 3.1
 * document per API. `npm run docs:api` rewrites the files; a test fails when they are out of date.
 */

import { ShippingApi } from "@tawsil/api/shipping/Api"
import { StoreApi } from "@tawsil/api/store/Api"
import { OpenApi } from "effect/http-api"

const documents = {
  "shipping.openapi.json": () => OpenApi.fromApi(ShippingApi),
  "store.openapi.json": () => OpenApi.fromApi(StoreApi)
} as const

export const files = Object.keys(documents) as ReadonlyArray<keyof typeof documents>

/** The file's exact contents for one API. */
export const render = (file: keyof typeof documents): string => `${JSON.stringify(documents[file](), null, 2)}\n`
