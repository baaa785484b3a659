/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), written from its specification
 * (prometheus.io/docs/instrumenting/exposition_formats): `# HELP` and `# TYPE` lines, then samples
 * `name{label="value",…} value [timestamp]`, label values escaped with `\\`, `\"` and `\n`. It throws on any line
 * that breaks the format, on a sample before its family's `TYPE`, on a family typed twice, on a histogram whose
 * buckets are not cumulative or whose `+Inf` bucket differs from its `_count`.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped"
  readonly help: string | undefined
  readonly samples: Array<Sample>
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

const parseValue = (text: string, line: string): number => {
  if (text === "+Inf") return Number.POSITIVE_INFINITY
  if (text === "-Inf") return Number.NEGATIVE_INFINITY
  if (text === "NaN") return Number.NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a value: ${JSON.stringify(line)}`)
  return Number(text)
}

/** The labels between `{` and `}`, from `start` (just after `{`); returns them and the index after `}`. */
const parseLabels = (line: string, start: number) => {
  const labels: Record<string, string> = {}
  let i = start
  for (;;) {
    if (line[i] === "}") return { labels, end: i + 1 }
    const equals = line.indexOf("=", i)
    if (equals === -1) throw new Error(`bad labels: ${JSON.stringify(line)}`)
    const name = line.slice(i, equals)
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${JSON.stringify(name)}: ${JSON.stringify(line)}`)
    if (name in labels) throw new Error(`label ${name} twice: ${JSON.stringify(line)}`)
    if (line[equals + 1] !== '"') throw new Error(`unquoted label value: ${JSON.stringify(line)}`)
    let value = ""
    let j = equals + 2
    for (;;) {
      const c = line[j]
      if (c === undefined) throw new Error(`unterminated label value: ${JSON.stringify(line)}`)
      if (c === '"') break
      if (c === "\\") {
        const next = line[j + 1]
        if (next === "\\") value += "\\"
        else if (next === '"') value += '"'
        else if (next === "n") value += "\n"
        else throw new Error(`bad escape in label value: ${JSON.stringify(line)}`)
        j += 2
      } else {
        value += c
        j++
      }
    }
    labels[name] = value
    i = j + 1
    if (line[i] === ",") i++
    else if (line[i] !== "}") throw new Error(`expected , or } after a label: ${JSON.stringify(line)}`)
  }
}

/** The family a sample name belongs to: histograms' and summaries' `_bucket`, `_sum`, `_count` suffixes. */
const familyOf = (name: string, families: ReadonlyMap<string, Family>) => {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!name.endsWith(suffix)) continue
    const base = families.get(name.slice(0, -suffix.length))
    if (base !== undefined && (base.type === "histogram" || base.type === "summary")) return base
  }
  return families.get(name)
}

export const parse = (text: string): ReadonlyMap<string, Family> => {
  const families = new Map<string, Family>()
  if (text !== "" && !text.endsWith("\n")) throw new Error("the exposition does not end with a line feed")
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
      if (match === null) continue // a plain comment
      const [, keyword, name, rest] = match as unknown as [string, string, string, string]
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name: ${JSON.stringify(line)}`)
      const known = families.get(name)
      if (keyword === "TYPE") {
        if (!TYPES.has(rest)) throw new Error(`unknown type: ${JSON.stringify(line)}`)
        if (known !== undefined && (known.samples.length > 0 || known.type !== "untyped")) {
          throw new Error(`TYPE of ${name} after its samples or twice`)
        }
        families.set(name, { name, type: rest as Family["type"], help: known?.help, samples: [] })
      } else {
        families.set(name, { name, type: known?.type ?? "untyped", help: rest, samples: known?.samples ?? [] })
      }
      continue
    }
    const brace = line.indexOf("{")
    const space = line.indexOf(" ")
    const nameEnd = brace !== -1 && (space === -1 || brace < space) ? brace : space
    if (nameEnd <= 0) throw new Error(`not a sample: ${JSON.stringify(line)}`)
    const name = line.slice(0, nameEnd)
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name: ${JSON.stringify(line)}`)
    const { labels, end } = line[nameEnd] === "{" ? parseLabels(line, nameEnd + 1) : { labels: {}, end: nameEnd }
    const fields = line.slice(end).trim().split(/ +/)
    if (fields.length < 1 || fields.length > 2 || fields[0] === "") {
      throw new Error(`expected a value and an optional timestamp: ${JSON.stringify(line)}`)
    }
    const family = familyOf(name, families)
    if (family === undefined || family.type === "untyped") throw new Error(`sample of ${name} before its TYPE`)
    family.samples.push({ name, labels, value: parseValue(fields[0]!, line) })
  }
  for (const family of families.values()) {
    if (family.type !== "histogram") continue
    const series = new Map<string, Array<Sample>>()
    for (const sample of family.samples) {
      const { le: _, ...rest } = sample.labels
      const key = JSON.stringify(Object.entries(rest).sort())
      series.set(key, [...(series.get(key) ?? []), sample])
    }
    for (const samples of series.values()) {
      const buckets = samples.filter((sample) => sample.name === `${family.name}_bucket`)
      const count = samples.find((sample) => sample.name === `${family.name}_count`)
      const infinite = buckets.find((bucket) => bucket.labels.le === "+Inf")
      if (count === undefined || infinite === undefined || infinite.value !== count.value) {
        throw new Error(`histogram ${family.name}: +Inf bucket and _count disagree`)
      }
      for (let i = 1; i < buckets.length; i++) {
        if (buckets[i]!.value < buckets[i - 1]!.value)
          throw new Error(`histogram ${family.name}: buckets not cumulative`)
      }
    }
  }
  return families
}

/** The value of the sample `name` whose labels include `labels`, summed over the matching series (0 if none). */
export const value = (
  families: ReadonlyMap<string, Family>,
  name: string,
  labels: Readonly<Record<string, string>> = {}
): number => {
  let total = 0
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue
      if (Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted)) total += sample.value
    }
  }
  return total
}
