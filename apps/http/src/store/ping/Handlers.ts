import { StoreApi } from "@tawsil/api/store/Api"
import { DateTime, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Errors from "../Errors.ts"
import { ok } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(StoreApi, "ping", (handlers) =>
  handlers.handle(
    "ping",
    Effect.fnUntraced(function* () {
      const time = DateTime.formatIso(yield* DateTime.now)
      const body = yield* ok({ pong: true as const, time, edge: true as const })
      return HttpServerResponse.jsonUnsafe(body, { headers: { "x-api-version": Errors.API_VERSION } })
    })
  )
)
