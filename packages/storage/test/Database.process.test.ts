import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import { AppInstance, Database, DataDirLock, Migrations } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Exit, Layer, Redacted, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { pgliteStream } from "../src/internal/pgliteStream.ts"

/** The ids of every migration in `migrations/` (0001_…, 0002_…, …), counted from the directory. */
const ALL_MIGRATIONS = readdirSync(Path.join(import.meta.dirname, "..", "src", "migrations"))
  .filter((file) => /^\d{4}_.*\.ts$/.test(file))
  .map((file) => Number(file.slice(0, 4)))
  .sort((a, b) => a - b)

class Overdrawn extends Schema.TaggedError<Overdrawn>()("Overdrawn", {}) {}

for (const backend of TestDatabase.backends) {
  const migrated = Migrations.layer.pipe(Layer.provideMerge(backend.layer))

  layer(migrated, { excludeTestServices: true, timeout: "90 seconds" })(`Database (${backend.name})`, (it) => {
    it.effect("answers a ping and says what it is", () =>
      Effect.gen(function* () {
        const database = yield* Database.Database
        yield* database.ping
        assert.strictEqual(database.kind, backend.name)
        assert.notInclude(database.location, "@", "the location never carries credentials")
      })
    )

    it.effect("records each migration once and reruns none", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const again = yield* Migrations.run
        assert.deepStrictEqual(again, [])
        const rows = yield* sql<{ migration_id: number }>`SELECT migration_id FROM ${sql(Migrations.TABLE)}`
        assert.deepStrictEqual(
          rows.map((row) => row.migration_id),
          ALL_MIGRATIONS
        )
      })
    )

    it.effect("reads back a registered app instance", () =>
      Effect.gen(function* () {
        const written = yield* AppInstance.register({ hostname: "test-host", pid: 4242, version: "0.0.0-test" })
        const read = yield* AppInstance.find(written.id)
        assert.deepStrictEqual(read, written)
        assert.isUndefined(yield* AppInstance.find("999999999"))
      })
    )

    it.effect("rolls a transaction back on a typed failure", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE accounts_rollback (id int PRIMARY KEY, balance int NOT NULL)`
        yield* sql`INSERT INTO accounts_rollback VALUES (1, 10)`
        const exit = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`UPDATE accounts_rollback SET balance = balance - 50 WHERE id = 1`
              return yield* new Overdrawn()
            })
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        const [row] = yield* sql<{ balance: number }>`SELECT balance FROM accounts_rollback WHERE id = 1`
        assert.strictEqual(row!.balance, 10)
      })
    )

    it.effect("serialises 200 concurrent read-modify-write transactions without a lost update", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)`
        yield* sql`INSERT INTO counters VALUES (1, 0)`
        const increment = sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<{ value: number }>`SELECT value FROM counters WHERE id = 1 FOR UPDATE`
            yield* sql`UPDATE counters SET value = ${row!.value + 1} WHERE id = 1`
          })
        )
        yield* Effect.all(
          Array.from({ length: 200 }, () => increment),
          { concurrency: "unbounded" }
        )
        const [row] = yield* sql<{ value: number }>`SELECT value FROM counters WHERE id = 1`
        assert.strictEqual(row!.value, 200)
      })
    )
  })
}

if (TestDatabase.serverUrl) {
  const adminUrl = TestDatabase.serverUrl
  describe("Migrations on a shared server", () => {
    it.live("run exactly once when four instances start at once; the others wait and find nothing to do", () =>
      Effect.gen(function* () {
        const url = yield* TestDatabase.freshServerDatabase(adminUrl)
        const instance = Migrations.run.pipe(Effect.provide(Database.layerServer({ url, maxConnections: 2 })))
        const ran = yield* Effect.all([instance, instance, instance, instance], { concurrency: "unbounded" })
        assert.deepStrictEqual(
          ran.flat().map(([id]) => id),
          ALL_MIGRATIONS,
          "one instance ran each migration"
        )
        const recorded = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ migration_id: number }>`SELECT migration_id FROM ${sql(Migrations.TABLE)}`
        }).pipe(Effect.provide(Database.layerServer({ url, maxConnections: 1 })))
        assert.deepStrictEqual(
          recorded.map((row) => row.migration_id),
          ALL_MIGRATIONS
        )
      }).pipe(Effect.scoped)
    )
  })
}

describe("Database.layerEmbedded", () => {
  it.live("refuses a data directory another holder has open, and reopens it once released", () =>
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.freshDataDir
      const open = Effect.scoped(Layer.build(Database.layerEmbedded({ dataDir })))
      const exit = yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.build(Database.layerEmbedded({ dataDir }))
          return yield* Effect.exit(open)
        })
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "is in use by another process")
      yield* open
    }).pipe(Effect.scoped)
  )

  it.live("runs with a 32MB buffer pool, not PostgreSQL's 128MB, which the process would hold from the start", () =>
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.freshDataDir
      const context = yield* Layer.build(Database.layerEmbedded({ dataDir }))
      const sql = Context.get(context, SqlClient.SqlClient)
      const rows = yield* sql<{ readonly size: string }>`SELECT current_setting('shared_buffers') AS size`
      assert.strictEqual(rows[0]?.size, "32MB")
    }).pipe(Effect.scoped)
  )
})

describe("Database.isUnreachable", () => {
  const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flip(effect)
  const clientOf = (config: Parameters<typeof PgClient.make>[0]) =>
    Effect.map(Layer.build(PgClient.layerFrom(PgClient.make(config))), (context) =>
      Context.get(context, PgClient.PgClient)
    )

  it.live("is true of the embedded database once closed, and false of a bad query", () =>
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.freshDataDir
      const { PGlite } = yield* Effect.promise(() => import("@electric-sql/pglite"))
      const db = new PGlite({ dataDir })
      yield* Effect.promise(() => db.waitReady)
      const client = yield* clientOf({
        stream: pgliteStream(db),
        username: "postgres",
        database: "postgres",
        maxConnections: 1
      })
      const bad = yield* failureOf(client`SELEC 1`)
      assert.isFalse(Database.isUnreachable(bad), "a query the database refused is a bug")
      yield* client`SELECT 1`
      yield* Effect.promise(() => db.close())
      const closed = yield* failureOf(client`SELECT 1`)
      assert.isTrue(Database.isUnreachable(closed), String(closed))
    }).pipe(Effect.scoped)
  )

  it.live("is true of a server that refuses connections, also behind a wrapping error; false of other failures", () =>
    Effect.gen(function* () {
      // A port nothing listens on: bound, then closed.
      const port = yield* Effect.callback<number>((resume) => {
        const probe = Net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = probe.address() as Net.AddressInfo
          probe.close(() => resume(Effect.succeed(port)))
        })
      })
      const client = yield* clientOf({
        url: Redacted.make(`postgres://postgres@127.0.0.1:${port}/none`),
        maxConnections: 1
      })
      const refused = yield* failureOf(client`SELECT 1`)
      assert.isTrue(Database.isUnreachable(refused))
      assert.isTrue(Database.isUnreachable(new Error("the write failed", { cause: refused })))
      assert.isTrue(Database.isUnreachable(new Database.DatabaseUnavailable({ reason: "no answer within 2s" })))
      assert.isFalse(Database.isUnreachable(new Error("kaboom")))
      assert.isFalse(Database.isUnreachable("a string"))
      assert.isFalse(Database.isUnreachable(undefined))
    }).pipe(Effect.scoped)
  )
})

describe("DataDirLock", () => {
  it.live("is released by the kernel when its holder is killed", () =>
    Effect.gen(function* () {
      const dataDir = yield* TestDatabase.freshDataDir
      const child = yield* spawnWriter("embedded", dataDir)
      yield* waitForLine(child, "ready")
      const held = yield* Effect.exit(Effect.scoped(DataDirLock.acquire(dataDir)))
      assert.isTrue(Exit.isFailure(held), "the lock is held while the writer runs")
      child.kill("SIGKILL")
      yield* Effect.promise(() => new Promise((resolve) => child.once("exit", resolve)))
      yield* Effect.scoped(DataDirLock.acquire(dataDir))
    }).pipe(Effect.scoped)
  )
})

describe("durability", () => {
  const targets: ReadonlyArray<{
    name: string
    where: Effect.Effect<readonly ["embedded" | "server", string], never, import("effect").Scope.Scope>
  }> = [
    { name: "embedded", where: Effect.map(TestDatabase.freshDataDir, (dir) => ["embedded", dir] as const) },
    ...(TestDatabase.serverUrl
      ? [
          {
            name: "server",
            where: Effect.map(
              TestDatabase.freshServerDatabase(TestDatabase.serverUrl),
              (url) => ["server", Redacted.value(url)] as const
            )
          }
        ]
      : [])
  ]
  for (const target of targets) {
    it.live(`keeps every acknowledged write through kill -9 (${target.name})`, () =>
      Effect.gen(function* () {
        const [kind, where] = yield* target.where
        const acknowledged: Array<bigint> = []
        // Three crash rounds on the same data: recovery after a crash must need no manual step.
        for (let round = 0; round < 3; round++) {
          const child = yield* spawnWriter(kind, where)
          child.stdout!.on("data", (chunk: Buffer) => {
            for (const line of chunk.toString().split("\n")) {
              if (line.startsWith("committed ")) acknowledged.push(BigInt(line.slice(10)))
            }
          })
          yield* waitForLine(child, "committed ")
          // Killed mid-stream after a different number of commits each round (was: after 0.3, 0.7 and 1.1 s).
          const before = acknowledged.length
          yield* Effect.sync(() => acknowledged.length - before).pipe(
            Effect.repeat({ until: (count) => count >= 5 + round * 10, schedule: Schedule.spaced("5 millis") }),
            Effect.timeout("60 seconds")
          )
          child.kill("SIGKILL")
          yield* Effect.promise(() => new Promise((resolve) => child.once("exit", resolve)))
        }
        const database =
          kind === "embedded"
            ? Database.layerEmbedded({ dataDir: where })
            : Database.layerServer({ url: Redacted.make(where), maxConnections: 1 })
        const present = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ id: bigint }>`SELECT id FROM durability_probe`
          return new Set(rows.map((row) => row.id))
        }).pipe(Effect.provide(database))
        assert.isAbove(acknowledged.length, 10, "the writer committed rows before each kill")
        const lost = acknowledged.filter((id) => !present.has(id))
        assert.deepStrictEqual(lost, [])
      }).pipe(Effect.scoped)
    )
  }
})

const WRITER = Path.join(import.meta.dirname, "fixtures", "writer.ts")

const spawnWriter = (kind: string, where: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, ["--conditions=@tawsil/source", WRITER, kind, where], {
        stdio: ["ignore", "pipe", "inherit"]
      })
    ),
    (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  )

const waitForLine = (child: ChildProcess, prefix: string) =>
  Effect.callback<void, Error>((resume) => {
    let seen = ""
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.split("\n").some((line) => line.startsWith(prefix))) {
        child.stdout!.off("data", onData)
        resume(Effect.void)
      }
    }
    child.stdout!.on("data", onData)
    child.once("exit", (code) => resume(Effect.fail(new Error(`writer exited with ${code} before "${prefix}"`))))
  }).pipe(Effect.timeout("60 seconds"))
