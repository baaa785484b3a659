/**
 * The only way an adapter reaches its courier: an HTTP service bound, by the core, to one pinned origin. It takes
 * relative paths only — an adapter never holds a URL and never calls `fetch`. The core's implementation checks
 * every request against the egress rules (`Egress.ts`), bounds it with the caller's timeout, never follows a
 * redirect off the origin, and turns transport failures into `Unreachable` / `BadResponse`.
 *
 * One exception, for documents a courier keeps elsewhere (a label on a storage host): a link its answer gave is
 * fetched with {@link documentRequest}, on a host the courier's manifest declares (`documents`), as a bare GET.
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
  /**
   * Sent as `application/x-www-form-urlencoded` (an OAuth password grant's token request), instead of `json`: a
   * request carries one body or none.
   */
  readonly form?: Readonly<Record<string, string>> | undefined
  /**
   * A document host instead of the courier's origin: one the courier's manifest declares in `documents` (any other
   * is refused as blocked egress). Such a request is sent as a GET with no headers and no body, so the adapter's
   * credentials never leave for another host, and the courier's rate limits do not pace it. Built from a link by
   * {@link documentRequest}.
   */
  readonly host?: string | undefined
}

/**
 * The request that fetches a document link a courier's answer gave (`https://host/path?query`, as a label's
 * pre-signed address), or undefined when the link is not a plain https address (another scheme or port, userinfo).
 * The transport sends it only to a host the courier's manifest declares in `documents`.
 */
export const documentRequest = (link: string): CourierRequest | undefined => {
  if (!URL.canParse(link)) return undefined
  const url = new URL(link)
  if (url.protocol !== "https:" || url.port !== "" || url.username !== "" || url.password !== "") return undefined
  return {
    method: "GET",
    host: url.hostname,
    path: url.pathname as `/${string}`,
    query: Object.fromEntries(url.searchParams)
  }
}

/**
 * Whether `host` is one of a courier's declared document hosts: an exact name, or under a `*.domain` entry (any
 * strict subdomain of it).
 */
export const declaresDocumentHost = (documents: ReadonlyArray<string> | undefined, host: string): boolean =>
  (documents ?? []).some((entry) =>
    entry.startsWith("*.") ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry
  )

/** The body a request sends, encoded, with its content type: its `json`, else its `form`, else none. */
export const bodyOf = (
  request: CourierRequest
): { readonly contentType: string; readonly bytes: Buffer } | undefined =>
  request.json !== undefined
    ? { contentType: "application/json", bytes: Buffer.from(JSON.stringify(request.json)) }
    : request.form !== undefined
      ? {
          contentType: "application/x-www-form-urlencoded",
          bytes: Buffer.from(new URLSearchParams(Object.entries(request.form)).toString())
        }
      : undefined

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
     * Sends one request to the courier, in its account's pace: it waits for the next slot the adapter's declared rate
     * limits leave, and fails `CourierRateLimited` without sending when that slot comes after the caller's deadline.
     */
    readonly request: (
      request: CourierRequest
    ) => Effect.Effect<CourierResponse, Unreachable | BadResponse | BlockedEgress | CourierRateLimited>
  }
>()("@tawsil/courier/CourierHttp") {}
