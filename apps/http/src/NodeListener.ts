/**
 * The one `request` listener of each server's Node server, and how it hands requests to effect's (decisions 0025,
 * 0028): hand-tuned code, kept here so that `Server.make` stays the generic composition it reads as.
 *
 * Node listens as soon as effect's server layer is built, before the router is attached to it, so this listener is
 * added first and answers while the server is starting (503 with `Retry-After`; `/health/live` 200). Once the router
 * serves, effect's own `request` listener (added by `NodeHttpServer.make`) is taken off the Node server and called
 * from here, after each request's arrival is worked out once (`Edge.Arrival`: its id, route template and start) and
 * after the API's `Door`, if any, has let it through. Nothing of Node's server is replaced (decision 0016).
 */
import type * as NodeHttp from "node:http"
import { Clock, Context, Effect, Exit } from "effect"
import * as Edge from "./Edge.ts"
import type * as Health from "./Health.ts"

/** An answer decided at the door: status, headers besides the JSON content type, and the JSON body. */
export type DoorAnswer = Edge.DoorAnswer

/**
 * What an API decides about a request before the router sees it and before its body is read: undefined to let it
 * through, else the answer to refuse it with. A refusal costs Node's parsing, the decision, and the edge's work done
 * as plain code (the request id, the access line and the request metrics, `Edge.doorAnswers`): not the request's
 * fiber, the router, HttpApi or the body (issue 22, decision 0025). A server without a `Door` lets every request
 * through.
 *
 * A door decides `now`, with plain calls (its state is in this process), or `later`, by an effect (its state is
 * elsewhere: a window counted in Redis); which one is fixed when the door is made. Only for a route it `watches`.
 */
export class Door extends Context.Service<
  Door,
  {
    readonly watches: (method: string, route: string) => boolean
    readonly decide:
      | { readonly now: (route: string, request: NodeHttp.IncomingMessage) => DoorAnswer | undefined }
      | {
          readonly later: (route: string, request: NodeHttp.IncomingMessage) => Effect.Effect<DoorAnswer | undefined>
        }
  }
>()("@tawsil/http/Server/Door") {}

type Handler = (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => void

/** What the listener needs from the context effect's server runs in, once it serves. */
interface Serving {
  /** Effect's request listener. */
  readonly router: Handler
  /** The context the door's effects run in. */
  readonly context: Context.Context<never>
  /** The clock requests are timed by. */
  readonly clock: Clock.Clock
  /** How the door's answers are written. */
  readonly answerAtDoor: ReturnType<typeof Edge.doorAnswers>
}

export interface Options {
  readonly edge: Edge.EdgeOptions
  /** The route template of a method and path, undefined for a path no route knows. */
  readonly routeOf: (method: string, path: string) => string | undefined
  readonly lifecycle: Health.Lifecycle["Service"]
  readonly door: Door["Service"] | undefined
  /** The path of the liveness probe, answered while starting. */
  readonly livePath: string
  /** The liveness probe's body. */
  readonly liveBody: (draining: boolean) => string
}

/**
 * Adds the listener to `nodeServer`. Run `attached` once effect's listener is attached (from then on, until `serve`
 * has run, effect's answers alone); `serve` takes effect's listener off and hands it every request, and must run in
 * the context effect's server runs in.
 */
export const attach = (nodeServer: NodeHttp.Server, options: Options) => {
  const { edge, routeOf, lifecycle, door } = options
  let starting = true
  let serving: Serving | undefined

  /** The door's answer written, or the request handed to effect's listener. */
  const decided = (
    request: NodeHttp.IncomingMessage,
    response: NodeHttp.ServerResponse,
    arrival: Edge.Arrival,
    answer: DoorAnswer | undefined
  ) => {
    if (answer === undefined) serving!.router(request, response)
    else serving!.answerAtDoor({ method: request.method ?? "GET", url: request.url ?? "/" }, arrival, answer, response)
  }

  const decideLater = (
    request: NodeHttp.IncomingMessage,
    response: NodeHttp.ServerResponse,
    arrival: Edge.Arrival,
    check: Effect.Effect<DoorAnswer | undefined>
  ) => {
    const fiber = Effect.runForkWith(serving!.context)(check)
    // The check failing (a defect) lets the request through: the router answers, as it would have.
    const onExit = (exit: Exit.Exit<DoorAnswer | undefined>) =>
      decided(request, response, arrival, Exit.isSuccess(exit) ? exit.value : undefined)
    const exit = fiber.pollUnsafe()
    if (exit === undefined) fiber.addObserver(onExit)
    else onExit(exit)
  }

  const arrive = (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => {
    const method = request.method ?? "GET"
    const arrival: Edge.Arrival = {
      requestId: Edge.requestIdOf(request.headers["x-request-id"] as string | undefined),
      route: routeOf(method, Edge.pathOf(request.url ?? "/")),
      startedAt: serving!.clock.currentTimeMillisUnsafe()
    }
    Edge.arrive(request, arrival)
    if (door === undefined || arrival.route === undefined || !door.watches(method, arrival.route))
      return serving!.router(request, response)
    if ("now" in door.decide) return decided(request, response, arrival, door.decide.now(arrival.route, request))
    decideLater(request, response, arrival, door.decide.later(arrival.route, request))
  }

  const whileStarting = (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => {
    if (Edge.pathOf(request.url ?? "") === options.livePath) {
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
      response.end(options.liveBody(lifecycle.draining))
      return
    }
    const body = JSON.stringify(
      edge.envelope.render({ code: Edge.codeOf(edge.envelope, 503), message: "the server is starting" }, "")
    )
    response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" })
    response.end(body)
  }

  nodeServer.on("request", (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => {
    // Draining: every answer closes its connection, so that no client keeps one open to a listener about to close.
    if (lifecycle.draining) response.setHeader("connection", "close")
    if (serving !== undefined) return arrive(request, response)
    // Effect's listener is attached and answers until `serve` takes it off.
    if (starting) whileStarting(request, response)
  })

  return {
    attached: Effect.sync(() => {
      starting = false
    }),
    serve: Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      const [, router, ...more] = nodeServer.listeners("request") as Array<Handler>
      if (router === undefined || more.length > 0) return yield* Effect.die("expected one request listener of effect's")
      nodeServer.off("request", router)
      serving = {
        router,
        context,
        clock: Context.get(context, Clock.Clock),
        answerAtDoor: Edge.doorAnswers(edge, context)
      }
    })
  }
}
