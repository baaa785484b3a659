/**
 * The baseline of the poller (issue 30): a plain loop doing what any poller of these tables must do, and nothing of
 * the domain — every `INTERVAL_MS`, the poller's own claim statement (`FOR UPDATE SKIP LOCKED` under a 5-minute lease,
 * `CLAIM` rows), the claimed checks grouped by account and read 100 at a time from Ecotrack's batch read (4 accounts
 * at once, an account's reads one after the other, as the poller), the answer parsed, and for each parcel it names
 * the poller's own `checked` statement (status, checks + 1, due in 2 hours, lease cleared), one statement a parcel.
 *
 * Not done here, and done by the app for each parcel: the account's credentials opened, the answer decoded by the
 * adapter's wire schema and mapped, the timeline deduplicated and written, the shipment's status moved, the order
 * locked and read, the order's move and its webhook events, all in one transaction. Every read sends the same fixed
 * token (the loopback fake takes any).
 *
 * The database is reached through the repository's own driver layer (`@tawsil/storage`'s `Database.layerServer`),
 * with the app's default pool of 10.
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/poll.ts
 *     (env: DATABASE_URL, ORIGIN — the fake's, CLAIM, INTERVAL_MS)
 */
import * as Http from "node:http"
import { Database } from "@tawsil/storage"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const origin = process.env.ORIGIN!
const claimSize = Number(process.env.CLAIM)
const intervalMs = Number(process.env.INTERVAL_MS)
const ACCOUNT_CONCURRENCY = 4
const BATCH = 100

const runtime = ManagedRuntime.make(
  Database.layerServer({ url: Redacted.make(process.env.DATABASE_URL!), maxConnections: 10 })
)
const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => runtime.runPromise(effect)

interface Check {
  readonly order_id: number
  readonly account_id: number
  readonly tracking_number: string
  readonly status: string
}

const claim = () =>
  run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<Check>`
        WITH due AS (
          SELECT order_id FROM shipment_checks
          WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())
          ORDER BY due_at LIMIT ${claimSize}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE shipment_checks c SET lease_until = now() + ${"300000 milliseconds"}::interval
        FROM due WHERE c.order_id = due.order_id
        RETURNING c.order_id, c.store_id, c.account_id, c.tracking_number, c.status, c.checks`
    )
  )

const checked = (check: Check) =>
  run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql`
        UPDATE shipment_checks SET status = ${check.status}, checks = checks + 1,
          due_at = now() + ${"7200000 milliseconds"}::interval, lease_until = NULL
        WHERE order_id = ${check.order_id}`
    )
  )

const agent = new Http.Agent({ keepAlive: true, maxSockets: ACCOUNT_CONCURRENCY })

/** Ecotrack's batch read of `trackings`: the parcels it answered, keyed by tracking number. */
const read = (trackings: ReadonlyArray<string>) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const url = new URL("/api/v1/get/trackings/info", origin)
    for (const [index, tracking] of trackings.entries()) url.searchParams.set(`trackings[${index}]`, tracking)
    url.searchParams.set("api_token", "baseline-token-0001")
    const request = Http.request(
      url,
      { agent, headers: { accept: "application/json", authorization: "Bearer baseline-token-0001" } },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          if (response.statusCode !== 200) return reject(new Error(`batch read answered ${response.statusCode}`))
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>)
        })
      }
    )
    request.on("error", reject)
    request.end()
  })

const pollAccount = async (checks: ReadonlyArray<Check>) => {
  for (let at = 0; at < checks.length; at += BATCH) {
    const group = checks.slice(at, at + BATCH)
    const answered = await read(group.map((check) => check.tracking_number))
    for (const check of group) if (Object.hasOwn(answered, check.tracking_number)) await checked(check)
  }
}

const cycle = async () => {
  const claimed = await claim()
  const byAccount = new Map<number, Array<Check>>()
  for (const check of claimed) {
    const group = byAccount.get(check.account_id) ?? []
    group.push(check)
    byAccount.set(check.account_id, group)
  }
  const queue = [...byAccount.values()]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await pollAccount(next)
  }
  await Promise.all(Array.from({ length: ACCOUNT_CONCURRENCY }, worker))
}

let stopping = false
process.on("SIGTERM", () => {
  stopping = true
})
console.log("ready")
while (!stopping) {
  await cycle()
  await new Promise((resolve) => setTimeout(resolve, intervalMs))
}
await runtime.dispose()
agent.destroy()
