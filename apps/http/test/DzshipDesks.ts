/**
 * dzship's `desks()` (its clients 1.2.0, not on npm yet), written here from dzship's published endpoint documentation
 * (`docs/endpoints.md` and `docs/openapi.json` of DZBuild-com/dzship, "POST /v1/desks"): it sends
 * `{ courier, credentials, wilayaCode }` (credentials omitted for the sandbox, `options` when given) as JSON to
 * `<gateway>/v1/desks`, and reads a bare array of `{ id, name, wilayaCode, communeName?, address? }`; any other status
 * is the documented envelope `{ error: { code, message, fields? } }`, thrown as a `DzshipError` with `Retry-After` in
 * seconds on a 429 — what the published 1.1.0 client does for its other calls (`./Dzship.ts`).
 */
import type { DzshipError } from "./Dzship.ts"

/** A desk as dzship's documentation describes the answer. */
export interface Desk {
  readonly id: string
  readonly name: string
  readonly wilayaCode: number
  readonly communeName?: string
  readonly address?: string
}

export interface DesksConfig {
  readonly gateway: string
  readonly courier: string
  readonly credentials?: Record<string, string>
  readonly options?: Record<string, unknown>
}

const failure = (status: number, body: unknown, retryAfter: string | null): DzshipError => {
  const envelope = (body as { error?: { code?: unknown; message?: unknown; fields?: unknown } } | undefined)?.error
  const error = new Error(typeof envelope?.message === "string" ? envelope.message : `HTTP ${status}`) as Error & {
    status: number
    code: string
    fields?: Record<string, unknown>
    retryAfter?: number
  }
  error.name = "DzshipError"
  error.status = status
  error.code = typeof envelope?.code === "string" ? envelope.code : "HTTP_ERROR"
  if (typeof envelope?.fields === "object" && envelope.fields !== null) {
    error.fields = envelope.fields as Record<string, unknown>
  }
  if (retryAfter !== null) error.retryAfter = Number(retryAfter)
  return error
}

/** `desks(wilayaCode)`: the courier's stop desks in that wilaya, possibly none. */
export const desksClient = (config: DesksConfig) => ({
  desks: async (wilayaCode: number): Promise<Array<Desk>> => {
    const response = await fetch(`${config.gateway.replace(/\/$/, "")}/v1/desks`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        courier: config.courier,
        ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
        ...(config.options === undefined ? {} : { options: config.options }),
        wilayaCode
      })
    })
    const text = await response.text()
    const body: unknown = text === "" ? undefined : JSON.parse(text)
    if (!response.ok) throw failure(response.status, body, response.headers.get("retry-after"))
    if (!Array.isArray(body)) throw failure(response.status, undefined, null)
    return body as Array<Desk>
  }
})
