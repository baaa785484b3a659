/**
 * Idle memory (issue 22): the app started `--starts` times one after the other on a scratch database of a real
 * PostgreSQL, each left alone, its resident memory (`VmRSS`, and the anonymous part, `RssAnon`) read at `--at`
 * seconds after both servers have written their `listening` line. Prints one row per start and the median of each
 * reading; no result is asserted.
 *
 * `--from build` runs what `npm start` runs (the build first, `tsc -b tsconfig.app.json`, then
 * `apps/http/dist/main.js`, decision 0029); `--from source` runs the TypeScript sources, as `npm start` did before
 * (`--conditions=@tawsil/source apps/http/src/main.ts`).
 *
 *   npm run bench:idle -- [--from build|source] [--starts 5] [--at 5,20,40,60,90] [--node-option <flag>]...
 *
 * Needs `psql`, and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { execFileSync, spawn } from "node:child_process"
import * as Path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { parseArgs } from "node:util"
import { median, memoryOf } from "./host.ts"
import { scratchDatabase } from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    from: { type: "string", default: "build" },
    starts: { type: "string", default: "5" },
    at: { type: "string", default: "5,20,40,60,90" },
    "node-option": { type: "string", multiple: true, default: [] }
  }
})
const readings = values.at.split(",").map(Number)
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const entry = (() => {
  if (values.from === "source") return ["--conditions=@tawsil/source", Path.join(ROOT, "apps/http/src/main.ts")]
  if (values.from !== "build") throw new Error(`--from is build or source, not ${values.from}`)
  // The build `npm start` makes before it starts (its `prestart` script, run as is).
  execFileSync("npm", ["run", "--silent", "prestart"], { cwd: ROOT, stdio: "inherit" })
  return [Path.join(ROOT, "apps/http/dist/main.js")]
})()

/** One start: the readings at each of `readings` seconds after both `listening` lines. */
const oneStart = async (databaseUrl: string) => {
  const child = spawn(process.execPath, [...(values["node-option"] ?? []), ...entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      SHIPPING_PORT: "0",
      STORE_PORT: "0",
      METRICS_PORT: "off"
    },
    stdio: ["ignore", "pipe", "inherit"]
  })
  try {
    let stdout = ""
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the app did not listen within 60 s")), 60_000)
      child.stdout!.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8")
        if (stdout.split('"message":"listening"').length - 1 >= 2) {
          clearTimeout(timer)
          resolve()
        }
      })
      child.once("exit", (code) => reject(new Error(`the app exited with ${code}`)))
    })
    const listening = Date.now()
    const read: Array<{ rss: number; anonymous: number }> = []
    for (const seconds of readings) {
      await sleep(Math.max(0, listening + seconds * 1000 - Date.now()))
      read.push(memoryOf(child.pid!))
    }
    return read
  } finally {
    child.kill("SIGTERM")
    await new Promise((resolve) => child.once("exit", resolve))
  }
}

const main = async () => {
  const database = scratchDatabase(adminUrl)
  try {
    const starts: Array<Array<{ rss: number; anonymous: number }>> = []
    for (let i = 0; i < Number(values.starts); i++) starts.push(await oneStart(database.url))
    const mb = (n: number) => n.toFixed(1)
    const header = readings.map((seconds) => `${seconds} s`)
    console.log(
      [
        `idle memory, ${values.from === "build" ? "the build (npm start)" : "the sources"}${values["node-option"]?.length ? `, node ${values["node-option"].join(" ")}` : ""}: VmRSS in MB after both listening lines (anonymous at the last reading)`,
        `| start | ${header.join(" | ")} | anonymous |`,
        `| --- | ${header.map(() => "---").join(" | ")} | --- |`,
        ...starts.map(
          (read, i) => `| ${i + 1} | ${read.map((r) => mb(r.rss)).join(" | ")} | ${mb(read.at(-1)!.anonymous)} |`
        ),
        `| median | ${readings.map((_, j) => mb(median(starts.map((read) => read[j]!.rss)))).join(" | ")} | ${mb(median(starts.map((read) => read.at(-1)!.anonymous)))} |`
      ].join("\n")
    )
  } finally {
    database.drop()
  }
}

await main()
