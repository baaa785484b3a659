import { StoreApi } from "@tawsil/api/store/Api"
import type { PushRequest } from "@tawsil/courier/Push"
import { PushIntake, type ShipmentsError } from "@tawsil/shipments"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../../Edge.ts"
import * as Errors from "../Errors.ts"

/** The request as the courier sent it: its raw bytes, for the signature. */
const pushRequest = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const at = request.url.indexOf("?")
  const query: Record<string, string> = {}
  if (at !== -1) for (const [name, value] of new URLSearchParams(request.url.slice(at + 1))) query[name] ??= value
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers[name.toLowerCase()] = value
  }
  const body = request.method === "GET" ? new Uint8Array() : new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
  return { method: request.method, query, headers, body } satisfies PushRequest
})

/** A refusal in the envelope; it echoes nothing of the request. */
const refusal = (error: PushIntake.HookRefused | ShipmentsError.ShipmentsError, requestId: string) => {
  if (error._tag === "ShipmentsError") return Errors.make("unavailable", requestId, error.message)
  switch (error.reason) {
    case "unknown_account":
      return Errors.make("not_found", requestId, error.message)
    case "signature":
      return Errors.make("invalid_signature", requestId, error.message)
    case "stale":
      return Errors.make("stale_request", requestId, error.message)
    case "malformed":
      return Errors.make("bad_request", requestId, error.message)
  }
}

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "courierHooks",
  Effect.fnUntraced(function* (handlers) {
    const intake = yield* PushIntake.PushIntake
    const receive = Effect.fnUntraced(function* (accountId: number) {
      const requestId = yield* RequestId
      const answer = yield* intake
        .receive(accountId, yield* pushRequest)
        .pipe(Effect.mapError((error) => refusal(error, requestId)))
      return HttpServerResponse.text(answer.body, { status: 200, contentType: answer.contentType })
    })
    return handlers
      .handleRaw("receiveCourierPush", ({ params }) => receive(params.account_id))
      .handleRaw("answerCourierChallenge", ({ params }) => receive(params.account_id))
  })
)
