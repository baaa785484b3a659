/**
 * What every loopback fake courier shares, so that an adapter's fake holds only its courier: a real `node:http`
 * server on `127.0.0.1` (a random port unless one is given) that reads each request's body and parses it as JSON (a
 * form body as its fields), flattens its headers, keeps it (`requests`, oldest first), and first plays the
 * misbehaviour it was told to (`misbehaveNext`: the next request, or the next one to a path, hangs, drops the
 * connection, answers a status, an HTML page, a 429 or any JSON), then hands it to the courier's API (`handle`). It
 * stops when its scope closes.
 *
 * A courier's fake gives `handle` (its documented API: routes, authentication, its answers), and optionally the
 * shape of its error body (`errorBody`, used for the standard misbehaviours and for a body that is not JSON) and
 * `misbehave` for misbehaviours of its own (a refusal inside a 200, an answer quoting the token) or a standard one it
 * answers its own way. {@link standardFailures} are the conformance kit's failure rows every fake-backed suite needs,
 * played on these misbehaviours; {@link run} starts a fake from a script.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Exit, Scope } from "effect"
import type { Any } from "../CourierAdapter.ts"
import type * as Conformance from "./Conformance.ts"

/** A request as the fake received it. */
export interface Request {
  readonly method: string
  /** Without the query string. */
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  /** Lower-case names; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The body as sent. */
  readonly text: string
  /**
   * The body parsed as JSON (a form body, `application/x-www-form-urlencoded`, as its fields); `undefined` when there
   * is none, or it is not JSON.
   */
  readonly body: unknown
}

/** What the fake can be told to do instead of answering the next request. */
export type Misbehaviour =
  /** Never answer: the caller's timeout must cut it off. */
  | { readonly kind: "hang" }
  /** Drop the connection. */
  | { readonly kind: "reset" }
  /** Answer this status with the courier's error body (a 5xx, a 301 without a `location`, …). */
  | { readonly kind: "status"; readonly status: number }
  /** Answer 200 with an HTML maintenance page. */
  | { readonly kind: "html" }
  /** Answer 429 with the courier's error body, and `Retry-After` when given. */
  | { readonly kind: "rateLimited"; readonly retryAfter?: string | undefined }
  /** Answer any JSON on any status. */
  | { readonly kind: "json"; readonly status: number; readonly body: unknown }

/** A running fake: what the conformance kit reads, and the misbehaviour queue. */
export interface FakeCourier<M extends { readonly kind: string } = never> {
  /** Where it listens: `http://127.0.0.1:<port>`. */
  readonly origin: string
  /** Every request it has received, oldest first (kept up to date as requests arrive). */
  readonly requests: ReadonlyArray<Request>
  /** Plays `misbehaviour` on the next request, or on the next one whose path is `path` (or matches it). */
  readonly misbehaveNext: (misbehaviour: Misbehaviour | M, path?: string | RegExp) => void
}

export interface Options<M extends { readonly kind: string } = never> {
  /** The courier's API: answers a request the fake was not told to misbehave on. */
  readonly handle: (request: Request, response: Http.ServerResponse) => void
  /** The courier's error body, for the standard misbehaviours and a body that is not JSON; `{ error }` by default. */
  readonly errorBody?: ((status: number, message: string) => unknown) | undefined
  /**
   * Plays a misbehaviour the courier's own way: one of `M`, or a standard one it answers differently (its 429's own
   * headers). Returns whether it answered; when it did not, a standard misbehaviour gets the default answer and one
   * of `M` goes on to `handle` (for a misbehaviour that changes what the API does next, kept in the fake's state).
   */
  readonly misbehave?:
    | ((misbehaviour: Misbehaviour | M, request: Request, response: Http.ServerResponse) => boolean)
    | undefined
  /** The port to listen on; a random free one by default. */
  readonly port?: number | undefined
}

/** Answers `body` as JSON. */
export const json = (
  response: Http.ServerResponse,
  status: number,
  body: unknown,
  headers: Http.OutgoingHttpHeaders = {}
): void => {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
  response.end(JSON.stringify(body))
}

const STANDARD: ReadonlySet<string> = new Set(["hang", "reset", "status", "html", "rateLimited", "json"])

const isStandard = (misbehaviour: { readonly kind: string }): misbehaviour is Misbehaviour =>
  STANDARD.has(misbehaviour.kind)

const HTML = "<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>"

const reasonPhrase = (status: number) => Http.STATUS_CODES[status] ?? "Error"

/** Starts a fake courier for the scope. */
export const make = <M extends { readonly kind: string } = never>(
  options: Options<M>
): Effect.Effect<FakeCourier<M>, never, Scope.Scope> => {
  const errorBody = options.errorBody ?? ((_status: number, message: string) => ({ error: message }))
  const requests: Array<Request> = []
  const queue: Array<{ readonly misbehaviour: Misbehaviour | M; readonly path: string | RegExp | undefined }> = []

  const play = (misbehaviour: Misbehaviour, incoming: Http.IncomingMessage, response: Http.ServerResponse) => {
    switch (misbehaviour.kind) {
      case "hang":
        return
      case "reset":
        return incoming.socket.destroy()
      case "status":
        return json(response, misbehaviour.status, errorBody(misbehaviour.status, reasonPhrase(misbehaviour.status)))
      case "html":
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        return response.end(HTML)
      case "rateLimited":
        return json(
          response,
          429,
          errorBody(429, reasonPhrase(429)),
          misbehaviour.retryAfter === undefined ? {} : { "retry-after": misbehaviour.retryAfter }
        )
      case "json":
        return json(response, misbehaviour.status, misbehaviour.body)
    }
  }

  const serve = (incoming: Http.IncomingMessage, response: Http.ServerResponse, text: string) => {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1")
    let body: unknown
    let malformed = false
    if ((incoming.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      body = Object.fromEntries(new URLSearchParams(text))
    } else {
      try {
        body = text === "" ? undefined : JSON.parse(text)
      } catch {
        malformed = true
      }
    }
    const request: Request = {
      method: incoming.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(
        Object.entries(incoming.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(", ") : (value ?? "")
        ])
      ),
      text,
      body
    }
    requests.push(request)
    const planned = queue.findIndex(({ path }) =>
      path === undefined ? true : typeof path === "string" ? path === request.path : path.test(request.path)
    )
    if (planned >= 0) {
      const { misbehaviour } = queue.splice(planned, 1)[0]!
      if (options.misbehave?.(misbehaviour, request, response) === true) return
      if (isStandard(misbehaviour)) return play(misbehaviour, incoming, response)
    }
    if (malformed) return json(response, 400, errorBody(400, "The request body is not valid JSON"))
    return options.handle(request, response)
  }

  return Effect.acquireRelease(
    Effect.callback<{ readonly server: Http.Server; readonly origin: string }>((resume) => {
      const server = Http.createServer((incoming, response) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.on("end", () => serve(incoming, response, Buffer.concat(chunks).toString("utf8")))
      })
      server.listen(options.port ?? 0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
      )
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map(
      ({ origin }): FakeCourier<M> => ({
        origin,
        requests,
        misbehaveNext: (misbehaviour, path) => {
          queue.push({ misbehaviour, path })
        }
      })
    )
  )
}

/**
 * Runs a fake outside Effect — a script (the scaffold's `test/fake/serve.ts`), a test that is no Effect — until its
 * `close` is called.
 */
export const run = async <F>(
  fake: Effect.Effect<F, never, Scope.Scope>
): Promise<F & { readonly close: () => Promise<void> }> => {
  const scope = Scope.makeUnsafe()
  const started = await Effect.runPromise(Scope.provide(scope)(fake))
  return { ...started, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** The timeout the "no answer" row gives the caller. */
export const HANG_TIMEOUT_MS = 300

/** What the "429" row's courier asks to wait. */
export const RETRY_AFTER_SECONDS = 17

/**
 * The failures every courier shows, as the conformance kit's rows on a `FakeCourier` — the ones the kit demands of a
 * suite with a fake: no answer within the caller's `timeoutMs` (300 ms) → `Unreachable`; a dropped connection →
 * `Unreachable`; HTTP 503 (on `rates` when the adapter declares it) → `Unreachable`; an HTML page → `BadResponse`; a
 * redirect, 301 (on `track` when declared) → `BadResponse`; a 429 with `Retry-After: 17` → `CourierRateLimited` of
 * 17 s; and, for an adapter that takes credentials, credentials the courier does not know (each field holding the
 * canary, with `-revoked` after it) → `CredentialsRejected`. A row without an operation runs the first the adapter
 * declares. Spread them into the suite's `failures`, then add the courier's own.
 */
export const standardFailures = <F extends FakeCourier<never> = FakeCourier<never>>(options: {
  readonly adapter: Any
  /** The suite's credentials: the rejected ones are derived from them. */
  readonly credentials?: { readonly valid: Readonly<Record<string, string>>; readonly canary: string } | undefined
}): ReadonlyArray<Conformance.Failure<F>> => {
  const { adapter, credentials } = options
  const on = (operation: "rates" | "track") => (adapter.capabilities[operation] ? { operation } : {})
  const rows: Array<Conformance.Failure<F>> = [
    {
      name: "no answer",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }),
      timeoutMs: HANG_TIMEOUT_MS,
      reason: "Unreachable"
    },
    { name: "a dropped connection", arrange: (fake) => fake.misbehaveNext({ kind: "reset" }), reason: "Unreachable" },
    {
      name: "HTTP 503",
      ...on("rates"),
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 503 }),
      reason: "Unreachable"
    },
    { name: "an HTML page", arrange: (fake) => fake.misbehaveNext({ kind: "html" }), reason: "BadResponse" },
    {
      name: "a redirect",
      ...on("track"),
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 301 }),
      reason: "BadResponse"
    },
    {
      name: "429 with Retry-After",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", retryAfter: String(RETRY_AFTER_SECONDS) }),
      reason: "CourierRateLimited",
      retryAfterSeconds: RETRY_AFTER_SECONDS
    }
  ]
  if (credentials !== undefined && adapter.credentials !== undefined) {
    rows.push({
      name: "credentials the courier does not know",
      credentials: Object.fromEntries(
        Object.entries(credentials.valid).map(([field, value]) => [
          field,
          value.includes(credentials.canary) ? `${value}-revoked` : value
        ])
      ),
      reason: "CredentialsRejected"
    })
  }
  return rows
}
