/**
 * The courier rate sync in the app as users run it (`npm start`), with DHD (an Ecotrack courier) sent to Ecotrack's
 * loopback fake through `TAWSIL_COURIER_ORIGINS`: a sync with a canary credential, its replay, and syncs the courier
 * fails in every way it can (one echoing the credential), with the log at `trace`. Afterwards the canary is in no
 * answer, no log line (stdout, stderr) and no row of the database.
 */
import { assert, describe, it } from "@effect/vitest"
import { Database } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { EcotrackFake, TOKEN } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { runAdmin, startApp, waitForExit } from "../AppProcess.ts"

const CANARY = "canary-0b7d4e2a9f1c6e38-process"

const call = (base: string, method: string, path: string, token: string, body?: unknown, key?: string) =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (method !== "GET") headers["idempotency-key"] = key ?? `k-${Math.random().toString(36).slice(2)}`
    if (body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body)
    })
    const text = await response.text()
    return { status: response.status, text }
  })

describe("the courier rate sync in the app process", () => {
  it.live(
    "leaves a canary credential in no answer, log line or database row",
    () =>
      Effect.gen(function* () {
        const fake = yield* Layer.build(EcotrackFake.layer({ tokens: [TOKEN, CANARY] })).pipe(
          Effect.map((context) => context.mapUnsafe.get(EcotrackFake.key) as EcotrackFake["Service"])
        )
        const dataDir = yield* TestDatabase.migratedDataDir
        const env = { DATA_DIR: dataDir }
        const app = yield* startApp(
          { ...env, TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${fake.origin}`, LOG_LEVEL: "trace" },
          // A loaded machine (the suites beside it on two cores) starts the app slowly.
          { within: 60_000 }
        )
        const created = yield* runAdmin(env, "store", "create", "--name", "Boutique canari")
        assert.strictEqual(created.code, 0, created.stderr)
        const token: string = created.json.platform_key.bearer_token
        const store = app.storeUrl
        assert.strictEqual(
          (yield* call(store, "PATCH", "/v1/shipping/settings", token, { origin_wilaya: 16 })).status,
          200
        )
        // Two wilayas a sync: the host paces the token at 40 requests a minute (Ecotrack documents 50), so a sync of
        // all 58 would take some 80 s.
        const sync = { courier: "dhd", credentials: { token: CANARY }, wilaya_ids: [16, 31] }
        const answers: Array<string> = []
        const first = yield* call(store, "POST", "/v1/shipping/rates/sync", token, sync, "canary-1")
        assert.strictEqual(first.status, 200, first.text)
        answers.push(first.text)
        answers.push((yield* call(store, "POST", "/v1/shipping/rates/sync", token, sync, "canary-1")).text)
        for (const misbehaviour of [
          { kind: "echoToken" },
          { kind: "refuse", message: `Refus pour ${CANARY}` },
          { kind: "html" },
          { kind: "status", status: 500 },
          { kind: "rateLimited" },
          { kind: "reset" }
        ] as const) {
          fake.misbehaveNext(misbehaviour)
          answers.push((yield* call(store, "POST", "/v1/shipping/rates/sync", token, sync)).text)
        }
        answers.push(
          (yield* call(store, "POST", "/v1/shipping/rates/sync", token, {
            courier: "dhd",
            credentials: { token: CANARY, extra: CANARY }
          })).text
        )
        const changes = JSON.parse((yield* call(store, "GET", "/v1/changes?limit=100", token)).text).data.items
        for (const change of changes) answers.push((yield* call(store, "GET", `/v1/changes/${change.id}`, token)).text)
        answers.push((yield* call(store, "GET", "/v1/shipping/rates", token)).text)
        assert.isAbove(
          fake.requests.filter((request) => JSON.stringify(request).includes(CANARY)).length,
          0,
          "the canary did reach the courier"
        )

        app.child.kill("SIGTERM")
        yield* waitForExit(app)
        const everything = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const tables = yield* sql<{ table_name: string }>`
          SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
          const rows: Array<string> = []
          for (const { table_name } of tables) {
            rows.push(
              ...(yield* sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql(table_name)} t`).map(
                (r) => r.row
              )
            )
          }
          return rows.join("\n")
        }).pipe(Effect.provide(Database.layerEmbedded({ dataDir })))

        assert.include(everything, '"entity":"shipping.rates"', "the sync was recorded")
        assert.include(app.stdout(), "/v1/shipping/rates/sync", "the access log saw the syncs")
        for (const [where, text] of [
          ["answers and change details", answers.join("\n")],
          ["stdout", app.stdout()],
          ["stderr", app.stderr()],
          ["the database", everything]
        ] as const) {
          assert.notInclude(text, CANARY, `the canary leaked into ${where}`)
        }
      }).pipe(Effect.scoped),
    120_000
  )
})
