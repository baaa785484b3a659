/**
 * The only way an adapter reaches its courier: an HTTP service bound, by the core, to one pinned origin. It takes
 * relative paths only — an adapter never holds a URL and never calls `fetch`. The core's implementation checks
 * every request against the egress rules (`Egress.ts`), bounds it with the caller's timeout, never follows a
 * redirect off the origin, and turns transport failures into `Unreachable` / `BadResponse`.
 */

import type { BlockedEgress } from "@tawsil/egress/Egress"
import { Context, type Effect } from "effect"
import type { BadResponse, CourierRateLimited, Unreachable } from "./CourierError.ts"

export interface CourierRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** Relative to the courier's origin, starting with `/`. Never a URL. */
  readonly path: `/${string}`
  readonly query?: Readonly<Record<string, string>> | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Sent as JSON. */
  readonly json?: unknown
}

export interface CourierResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body as text (JSON bodies are parsed by the adapter's mapping, against its wire schemas). */
  readonly text: string
  /** The body as bytes, for binary answers (labels). */
  readonly bytes: Uint8Array
}

/** A header of an answer by its name in any letter case (the transport gives them lower-cased), if it was sent. */
export const header = (headers: Readonly<Record<string, string>>, name: string): string | undefined => {
  const wanted = name.toLowerCase()
  return Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1]
}

export class CourierHttp extends Context.Service<
  CourierHttp,
  {
    /**
     * Sends one request to the courier. Fails `CourierRateLimited` without sending when the caller's account has used
     * up a rate limit the adapter declares, and the wait would be too long.
     */
    readonly request: (
      request: CourierRequest
    ) => Effect.Effect<CourierResponse, Unreachable | BadResponse | BlockedEgress | CourierRateLimited>
  }
>()("@tawsil/courier/CourierHttp") {}
