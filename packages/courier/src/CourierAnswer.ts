/**
 * Reading a courier's answers: the part of every adapter's mapping that is the same for every courier. An adapter
 * gives {@link reader} what is its own — how a refusal of its credentials names them, the courier's own words in an
 * error body, how long its 429 asks to wait — and gets `decode` (a success through a wire schema) and `errorOf`
 * (what any other answer means), pure functions from a `CourierHttp.CourierResponse` to the SDK's reasons:
 *
 * | the answer                                              | `decode` / `errorOf` give                               |
 * | ------------------------------------------------------- | ------------------------------------------------------- |
 * | 2xx with JSON the schema decodes                        | the decoded value (`decode`)                            |
 * | 429                                                     | `CourierRateLimited`, from `Retry-After` (60 s without) |
 * | 5xx                                                     | `Unreachable`: "the courier answered HTTP 503"          |
 * | 401, 403                                                | `CredentialsRejected`: "the courier refused the API token (HTTP 401)" |
 * | 3xx                                                     | `BadResponse`: a redirect, never followed, its target never quoted |
 * | a body that is not JSON                                 | `BadResponse`: "… with a body that is not JSON"         |
 * | any other JSON: a 2xx the schema does not decode, a 4xx | the adapter's `refusal(status, body)`, else `BadResponse`: "… a body its API does not document" |
 *
 * Messages are built from the status and the courier's own words only, never from the request, so nothing the
 * caller sent is echoed (and the host blanks the credentials out of every answer before the mapping reads it).
 */
import { Option, Result, Schema } from "effect"
import {
  BadResponse,
  type CourierErrorReason,
  CourierRateLimited,
  CredentialsRejected,
  Unreachable
} from "./CourierError.ts"
import type { CourierResponse } from "./CourierHttp.ts"
import * as RetryAfter from "./RetryAfter.ts"

/** What an adapter says about its courier's answers; everything else is the same for every courier. */
export interface Reading {
  /**
   * The credentials as a refusal names them, after "the courier refused": `"the API token"`, `"the API id and
   * token"`. A 401 or 403 then reads "the courier refused the API token (HTTP 401)".
   */
  readonly credentials: string
  /**
   * The courier's refusal in a JSON body the mapping cannot read as a success: a `Refused` (or a
   * `CredentialsRejected`, when its words say so) in its own words, or `undefined` when the body says nothing the
   * API documents. It is asked about a 2xx body the wire schema does not decode (a failure inside a success) and
   * about every 4xx but 401, 403 and 429. Decide on the status here: most couriers refuse with 400 or 422 only, and
   * a 404 is usually the adapter calling what the API does not have.
   */
  readonly refusal?: ((status: number, body: unknown) => CourierErrorReason | undefined) | undefined
  /** The courier's words in a 401 or 403 body, quoted after the status ("HTTP 401: Invalid token."). */
  readonly rejection?: ((body: unknown) => string | undefined) | undefined
  /** How long a 429 asks to wait, in seconds: `RetryAfter.seconds` (the `Retry-After` header, else 60) by default. */
  readonly retryAfter?: ((headers: Readonly<Record<string, string>>) => number) | undefined
}

export interface Reader {
  /** A 2xx answer decoded with `schema`; anything else is the reason it failed. */
  readonly decode: <A>(schema: Schema.Decoder<A>, response: CourierResponse) => Result.Result<A, CourierErrorReason>
  /** What an answer that is not a success means. */
  readonly errorOf: (response: CourierResponse) => CourierErrorReason
}

const parse = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Unknown))

/** The text as JSON, or none when it is not JSON. */
export const json = (text: string): Option.Option<unknown> => parse(text)

/** The courier's own words made safe to pass on: on one line, trimmed, cut to `max` characters (with "…"). */
export const clean = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** Whether the bytes open as a PDF (`%PDF-`): what every courier answers as a label. */
export const isPdf = (bytes: Uint8Array): boolean =>
  bytes.length > 4 &&
  bytes[0] === 0x25 &&
  bytes[1] === 0x50 &&
  bytes[2] === 0x44 &&
  bytes[3] === 0x46 &&
  bytes[4] === 0x2d

/** A body that is not JSON, on any status. */
export const notJson = (status: number): BadResponse =>
  new BadResponse({ message: `the courier answered HTTP ${status} with a body that is not JSON` })

/** JSON that is neither the documented success nor a refusal. */
export const undocumented = (status: number): BadResponse =>
  new BadResponse({ message: `the courier answered HTTP ${status} with a body its API does not document` })

const isSuccess = (status: number) => status >= 200 && status < 300

/** `decode` and `errorOf` for one courier. */
export const reader = (reading: Reading): Reader => {
  const retryAfter = reading.retryAfter ?? ((headers) => RetryAfter.seconds(headers))
  const refusalOf = (status: number, body: unknown): CourierErrorReason =>
    reading.refusal?.(status, body) ?? undocumented(status)

  const errorOf = (response: CourierResponse): CourierErrorReason => {
    const { status } = response
    if (status === 429) return new CourierRateLimited({ retryAfterSeconds: retryAfter(response.headers) })
    if (status >= 500) return new Unreachable({ message: `the courier answered HTTP ${status}` })
    if (status === 401 || status === 403) {
      const body = reading.rejection === undefined ? Option.none() : json(response.text)
      const words = Option.isSome(body) ? clean(reading.rejection?.(body.value) ?? "") : ""
      return new CredentialsRejected({
        message: `the courier refused ${reading.credentials} (HTTP ${status}${words === "" ? "" : `: ${words}`})`
      })
    }
    if (status >= 300 && status < 400) {
      // The target is not quoted: a redirect may carry the request's query, and with it a credential.
      return new BadResponse({
        message: `the courier answered with a redirect (HTTP ${status}) instead of its API: its address may have moved`
      })
    }
    const body = json(response.text)
    return Option.isNone(body) ? notJson(status) : refusalOf(status, body.value)
  }

  const decode = <A>(schema: Schema.Decoder<A>, response: CourierResponse): Result.Result<A, CourierErrorReason> => {
    if (!isSuccess(response.status)) return Result.fail(errorOf(response))
    const body = json(response.text)
    if (Option.isNone(body)) return Result.fail(notJson(response.status))
    const decoded = Schema.decodeUnknownOption(schema)(body.value)
    return Option.isSome(decoded) ? Result.succeed(decoded.value) : Result.fail(refusalOf(response.status, body.value))
  }

  return { decode, errorOf }
}
