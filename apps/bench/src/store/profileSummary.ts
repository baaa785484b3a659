/**
 * Where a V8 CPU profile's time goes (`node --cpu-prof`, e.g. the app under `npm run bench:store -- --cpu-prof
 * <dir>`): self time by origin (a package, our workspace packages, Node's internals, GC, idle), then the functions
 * with the most inclusive and self time.
 *
 * Samples are taken on the wall clock: a process that is often descheduled (the app shares its core with
 * PostgreSQL's backends) gets one sample with a long time delta for each time it waits to run again, charged to
 * whatever it was doing (mostly the socket write that woke a backend). `--weight samples` (the default) counts
 * each sample once, which approximates time on the CPU; `--weight time` uses the deltas, i.e. wall time.
 *
 *   node --conditions=@tawsil/source apps/bench/src/store/profileSummary.ts <file.cpuprofile> [--top 25]
 *     [--weight samples|time]
 */
import * as Fs from "node:fs"
import { parseArgs } from "node:util"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, weight: { type: "string", default: "samples" } }
})

/** Where in `effect` a frame is: the parts a request path uses, the rest being the runtime (fibers, context…). */
const effectArea = (url: string) =>
  /\/Schema|\/schema\//.test(url)
    ? "Schema"
    : /dateTime|DateTime/.test(url)
      ? "DateTime"
      : /\/dist\/sql\//.test(url)
        ? "sql"
        : /\/dist\/http/.test(url)
          ? "http"
          : "runtime"

/**
 * The origin of a frame: an npm package (`effect` split by area), one of our workspaces, Node itself, or V8's
 * pseudo-frames; native socket writes are named, since a request's statements each cost one.
 */
export const originOf = (frame: CallFrame): string => {
  const { url, functionName } = frame
  if (url === "") {
    if (functionName === "writeBuffer" || functionName === "writev") return "(native) socket writes"
    return functionName.startsWith("(") ? functionName : "(native)"
  }
  const nodeModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (nodeModules !== null) return nodeModules[1] === "effect" ? `effect ${effectArea(url)}` : nodeModules[1]!
  const workspace = /\/(packages|adapters|apps)\/([^/]+)\//.exec(url)
  if (workspace !== null) return `${workspace[1]}/${workspace[2]}`
  if (url.startsWith("node:")) return "node (internals)"
  return url
}

const label = (frame: CallFrame) => {
  const file = frame.url.replace(/^.*\/(node_modules|packages|adapters|apps)\//, "$1/")
  return `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`
}

const summarize = (profile: Profile, top: number) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const selfTime = new Map<number, number>()
  let total = 0
  for (let index = 0; index < profile.samples.length; index++) {
    const delta = values.weight === "time" ? Math.max(0, profile.timeDeltas[index] ?? 0) : 1
    const id = profile.samples[index]!
    selfTime.set(id, (selfTime.get(id) ?? 0) + delta)
    total += delta
  }

  const byOrigin = new Map<string, number>()
  const selfByFunction = new Map<string, number>()
  const inclusiveByFunction = new Map<string, number>()
  for (const [id, time] of selfTime) {
    const node = byId.get(id)!
    const origin = originOf(node.callFrame)
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + time)
    const own = label(node.callFrame)
    selfByFunction.set(own, (selfByFunction.get(own) ?? 0) + time)
    // Each function on the stack once, however deep it recurses.
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!.callFrame)
      if (seen.has(name)) continue
      seen.add(name)
      inclusiveByFunction.set(name, (inclusiveByFunction.get(name) ?? 0) + time)
    }
  }

  const percent = (time: number) => `${((100 * time) / total).toFixed(1).padStart(5)} %`
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1])
  const lines = [
    values.weight === "time" ? `${(total / 1e6).toFixed(1)} s sampled (wall time)` : `${total} samples`,
    "",
    "self time by origin:"
  ]
  for (const [origin, time] of sorted(byOrigin).slice(0, top)) lines.push(`  ${percent(time)}  ${origin}`)
  lines.push("", "functions by inclusive time:")
  for (const [name, time] of sorted(inclusiveByFunction).slice(0, top)) lines.push(`  ${percent(time)}  ${name}`)
  lines.push("", "functions by self time:")
  for (const [name, time] of sorted(selfByFunction).slice(0, top)) lines.push(`  ${percent(time)}  ${name}`)
  return lines.join("\n")
}

if (positionals.length === 0) {
  console.error("usage: profileSummary.ts <file.cpuprofile> [--top 25]")
  process.exit(2)
}
for (const file of positionals) {
  const profile = JSON.parse(Fs.readFileSync(file, "utf8")) as Profile
  console.log(`${file}\n${summarize(profile, Number(values.top))}\n`)
}
