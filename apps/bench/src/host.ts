/**
 * The machine side of the benchmarks: a free loopback port, pinning servers to CPU 0 and the load generator to
 * CPU 1 (when `taskset` exists), and the CPU time (user + system) of processes read from `/proc/<pid>/stat` while
 * they run — how much of a core a server, pgbench or the PostgreSQL backends spent per answer, which a machine
 * shared with other work disturbs less than a rate does. Linux only for CPU times; elsewhere every reading is 0.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"

/** A port free on 127.0.0.1 a moment ago. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = Net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

export const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** The command prefix that runs a server on CPU 0 (nothing without `taskset`). */
export const onCpu0: ReadonlyArray<string> = hasTaskset ? ["taskset", "-c", "0"] : []

/** Moves this process (the load generator) to CPU 1, away from the servers. */
export const pinSelfToCpu1 = () => {
  if (hasTaskset) execFileSync("taskset", ["-p", "-c", "1", String(process.pid)], { stdio: "ignore" })
}

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`; 100 on Linux). */
const TICKS_PER_SECOND = 100

/** The process's CPU time so far in ms, or undefined once it is gone. */
export const cpuMillis = (pid: number): number | undefined => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/**
 * Follows processes until `stop`: each one's CPU time from its first reading (or from 0, for a process started
 * after the sampler, such as pgbench and its backends) to its last, polled every `intervalMs`.
 */
export const sampler = (options: { readonly intervalMs?: number } = {}) => {
  const first = new Map<number, number>()
  const last = new Map<number, number>()
  const read = () => {
    for (const pid of first.keys()) {
      const now = cpuMillis(pid)
      if (now !== undefined) last.set(pid, now)
    }
  }
  const timer = setInterval(read, options.intervalMs ?? 100)
  return {
    /** Starts following `pids`: from now, or from their start when `fromStart`. */
    follow: (pids: ReadonlyArray<number>, fromStart = false) => {
      for (const pid of pids) {
        if (first.has(pid)) continue
        const now = cpuMillis(pid)
        if (now === undefined) continue
        first.set(pid, fromStart ? 0 : now)
        last.set(pid, now)
      }
    },
    /** Stops polling; the CPU ms each group of pids spent. */
    stop: () => {
      clearInterval(timer)
      read()
      const spent = (pids: ReadonlyArray<number>) =>
        pids.reduce((sum, pid) => sum + Math.max(0, (last.get(pid) ?? 0) - (first.get(pid) ?? 0)), 0)
      return spent
    }
  }
}

/** Resident memory of a process in MB: all of it (`VmRSS`) and its anonymous part (`RssAnon`). */
export const memoryOf = (pid: number) => {
  const status = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const mb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) / 1024
  return { rss: mb("VmRSS"), anonymous: mb("RssAnon") }
}

/**
 * Instructions counted by valgrind's callgrind, which a machine shared with other work does not move (within a few
 * percent from run to run), unlike rates and CPU times. Start the server with `prefix` (instrumentation off), warm it
 * up, then `count` turns instrumentation on around `run` and dumps; `totals` reads the dumps: the main thread
 * (`-01`) and all threads (V8's compiler and GC helpers besides). Give node `nodeOptions`: V8 then optimises on the
 * main thread, as soon as a function is hot — under valgrind its background compiler got so little time that part of
 * the counted code still ran unoptimised, thousands of requests after the warm-up.
 *
 * That compiling is not the request's work, and how much of it falls inside the counted requests varies from run to
 * run (40–120 k instructions per sandbox create in three runs of one build, 2026-11-27): `compiler()` is the main
 * thread's instructions in V8's optimising compilers (their functions' names, read by `callgrind_annotate`), so that
 * `main − compiler` compares two builds within a few thousand instructions where `main` alone moved by tens of
 * thousands.
 *
 * The app also works while nobody calls it: the webhook dispatcher's and tracker's polls, timers. Under valgrind a
 * counted run lasts a minute or more, so that background falls into the count at tens of thousands of instructions
 * per request (the polls' statements). `count` therefore leaves instrumentation on, idle, for as long again as the
 * run took, and dumps that too: `idle()` is what the process did with no request, to subtract.
 */
export const callgrind = () => {
  const dir = Fs.mkdtempSync("/tmp/tawsil-callgrind-")
  const outFile = `${dir}/callgrind.out`
  return {
    dir,
    nodeOptions: ["--no-concurrent-recompilation"],
    prefix: [
      "valgrind",
      "--tool=callgrind",
      "-q",
      "--instr-atstart=no",
      "--smc-check=all-non-file",
      "--separate-threads=yes",
      `--callgrind-out-file=${outFile}`
    ],
    count: async (pid: number, run: () => Promise<void>) => {
      execFileSync("callgrind_control", ["-i", "on", String(pid)], { stdio: "ignore" })
      const began = Date.now()
      await run()
      execFileSync("callgrind_control", ["-d", String(pid)], { stdio: "ignore" })
      // Idle for as long as the run took, counted into the second dump.
      await new Promise((resolve) => setTimeout(resolve, Date.now() - began))
      execFileSync("callgrind_control", ["-d", String(pid)], { stdio: "ignore" })
      execFileSync("callgrind_control", ["-i", "off", String(pid)], { stdio: "ignore" })
    },
    /** The counted run's instructions: the main thread's, and all threads'. */
    totals: () => dumpTotals(dir, 1),
    /** The main thread's instructions while idle for as long as the run took (see above). */
    idle: () => dumpTotals(dir, 2).main,
    /** The counted run's main-thread instructions in V8's optimising compilers. */
    compiler: () => compilerInstructions(dir)
  }
}

/** The instructions of dump `dump` (callgrind names its files `callgrind.out.<dump>-<thread>`). */
const dumpTotals = (dir: string, dump: number) => {
  // `totals:` rather than `summary:`, which the final dump can wrap around below zero while instrumentation is off.
  let main = 0
  let all = 0
  for (const name of Fs.readdirSync(dir)) {
    if (!name.startsWith(`callgrind.out.${dump}-`)) continue
    const totals = /^totals: (\d+)/m.exec(Fs.readFileSync(`${dir}/${name}`, "utf8"))
    if (totals === null) continue
    all += Number(totals[1])
    if (name.endsWith("-01")) main += Number(totals[1])
  }
  return { main, all }
}

/** The instructions of a dump's functions that belong to V8's optimising compilers (TurboFan, Turboshaft, Maglev). */
const COMPILER = /v8::internal::(compiler|maglev|turboshaft)::/i

/** The counted run's main-thread instructions in V8's optimising compilers (see `callgrind`). */
const compilerInstructions = (dir: string) => {
  const annotated = execFileSync(
    "callgrind_annotate",
    ["--inclusive=no", "--threshold=100", `${dir}/callgrind.out.1-01`],
    {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024
    }
  )
  let total = 0
  for (const line of annotated.split("\n")) {
    const cost = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line)
    if (cost !== null && COMPILER.test(cost[2]!)) total += Number(cost[1]!.replaceAll(",", ""))
  }
  return total
}

/** The median of `values`: the middle one, or the mean of the middle two for an even count (four rounds, say). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
