/**
 * Runs the app as `npm start` runs it — a real process on real sockets — for tests. The command line is read
 * from the root package.json's `start` script, so the tests exercise exactly what the README tells users to run.
 */

import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Effect, type Scope } from "effect"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const startArgs = (): ReadonlyArray<string> => {
  const manifest = JSON.parse(readFileSync(Path.join(ROOT, "package.json"), "utf8")) as {
    scripts: { start: string }
  }
  const [command, ...args] = manifest.scripts.start.split(" ")
  if (command !== "node") throw new Error(`the start script should run node, not ${command}`)
  return args
}

export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface AppProcess {
  readonly child: ChildProcess
  readonly shippingUrl: string
  readonly storeUrl: string
  /** The Prometheus listener's `/metrics` URL, unless `METRICS_PORT=off`. */
  readonly metricsUrl: string | undefined
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<Exited>
}

/**
 * Node's on-disk compile cache, shared by every process a test run spawns: the app's hundreds of modules are compiled
 * once, not at each of the suite's boots (about a tenth of a boot's CPU). Node checks each entry against its source.
 */
const COMPILE_CACHE = Path.join(Os.tmpdir(), "tawsil-test-compile-cache")

/** The environment of a test run: nothing inherited but PATH and HOME, ports chosen by the OS. */
export const environment = (env: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  NODE_COMPILE_CACHE: COMPILE_CACHE,
  SHIPPING_PORT: "0",
  STORE_PORT: "0",
  // Several test processes run at once: each takes a free port for its Prometheus listener too.
  METRICS_PORT: "0",
  ...env
})

/** Spawns the app; the process is SIGKILLed when the scope closes if it still runs. */
export const spawnApp = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, [...startArgs()], {
        cwd: ROOT,
        env: environment(env),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout!.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      const exited = new Promise<Exited>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
      return { child, exited, stdout: () => stdout, stderr: () => stderr }
    }),
    ({ child }) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

const listeningUrls = (stdout: string) => {
  const urls: Record<string, string> = {}
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue
    const entry = JSON.parse(line) as { message: string; annotations: { api?: string; url?: string } }
    if (entry.message === "listening" && entry.annotations.api && entry.annotations.url) {
      urls[entry.annotations.api] = entry.annotations.url
    }
  }
  return urls
}

/** Starts the app and waits until both servers listen, or fails with what the process printed. */
export const startApp = (
  env: Record<string, string>,
  options: { readonly within?: number } = {}
): Effect.Effect<AppProcess, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const app = yield* spawnApp(env)
    const urls = yield* Effect.callback<Record<string, string>, Error>((resume) => {
      const check = () => {
        const urls = listeningUrls(app.stdout())
        if (urls.shipping && urls.store) {
          app.child.stdout!.off("data", check)
          resume(Effect.succeed(urls))
        }
      }
      app.child.stdout!.on("data", check)
      app.exited.then((exit) =>
        resume(
          Effect.fail(new Error(`the app exited (${exit.code ?? exit.signal}) before listening:\n${app.stderr()}`))
        )
      )
    }).pipe(
      Effect.timeoutOrElse({
        duration: options.within ?? 90_000,
        orElse: () => Effect.fail(new Error(`the app did not listen in time:\n${app.stdout()}\n${app.stderr()}`))
      })
    )
    return { ...app, shippingUrl: urls.shipping!, storeUrl: urls.store!, metricsUrl: urls.metrics }
  })

/**
 * A JSON `POST` to `url`: the answer's status and headers, its body as text, bytes and Latin-1 (a PDF's bytes read as
 * text), and its JSON when the answer says it is JSON.
 */
export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    const bytes = Buffer.from(await response.arrayBuffer())
    const text = bytes.toString("utf8")
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
    const json: any = (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined
    return { status: response.status, headers: response.headers, text, bytes, latin1: bytes.toString("latin1"), json }
  })

export const getJson = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
    return { status: response.status, body: (await response.json()) as any }
  })

export const waitForExit = (app: { readonly exited: Promise<Exited> }) => Effect.promise(() => app.exited)

export interface AdminRun {
  readonly code: number | null
  readonly stderr: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON field by field
  readonly json: any
}

/**
 * Runs the admin CLI as operators do (`npm run admin -- …`, read from the root package.json) with `env`; fails
 * unless its stdout is exactly one JSON object on one line.
 */
export const runAdmin = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.callback<AdminRun & { readonly stdout: string }, Error>((resume) => {
    const manifest = JSON.parse(readFileSync(Path.join(ROOT, "package.json"), "utf8")) as {
      scripts: { admin: string }
    }
    const [command, ...script] = manifest.scripts.admin.split(" ")
    if (command !== "node") return resume(Effect.fail(new Error(`the admin script should run node, not ${command}`)))
    const child = spawn(process.execPath, [...script, ...args], {
      cwd: ROOT,
      env: environment(env),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("close", (code) => {
      const lines = stdout.split("\n").filter((line) => line !== "")
      if (lines.length !== 1 || !lines[0]!.startsWith("{")) {
        return resume(Effect.fail(new Error(`the admin CLI should print one JSON line, got:\n${stdout}\n${stderr}`)))
      }
      resume(Effect.succeed({ code, stdout, stderr, json: JSON.parse(lines[0]!) }))
    })
  })

/**
 * The CPU time (user + system, seconds) a running process has used, from `/proc/<pid>/stat`; `undefined` where
 * there is no `/proc`. Unlike wall time it does not grow while the process waits for a core other tests hold.
 */
export const cpuSeconds = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the 12th and
    // 13th, in clock ticks of 1/100 s on Linux.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}
