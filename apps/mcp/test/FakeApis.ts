/**
 * The two APIs as the MCP server's clients see them, in memory: an `HttpClient` that answers `GET /v1/whoami` with the
 * scopes of the key in the request's bearer token (an unknown key: 401), `POST /v1/stop-desks` with one desk,
 * `POST /v1/communes/resolve` with the shipping API's `unknown_commune` refusal, and anything else with a 404 in the
 * shipping API's envelope. It records every request (path and body).
 */
import { Effect, Layer } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"

export const urls = { shippingUrl: "http://shipping.test", storeUrl: "http://store.test" }

export const UNKNOWN_COMMUNE_MESSAGE = "Bir is not a commune of wilaya 16 (Alger); did you mean one of the suggestions?"
export const SUGGESTIONS = [
  { nameFr: "El Biar", nameAr: "الأبيار", score: 0.8 },
  { nameFr: "Bir Mourad Raïs", nameAr: "بئر مراد رايس", score: 0.6 }
]

export interface Call {
  readonly method: string
  readonly path: string
  readonly body: string
}

export interface FakeApis {
  readonly layer: Layer.Layer<HttpClient.HttpClient>
  readonly calls: () => ReadonlyArray<Call>
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const meta = { request_id: "req_fake", api_version: "v1" }

/** `keys`: each known key's scopes. */
export const make = (keys: Readonly<Record<string, ReadonlyArray<string>>>): FakeApis => {
  const calls: Array<Call> = []
  const answer = (method: string, url: URL, authorization: string | undefined, body: string): Response => {
    calls.push({ method, path: url.pathname, body })
    if (url.pathname === "/v1/whoami") {
      const key = authorization?.replace(/^Bearer /, "")
      const scopes = key === undefined ? undefined : keys[key]
      if (scopes === undefined) {
        return json(401, { error: { code: "unauthorized", message: "Invalid API key" }, meta })
      }
      return json(200, {
        data: {
          auth: "platform_key",
          key: { key_id: "twpk_live_fake", type: "platform", name: "default", rate_limit_tier: "standard" },
          store: { id: 1, name: "Fake", slug: "fake" },
          plan: "enterprise",
          pilot: true,
          scopes
        },
        meta
      })
    }
    if (url.pathname === "/v1/stop-desks") {
      return json(200, [{ id: "D-16-1", name: "Alger Centre", wilayaCode: 16 }])
    }
    if (url.pathname === "/v1/communes/resolve") {
      return json(422, {
        error: { code: "unknown_commune", message: UNKNOWN_COMMUNE_MESSAGE, suggestions: SUGGESTIONS }
      })
    }
    return json(404, { error: { code: "not_found", message: `No route for ${method} ${url.pathname}` } })
  }
  const client = HttpClient.make((request, url) =>
    Effect.sync(() => {
      const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
      return HttpClientResponse.fromWeb(request, answer(request.method, url, request.headers.authorization, body))
    })
  )
  return { layer: Layer.succeed(HttpClient.HttpClient, client), calls: () => calls }
}
