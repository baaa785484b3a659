/**
 * Direct routes: an HttpApi endpoint that its server answers straight from Node's `request` event, without Effect's
 * HTTP server pipeline (router, request set-up, body stream, HttpApi's per-request machinery), for the hot endpoints
 * whose cost that pipeline dominates (docs/decisions/0012-direct-routes.md).
 *
 * The endpoint's definition stays the only source: the route takes its method and path, its header and payload
 * schemas with the API's parse options, its success schema and status, its error schemas with their statuses and
 * headers, and its middlewares in the same order, and runs the same steps in the same order as `HttpApiBuilder`:
 * middlewares around [headers, payload (JSON), handler, success encoding], then failures encoded by the error
 * schemas. A middleware that reads the request gets a direct form; one that does not is applied as is; a route
 * missing one does not start. `Server` serves the routes behind the same edge as routed requests and answers every
 * request it does not take (another content type, no length, a body over the limit…) through HttpApi as before.
 */

import type * as NodeHttp from "node:http"
import { Context, Effect, type Exit as Exits, Fiber, Schema, SchemaAST, SchemaIssue, Scope } from "effect"
import { Cookies, Headers, HttpServerError, HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiEndpoint, HttpApiError, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import * as Edge from "./Edge.ts"

/** A request as a direct route receives it, its body read in full. */
export interface Request {
  readonly headers: NodeHttp.IncomingHttpHeaders
  readonly remoteAddress: string | undefined
  /** The body decoded as UTF-8, a leading byte-order mark dropped (as HttpApi reads it). */
  readonly body: string
}

type Answer = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>

/** The direct form of a middleware: the same step, reading what it needs from the direct request. */
export type Middleware = (effect: Answer, request: Request) => Answer

/** Applies the middleware's own implementation: for middlewares that read nothing from the request. */
export const asIs = "as-is" as const

export interface DirectRoute {
  readonly method: string
  readonly path: string
  /** The answer, failures included; defects and interruptions stay in the cause, for the edge. */
  readonly respond: (request: Request) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  /** The services `respond` runs with (the handlers' own, as HttpApiBuilder provides them to a route). */
  readonly context: Context.Context<never>
}

/** Where handler layers register their direct routes; `Server.make` provides it and serves what is registered. */
export class Registry extends Context.Service<Registry, { readonly add: (route: DirectRoute) => void }>()(
  "@tawsil/http/DirectRoute/Registry"
) {}

const httpApiStatus = SchemaAST.resolveAt<number>("httpApiStatus")
// Set by `HttpApiSchema.encodeToWithHeaders`: such a schema encodes to `{ body, headers }`.
const withHeaders = SchemaAST.resolveAt<unknown>("~httpApiWithHeaders")
const encodingOf = SchemaAST.resolveAt<{ readonly _tag: string; readonly contentType: string }>("~httpApiEncoding")

const invalidJson = () =>
  new HttpApiError.HttpApiSchemaError({
    kind: "Payload",
    cause: new Schema.SchemaError(new SchemaIssue.InvalidValue({ message: "Expected a valid JSON body" }))
  })

type Codec = Schema.Codec<unknown, unknown>
type Exit<A> = Exits.Exit<A, Schema.SchemaError>

/**
 * The route's schemas decode and encode through code generated for them (Effect's schema JIT compiler): the same
 * rules and the same issues, but the interpreter — shared by every schema of the app, so slow on all of them —
 * runs only to describe a failure (decision 0015). Where code cannot be generated (a transformation, a class, a
 * runtime without `new Function`), the interpreter runs as before.
 */
const compiled = <S extends Schema.Top>(schema: S, side: "decode" | "encode"): S => {
  SchemaJITCompiler.enable(side === "decode" ? schema.ast : SchemaAST.flip(schema.ast))
  return schema
}

/** A failed decode or encode, as HttpApi reports it (`HttpApiSchemaError.wrap`). */
const failed = (kind: HttpApiError.HttpApiSchemaError["kind"], exit: Exit<unknown>): Answer =>
  Effect.mapError(exit as Exit<never>, (cause) => new HttpApiError.HttpApiSchemaError({ kind, cause }))

const unserializable = (value: unknown) =>
  new HttpApiError.HttpApiSchemaError({
    kind: "Body",
    cause: new Schema.SchemaError(
      new SchemaIssue.InvalidValue({ expected: "a JSON-serializable response body" }, value)
    )
  })

/** A JSON response as HttpApi writes it: `undefined` is an empty body. */
const jsonResponse = (
  status: number,
  contentType: string,
  body: unknown
): HttpServerResponse.HttpServerResponse | undefined => {
  if (body === undefined) return HttpServerResponse.empty({ status })
  try {
    return HttpServerResponse.text(JSON.stringify(body), { status, contentType })
  } catch {
    return undefined
  }
}

/**
 * The header names a headers schema reads, when it is a plain struct whose decoding ignores the other headers (the
 * default): then only those headers need copying out of Node's request, not all of them (`Headers.fromInput`).
 */
const declaredNames = (schema: Schema.Top, options: SchemaAST.ParseOptions | undefined) => {
  const encoded = SchemaAST.toEncoded(schema.ast)
  if (!SchemaAST.isObjects(encoded) || encoded.indexSignatures.length > 0) return undefined
  if (options?.onExcessProperty === "error") return undefined
  const names = encoded.propertySignatures.map((property) => property.name)
  return names.every((name): name is string => typeof name === "string" && name === name.toLowerCase())
    ? names
    : undefined
}

const isEmptyObject = (value: unknown) => {
  if (typeof value !== "object" || value === null) return false
  for (const _ in value) return false
  return true
}

/** The named headers of a request, as `Headers.fromInput` gives them (repeated ones joined with ", "). */
const pick = (headers: NodeHttp.IncomingHttpHeaders, names: ReadonlyArray<string>) => {
  const picked: Record<string, string> = {}
  for (const name of names) {
    const value = headers[name]
    if (value !== undefined) picked[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return picked
}

const unsupported = (where: string, what: string) => new Error(`direct route ${where}: ${what} is not supported`)

type EndpointOf<
  Groups extends HttpApiGroup.Constraint,
  GroupId extends string,
  EndpointId extends string
> = HttpApiEndpoint.WithIdentifier<HttpApiGroup.EndpointsWithIdentifier<Groups, GroupId>, EndpointId>

/** What a direct handler receives: the decoded payload and headers, as an HttpApi handler does. */
export type Input<Endpoint> = Omit<HttpApiEndpoint.Request<Endpoint>, "request" | "endpoint" | "group">

export interface Options<Endpoint, E, R> {
  /** The direct form of each of the endpoint's middlewares, by key. */
  readonly middlewares: Readonly<Record<string, Middleware | typeof asIs>>
  readonly handler: (input: Input<Endpoint>) => Effect.Effect<HttpApiEndpoint.Success<Endpoint>["Type"], E, R>
}

export const make = <
  ApiId extends string,
  Groups extends HttpApiGroup.Constraint,
  const GroupId extends HttpApiGroup.Identifier<Groups>,
  const EndpointId extends HttpApiGroup.EndpointsWithIdentifier<Groups, GroupId>["identifier"],
  E,
  R
>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  groupId: GroupId,
  endpointId: EndpointId,
  options: Options<EndpointOf<Groups, GroupId, EndpointId>, E, R>
): Effect.Effect<DirectRoute, never, R> =>
  Effect.map(Effect.context<R>(), (services): DirectRoute => {
    const context = Context.omit(Scope.Scope)(services) as Context.Context<never>
    const group = api.groups[groupId] as unknown as HttpApiGroup.Top
    const endpoint = group.endpoints[endpointId] as HttpApiEndpoint.Top
    const where = `${endpoint.method} ${endpoint.path}`
    const annotations = Context.merge(Context.merge(api.annotations, group.annotations), endpoint.annotations)
    // HttpApi's parse options per slot, falling back to `HttpApi.ParseOptions`.
    const parseOptions = (slot: Context.Key<unknown, SchemaAST.ParseOptions>) =>
      Context.getOrUndefined(annotations, slot) ?? Context.getOrUndefined(annotations, HttpApi.ParseOptions)

    if (endpoint.params !== undefined || endpoint.query !== undefined)
      throw unsupported(where, "a path or query schema")
    const json = endpoint.payload.get("application/json")
    if (endpoint.payload.size !== 1 || json === undefined || json.encoding._tag !== "Json") {
      throw unsupported(where, "a payload other than one JSON schema")
    }
    const payloadSchemas = json.schemas as ReadonlyArray<Schema.Top>
    const decodePayload = Schema.decodeUnknownExit(
      compiled(Schema.Union(payloadSchemas), "decode") as unknown as Codec,
      parseOptions(HttpApi.PayloadParseOptions)
    )
    const nullOnEmpty = payloadSchemas.some((schema) => SchemaAST.isNull(SchemaAST.toEncoded(schema.ast)))
    const headersOptions = parseOptions(HttpApi.HeadersParseOptions)
    const decodeHeaders =
      endpoint.headers === undefined ? undefined : Schema.decodeUnknownExit(endpoint.headers as Codec, headersOptions)
    const headerNames = endpoint.headers === undefined ? undefined : declaredNames(endpoint.headers, headersOptions)
    // Most requests send none of the declared headers: when decoding none gives an empty object (no defaults, nothing
    // made up), that result is decoded once here and reused.
    const noHeaders = headerNames === undefined ? undefined : decodeHeaders?.({})
    const noHeadersDecoded = noHeaders?._tag === "Success" && isEmptyObject(noHeaders.value) ? noHeaders : undefined

    const contentTypeOf = (schema: Schema.Top) => {
      const encoding = encodingOf(schema.ast)
      if (encoding !== undefined && encoding._tag !== "Json") throw unsupported(where, `a ${encoding._tag} answer`)
      return encoding?.contentType ?? "application/json"
    }
    const [success, ...otherSuccesses] = endpoint.success
    if (success === undefined || otherSuccesses.length > 0 || withHeaders(success.ast) !== undefined) {
      throw unsupported(where, "anything but one success schema without headers")
    }
    const successStatus = httpApiStatus(success.ast) ?? 200
    const successContentType = contentTypeOf(success)
    const encodeSuccess = Schema.encodeUnknownExit(
      compiled(success, "encode") as Codec,
      parseOptions(HttpApi.SuccessParseOptions)
    )

    // The endpoint's errors, then its middlewares' (HttpApiEndpoint.getErrorSchemas); the first that matches encodes.
    const errorOptions = parseOptions(HttpApi.ErrorParseOptions)
    const errors = [
      ...endpoint.error,
      ...[...endpoint.middlewares].flatMap((key) => [...(key as unknown as HttpApiMiddleware.AnyService).error])
    ].map((schema) => ({
      is: Schema.is(schema as Codec),
      encode: Schema.encodeUnknownExit(schema as Codec, errorOptions),
      status: httpApiStatus(schema.ast) ?? 500,
      contentType: contentTypeOf(schema),
      withHeaders: withHeaders(schema.ast) !== undefined
    }))
    const encodeError = (error: unknown): HttpServerResponse.HttpServerResponse | undefined => {
      for (const candidate of errors) {
        if (!candidate.is(error)) continue
        const encoded = candidate.encode(error)
        if (encoded._tag === "Failure") return undefined
        if (!candidate.withHeaders) return jsonResponse(candidate.status, candidate.contentType, encoded.value)
        const { body, headers } = encoded.value as { body: unknown; headers: Readonly<Record<string, string>> }
        const response = jsonResponse(candidate.status, candidate.contentType, body)
        return response && HttpServerResponse.setHeaders(response, headers)
      }
      return undefined
    }

    // HttpApiBuilder applies the endpoint's middlewares in this order, each around the previous.
    const middlewares: Array<Middleware> = []
    const known = new Set<string>()
    for (const key of endpoint.middlewares) {
      const service = key as unknown as HttpApiMiddleware.AnyService
      known.add(service.key)
      const direct = options.middlewares[service.key]
      if (direct === undefined) throw new Error(`direct route ${where}: no direct form for middleware ${service.key}`)
      if (direct !== asIs) {
        middlewares.push(direct)
      } else if (HttpApiMiddleware.isSecurity(service)) {
        throw unsupported(where, `security middleware ${service.key} as is`)
      } else {
        const implementation = Context.getUnsafe(context, service) as unknown as (
          effect: Answer,
          options: { readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }
        ) => Answer
        middlewares.push((effect) => implementation(effect, { endpoint, group }))
      }
    }
    for (const key of Object.keys(options.middlewares)) {
      if (!known.has(key)) throw new Error(`direct route ${where}: ${key} is not one of the endpoint's middlewares`)
    }

    const handler = options.handler as unknown as (request: {
      readonly payload: unknown
      readonly headers: unknown
    }) => Effect.Effect<unknown, unknown>

    const respondWithSuccess = (value: unknown): Answer => {
      if (HttpServerResponse.isHttpServerResponse(value)) return Effect.succeed(value)
      const encoded = encodeSuccess(value)
      if (encoded._tag === "Failure") return failed("Body", encoded)
      const response = jsonResponse(successStatus, successContentType, encoded.value)
      return response === undefined ? Effect.fail(unserializable(encoded.value)) : Effect.succeed(response)
    }

    // Headers, then the payload, then the handler: HttpApiBuilder's order.
    const run = (request: Request): Answer => {
      let headers: unknown
      if (decodeHeaders !== undefined) {
        const picked = headerNames === undefined ? undefined : pick(request.headers, headerNames)
        const decoded =
          picked === undefined
            ? decodeHeaders(Headers.fromInput(request.headers))
            : noHeadersDecoded !== undefined && isEmptyObject(picked)
              ? noHeadersDecoded
              : decodeHeaders(picked)
        if (decoded._tag === "Failure") return failed("Headers", decoded)
        headers = decoded.value
      }
      let body: unknown
      if (request.body === "") {
        body = nullOnEmpty ? null : undefined
      } else {
        try {
          body = JSON.parse(request.body)
        } catch {
          return Effect.fail(invalidJson())
        }
      }
      const payload = decodePayload(body)
      if (payload._tag === "Failure") return failed("Payload", payload)
      return Effect.flatMap(handler({ payload: payload.value, headers }), respondWithSuccess)
    }

    // HttpApiBuilder: schema failures that no middleware turned into an answer are defects (a 400 or a 500 at the
    // edge); other failures are encoded by the error schemas, else answered by themselves if they can, else defects.
    const failure = (error: unknown): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
      if (HttpApiError.HttpApiSchemaError.is(error)) return Effect.die(error)
      const response = encodeError(error)
      if (response !== undefined) return Effect.succeed(response)
      return HttpServerRespondable.isRespondable(error) ? HttpServerRespondable.toResponse(error) : Effect.die(error)
    }

    return {
      method: endpoint.method,
      path: endpoint.path,
      context,
      respond: (request: Request) => {
        let answer: Answer = Effect.suspend(() => run(request))
        for (const middleware of middlewares) answer = middleware(answer, request)
        return Effect.catch(answer, failure)
      }
    }
  })

/** Makes the route and registers it with the server (see `make`). */
export const register = <
  ApiId extends string,
  Groups extends HttpApiGroup.Constraint,
  const GroupId extends HttpApiGroup.Identifier<Groups>,
  const EndpointId extends HttpApiGroup.EndpointsWithIdentifier<Groups, GroupId>["identifier"],
  E,
  R
>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  groupId: GroupId,
  endpointId: EndpointId,
  options: Options<EndpointOf<Groups, GroupId, EndpointId>, E, R>
): Effect.Effect<void, never, R | Registry> =>
  Effect.flatMap(make(api, groupId, endpointId, options), (route) =>
    Effect.map(Registry, (registry) => registry.add(route))
  )

// ---------------------------------------------------------------------------------------------------------------
// Serving: the Node side
// ---------------------------------------------------------------------------------------------------------------

const textDecoder = new TextDecoder()

/** HttpApi's media-type comparison: case, spacing and parameters ignored. */
const mediaType = (contentType: string) => {
  const normalized = contentType.toLowerCase().trim()
  const parameters = normalized.indexOf(";")
  return parameters === -1 ? normalized : normalized.slice(0, parameters).trim()
}

/** Writes a response as `NodeHttpServer` does, for the bodies a direct route answers with (JSON or none). */
const write = (response: NodeHttp.ServerResponse, answer: HttpServerResponse.HttpServerResponse) => {
  if (response.writableEnded || response.destroyed) return
  let headers = answer.headers as Record<string, string | Array<string>>
  if (answer.status === 204 || answer.status === 205) {
    const { "content-length": _, ...rest } = headers
    headers = rest
  }
  if (!Cookies.isEmpty(answer.cookies)) {
    headers = { ...headers, "set-cookie": Cookies.toSetCookieHeaders(answer.cookies) }
  }
  const body = answer.body
  try {
    response.strictContentLength = true
    response.writeHead(answer.status, answer.statusText, headers)
    if (HttpServerResponse.omitsBody(answer) || body._tag === "Empty") response.end()
    else if (body._tag === "Uint8Array") response.end(body.text ?? body.body)
    else throw new Error(`a direct route answered a ${body._tag} body`)
  } catch {
    // A status or header Node refuses, or a body kind no direct route produces: a bug, answered as a bare 500.
    if (response.headersSent) response.destroy()
    else response.writeHead(500, { "content-length": "0" }).end()
  }
}

/**
 * The direct routes of one server. `take` runs first on each `request` event: it takes a request only when HttpApi
 * would read it as a whole JSON body within the limit (declared length, JSON or no content type), so everything
 * else — chunked or over-limit bodies, other media types, other paths and methods — is answered by HttpApi as before.
 */
export class Lane {
  // Each route's fibers run with the server's services and the route's own over them, merged once (merging on every
  // request copied every service of the app).
  private readonly routes = new Map<string, { readonly route: DirectRoute; context?: Context.Context<never> }>()
  private serving:
    | {
        readonly context: Context.Context<never>
        readonly scope: Scope.Scope
        readonly edge: Edge.EdgeOptions
      }
    | undefined

  add(route: DirectRoute) {
    this.routes.set(`${route.method} ${route.path}`, { route })
  }

  /** Serves the routes from now on: fibers run with `context`, in `scope`, behind the edge. */
  start(serving: NonNullable<Lane["serving"]>) {
    this.serving = serving
  }

  take(request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse): boolean {
    const serving = this.serving
    if (serving === undefined || this.routes.size === 0) return false
    const url = request.url ?? ""
    const query = url.indexOf("?")
    const entry = this.routes.get(`${request.method} ${query === -1 ? url : url.slice(0, query)}`)
    if (entry === undefined) return false
    const headers = request.headers
    const length = headers["content-length"]
    if (length === undefined || headers["transfer-encoding"] !== undefined) return false
    if (!(Number(length) <= serving.edge.maxBodyBytes)) return false
    if (mediaType(headers["content-type"] ?? "application/json") !== "application/json") return false

    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    // An aborted upload ends the request without `end`: nothing was started, so there is nothing to answer.
    request.on("error", () => {})
    request.on("end", () => {
      const body = textDecoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
      const requestId = Edge.requestIdOf(headers["x-request-id"] as string | undefined)
      const answer = Edge.aroundWithId(
        serving.edge,
        { method: request.method ?? "", url },
        requestId
      )(entry.route.respond({ headers, remoteAddress: request.socket.remoteAddress, body }))
      entry.context ??= Context.merge(serving.context, entry.route.context)
      // The request's id is in its fiber's context from the start (`Edge.withRequestId`), one step less than `around`.
      const fiber = Effect.runForkWith(Edge.withRequestId(entry.context, requestId))(answer)
      // Written when the fiber ends (at once, for a create that never waits). Only interruptions fail here (the edge
      // answers everything else): answered as NodeHttpServer answers them.
      fiber.addObserver((exit) =>
        write(
          response,
          exit._tag === "Success" ? exit.value : Effect.runSync(HttpServerError.causeResponse(exit.cause))[0]
        )
      )
      Fiber.runIn(fiber, serving.scope)
      if (fiber.pollUnsafe() === undefined) {
        response.on("close", () => {
          if (!response.writableEnded) fiber.interruptUnsafe(undefined, HttpServerError.ClientAbort.annotation)
        })
      }
    })
    return true
  }
}
