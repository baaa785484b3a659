/**
 * The baseline of a courier push (issue 30): a raw `node:http` receiver doing the least a receiver that acknowledges
 * only what is durably recorded must do for a Yalidine push — the raw body read (at most 1 MB), `X-YALIDINE-SIGNATURE`
 * checked (the hex HMAC-SHA256 of the body under the webhook's secret, compared in constant time), the body parsed as
 * `{ type, events }`, and every event's row written into the app's own `courier_push_events` by the app's own
 * statement (`jsonb_to_recordset`, `ON CONFLICT (account_id, event_key) DO NOTHING RETURNING event_key`), one statement
 * a request; then 200 `{ received, recorded }` as ours answers.
 *
 * Not done here, and done by the app before it answers: the account looked up and its secret opened, the events read
 * by the adapter's pure `push.receive`, the store server's pipeline (router, HttpApi, request id, access log). Done by
 * neither on the request path: applying the events (the app's push applier does it behind the answer; this baseline
 * never does). The one account and secret are given (`ACCOUNT_ID`, `WEBHOOK_SECRET`); no router, no HttpApi, no
 * request id, no logs.
 *
 * The database is reached through the repository's own driver layer (`@tawsil/storage`'s `Database.layerServer`),
 * with the app's default pool of 10.
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/push.ts
 *     (env: PORT, DATABASE_URL, ACCOUNT_ID, WEBHOOK_SECRET)
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import { Database } from "@tawsil/storage"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const MAX_BODY_BYTES = 1024 * 1024
const accountId = Number(process.env.ACCOUNT_ID)
const secret = process.env.WEBHOOK_SECRET!
const path = `/v1/hooks/couriers/${accountId}`

const runtime = ManagedRuntime.make(
  Database.layerServer({ url: Redacted.make(process.env.DATABASE_URL!), maxConnections: 10 })
)

interface Row {
  readonly event_key: string
  readonly tracking_number: string
  readonly raw_status: string
  readonly reason: string | null
  readonly occurred_at: string
}

/** The rows of the events that can be read: an id, a tracking number, a status and Algiers wall-clock time. */
const rowsOf = (events: ReadonlyArray<unknown>): Array<Row> =>
  events.flatMap((event) => {
    const { event_id, occurred_at, data } = (event ?? {}) as Record<string, unknown>
    const { tracking, status, reason } = (data ?? {}) as Record<string, unknown>
    if (typeof event_id !== "string" || typeof tracking !== "string" || typeof status !== "string") return []
    if (typeof occurred_at !== "string" || !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(occurred_at)) return []
    return [
      {
        event_key: `id:${event_id}`,
        tracking_number: tracking,
        raw_status: status,
        reason: typeof reason === "string" && reason !== "" ? reason : null,
        occurred_at: `${occurred_at.replace(" ", "T")}+01:00`
      }
    ]
  })

const record = (rows: ReadonlyArray<Row>) =>
  runtime.runPromise(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ readonly event_key: string }>`
        INSERT INTO courier_push_events (account_id, event_key, tracking_number, courier_reference, reference,
          raw_status, reason, occurred_at)
        SELECT ${accountId}, e.event_key, e.tracking_number, NULL, NULL, e.raw_status, e.reason, e.occurred_at
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS e(event_key text, tracking_number text,
          raw_status text, reason text, occurred_at timestamptz)
        ON CONFLICT (account_id, event_key) DO NOTHING
        RETURNING event_key`
    )
  )

const answer = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

const signed = (body: Buffer, presented: string | undefined) => {
  if (presented === undefined || !/^[0-9a-fA-F]{64}$/.test(presented.trim())) return false
  return timingSafeEqual(createHmac("sha256", secret).update(body).digest(), Buffer.from(presented.trim(), "hex"))
}

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/v1/ping") return answer(response, 200, { data: "pong" })
  if (request.method !== "POST" || request.url !== path) return answer(response, 404, { error: "not_found" })
  const chunks: Array<Buffer> = []
  let size = 0
  request.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= MAX_BODY_BYTES) chunks.push(chunk)
  })
  request.on("end", () => {
    if (size > MAX_BODY_BYTES) return answer(response, 413, { error: "payload_too_large" })
    const body = Buffer.concat(chunks)
    const presented = request.headers["x-yalidine-signature"]
    if (!signed(body, typeof presented === "string" ? presented : undefined)) {
      return answer(response, 401, { error: "invalid_signature" })
    }
    let parsed: { readonly type?: unknown; readonly events?: unknown }
    try {
      parsed = JSON.parse(body.toString("utf8"))
    } catch {
      return answer(response, 400, { error: "bad_request" })
    }
    if (typeof parsed?.type !== "string" || !Array.isArray(parsed.events)) {
      return answer(response, 400, { error: "bad_request" })
    }
    const rows = rowsOf(parsed.events)
    record(rows).then(
      (fresh) => answer(response, 200, { received: rows.length, recorded: fresh.length }),
      () => answer(response, 503, { error: "unavailable" })
    )
  })
})

server.listen(Number(process.env.PORT), "127.0.0.1")
process.on("SIGTERM", () => {
  server.close()
  runtime.dispose().then(() => process.exit(0))
})
