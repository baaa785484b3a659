/**
 * One POST on its own connection with its body framed by `Content-Length` or sent in chunks: the two ways a body can
 * reach a server, which the direct-route tests compare.
 */
import * as NodeHttp from "node:http"
import { Effect } from "effect"

export interface Sent {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** One request on its own connection, its body framed by `Content-Length` or sent in chunks. */
export const send = (
  port: number,
  options: {
    readonly path?: string
    readonly headers?: Record<string, string>
    readonly body: string | Buffer
    readonly chunked: boolean
  }
) =>
  Effect.callback<Sent>((resume) => {
    const body = Buffer.from(options.body)
    const request = NodeHttp.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: options.path ?? "/items",
        agent: false,
        headers: {
          "content-type": "application/json",
          ...options.headers,
          ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) })
        }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resume(
            Effect.succeed({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString("utf8")
            })
          )
        )
      }
    )
    if (options.chunked && body.length > 1) {
      request.write(body.subarray(0, 1))
      request.end(body.subarray(1))
    } else {
      request.end(body)
    }
  })
