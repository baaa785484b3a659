/**
 * Speaks the PostgreSQL wire protocol to an in-process PGlite, so that `@effect/sql-pg` drives the embedded
 * database exactly as it drives a real server: same driver, same codecs, same SQL.
 *
 * sql-pg accepts a `stream: () => Duplex` in place of a socket. We hand it one end of a duplex pair and, on the
 * other end, cut the byte stream into protocol messages and feed them to PGlite one at a time, in order.
 */

import { type Duplex, duplexPair } from "node:stream"
import type { PGlite } from "@electric-sql/pglite"

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const TERMINATE = 0x58 // 'X'

export const pgliteStream = (db: PGlite) => (): Duplex => {
  const [client, server] = duplexPair()
  let pending: Buffer = Buffer.alloc(0)
  let started = false
  let queue: Promise<void> = Promise.resolve()

  const execute = (message: Uint8Array) => {
    queue = queue
      .then(() => {
        // A closed PGlite neither answers nor fails a message (it throws from inside its module, out of reach):
        // the connection is ended instead, which the driver reports as lost (`Database.isUnreachable`).
        if (db.closed) throw new Error("the embedded database is closed")
        return db.runExclusive(() =>
          db.execProtocolRawStream(message, { onRawData: (data) => server.write(Buffer.from(data)) })
        )
      })
      .catch((error: unknown) => {
        // The driver's end gets the error (a pair does not pass one across: it would wait for an answer forever);
        // ours, which nobody listens to for errors, just closes.
        client.destroy(error instanceof Error ? error : new Error(String(error)))
        server.destroy()
      })
  }

  // PGlite has one backend session shared by every connection: a connection that goes away inside a
  // transaction must not leave that transaction open for the next one.
  const release = () => {
    queue = queue.then(() =>
      db.closed
        ? undefined
        : db.exec("ROLLBACK").then(
            () => undefined,
            () => undefined
          )
    )
  }

  server.on("data", (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    for (;;) {
      if (!started) {
        // Start-up packets have no type byte: int32 length, int32 code.
        if (pending.length < 8) return
        const length = pending.readInt32BE(0)
        if (pending.length < length) return
        const code = pending.readInt32BE(4)
        const message = pending.subarray(0, length)
        pending = pending.subarray(length)
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          server.write("N")
          continue
        }
        started = true
        execute(message)
        continue
      }
      if (pending.length < 5) return
      const length = pending.readInt32BE(1) + 1
      if (pending.length < length) return
      const message = pending.subarray(0, length)
      pending = pending.subarray(length)
      if (message[0] === TERMINATE) {
        release()
        server.end()
        return
      }
      execute(message)
    }
  })
  server.on("close", () => {
    if (started) release()
  })
  return client
}
