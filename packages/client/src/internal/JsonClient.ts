/**
 * An `HttpApiClient` that takes each request as its JSON: the body as the wire carries it (plain numbers and
 * strings, defaulted fields left out) and path, query and header values as plain values (no brands), while answers
 * and failures arrive decoded, as effect's client gives them. A body is decoded with the endpoint's own schema
 * first — the rules the server applies, with the API's own parse options — and then sent as effect's client sends
 * a decoded one, so what goes out is what the server would have read; a body that breaks a rule fails with
 * `Schema.SchemaError` before anything is sent.
 */
import { type Brand, Context, Effect, Schema, type SchemaAST } from "effect"
import type { HttpClient, HttpClientError } from "effect/http"
import {
  HttpApi,
  HttpApiClient,
  type HttpApiEndpoint,
  type HttpApiGroup,
  type HttpApiMiddleware
} from "effect/http-api"

/** A decoded value with its brands taken off: `WilayaCode` → `number`. */
export type Plain<T> =
  T extends Brand.Brand<string>
    ? Brand.Brand.Unbranded<T>
    : T extends ReadonlyArray<infer Item>
      ? ReadonlyArray<Plain<Item>>
      : T extends object
        ? { readonly [K in keyof T]: Plain<T[K]> }
        : T

/** What the wire carries of a body schema: the declared schema's encoded side (behind effect's JSON codec). */
type Json<S> = S extends { readonly schema: infer Declared extends Schema.Top } ? Declared["Encoded"] : never

/** No properties (where an endpoint has no such part). */
type Empty = Record<never, never>

/** One part of a request; optional when every field of it is. */
type Part<Name extends string, S, Value> = [S] extends [never]
  ? Empty
  : Empty extends Value
    ? { readonly [K in Name]?: Value }
    : { readonly [K in Name]: Value }

/** A request as JSON: `params`, `query` and `headers` as plain values, `payload` as the wire carries it. */
export type Request<Endpoint extends HttpApiEndpoint.ConstraintRequest> = Part<
  "params",
  Endpoint["~Params"],
  Plain<Endpoint["~Params"]["Type"]>
> &
  Part<"query", Endpoint["~Query"], Plain<Endpoint["~Query"]["Type"]>> &
  Part<"headers", Endpoint["~Headers"], Plain<Endpoint["~Headers"]["Type"]>> &
  Part<"payload", Endpoint["~Payload"], Json<Endpoint["~Payload"]>>

/** An endpoint's method: its request as JSON in; its success decoded out, or a declared failure as its class. */
export type Method<Endpoint extends HttpApiEndpoint.ConstraintRequest> = (
  ...request: Empty extends Request<Endpoint> ? [request?: Request<Endpoint>] : [request: Request<Endpoint>]
) => Effect.Effect<
  HttpApiClient.SuccessType<Endpoint["~Success"]>,
  | Endpoint["~Error"]["Type"]
  | HttpApiMiddleware.Error<Endpoint["~Middleware"]>
  | HttpApiMiddleware.ClientError<Endpoint["~Middleware"]>
  | HttpClientError.HttpClientError
  | Schema.SchemaError,
  | Endpoint["~Params"]["EncodingServices"]
  | Endpoint["~Query"]["EncodingServices"]
  | Endpoint["~Payload"]["EncodingServices"]
  | Endpoint["~Payload"]["DecodingServices"]
  | Endpoint["~Headers"]["EncodingServices"]
  | Endpoint["~Success"]["DecodingServices"]
  | Endpoint["~Error"]["DecodingServices"]
>

type GroupMethods<Group extends HttpApiGroup.Constraint> = {
  readonly [Endpoint in Extract<
    HttpApiGroup.Endpoints<Group>,
    HttpApiEndpoint.ConstraintRequest
  > as Endpoint["identifier"]]: Method<Endpoint>
}

/** The client of an API: one object of methods per group, and the methods of top-level groups at the top. */
export type Client<Groups extends HttpApiGroup.Constraint> = {
  readonly [Group in Extract<
    Groups,
    { readonly topLevel: false }
  > as HttpApiGroup.Identifier<Group>]: GroupMethods<Group>
} & GroupMethods<Extract<Groups, { readonly topLevel: true }>>

export interface Options {
  readonly baseUrl: string | URL
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

interface Sent {
  readonly params?: unknown
  readonly query?: unknown
  readonly headers?: unknown
  readonly payload?: unknown
}

/** A body's declared schema: the one behind the JSON codec of each content type the endpoint takes. */
const declaredBody = (endpoint: HttpApiEndpoint.Top): Schema.Top | undefined => {
  const schemas = [...endpoint.payload.values()].flatMap(({ schemas }) =>
    schemas.map((codec) => (codec as unknown as { readonly schema?: Schema.Top }).schema ?? codec)
  )
  return schemas.length === 0 ? undefined : schemas.length === 1 ? schemas[0] : Schema.Union(schemas)
}

/** The parse options of a body, from the endpoint, its group or the API (the nearest wins), as the server reads it. */
const payloadOptions = (
  api: HttpApi.Top,
  group: HttpApiGroup.Top,
  endpoint: HttpApiEndpoint.Top
): SchemaAST.ParseOptions | undefined => {
  for (const annotations of [endpoint.annotations, group.annotations, api.annotations]) {
    const options =
      Context.getOrUndefined(annotations, HttpApi.PayloadParseOptions) ??
      Context.getOrUndefined(annotations, HttpApi.ParseOptions)
    if (options !== undefined) return options
  }
  return undefined
}

/**
 * An endpoint's method of effect's client, taking its body as JSON; a part whose fields are all optional may be left
 * out (effect's client wants it, empty).
 */
const fromJson = (
  api: HttpApi.Top,
  group: HttpApiGroup.Top,
  endpoint: HttpApiEndpoint.Top,
  call: (request: unknown) => Effect.Effect<unknown, unknown, unknown>
) => {
  const parts = (["params", "query", "headers"] as const).filter((part) => endpoint[part] !== undefined)
  const body = declaredBody(endpoint)
  const decode =
    body === undefined
      ? undefined
      : Schema.decodeUnknownEffect(body as Schema.Codec<unknown, unknown>, payloadOptions(api, group, endpoint))
  return (request?: Sent) => {
    const filled: Record<string, unknown> = { ...request }
    for (const part of parts) filled[part] ??= {}
    return decode === undefined || !("payload" in filled)
      ? call(filled)
      : Effect.flatMap(decode(filled.payload), (payload) => call({ ...filled, payload }))
  }
}

export const make = <ApiId extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  options: Options
): Effect.Effect<Client<Groups>, never, HttpClient.HttpClient | HttpApiGroup.MiddlewareClient<Groups>> =>
  Effect.map(HttpApiClient.make(api, options), (made) => {
    const top = api as unknown as HttpApi.Top
    const methods = made as unknown as Record<string, unknown>
    const client: Record<string, unknown> = {}
    for (const group of Object.values(top.groups)) {
      const source = (group.topLevel ? methods : methods[group.identifier]) as Record<
        string,
        (request: unknown) => Effect.Effect<unknown, unknown, unknown>
      >
      const target: Record<string, unknown> = group.topLevel ? client : {}
      for (const endpoint of Object.values(group.endpoints)) {
        target[endpoint.identifier] = fromJson(top, group, endpoint, source[endpoint.identifier]!)
      }
      if (!group.topLevel) client[group.identifier] = target
    }
    return client as unknown as Client<Groups>
  })
