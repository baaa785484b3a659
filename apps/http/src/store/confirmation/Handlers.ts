import { StoreApi } from "@tawsil/api/store/Api"
import { reasons } from "@tawsil/api/store/confirmation/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { Confirmation } from "@tawsil/orders"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"
import * as Page from "./Page.ts"

/** The page's path; the token goes in its query string (never in the path, which access logs keep). */
export const PAGE_PATH = "/v1/confirm"

/** Where a link points, on this listener. */
export const pageAddress = (token: string) => `${PAGE_PATH}?token=${encodeURIComponent(token)}`

/**
 * The origin the caller reached this listener by (its `Host`, and `X-Forwarded-Proto` when a proxy terminates TLS):
 * a link is made by the store's own authenticated call, so the address it answers is the one the store uses.
 */
const originOf = (request: HttpServerRequest.HttpServerRequest) => {
  const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
  return `${proto}://${request.headers.host ?? "localhost"}`
}

/** The request's query string, read as a browser sends it. */
const queryOf = (request: HttpServerRequest.HttpServerRequest) => {
  const at = request.url.indexOf("?")
  return new URLSearchParams(at === -1 ? "" : request.url.slice(at + 1))
}

/** The page's language: the query's `lang`, else `Accept-Language`. */
const languageOf = (request: HttpServerRequest.HttpServerRequest, query: URLSearchParams) =>
  Page.languageOf(query.get("lang"), request.headers["accept-language"])

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "confirmation",
  Effect.fnUntraced(function* (handlers) {
    const confirmation = yield* Confirmation.Confirmation
    return handlers
      .handleRaw(
        "recordConfirmationAttempt",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(confirmation.record(yield* store, params.id, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "createConfirmationLink",
        Effect.fnUntraced(function* ({ params }) {
          const request = yield* HttpServerRequest.HttpServerRequest
          const made = confirmation
            .link(yield* store, params.id, yield* RequestBody)
            .pipe(Effect.map((link) => ({ ...link, url: `${originOf(request)}${pageAddress(link.token)}` })))
          return yield* answer(made, reasons)
        })
      )
      .handle(
        "getConfirmationSettings",
        Effect.fnUntraced(function* () {
          return yield* answer(confirmation.settings(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateConfirmationSettings",
        Effect.fnUntraced(function* () {
          return yield* answer(confirmation.updateSettings(yield* store, yield* RequestBody), reasons)
        })
      )
  })
)

export const pageHandlers = HttpApiBuilder.group(
  StoreApi,
  "confirmationPage",
  Effect.fnUntraced(function* (handlers) {
    const confirmation = yield* Confirmation.Confirmation
    return handlers
      .handleRaw(
        "showConfirmationPage",
        Effect.fnUntraced(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const query = queryOf(request)
          const token = query.get("token") ?? ""
          const page = yield* confirmation.open(token)
          return Page.render(page, languageOf(request, query), PAGE_PATH, token)
        })
      )
      .handleRaw(
        "answerConfirmationPage",
        Effect.fnUntraced(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const query = queryOf(request)
          const form = new URLSearchParams(yield* Effect.orElseSucceed(request.text, () => ""))
          const token = form.get("token") ?? query.get("token") ?? ""
          const choice = form.get("answer")
          const page =
            choice === "confirm" || choice === "cancel"
              ? yield* confirmation.answer(token, choice)
              : yield* confirmation.open(token)
          return Page.render(page, languageOf(request, query), PAGE_PATH, token)
        })
      )
  })
)
