/**
 * The probes of both listeners (`/health/live`, `/health/ready`, served by `Server.make`) on a real socket: live
 * answers 200 while the process runs — while it starts and while it drains too; ready answers 200 only with its
 * routes attached, the app's readiness passing and no stop begun, else 503 in the server's envelope; a drain closes
 * every connection it answers on. And the app's readiness (`Health.layerReadiness`) on each database: reachable,
 * every migration this build knows applied.
 */
import * as Net from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import { Database, Migrations } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Deferred, Duration, Effect, Exit, Layer, Logger, Result, Schema, Scope } from "effect"
import { HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SqlClient } from "effect/sql"
import * as Health from "../src/Health.ts"
import * as Server from "../src/Server.ts"
import { envelope as shippingEnvelope } from "../src/shipping/Errors.ts"
import { envelope as storeEnvelope } from "../src/store/Errors.ts"

class ProbeApi extends HttpApi.make("probe").add(
  HttpApiGroup.make("probe", { topLevel: true }).add(HttpApiEndpoint.get("hello", "/hello", { success: Schema.String }))
) {}

const handlers = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers.handle("hello", () => Effect.succeed("hello"))
)

const quiet = Logger.layer([])

/** A server with the given stop state and readiness, on a free port in `scope`; its base URL. */
const serve = (
  scope: Scope.Closeable,
  options: {
    readonly lifecycle: Health.Lifecycle["Service"]
    readonly readiness?: Effect.Effect<Health.Ready, Health.NotReady> | undefined
    readonly envelope?: typeof shippingEnvelope | undefined
    readonly handlers?: typeof handlers | undefined
    readonly port?: number | undefined
  }
) =>
  Effect.gen(function* () {
    const provided = Layer.mergeAll(
      Layer.succeed(Health.Lifecycle, options.lifecycle),
      options.readiness === undefined
        ? Layer.empty
        : Layer.succeed(Health.Readiness, Health.Readiness.of({ check: options.readiness }))
    )
    const context = yield* Layer.buildWithScope(
      Server.make(
        { host: "127.0.0.1", maxBodyBytes: 1024, shutdownTimeout: Duration.seconds(5) },
        {
          name: "probe",
          api: ProbeApi,
          handlers: options.handlers ?? handlers,
          envelope: options.envelope ?? shippingEnvelope,
          port: options.port ?? 0
        }
      ).pipe(Layer.provide([provided, quiet])),
      scope
    )
    return HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
  })

const get = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
    return { status: response.status, headers: response.headers, json: JSON.parse(text) as any }
  })

const up: Health.Ready = { database: { kind: "server", latencyMs: 1 }, migration: "0014_landing_page_sections" }

describe("the probes", () => {
  it.live("answer live and ready while serving; ready gives the database and the latest migration", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const url = yield* serve(scope, { lifecycle: { draining: false }, readiness: Effect.succeed(up) })
      const live = yield* get(`${url}/health/live`)
      assert.strictEqual(live.status, 200)
      assert.deepStrictEqual(live.json, { status: "live", draining: false })
      assert.strictEqual(live.headers.get("cache-control"), "no-store")
      const ready = yield* get(`${url}/health/ready`)
      assert.strictEqual(ready.status, 200)
      assert.deepStrictEqual(ready.json, { status: "ready", ...up })
      assert.match(ready.headers.get("x-request-id") ?? "", /^req_/, "behind the edge like every route")
      const wrong = yield* get(`${url}/health/ready`, { method: "POST" })
      assert.strictEqual(wrong.status, 405)
      assert.strictEqual(wrong.headers.get("allow"), "GET, HEAD")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("answer not ready with 503 in each server's envelope when a check fails, naming it", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const failing = Effect.fail<Health.NotReady>({
        check: "migrations",
        message: "migration 0014_landing_page_sections is not applied to the database (it is at 12)"
      })
      const shipping = yield* serve(scope, { lifecycle: { draining: false }, readiness: failing })
      const store = yield* serve(scope, {
        lifecycle: { draining: false },
        readiness: failing,
        envelope: storeEnvelope
      })
      const fromShipping = yield* get(`${shipping}/health/ready`)
      assert.strictEqual(fromShipping.status, 503)
      assert.deepStrictEqual(fromShipping.json, {
        error: {
          code: "unavailable",
          message: "not ready: migration 0014_landing_page_sections is not applied to the database (it is at 12)"
        }
      })
      const fromStore = yield* get(`${store}/health/ready`, { headers: { "x-request-id": "probe-7" } })
      assert.strictEqual(fromStore.status, 503)
      assert.deepStrictEqual(fromStore.json, {
        error: {
          code: "unavailable",
          message: "not ready: migration 0014_landing_page_sections is not applied to the database (it is at 12)"
        },
        meta: { request_id: "probe-7", api_version: "v1" }
      })
      assert.strictEqual((yield* get(`${store}/health/live`)).status, 200, "live all the same")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("fail readiness as a drain begins, stay live, keep serving, and close each connection they answer on", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const lifecycle = { draining: false }
      const url = yield* serve(scope, { lifecycle, readiness: Effect.succeed(up), envelope: storeEnvelope })
      const before = yield* get(`${url}/hello`)
      assert.notStrictEqual(before.headers.get("connection"), "close", "kept alive while serving")
      lifecycle.draining = true
      const ready = yield* get(`${url}/health/ready`)
      assert.strictEqual(ready.status, 503)
      assert.strictEqual(ready.json.error.code, "unavailable")
      assert.strictEqual(ready.json.error.message, "not ready: this process is stopping")
      assert.strictEqual(ready.headers.get("connection"), "close")
      const live = yield* get(`${url}/health/live`)
      assert.strictEqual(live.status, 200)
      assert.deepStrictEqual(live.json, { status: "live", draining: true })
      const served = yield* get(`${url}/hello`)
      assert.strictEqual(served.status, 200, "still serving during the drain")
      assert.strictEqual(served.json, "hello")
      assert.strictEqual(served.headers.get("connection"), "close")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("answer live, and not ready in the envelope, while the routes are not attached yet", () =>
    Effect.gen(function* () {
      // A free port, so that the server can be reached before it says where it listens.
      const port = yield* Effect.callback<number>((resume) => {
        const probe = Net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = probe.address() as Net.AddressInfo
          probe.close(() => resume(Effect.succeed(port)))
        })
      })
      const routesReady = yield* Deferred.make<void>()
      const scope = yield* Scope.make()
      const slow = Layer.merge(handlers, Layer.effectDiscard(Deferred.await(routesReady)))
      yield* serve(scope, {
        lifecycle: { draining: false },
        readiness: Effect.succeed(up),
        handlers: slow,
        port
      }).pipe(Effect.forkChild)
      const url = `http://127.0.0.1:${port}`
      let ready = yield* Effect.exit(get(`${url}/health/ready`))
      while (ready._tag === "Failure") {
        yield* Effect.sleep("20 millis")
        ready = yield* Effect.exit(get(`${url}/health/ready`))
      }
      assert.strictEqual(ready.value.status, 503)
      assert.deepStrictEqual(ready.value.json, { error: { code: "unavailable", message: "the server is starting" } })
      const live = yield* get(`${url}/health/live`)
      assert.strictEqual(live.status, 200)
      assert.deepStrictEqual(live.json, { status: "live", draining: false })
      yield* Deferred.succeed(routesReady, undefined)
      let after = yield* get(`${url}/health/ready`)
      while (after.status === 503) {
        yield* Effect.sleep("20 millis")
        after = yield* get(`${url}/health/ready`)
      }
      assert.strictEqual(after.status, 200)
      yield* Scope.close(scope, Exit.void)
    })
  )
})

const failingPing = Layer.succeed(
  Database.Database,
  Database.Database.of({
    kind: "server",
    location: "127.0.0.1:5432/test",
    ping: Effect.fail(new Database.DatabaseUnavailable({ reason: "connection refused" }))
  })
)

describe("the app's readiness", () => {
  for (const backend of TestDatabase.backends) {
    layer(backend.layer.pipe(Layer.orDie), { timeout: "60 seconds" })(`on ${backend.name}`, (it) => {
      it.effect("is not ready before the migrations, ready after, and not ready once the latest is missing", () =>
        Effect.gen(function* () {
          const check = Effect.flatMap(Health.Readiness, (readiness) => Effect.result(readiness.check)).pipe(
            Effect.provide(Health.layerReadiness)
          )
          const fresh = yield* check
          assert.isTrue(Result.isFailure(fresh))
          if (Result.isFailure(fresh)) assert.strictEqual(fresh.failure.check, "migrations")
          yield* Migrations.run.pipe(Effect.orDie)
          const known = yield* Migrations.loader.pipe(Effect.orDie)
          const [latestId, latestName] = known.reduce((a, b) => (b[0] > a[0] ? b : a))
          const ready = yield* check
          assert.isTrue(Result.isSuccess(ready))
          if (Result.isSuccess(ready)) {
            assert.strictEqual(ready.success.migration, `${String(latestId).padStart(4, "0")}_${latestName}`)
            assert.strictEqual(ready.success.database.kind, backend.name)
          }
          // A database restored from before the latest migration: not ready, saying which.
          const sql = yield* SqlClient.SqlClient
          yield* sql`DELETE FROM tawsil_migrations WHERE migration_id = ${latestId}`.pipe(Effect.orDie)
          const behind = yield* check
          assert.isTrue(Result.isFailure(behind))
          if (Result.isFailure(behind)) {
            assert.strictEqual(behind.failure.check, "migrations")
            assert.include(behind.failure.message, `${String(latestId).padStart(4, "0")}_${latestName} is not applied`)
          }
          // A newer instance's further migration leaves this one ready (a rolling upgrade).
          yield* sql`INSERT INTO tawsil_migrations (migration_id, name) VALUES (${latestId}, ${latestName}),
            (${latestId + 1000}, 'from_a_newer_release')`.pipe(Effect.orDie)
          assert.isTrue(Result.isSuccess(yield* check))
          // The database unreachable: not ready, saying so.
          const down = yield* Effect.flatMap(Health.Readiness, (readiness) => Effect.result(readiness.check)).pipe(
            Effect.provide(Health.layerReadiness.pipe(Layer.provide(failingPing)))
          )
          assert.isTrue(Result.isFailure(down))
          if (Result.isFailure(down)) {
            assert.deepStrictEqual(down.failure, {
              check: "database",
              message: "the database is unreachable: connection refused"
            })
          }
        })
      )
    })
  }
})
