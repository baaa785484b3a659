/**
 * The one HTTP client of webhooks: a `POST` to a checked target, connected to exactly the address the URL rules
 * checked (a pinned DNS lookup, TLS verified against the host name), on a new connection each time, with a connect
 * timeout and a total timeout. It follows no redirect (Node's client never does): a 3xx is the receiver's answer.
 * The response body is read up to 64 KiB and dropped: only the status matters.
 */
import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import { ProcessEgress } from "@tawsil/egress"
import { Context, Duration, Effect, Layer, Schema } from "effect"
import type { Target } from "./WebhookUrl.ts"

/** No answer came: not connected in time, refused, reset, or no full answer within the total timeout. */
export class SendFailed extends Schema.TaggedError<SendFailed>()("SendFailed", { message: Schema.String }) {}

export interface Request {
  readonly target: Target
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly connectTimeout: Duration.Duration
  readonly timeout: Duration.Duration
}

export class WebhookHttp extends Context.Service<
  WebhookHttp,
  {
    /** Sends the request; succeeds with the receiver's status, whatever it is. */
    readonly post: (request: Request) => Effect.Effect<number, SendFailed>
  }
>()("@tawsil/webhooks/WebhookHttp") {}

const MAX_READ = 64 * 1024

/** A DNS lookup that answers only the checked address, so the connection cannot go elsewhere. */
const pinnedLookup =
  (address: string): Net.LookupFunction =>
  (_host, options, callback) => {
    const family = Net.isIP(address)
    if ((options as { all?: boolean }).all) {
      ;(callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        { address, family }
      ])
    } else callback(null, address, family)
  }

const send = (request: Request) =>
  Effect.callback<number, SendFailed>((resume) => {
    const { url, address } = request.target
    const body = Buffer.from(request.body)
    const client = url.protocol === "https:" ? Https : Http
    let connectTimer: ReturnType<typeof setTimeout> | undefined
    // The process egress guard (ProcessEgress) lets exactly this connection through: the checked target. The socket
    // is opened inside `request`, so the permit ends when it returns.
    const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80)
    const outgoing = ProcessEgress.permit({ host: url.hostname, port }, () =>
      client.request(
        url,
        {
          method: "POST",
          agent: false,
          headers: { ...request.headers, "content-length": String(body.length) },
          ...(address === undefined ? {} : { lookup: pinnedLookup(address), servername: url.hostname })
        },
        (incoming) => {
          let read = 0
          incoming.on("data", (chunk: Buffer) => {
            read += chunk.length
            if (read > MAX_READ) incoming.destroy()
          })
          const done = () => resume(Effect.succeed(incoming.statusCode ?? 0))
          incoming.on("end", done)
          incoming.on("close", done)
          incoming.on("error", done)
        }
      )
    )
    outgoing.on("socket", (socket) => {
      if (!socket.connecting) return
      connectTimer = setTimeout(
        () => outgoing.destroy(new Error("ECONNECT_TIMEOUT")),
        Duration.toMillis(request.connectTimeout)
      )
      socket.once("connect", () => clearTimeout(connectTimer))
    })
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(connectTimer)
      resume(
        Effect.fail(
          new SendFailed({
            message:
              error.message === "ECONNECT_TIMEOUT"
                ? `not connected within ${Duration.format(request.connectTimeout)}`
                : `could not be reached (${error.code ?? error.message})`
          })
        )
      )
    })
    outgoing.end(body)
    return Effect.sync(() => {
      clearTimeout(connectTimer)
      outgoing.destroy()
    })
  }).pipe(
    Effect.timeoutOrElse({
      duration: request.timeout,
      orElse: () => Effect.fail(new SendFailed({ message: `no answer within ${Duration.format(request.timeout)}` }))
    })
  )

/** Node's `http`/`https` client. */
export const layer: Layer.Layer<WebhookHttp> = Layer.succeed(WebhookHttp, WebhookHttp.of({ post: send }))
