/**
 * The shipping server's door (`NodeListener.Door`): the client's window counted before the router and before the body
 * is read, so that a refused request is answered there (429 with `Retry-After`, in the envelope) at a small part of a
 * create's cost, and a flood of them does not take the core that serves everyone else (issue 22, decision 0025). A
 * create the capacity guard would turn away is answered there too (503 `overloaded`, as the guard answers it); one let
 * through is still guarded.
 *
 * The rule is the gateway's (`@tawsil/shipping`'s `Door`), counted once per request: here for requests that reach the
 * server through Node's `request` event, in the `ClientRateLimit` middleware for any other (`countedAtDoor`). Where
 * the window counts in this process the door decides with plain calls (`Gateway.door`), a refusal costing no fiber;
 * where it counts in Redis, by the gateway's `atDoor` effect.
 */
import type * as NodeHttp from "node:http"
import { ShippingApi } from "@tawsil/api/shipping/Api"
import { CapacityGuard, ClientWindow, Gateway } from "@tawsil/shipping"
import { Effect, Layer } from "effect"
import { HttpApi } from "effect/http-api"
import * as NodeListener from "../NodeListener.ts"
import * as Errors from "./Errors.ts"

/** Node requests the door has counted in their client's window: the middleware does not count them again. */
const counted = new WeakSet<object>()

/** Whether the door has counted this Node request in its client's window. */
export const countedAtDoor = (request: object) => counted.has(request)

/** The parcel create, which the capacity guard also watches at the door. */
const CREATE = "POST /v1/orders"

/** The methods and route templates of the endpoints under `ClientRateLimit`: the ones the door watches. */
const windowed = (() => {
  const routes = new Set<string>()
  HttpApi.reflect(ShippingApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      if (group.identifier === "shipping") routes.add(`${endpoint.method} ${endpoint.path}`)
    }
  })
  return routes
})()

const overloaded: NodeListener.DoorAnswer = {
  status: 503,
  headers: { "retry-after": String(CapacityGuard.RETRY_AFTER_SECONDS) },
  body: Errors.envelope.render(
    Errors.itemError(new CapacityGuard.Overloaded({ retryAfterSeconds: CapacityGuard.RETRY_AFTER_SECONDS })),
    ""
  )
}

/** The wire answer of the gateway's verdict. */
const answer = (verdict: Gateway.AtDoor): NodeListener.DoorAnswer | undefined =>
  verdict === undefined
    ? undefined
    : verdict === "overloaded"
      ? overloaded
      : {
          status: 429,
          headers: { "retry-after": String(verdict.retryAfterSeconds) },
          body: Errors.envelope.render({ code: "rate_limited", message: ClientWindow.describe(verdict) }, "")
        }

/** The client (its address) a Node request is counted for, counted from now on. */
const clientOf = (request: NodeHttp.IncomingMessage) => {
  counted.add(request)
  return request.socket.remoteAddress ?? "unknown"
}

export const layer = Layer.effect(
  NodeListener.Door,
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    const door = gateway.door
    return NodeListener.Door.of({
      watches: (method, route) => windowed.has(`${method} ${route}`),
      decide:
        door === undefined
          ? {
              later: (route, request) =>
                Effect.map(gateway.atDoor(clientOf(request), `${request.method} ${route}` === CREATE), answer)
            }
          : { now: (route, request) => answer(door.decide(clientOf(request), `${request.method} ${route}` === CREATE)) }
    })
  })
)
