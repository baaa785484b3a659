/**
 * The admin listener: how the admin CLI reaches a running server that owns the embedded database (one process per
 * data directory, so the CLI cannot open it). It listens on 127.0.0.1 only, on a port the OS picks, and answers
 * `POST /v1/admin` with an `AdminRequest` body and `Authorization: Bearer <secret>`.
 *
 * At each start a new random secret is written to `<DATA_DIR>/admin.secret` (mode 0600, in the 0700 data
 * directory), then the address to `<DATA_DIR>/admin.json` (`{ "url", "pid" }`), each replaced atomically; both are
 * removed at shutdown. Reading the secret takes the rights of the account that runs the server.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import * as Fs from "node:fs"
import { createServer } from "node:http"
import * as Path from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Admin, AdminError } from "@tawsil/access"
import type { PromoAddon } from "@tawsil/promos"
import { ByteSize, Effect, Layer, Schema } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AdminRequest, execute } from "./AdminRequest.ts"
import type { SecretKeys } from "./SecretKeys.ts"

export const SECRET_FILE = "admin.secret"
export const ADDRESS_FILE = "admin.json"
export const PATH = "/v1/admin"

/** Where a running server's listener is, as written in `admin.json`. */
export const Address = Schema.Struct({ url: Schema.String, pid: Schema.Int })
export type Address = typeof Address.Type

const MAX_BODY_BYTES = 64 * 1024

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** Whether the header carries `secret`, compared in constant time (both sides hashed to one length). */
export const authorized = (header: string | undefined, secret: string): boolean => {
  const presented = /^Bearer ([0-9a-f]{64})$/.exec(header ?? "")?.[1] ?? ""
  return timingSafeEqual(digest(presented), digest(secret)) && presented !== ""
}

/** Each reason an operator's request fails for, as the listener answers it. */
export const statusOf: Record<AdminError.AdminErrorReason["_tag"], number> = {
  InvalidAdminInput: 400,
  TooManyKeys: 400,
  StoreNotFound: 404,
  KeyNotFound: 404
}

const answer = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status })
const refuse = (status: number, message: string) => answer(status, { error: { message } })

const handler = (secret: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!authorized(request.headers.authorization, secret)) return refuse(401, "admin secret missing or wrong")
    const body = yield* Effect.option(request.json)
    if (body._tag === "None") return refuse(400, "body must be a JSON admin request")
    const decoded = yield* Effect.result(Schema.decodeUnknownEffect(AdminRequest)(body.value))
    if (decoded._tag === "Failure") return refuse(400, `not an admin request: ${decoded.failure.message}`)
    return yield* execute(decoded.success).pipe(
      Effect.map((result) => answer(200, result)),
      Effect.catchTag("AdminError", (error) => Effect.succeed(refuse(statusOf[error.reason._tag], error.message)))
    )
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.as(Effect.logError("admin request failed", cause), refuse(500, "internal error; see the server's log"))
    )
  )

/** Writes `content` to `file` through a temporary file and a rename, so a reader never sees half of it. */
const writeAtomically = (file: string, content: string) =>
  Effect.sync(() => {
    const temporary = `${file}.${process.pid}.tmp`
    Fs.rmSync(temporary, { force: true })
    Fs.writeFileSync(temporary, content, { mode: 0o600, flag: "wx" })
    Fs.renameSync(temporary, file)
  })

/** Removes `file` if it still holds what this process wrote (a newer process may have replaced it). */
const removeIfOurs = (file: string, content: string) =>
  Effect.sync(() => {
    try {
      if (Fs.readFileSync(file, "utf8") === content) Fs.rmSync(file, { force: true })
    } catch {
      // Already gone.
    }
  })

const publish = (dataDir: string, secret: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      if (server.address._tag !== "InetAddressV4") return yield* Effect.die("the admin listener is not on IPv4")
      const address = JSON.stringify({ url: `http://127.0.0.1:${server.address.port}`, pid: process.pid })
      const secretFile = Path.join(dataDir, SECRET_FILE)
      const addressFile = Path.join(dataDir, ADDRESS_FILE)
      yield* Effect.acquireRelease(writeAtomically(secretFile, `${secret}\n`), () =>
        removeIfOurs(secretFile, `${secret}\n`)
      )
      yield* Effect.acquireRelease(writeAtomically(addressFile, `${address}\n`), () =>
        removeIfOurs(addressFile, `${address}\n`)
      )
      yield* Effect.logInfo("admin listener ready").pipe(Effect.annotateLogs({ address: ADDRESS_FILE }))
    })
  )

/** The listener for the embedded database in `dataDir` (which the database layer has already created). */
export const layer = (options: {
  readonly dataDir: string
}): Layer.Layer<never, never, Admin.Admin | PromoAddon.PromoAddon | SecretKeys> =>
  Layer.unwrap(
    Effect.sync(() => {
      const secret = randomBytes(32).toString("hex")
      const routes = HttpRouter.add("POST", PATH, handler(secret))
      // The files are published once the routes are served: a CLI that reads them is answered.
      return publish(Path.resolve(options.dataDir), secret).pipe(
        Layer.provide(HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true })),
        Layer.provide(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
        Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES))),
        Layer.orDie
      )
    })
  )
