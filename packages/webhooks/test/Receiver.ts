/**
 * A real webhook receiver on a loopback port, for tests: it records every request it gets (headers and raw body)
 * and answers what the test tells it to, by request number.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"

export interface Received {
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Buffer
  readonly at: number
}

/** The answer to a request: a status (and optional Location), or `hang` (never answer). */
export type Reply = { readonly status: number; readonly location?: string } | "hang"

export interface Receiver {
  readonly url: string
  readonly port: number
  readonly received: Array<Received>
  /** What to answer the n-th request (0-based) to `path`; default 200. */
  reply: (path: string, index: number) => Reply
}

export const start: Effect.Effect<Receiver, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ readonly receiver: Receiver; readonly server: Http.Server }>((resolve) => {
        const counts = new Map<string, number>()
        const receiver: Receiver = {
          url: "",
          port: 0,
          received: [],
          reply: () => ({ status: 200 })
        }
        const server = Http.createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const path = request.url ?? "/"
            const index = counts.get(path) ?? 0
            counts.set(path, index + 1)
            receiver.received.push({ path, headers: request.headers, body: Buffer.concat(chunks), at: Date.now() })
            const reply = receiver.reply(path, index)
            if (reply === "hang") return
            response.writeHead(reply.status, reply.location === undefined ? {} : { location: reply.location })
            response.end("ok")
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          Object.assign(receiver, { url: `http://127.0.0.1:${port}`, port })
          resolve({ receiver, server })
        })
      })
  ),
  ({ server }) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
).pipe(Effect.map(({ receiver }) => receiver))

/** Waits (polling every 20 ms, at most `within` ms) until `done` holds. */
export const eventually = (done: () => boolean, within = 10_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + within
    while (!done()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`condition not met within ${within} ms`))
      yield* Effect.sleep("20 millis")
    }
  })
