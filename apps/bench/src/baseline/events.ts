/**
 * The baseline for a signed `POST /v1/events`: a raw `node:http` server doing the same work as ours for one event
 * and nothing else — the raw body read, the `TW-Public` signature checked by `@tawsil/signing`'s own pure
 * `RequestSignature.verify` (clock window, HMAC in constant time), the nonce recorded by group commit (every call of
 * the last `NONCE_WINDOW_MS` or up to `NONCE_BATCH` in one `INSERT … ON CONFLICT DO NOTHING RETURNING nonce`, each
 * call answered by whether its row came back), the body checked as JSON holding an `event` name, and the row queued
 * for a writer that writes up to 500 rows a statement into the app's own `tracked_events` (the app's statement:
 * `jsonb_to_recordset`, `ON CONFLICT (store_id, nonce) DO NOTHING`) with the usage they count in `usage_hourly`.
 * Answers 202 `{ data: { accepted: true }, meta }` as ours does, or 401 with the store's envelope.
 *
 * No router, no HttpApi, no fibers per request, no key lookup (the one key is given: `KEY_ID`, `SIGNING_SECRET`,
 * `STORE_ID`), no rate window, no gates, no logs or metrics. The database is reached through the repository's own
 * driver layer (`@tawsil/storage`'s `Database.layerServer`), run once per statement, never per request.
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/events.ts
 *     (env: PORT, DATABASE_URL, KEY_ID, SIGNING_SECRET, STORE_ID)
 */
import { randomBytes } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import { RequestSignature } from "@tawsil/signing"
import { Database } from "@tawsil/storage"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const NONCE_WINDOW_MS = 2
const NONCE_BATCH = 256
const WRITE_BATCH = 500

const keyId = process.env.KEY_ID!
const secret = Redacted.make(process.env.SIGNING_SECRET!)
const storeId = Number(process.env.STORE_ID)

const runtime = ManagedRuntime.make(
  Database.layerServer({ url: Redacted.make(process.env.DATABASE_URL!), maxConnections: 4 })
)
const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => runtime.runPromise(effect)

// --- nonces: group commit ----------------------------------------------------------------------------------------

interface Waiting {
  readonly nonce: string
  readonly done: (fresh: boolean) => void
  readonly fail: () => void
}
let waiting: Array<Waiting> = []
let timer: ReturnType<typeof setTimeout> | undefined

const commitNonces = () => {
  timer = undefined
  const group = waiting
  waiting = []
  // Within a group a nonce is offered once: its later calls are replays whatever the database says.
  const first = new Map<string, Waiting>()
  for (const call of group) {
    if (first.has(call.nonce)) call.done(false)
    else first.set(call.nonce, call)
  }
  const nonces = [...first.keys()]
  run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ readonly nonce: string }>`
        INSERT INTO signing_nonces AS n (key_id, nonce, expires_at)
        SELECT ${keyId}, unnest(${nonces}::text[]), now() + interval '1 hour'
        ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE n.expires_at <= now()
        RETURNING nonce`
    )
  ).then(
    (rows) => {
      const fresh = new Set(rows.map((row) => row.nonce))
      for (const [nonce, call] of first) call.done(fresh.has(nonce))
    },
    () => {
      for (const call of first.values()) call.fail()
    }
  )
}

const consume = (nonce: string, done: (fresh: boolean) => void, fail: () => void) => {
  waiting.push({ nonce, done, fail })
  if (waiting.length >= NONCE_BATCH) {
    if (timer !== undefined) clearTimeout(timer)
    commitNonces()
  } else if (timer === undefined) timer = setTimeout(commitNonces, NONCE_WINDOW_MS)
}

// --- rows: one writer, up to WRITE_BATCH a statement ----------------------------------------------------------------

interface Row {
  readonly nonce: string
  readonly event: string
  readonly user_id: string | null
  readonly properties: unknown
  readonly occurred_at: string
  readonly received_at: string
}
let queued: Array<Row> = []
let writing = false

const write = () => {
  if (writing || queued.length === 0) return
  writing = true
  const batch = queued.slice(0, WRITE_BATCH)
  queued = queued.slice(batch.length)
  const json = JSON.stringify(batch.map((row, index) => ({ ord: index + 1, store_id: storeId, key_id: keyId, ...row })))
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString()
  run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(
        Effect.flatMap(
          sql<{ readonly recorded: number }>`
            WITH input AS (
              SELECT * FROM jsonb_to_recordset(${json}::jsonb) AS i (ord int, store_id int, nonce text, key_id text,
                event text, user_id text, properties jsonb, occurred_at timestamptz, received_at timestamptz)
            ), inserted AS (
              INSERT INTO tracked_events (store_id, nonce, key_id, event, user_id, properties, occurred_at, received_at)
              SELECT store_id, nonce, key_id, event, user_id, properties, occurred_at, received_at
              FROM input ORDER BY ord
              ON CONFLICT (store_id, nonce) DO NOTHING
              RETURNING 1
            )
            SELECT count(*)::int AS recorded FROM inserted`,
          ([row]) =>
            (row?.recorded ?? 0) === 0
              ? Effect.void
              : sql`
                INSERT INTO usage_hourly AS u (store_id, period_hour, endpoint_group, count, billable_count)
                VALUES (${storeId}, ${hour}, 'event', ${row!.recorded}, ${row!.recorded})
                ON CONFLICT (store_id, period_hour, endpoint_group)
                DO UPDATE SET count = u.count + excluded.count, billable_count = u.billable_count + excluded.billable_count`.pipe(
                  Effect.asVoid
                )
        )
      )
    )
  ).then(
    () => {
      writing = false
      write()
    },
    (error) => {
      // As the app's writer: a batch that fails is retried, never dropped.
      console.error("baseline batch not written; retrying", error)
      queued = [...batch, ...queued]
      writing = false
      setTimeout(write, 100)
    }
  )
}

// --- the server ----------------------------------------------------------------------------------------------------

const unauthorized = (response: ServerResponse, requestId: string, message: string) =>
  response
    .writeHead(401, { "content-type": "application/json", "x-request-id": requestId })
    .end(
      JSON.stringify({ error: { code: "unauthorized", message }, meta: { request_id: requestId, api_version: "v1" } })
    )

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/v1/ping") {
    return response.writeHead(200, { "content-type": "application/json" }).end('{"data":{"pong":true}}')
  }
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const requestId = `req_${randomBytes(12).toString("hex")}`
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    const authorization = request.headers.authorization ?? ""
    if (request.method !== "POST" || request.url !== "/v1/events" || authorization !== `TW-Public ${keyId}`) {
      return unauthorized(response, requestId, "Invalid public key")
    }
    const checked = RequestSignature.verify(
      {
        keyId,
        timestamp: request.headers["x-tw-timestamp"] as string | undefined,
        nonce: request.headers["x-tw-nonce"] as string | undefined,
        signature: request.headers["x-tw-signature"] as string | undefined,
        body
      },
      secret,
      Math.floor(Date.now() / 1000)
    )
    if (checked._tag === "Failure") return unauthorized(response, requestId, checked.failure.message)
    const nonce = checked.success.nonce
    consume(
      nonce,
      (fresh) => {
        if (!fresh) return unauthorized(response, requestId, "X-TW-Nonce was already used")
        let parsed: { event?: unknown; user_id?: unknown; properties?: unknown; occurred_at?: unknown }
        try {
          parsed = JSON.parse(body.toString("utf8"))
        } catch {
          parsed = {}
        }
        if (typeof parsed.event !== "string") {
          return response
            .writeHead(400, { "content-type": "application/json", "x-request-id": requestId })
            .end('{"error":{"code":"bad_request","message":"event is required"}}')
        }
        const now = new Date().toISOString()
        queued.push({
          nonce,
          event: parsed.event,
          user_id: typeof parsed.user_id === "string" ? parsed.user_id : null,
          properties: parsed.properties ?? {},
          occurred_at: typeof parsed.occurred_at === "string" ? parsed.occurred_at : now,
          received_at: now
        })
        write()
        response
          .writeHead(202, { "content-type": "application/json", "x-request-id": requestId, "x-api-version": "v1" })
          .end(JSON.stringify({ data: { accepted: true }, meta: { request_id: requestId, api_version: "v1" } }))
      },
      () =>
        response
          .writeHead(500, { "content-type": "application/json", "x-request-id": requestId })
          .end('{"error":{"code":"internal_error","message":"the nonce could not be recorded"}}')
    )
  })
})

await runtime.runPromise(Effect.void)
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1")
const stop = () =>
  server.close(() => {
    const drain = () =>
      queued.length > 0 || writing ? setTimeout(drain, 20) : runtime.dispose().then(() => process.exit(0))
    drain()
  })
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
