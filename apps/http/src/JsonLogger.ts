/**
 * The app's log format: one JSON object per line on stdout — `timestamp`, `level`, `message`, and `annotations` /
 * `cause` when there are any. Written straight to the stream: Effect's `consoleJson` goes through `console.log`
 * and adds fiber ids and spans, which made logging a fifth of the CPU of a `/health` request (docs/benchmarks.md).
 * Lines are written in batches, 25 ms after a batch's first line (and at shutdown): one write per request cost a
 * tenth of a request's CPU. A `kill -9` loses at most the last 25 ms of lines. Redacted values print as
 * `<redacted>`; bigints as strings.
 *
 * The line is put together by hand, the same text `JSON.stringify` writes (a property test compares them): the
 * access line is written on every request, and `JSON.stringify` with a replacer plus `Date#toISOString` cost
 * 2.3 µs of it, a fifth of the edge.
 */
import { Cause, Clock, Context, Effect, Logger, LogLevel, References } from "effect"

const replacer = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value)

// Causes and errors do not survive JSON.stringify (they become `{}`): render them as text.
const loggable = (value: unknown): unknown =>
  Cause.isCause(value) ? Cause.pretty(value) : value instanceof Error ? `${value.name}: ${value.message}` : value

/** `value` as JSON text, `undefined` where JSON has no value for it (undefined, functions, symbols). */
const toJson = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? String(value) : "null"
    case "boolean":
      return value ? "true" : "false"
    case "bigint":
      return `"${value}"`
    default:
      return JSON.stringify(value, replacer)
  }
}

// Annotation keys as JSON strings: the same few on every line (kept for the first 1 024 keys seen).
const quotedKeys = new Map<string, string>()
const quoted = (key: string) => {
  let text = quotedKeys.get(key)
  if (text === undefined) {
    text = JSON.stringify(key)
    if (quotedKeys.size < 1024) quotedKeys.set(key, text)
  }
  return text
}

/** A record's properties as JSON text, property by property, as `JSON.stringify` writes an object. */
const recordJson = (record: Readonly<Record<string, unknown>>): string => {
  let out = ""
  for (const key of Object.keys(record)) {
    const value = toJson(record[key])
    if (value !== undefined) out += `${out === "" ? "" : ","}${quoted(key)}:${value}`
  }
  return `{${out}}`
}

// `Date#toISOString` up to the seconds, for the last second seen: the rest is the milliseconds.
let isoSecond = Number.NaN
let isoPrefix = ""
const isoTimestamp = (millis: number) => {
  const second = Math.floor(millis / 1000)
  if (second !== isoSecond) {
    isoPrefix = new Date(millis).toISOString().slice(0, -4)
    isoSecond = second
  }
  const fraction = millis - second * 1000
  return `${isoPrefix}${fraction < 10 ? "00" : fraction < 100 ? "0" : ""}${fraction}Z`
}

interface Entry {
  readonly message: unknown
  readonly logLevel: LogLevel.LogLevel
  readonly millis: number
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: Cause.Cause<unknown>
}

/** One entry as a JSON line, its annotations given as JSON text (undefined: it has none). */
const render = ({ message, logLevel, millis, cause }: Omit<Entry, "annotations">, annotations: string | undefined) => {
  const messages =
    typeof message === "string" ? undefined : (Array.isArray(message) ? message : [message]).map(loggable)
  let out = `{"timestamp":"${isoTimestamp(millis)}","level":"${logLevel.toUpperCase()}"`
  const text =
    messages === undefined
      ? JSON.stringify(message)
      : messages.length === 1
        ? toJson(messages[0])
        : JSON.stringify(messages, replacer)
  if (text !== undefined) out += `,"message":${text}`
  if (annotations !== undefined) out += `,"annotations":${annotations}`
  if (cause.reasons.length > 0) out += `,"cause":${JSON.stringify(Cause.pretty(cause))}`
  return `${out}}\n`
}

const hasKeys = (record: Readonly<Record<string, unknown>>) => {
  for (const _ in record) return true
  return false
}

/** One entry as a JSON line. */
const line = (entry: Entry) => render(entry, hasKeys(entry.annotations) ? recordJson(entry.annotations) : undefined)

/** Formats one entry as a JSON line. */
export const format = Logger.make<unknown, string>(({ message, logLevel, date, cause, fiber }) =>
  line({
    message,
    logLevel,
    millis: date.getTime(),
    annotations: fiber.getRef(References.CurrentLogAnnotations),
    cause
  })
)

/** How to add a line to each JSON logger's lines waiting for the next write. */
const addLineOf = new WeakMap<Logger.Logger<unknown, unknown>, (line: string) => void>()

/**
 * A JSON logger: its lines are written to stdout 25 ms after the first line of a batch, and at shutdown. The timer
 * is set only while lines wait, so an idle server never wakes up for its log.
 */
const make = Effect.gen(function* () {
  let pending: Array<string> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  const write = () => {
    timer = undefined
    if (pending.length === 0) return
    const lines = pending.join("")
    pending = []
    process.stdout.write(lines)
  }
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      clearTimeout(timer)
      write()
    })
  )
  const add = (text: string) => {
    if (pending.push(text) === 1) timer = setTimeout(write, 25)
  }
  const logger = Logger.make<unknown, void>((options) => add(format.log(options)))
  addLineOf.set(logger, add)
  return logger
})

export const layer = Logger.layer([make])

/** How to add a line to the JSON logger when it is the only one of `loggers`, looked up once per set of loggers. */
const addOfLoggers = new WeakMap<ReadonlySet<Logger.Logger<unknown, unknown>>, ((line: string) => void) | null>()
const onlyJsonLogger = (loggers: ReadonlySet<Logger.Logger<unknown, unknown>>) => {
  let add = addOfLoggers.get(loggers)
  if (add === undefined) {
    add = loggers.size === 1 ? (addLineOf.get(loggers.values().next().value!) ?? null) : null
    addOfLoggers.set(loggers, add)
  }
  return add ?? undefined
}

/** An object key JSON.stringify writes before the others (an array index). */
const INDEX = /^(0|[1-9][0-9]*)$/

/**
 * `Effect.logInfo(message)` with `annotations` added to those of `context`, for lines written on every request by code
 * with no fiber at hand: the edge's access line and the door's answers (`Edge.ts`). Where this JSON logger is the only
 * logger, the line goes straight to its pending lines, skipping Effect's log step (decision 0014): the loggers, level,
 * clock and annotations are read from `context` once, when made, and the annotations' JSON text is kept, so each line
 * encodes only its own. The line is the logger's, byte for byte. Anywhere else each line runs `Effect.logInfo` in
 * `context`.
 */
export const infoIn = (
  context: Context.Context<never>
): ((message: string, annotations: Readonly<Record<string, unknown>>) => void) => {
  const add = onlyJsonLogger(Context.get(context, References.CurrentLoggers))
  if (add === undefined)
    return (message, annotations) => {
      Effect.runForkWith(context)(Effect.logInfo(message).pipe(Effect.annotateLogs(annotations)))
    }
  if (LogLevel.isGreaterThan(Context.get(context, References.MinimumLogLevel), "Info")) return () => {}
  const clock = Context.get(context, Clock.Clock)
  const base = Context.get(context, References.CurrentLogAnnotations)
  const baseJson = recordJson(base)
  const baseHasKey = hasKeys(base)
  return (message, annotations) => {
    const entry = { message, logLevel: "Info" as const, millis: clock.currentTimeMillisUnsafe(), cause: Cause.empty }
    let own = ""
    for (const key in annotations) {
      // A key the context's annotations already have keeps its place among them, as Effect's annotation scope puts
      // it, and an index-like key goes first, as JSON.stringify orders an object's keys: `line` writes those.
      if (Object.hasOwn(base, key) || (baseHasKey && INDEX.test(key)))
        return add(line({ ...entry, annotations: { ...base, ...annotations } }))
      const value = toJson(annotations[key])
      if (value !== undefined) own += `${own === "" ? "" : ","}${quoted(key)}:${value}`
    }
    const json = own === "" ? baseJson : baseJson === "{}" ? `{${own}}` : `${baseJson.slice(0, -1)},${own}}`
    add(render(entry, baseHasKey || hasKeys(annotations) ? json : undefined))
  }
}
