/**
 * What every store endpoint is made of: the `{ data, meta }` envelope, the pipeline's middlewares as the endpoints
 * declare them (`Gate` on every keyed call, `Idempotent` on every write, `Signed` on the signed calls), the
 * annotations through which an endpoint says what it needs (`RequiredScope`, `KeyManagement`, `NoAppTokens`,
 * `ReadCached`, `CallsOut`, `CarriesClaim`, `StoredAs`), and `write`, the one way to declare a write. Definitions only: the middlewares are
 * implemented in `Pipeline.ts`.
 */
import type { Principal } from "@tawsil/access"
import { Ids, Pagination } from "@tawsil/domain"
import { Context, Schema } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiEndpoint, HttpApiMiddleware } from "effect/http-api"
import * as Errors from "./Errors.ts"

/** `{ data, meta }`. */
export const Data = <S extends Schema.Top>(data: S) => Schema.Struct({ data, meta: Errors.Meta })

/** The list envelope's `data`: `{ items, next_cursor, has_more }`. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String), has_more: Schema.Boolean })

export const ListOf = <S extends Schema.Top>(item: S) => Data(Page(item))

/** A path id: all digits (else 400). */
export const Id = { id: Ids.PathId }

/** A list's paging: `limit` and the `cursor` of the previous page's `next_cursor`. */
export const listQuery = { limit: Schema.optionalKey(Pagination.Limit), cursor: Schema.optionalKey(Schema.String) }

// --- what an endpoint needs ----------------------------------------------------------------------------------

/** The scope an endpoint requires beyond a valid key; reads of store, products, orders, customers and pages need none. */
export class RequiredScope extends Context.Service<RequiredScope, string>()("@tawsil/api/store/RequiredScope") {}

/** Key management (`/v1/keys`): platform keys only; a public key is refused with 403. */
export class KeyManagement extends Context.Service<KeyManagement, true>()("@tawsil/api/store/KeyManagement") {}

/** Installed-app tokens are refused with 403 (the change history: spec store-api-config "Authentication"). */
export class NoAppTokens extends Context.Service<NoAppTokens, true>()("@tawsil/api/store/NoAppTokens") {}

/**
 * A write whose body is text, not JSON (a CSV statement, `POST /v1/cod/statements`): `Idempotent` hands the handler
 * the text as it came, and fingerprints it as such.
 */
export class TextBody extends Context.Service<TextBody, true>()("@tawsil/api/store/TextBody") {}

/** Served through the 30-second read cache (spec: `GET /v1/store`, the product and landing page collections). */
export class ReadCached extends Context.Service<ReadCached, true>()("@tawsil/api/store/ReadCached") {}

/**
 * A write that calls another service (a courier) before it writes, and opens its own transaction only to write: its
 * `Idempotency-Key` is claimed as a lease committed at once rather than inside a transaction around the handler, so
 * no database connection is held while the other service answers (the courier rate sync).
 */
export class CallsOut extends Context.Service<CallsOut, true>()("@tawsil/api/store/CallsOut") {}

/**
 * A write whose first statement carries its `Idempotency-Key`'s claim (the order create, decision 0027): the claim
 * is left to the write (`Idempotency.transact`'s `claimCarried`) instead of taking a statement of its own first.
 */
export class CarriesClaim extends Context.Service<CarriesClaim, true>()("@tawsil/api/store/CarriesClaim") {}

/**
 * What the idempotency record keeps of an answer's `data`, when it must differ from what is sent: a secret shown
 * once (a minted key's, a webhook's) is never stored, so its replay carries none.
 */
export class StoredAs extends Context.Service<StoredAs, (data: never) => unknown>()("@tawsil/api/store/StoredAs") {}

// --- the pipeline -------------------------------------------------------------------------------------------

/** Who is calling, as `Gate` (or `Signed`) authenticated them. */
export class Caller extends Context.Service<Caller, Principal.Principal>()("@tawsil/api/store/Caller") {}

/**
 * A write's parsed JSON body (`undefined` for writes that take none; the text itself for a `TextBody` write), as
 * `Idempotent` read and fingerprinted it.
 */
export class RequestBody extends Context.Service<RequestBody, unknown>()("@tawsil/api/store/RequestBody") {}

/** The nonce of a signed call, as `Signed` verified it: the deduplication key of an event. */
export class CallNonce extends Context.Service<CallNonce, string>()("@tawsil/api/store/CallNonce") {}

/**
 * Every keyed call, in the spec's order: authenticate (401), then — a read-cache hit answered here, unmetered, once
 * every gate passed — meter (429, 402), then plan, pilot, scope and key management (403). Renders every failure of
 * the call in the envelope with the call's headers (`X-Api-Version`, `RateLimit-*`, `Retry-After`, `X-Cache`).
 */
export class Gate extends HttpApiMiddleware.Service<Gate, { provides: Caller }>()("@tawsil/api/store/Gate", {
  error: Errors.keyed
}) {}

/**
 * Every write: its `Idempotency-Key` (400), its JSON body (400), then one transaction with the key's record; the
 * same key and request within 24 h answers the first answer again, byte for byte, with `Idempotency-Replay: 1`.
 */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, { provides: RequestBody; requires: Caller }>()(
  "@tawsil/api/store/Idempotent",
  { error: [Errors.BadRequest, Errors.Conflict, Errors.Unprocessable] }
) {}

/**
 * Every signed call (`POST /v1/signups`, `POST /v1/events` and their `/batch` forms): `Authorization: TW-Public
 * <key_id>` and the `X-TW-Timestamp`, `X-TW-Nonce`, `X-TW-Signature` headers over the raw body (docs/signing.md,
 * 401), then the plan, pilot and scope gates (403), the store's per-minute budget (429), then the JSON body (400).
 * Absent (404) on the origin listener.
 */
export class Signed extends HttpApiMiddleware.Service<Signed, { provides: Caller | RequestBody | CallNonce }>()(
  "@tawsil/api/store/Signed",
  {
    error: [
      Errors.Unauthorized,
      Errors.Forbidden,
      Errors.RateLimited,
      Errors.BadRequest,
      Errors.NotFound,
      Errors.Unavailable
    ]
  }
) {}

// --- writes ---------------------------------------------------------------------------------------------------

const writeHeaders = {
  /**
   * Required on every write (400 without it): 1 to 64 of `A-Z a-z 0-9 _ - : .`; the first answer is replayed for
   * 24 h. The origin listener (`STORE_ORIGIN_PORT`) has no replay and ignores it.
   */
  "idempotency-key": Schema.optionalKey(Schema.String)
}

type StringTree<S> = [S] extends [never]
  ? never
  : [S] extends [Schema.Struct.Fields]
    ? Schema.toCodecStringTree<Schema.Struct<S>>
    : [S] extends [Schema.Top]
      ? Schema.toCodecStringTree<S>
      : never
type Json<S> = [S] extends [never] ? never : [S] extends [Schema.Top] ? Schema.toCodecJson<S> : never
type Members<S> = S extends ReadonlyArray<infer M> ? M : S

/** A write endpoint as `write` declares it: HttpApi's own endpoint type, with the write header and `Idempotent`. */
export type WriteEndpoint<
  Name extends string,
  Method extends "POST" | "PATCH" | "DELETE",
  Path extends string,
  Params,
  Payload,
  Success,
  Error
> = HttpApiEndpoint.HttpApiEndpoint<
  Name,
  Method,
  Path,
  StringTree<Params>,
  never,
  Json<Members<Payload>>,
  StringTree<typeof writeHeaders>,
  Json<Members<Success>>,
  Json<Members<Error>>,
  Idempotent,
  HttpApiMiddleware.ApplyServices<Idempotent, never>
>

/**
 * A write endpoint: its `Idempotency-Key` header, the `Idempotent` middleware, and the scope it requires (none for
 * key management and undo, which `KeyManagement` and the change's own entity decide).
 */
export const write =
  <Method extends "POST" | "PATCH" | "DELETE">(method: Method) =>
  <
    const Name extends string,
    const Path extends HttpRouter.PathInput,
    const Success extends Schema.Top,
    const Error extends ReadonlyArray<Schema.Top>,
    Params extends Schema.Struct.Fields = never,
    Payload extends Schema.Top = never
  >(
    name: Name,
    path: Path,
    options: {
      readonly params?: Params
      readonly payload?: Payload
      readonly success: Success
      readonly error: Error
      readonly scope?: string
    }
  ): WriteEndpoint<Name, Method, Path, Params, Payload, Success, Error> => {
    const { scope, ...parts } = options
    const make = HttpApiEndpoint.make(method) as unknown as (
      name: string,
      path: string,
      options: object
    ) => HttpApiEndpoint.Top
    const endpoint = make(name, path, { ...parts, headers: writeHeaders }).middleware(Idempotent)
    return (scope === undefined ? endpoint : endpoint.annotate(RequiredScope, scope)) as never
  }

export const post = write("POST")
export const patch = write("PATCH")
export const del = write("DELETE")
