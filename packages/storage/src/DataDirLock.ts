/**
 * One process per embedded data directory. PGlite does not lock its directory, and two processes opening the
 * same one corrupt it, so the embedded database takes this lock before it opens the directory.
 *
 * On Linux the lock is a listening socket in the abstract namespace, named after the directory's real path: the
 * kernel releases it when the process dies, however it dies, so no stale lock ever needs removing by hand.
 * Elsewhere it falls back to a pid file whose owner is checked for liveness.
 */

import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { Effect, Schema, type Scope } from "effect"

export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  dataDir: Schema.String,
  holder: Schema.String
}) {
  override get message() {
    return `data directory ${this.dataDir} is in use by another process (${this.holder}); stop it or set DATA_DIR`
  }
}

const PID_FILE = "tawsil.pid"

const readHolder = (dataDir: string): string => {
  const pid = Fs.readFileSync(Path.join(dataDir, PID_FILE), { encoding: "utf8", flag: "r" }).trim()
  return pid === "" ? "unknown pid" : `pid ${pid}`
}

const holderOrUnknown = (dataDir: string) =>
  Effect.try({ try: () => readHolder(dataDir), catch: () => "unreadable" }).pipe(
    Effect.orElseSucceed(() => "unknown pid")
  )

const writePid = (dataDir: string) =>
  Effect.sync(() => Fs.writeFileSync(Path.join(dataDir, PID_FILE), `${process.pid}\n`, { mode: 0o644 }))

const abstractSocketLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.callback<Net.Server, DataDirInUse>((resume) => {
      const name = `\0tawsil-data-${createHash("sha256").update(Fs.realpathSync(dataDir)).digest("hex").slice(0, 40)}`
      const server = Net.createServer((socket) => socket.destroy())
      server.once("error", (error: NodeJS.ErrnoException) => {
        resume(
          error.code === "EADDRINUSE"
            ? Effect.flatMap(holderOrUnknown(dataDir), (holder) => Effect.fail(new DataDirInUse({ dataDir, holder })))
            : Effect.die(error)
        )
      })
      server.listen(name, () => {
        server.unref()
        resume(Effect.succeed(server))
      })
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

// Best effort where there is no abstract socket namespace: two processes starting in the same instant on a
// directory with a stale pid file could both win. Documented in docs/operations.md.
const pidFileLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const holder = yield* Effect.sync(() => {
        const file = Path.join(dataDir, PID_FILE)
        if (!Fs.existsSync(file)) return undefined
        const pid = Number(Fs.readFileSync(file, "utf8").trim())
        return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined
      })
      if (holder !== undefined) return yield* new DataDirInUse({ dataDir, holder: `pid ${holder}` })
    }),
    () => Effect.sync(() => Fs.rmSync(Path.join(dataDir, PID_FILE), { force: true }))
  )

/** Takes the lock on `dataDir` (created if missing) for the lifetime of the scope. */
export const acquire = (dataDir: string): Effect.Effect<void, DataDirInUse, Scope.Scope> =>
  Effect.gen(function* () {
    yield* Effect.sync(() => Fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 }))
    if (process.platform === "linux") yield* abstractSocketLock(dataDir)
    else yield* pidFileLock(dataDir)
    yield* writePid(dataDir)
  })
