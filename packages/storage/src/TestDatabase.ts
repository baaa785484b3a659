/**
 * Throw-away databases for tests, on every backend the machine offers: always an embedded one in a temporary
 * directory, and a fresh database on the real server when `DATABASE_URL` is set. Each is removed when its scope
 * closes. With them, what every package's SQL suite needs: the database `migrated`, a `newStore` row to hang its
 * records on, and a `transaction` around a write as the HTTP layer opens one. Import it by subpath
 * (`@tawsil/storage/TestDatabase`); production code never needs it.
 */

import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer, Redacted, Schedule, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "./Database.ts"
import * as Migrations from "./Migrations.ts"

/**
 * Where the embedded test databases live: a RAM-backed folder when the machine has one with room to spare
 * (`/dev/shm` on Linux), else the OS's temporary folder. Copying a migrated template there and removing the copy costs
 * about a quarter of the CPU it costs on disk (85 against 310 ms on a 2-core machine of ours), and the database's own
 * writes never wait on one: the database project ran in 0.91× the time (docs/benchmarks.md). A small one, such as the
 * 64 MB Docker gives a container by default, is left alone.
 */
const SCRATCH = ((): string => {
  const ram = "/dev/shm"
  try {
    const { bavail, bsize } = Fs.statfsSync(ram)
    Fs.accessSync(ram, Fs.constants.W_OK)
    if (bavail * bsize >= 4 * 1024 ** 3) return ram
  } catch {
    // No such folder, or not ours to write: the temporary folder then.
  }
  return Os.tmpdir()
})()

// initdb costs seconds; copying an initialised directory costs milliseconds. One template per machine and
// PGlite version, made by whichever test process gets there first.
const TEMPLATE = Path.join(SCRATCH, "tawsil-pglite-template-0.5.14")

const ensureTemplate = Effect.promise(async () => {
  if (Fs.existsSync(Path.join(TEMPLATE, "PG_VERSION"))) return
  const scratch = `${TEMPLATE}.${process.pid}.${randomBytes(4).toString("hex")}`
  const db = new PGlite({ dataDir: scratch })
  await db.waitReady
  await db.close()
  try {
    Fs.renameSync(scratch, TEMPLATE)
  } catch {
    Fs.rmSync(scratch, { recursive: true, force: true })
  }
})

/**
 * The same with every migration applied, made once per machine and set of migrations: the directory's name carries a
 * hash of the migration files, so a changed or added migration makes a new one. Migrating costs seconds per database.
 */
const MIGRATIONS_HASH = migrationsHash()
const MIGRATED = Path.join(SCRATCH, `tawsil-pglite-migrated-0.5.14-${MIGRATIONS_HASH}`)

function migrationsHash(): string {
  const folder = Path.join(import.meta.dirname, "migrations")
  const hash = createHash("sha256")
  for (const file of Fs.readdirSync(folder).sort()) hash.update(file).update(Fs.readFileSync(Path.join(folder, file)))
  return hash.digest("hex").slice(0, 16)
}

const ensureMigratedTemplate = Effect.gen(function* () {
  if (Fs.existsSync(Path.join(MIGRATED, "PG_VERSION"))) return
  yield* ensureTemplate
  const scratch = `${MIGRATED}.${process.pid}.${randomBytes(4).toString("hex")}`
  Fs.cpSync(TEMPLATE, scratch, { recursive: true })
  yield* Effect.scoped(
    Layer.build(Migrations.layer.pipe(Layer.provideMerge(Database.layerEmbedded({ dataDir: scratch }))))
  )
  try {
    Fs.renameSync(scratch, MIGRATED)
  } catch {
    Fs.rmSync(scratch, { recursive: true, force: true })
  }
}).pipe(Effect.orDie)

/** A copy of the data directory `template` in a new temporary directory, removed with the scope. */
const copyOf = (template: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = Fs.mkdtempSync(Path.join(SCRATCH, "tawsil-test-"))
      Fs.cpSync(template, dir, { recursive: true })
      return dir
    }),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/** A new empty data directory holding an initialised database, removed with the scope. */
export const freshDataDir: Effect.Effect<string, never, Scope.Scope> = Effect.andThen(ensureTemplate, copyOf(TEMPLATE))

/** A new data directory holding a database with every migration applied, removed with the scope. */
export const migratedDataDir: Effect.Effect<string, never, Scope.Scope> = Effect.andThen(
  ensureMigratedTemplate,
  copyOf(MIGRATED)
)

/** Runs `statement` on the server of `adminUrl` through a connection of its own; answers its rows. */
const onServer = (adminUrl: Redacted.Redacted<string>, statement: string) =>
  Effect.gen(function* () {
    const client = yield* PgClient.PgClient
    return yield* client.unsafe(statement)
  }).pipe(Effect.provide(PgClient.layer({ url: adminUrl, maxConnections: 1 })))

/**
 * A new database on the server of `adminUrl`, dropped with the scope: empty, or a copy of `template`. Returns its URL.
 */
export const freshServerDatabase = (
  adminUrl: Redacted.Redacted<string>,
  template?: string
): Effect.Effect<Redacted.Redacted<string>, never, Scope.Scope> => {
  const name = `tawsil_test_${randomBytes(6).toString("hex")}`
  const admin = (statement: string) => Effect.orDie(onServer(adminUrl, statement))
  return Effect.acquireRelease(
    Effect.as(
      admin(template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`),
      Redacted.make(withDatabase(Redacted.value(adminUrl), name))
    ),
    () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )
}

/**
 * The server's database with every migration applied, to copy (`CREATE DATABASE … TEMPLATE`): made once per server
 * and set of migrations (the name carries their hash), as the embedded one's migrated directory is. Migrating costs
 * a second per database; a copy a fraction of it. Whoever migrates first names theirs; a test process that loses the
 * race drops its own.
 */
const serverTemplate = (adminUrl: Redacted.Redacted<string>): Effect.Effect<string> =>
  Effect.gen(function* () {
    const name = `tawsil_template_${MIGRATIONS_HASH}`
    const exists = onServer(adminUrl, `SELECT 1 FROM pg_database WHERE datname = '${name}'`).pipe(
      Effect.map((rows) => rows.length > 0)
    )
    if (yield* exists) return name
    const scratch = `${name}_${randomBytes(4).toString("hex")}`
    yield* onServer(adminUrl, `CREATE DATABASE ${scratch}`)
    yield* Effect.scoped(
      Layer.build(
        Migrations.layer.pipe(
          Layer.provideMerge(
            Database.layerServer({
              url: Redacted.make(withDatabase(Redacted.value(adminUrl), scratch)),
              maxConnections: 1
            })
          )
        )
      )
    )
    // The migration's connection may take a moment to leave; a rename that finds the name taken lost the race.
    yield* onServer(adminUrl, `ALTER DATABASE ${scratch} RENAME TO ${name}`).pipe(
      Effect.retry({ times: 20, schedule: Schedule.spaced("50 millis") }),
      Effect.ignore
    )
    yield* onServer(adminUrl, `DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`)
    if (!(yield* exists)) return yield* Effect.die(new Error(`the template database ${name} could not be made`))
    return name
  }).pipe(Effect.orDie)

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** A new database on the server of `adminUrl` with every migration applied (a copy of the template), dropped with the scope. */
export const migratedServerDatabase = (
  adminUrl: Redacted.Redacted<string>
): Effect.Effect<Redacted.Redacted<string>, never, Scope.Scope> =>
  Effect.flatMap(serverTemplate(adminUrl), (template) => freshServerDatabase(adminUrl, template))

export interface Backend {
  readonly name: Database.Kind
  /** A fresh, empty database of this kind for the layer's lifetime. */
  readonly layer: Layer.Layer<Database.Services, Database.DatabaseStartError>
  /** A fresh database of this kind with every migration applied, copied from a template, for the layer's lifetime. */
  readonly migratedLayer: Layer.Layer<Database.Services, Database.DatabaseStartError>
}

export const embedded: Backend = {
  name: "embedded",
  layer: Layer.unwrap(Effect.map(freshDataDir, (dataDir) => Database.layerEmbedded({ dataDir }))),
  migratedLayer: Layer.unwrap(Effect.map(migratedDataDir, (dataDir) => Database.layerEmbedded({ dataDir })))
}

export const server = (adminUrl: Redacted.Redacted<string>): Backend => ({
  name: "server",
  layer: Layer.unwrap(
    Effect.map(freshServerDatabase(adminUrl), (url) => Database.layerServer({ url, maxConnections: 4 }))
  ),
  migratedLayer: Layer.unwrap(
    Effect.map(migratedServerDatabase(adminUrl), (url) => Database.layerServer({ url, maxConnections: 4 }))
  )
})

/** The real server's URL for tests, when the machine has one (`DATABASE_URL`). */
export const serverUrl: Redacted.Redacted<string> | undefined = process.env.DATABASE_URL
  ? Redacted.make(process.env.DATABASE_URL)
  : undefined

/** Every backend to run a storage suite on: embedded always, the real server when `DATABASE_URL` is set. */
export const backends: ReadonlyArray<Backend> = serverUrl ? [embedded, server(serverUrl)] : [embedded]

/**
 * A fresh database of `backend` with every migration applied, for the layer's lifetime: a copy of a migrated template
 * (`migratedLayer`); the migrations still run on it and find nothing left to do.
 */
export const migrated = (backend: Backend): Layer.Layer<Database.Services> =>
  Migrations.layer.pipe(Layer.provideMerge(backend.migratedLayer), Layer.orDie)

let stores = 0

/**
 * A new row of `stores`, which every store-scoped table refers to, with a name and slug of its own; `columns` sets
 * others (`plan`, `language`, …). Answers its id.
 */
export const newStore = (
  columns: Readonly<Record<string, unknown>> = {}
): Effect.Effect<number, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const slug = `store-${++stores}-${randomBytes(3).toString("hex")}`
    const [row] = yield* sql<{ readonly id: number }>`
      INSERT INTO stores ${sql.insert({ name: slug, slug, ...columns })} RETURNING id`
    return row!.id
  }).pipe(Effect.orDie)

/** `effect` in one transaction of `sql`, as the HTTP layer runs a write; a database failure is a defect. */
export const transaction =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))
