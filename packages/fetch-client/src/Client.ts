/**
 * The plain client's one request function, over the global `fetch` (or one passed in) and nothing else: it fills
 * an operation's path, query and headers, sends its JSON body, and answers `{ ok: true, data }` or, for a failure
 * the operation declares, `{ ok: false, status, error }` with the error envelope of that status, typed. A status the
 * operation does not declare (an unknown route, a body over the limit, a defect) is thrown as `UnexpectedAnswer`.
 */

/** What the generated tables say of one operation. */
export interface OperationTypes {
  readonly params: object | undefined
  readonly query: object | undefined
  readonly headers: object | undefined
  readonly body: unknown
  readonly success: unknown
  readonly failure: { readonly status: number; readonly error: unknown }
}

/** The operations of one API, by operation id. */
export type Operations<Ops> = { readonly [Id in keyof Ops]: OperationTypes }

export interface OperationRoute {
  readonly method: string
  readonly path: string
  readonly binary: boolean
  readonly statuses: ReadonlyArray<number>
}

/** No properties (where an operation has no such part). */
type Empty = Record<never, never>

type Part<Name extends string, T> = [T] extends [undefined]
  ? Empty
  : Empty extends T
    ? { readonly [K in Name]?: T }
    : { readonly [K in Name]: T }

/** An operation's input: `params`, `query`, `headers` and `body`, each only where the operation has them. */
export type Input<O extends OperationTypes> = Part<"params", O["params"]> &
  Part<"query", O["query"]> &
  Part<"headers", O["headers"]> &
  Part<"body", O["body"]>

/** An operation's answer: its success, or one of its declared failures (narrow on `status`). */
export type Answer<O extends OperationTypes> =
  | { readonly ok: true; readonly status: number; readonly data: O["success"]; readonly headers: Headers }
  | ({ readonly ok: false; readonly headers: Headers } & O["failure"])

/** An answer whose status the operation does not declare; `body` is its parsed JSON, or its text. */
export class UnexpectedAnswer extends Error {
  readonly status: number
  readonly body: unknown
  constructor(operation: string, status: number, body: unknown) {
    super(`${operation}: unexpected status ${status}`)
    this.name = "UnexpectedAnswer"
    this.status = status
    this.body = body
  }
}

export interface ClientOptions {
  /** `http://127.0.0.1:8080` for the shipping API, `…:8081` for the store API. */
  readonly baseUrl: string
  /** Sent on every call (an `Authorization`, say). */
  readonly headers?: Readonly<Record<string, string>>
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch
}

type Call<Ops extends Operations<Ops>> = <Id extends keyof Ops & string>(
  operation: Id,
  ...input: Empty extends Input<Ops[Id]> ? [input?: Input<Ops[Id]>] : [input: Input<Ops[Id]>]
) => Promise<Answer<Ops[Id]>>

export interface Client<Ops extends Operations<Ops>> {
  readonly call: Call<Ops>
}

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text()
  if (text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export const make = <Ops extends Operations<Ops>>(
  routes: { readonly [Id in keyof Ops]: OperationRoute },
  options: ClientOptions
): Client<Ops> => {
  const send = options.fetch ?? globalThis.fetch
  const base = options.baseUrl.replace(/\/+$/, "")
  const call = async (operation: string, input: Record<string, unknown> = {}) => {
    const route = (routes as Readonly<Record<string, OperationRoute>>)[operation]
    if (route === undefined) throw new TypeError(`unknown operation ${operation}`)
    const params = (input.params ?? {}) as Record<string, string | number>
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])))
    const query = new URLSearchParams()
    for (const [name, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) query.set(name, String(value))
    }
    const search = query.size === 0 ? "" : `?${query}`
    const headers: Record<string, string> = { accept: "application/json", ...options.headers }
    for (const [name, value] of Object.entries((input.headers ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) headers[name] = String(value)
    }
    const hasBody = input.body !== undefined
    if (hasBody) headers["content-type"] = "application/json"
    const response = await send(`${base}${path}${search}`, {
      method: route.method,
      headers,
      ...(hasBody ? { body: JSON.stringify(input.body) } : {})
    })
    if (response.ok) {
      const data = route.binary ? await response.arrayBuffer() : await readBody(response)
      return { ok: true, status: response.status, data, headers: response.headers }
    }
    const error = await readBody(response)
    if (!route.statuses.includes(response.status)) throw new UnexpectedAnswer(operation, response.status, error)
    return { ok: false, status: response.status, error, headers: response.headers }
  }
  return { call: call as unknown as Call<Ops> }
}
