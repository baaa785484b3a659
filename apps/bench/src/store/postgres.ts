/**
 * The PostgreSQL side of the store benchmark: a scratch database on the server (dropped at the end), one-line
 * queries through `psql`, the statements the app sends as the server logs them (`log_statement = 'all'`), the
 * pgbench script's statements in the same form, and pgbench runs with their latency percentiles.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** Where Debian's PostgreSQL 15 writes its log (the statement trace reads it). */
export const SERVER_LOG = "/var/log/postgresql/postgresql-15-main.log"

/** The output of one query through `psql -At`: a one-column row is its value. */
export const psql = (url: string, sql: string): string =>
  execFileSync("psql", ["-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql, url], { encoding: "utf8" }).trim()

export const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Creates `tawsil_bench_<hex>` on the server of `adminUrl`; `drop` removes it (connections closed by force). */
export const scratchDatabase = (adminUrl: string) => {
  const name = `tawsil_bench_${randomBytes(6).toString("hex")}`
  psql(adminUrl, `CREATE DATABASE ${name}`)
  return {
    name,
    url: withDatabase(adminUrl, name),
    /** `log_statement` for the connections opened from now on (`null`: back to the server's setting). */
    logStatements: (value: "all" | null) =>
      psql(
        adminUrl,
        value === null
          ? `ALTER DATABASE ${name} RESET log_statement`
          : `ALTER DATABASE ${name} SET log_statement = 'all'`
      ),
    drop: () => psql(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Statements

/**
 * A statement reduced to its shape: whitespace collapsed, parameters (`$1` in the log, `:name` in a pgbench
 * script) and `NULL` literals (the app binds NULL as a parameter, the script writes it) turned into `?`.
 */
export const shapeOf = (sql: string) =>
  sql
    .replace(/\$\d+/g, "?")
    .replace(/(?<!:):[A-Za-z_][A-Za-z0-9_]*/g, "?")
    .replace(/\bNULL\b/g, "?")
    .replace(/\s+/g, " ")
    .replace(/\( /g, "(")
    .replace(/ \)/g, ")")
    .replace(/;$/, "")
    .trim()

/** The SQL statements of a pgbench script, in order (comments, meta-commands and `\gset` left out). */
export const scriptStatements = (script: string): Array<string> => {
  const statements: Array<string> = []
  let current: Array<string> = []
  for (const line of script.split("\n")) {
    const trimmed = line.trim()
    if (trimmed === "" || trimmed.startsWith("--") || trimmed.startsWith("\\")) continue
    const gset = trimmed.endsWith("\\gset")
    current.push(gset ? trimmed.slice(0, -"\\gset".length) : line)
    if (gset || trimmed.endsWith(";")) {
      statements.push(current.join("\n"))
      current = []
    }
  }
  return statements
}

/** The log's current size: statements logged after this offset are read by `loggedStatements`. */
export const logOffset = (): number | undefined => {
  try {
    return Fs.statSync(SERVER_LOG).size
  } catch {
    return undefined
  }
}

/**
 * The statements the server logged for `database` since `offset`, in order: `execute <name>: …` (extended
 * protocol, the app's prepared statements) and `statement: …` (simple protocol), with their continuation lines.
 */
export const loggedStatements = (database: string, offset: number): Array<string> => {
  const handle = Fs.openSync(SERVER_LOG, "r")
  try {
    const size = Fs.fstatSync(handle).size
    const buffer = Buffer.alloc(size - offset)
    Fs.readSync(handle, buffer, 0, buffer.length, offset)
    const entry = /^\S+ \S+ \S+ \[\d+\] [^@\s]+@(\S+) (\w+): {2}(.*)$/
    const statements: Array<Array<string>> = []
    let current: Array<string> | undefined
    for (const line of buffer.toString("utf8").split("\n")) {
      if (line.startsWith("\t")) {
        current?.push(line.slice(1))
        continue
      }
      current = undefined
      const match = entry.exec(line)
      if (match === null || match[1] !== database || match[2] !== "LOG") continue
      const text = /^(?:execute [^:]+|statement): (.*)$/.exec(match[3]!)
      if (text === null) continue
      current = [text[1]!]
      statements.push(current)
    }
    return statements.map((lines) => lines.join("\n"))
  } finally {
    Fs.closeSync(handle)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// pgbench

export interface PgbenchResult {
  readonly transactions: number
  readonly failed: number
  readonly tps: number
  readonly p50: number
  readonly p99: number
  readonly output: string
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/**
 * Runs `pgbench -n -M prepared -f script -c clients -j 2 -T seconds` (pinned with `command`, e.g. taskset), with
 * `variables` given as `-D name=value`. Latency percentiles (ms) come from the per-transaction log.
 */
export const pgbench = (options: {
  readonly url: string
  readonly script: string
  readonly clients: number
  readonly seconds: number
  readonly variables: Readonly<Record<string, string>>
  readonly prefix: ReadonlyArray<string>
  /** Called with pgbench's pid once it runs. */
  readonly onSpawn?: ((pid: number) => void) | undefined
}) =>
  new Promise<PgbenchResult>((resolve, reject) => {
    const logDir = Fs.mkdtempSync(Path.join(Fs.realpathSync("/tmp"), "tawsil-pgbench-"))
    const args = [
      "-n",
      "-M",
      "prepared",
      "-f",
      options.script,
      "-c",
      String(options.clients),
      "-j",
      "2",
      "-T",
      String(options.seconds),
      "-l",
      `--log-prefix=${Path.join(logDir, "tx")}`,
      ...Object.entries(options.variables).flatMap(([name, value]) => ["-D", `${name}=${value}`]),
      options.url
    ]
    const [command, ...argv] = [...options.prefix, "pgbench", ...args]
    const child = spawn(command!, argv, { stdio: ["ignore", "pipe", "pipe"] })
    if (child.pid !== undefined) options.onSpawn?.(child.pid)
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once("error", reject)
    child.once("close", (code) => {
      try {
        const number = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? Number.NaN)
        const latencies: Array<number> = []
        for (const file of Fs.readdirSync(logDir)) {
          for (const line of Fs.readFileSync(Path.join(logDir, file), "utf8").split("\n")) {
            // client_id transaction_no time_us script_no time_epoch time_us_part
            const micros = Number(line.split(" ")[2])
            if (line !== "" && Number.isFinite(micros)) latencies.push(micros / 1000)
          }
        }
        latencies.sort((a, b) => a - b)
        const transactions = number(/number of transactions actually processed: (\d+)/)
        if (!Number.isFinite(transactions)) return reject(new Error(`pgbench failed (exit ${code}):\n${output}`))
        resolve({
          transactions,
          failed: number(/number of failed transactions: (\d+)/) || 0,
          tps: number(/tps = ([0-9.]+) \(without initial connection time\)/),
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          output: code === 0 ? output : `exit ${code}\n${output}`
        })
      } finally {
        Fs.rmSync(logDir, { recursive: true, force: true })
      }
    })
  })
