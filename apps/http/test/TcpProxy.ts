/**
 * A loopback TCP proxy in front of a server (PostgreSQL, in the outage tests): the app is pointed at the proxy, and
 * the test cuts it — every connection dropped, new ones refused, as when the database goes away — and restores it
 * on the same port, as when it comes back.
 */
import * as Net from "node:net"
import { Effect } from "effect"

/** A loopback TCP proxy to `host:port` that a test can cut (every connection dropped, new ones refused). */
export const tcpProxy = (host: string, port: number) =>
  Effect.gen(function* () {
    const sockets = new Set<Net.Socket>()
    let listener: Net.Server | undefined
    const listen = (onPort: number) =>
      Effect.callback<number>((resume) => {
        listener = Net.createServer((client) => {
          const upstream = Net.connect(port, host)
          for (const socket of [client, upstream]) {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
            socket.on("error", () => socket.destroy())
          }
          client.pipe(upstream).pipe(client)
        })
        listener.listen(onPort, "127.0.0.1", () =>
          resume(Effect.succeed((listener!.address() as Net.AddressInfo).port))
        )
      })
    const close = Effect.callback<void>((resume) => {
      for (const socket of sockets) socket.destroy()
      if (listener === undefined) return resume(Effect.void)
      listener.close(() => resume(Effect.void))
    })
    const proxyPort = yield* Effect.acquireRelease(listen(0), () => close)
    return { port: proxyPort, cut: close, restore: Effect.asVoid(listen(proxyPort)) }
  })
