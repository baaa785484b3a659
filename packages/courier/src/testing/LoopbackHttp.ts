/**
 * A test-only `CourierHttp` that sends an adapter's requests to a loopback fake of its courier: the fake's origin +
 * the relative path + the query, like the core's transport but without its egress rules. It refuses (as a defect)
 * any path that is not relative, turns a timeout or a dropped connection into `Unreachable`, and never follows a
 * redirect. Production HTTP is the core's job (`HttpTransport`).
 */
import { type Duration, Effect, Layer } from "effect"
import * as CourierError from "../CourierError.ts"
import * as CourierHttp from "../CourierHttp.ts"

const send = (origin: string, request: CourierHttp.CourierRequest, timeout: Duration.Input) => {
  if (!request.path.startsWith("/") || request.path.startsWith("//")) {
    return Effect.die(new Error(`the adapter sent a path that is not relative: ${request.path}`))
  }
  const url = new URL(request.path, origin)
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value)
  const init: RequestInit = {
    method: request.method,
    redirect: "manual",
    headers: { ...request.headers, ...(request.json === undefined ? {} : { "content-type": "application/json" }) },
    ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) })
  }
  return Effect.tryPromise({
    try: (signal) =>
      fetch(url, { ...init, signal }).then((response) =>
        response.arrayBuffer().then((buffer) => ({
          status: response.status,
          headers: Object.fromEntries(response.headers),
          text: new TextDecoder().decode(buffer),
          bytes: new Uint8Array(buffer)
        }))
      ),
    catch: () => new CourierError.Unreachable({ message: "the courier could not be reached" })
  }).pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(new CourierError.Unreachable({ message: "the courier did not answer in time" }))
    })
  )
}

/** The service bound to `origin`. */
export const make = (origin: string, timeout: Duration.Input = "2 seconds") =>
  CourierHttp.CourierHttp.of({ request: (request) => send(origin, request, timeout) })

/** The service bound to the fake whose origin `origin` gives (read from the fake in context). */
export const layer = <R>(
  origin: Effect.Effect<string, never, R>,
  options: { readonly timeout?: Duration.Input } = {}
) =>
  Layer.effect(
    CourierHttp.CourierHttp,
    Effect.map(origin, (origin) => make(origin, options.timeout))
  )
