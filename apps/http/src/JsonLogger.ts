/**
 * The app's log format: one JSON object per line on stdout — `timestamp`, `level`, `message`, and `annotations` /
 * `cause` when there are any. Written straight to the stream: Effect's `consoleJson` goes through `console.log`
 * and adds fiber ids and spans, which made logging a fifth of the CPU of a `/health` request (docs/benchmarks.md).
 * Lines are written in batches every 25 ms (and at shutdown): one write per request cost a tenth of a request's CPU.
 * A `kill -9` loses at most the last 25 ms of lines. Redacted values print as `<redacted>`; bigints as strings.
 */
import { Cause, Effect, Logger, References } from "effect"

const replacer = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value)

// Causes and errors do not survive JSON.stringify (they become `{}`): render them as text.
const loggable = (value: unknown): unknown =>
  Cause.isCause(value) ? Cause.pretty(value) : value instanceof Error ? `${value.name}: ${value.message}` : value

/** Formats one entry as a JSON line. */
export const format = Logger.make<unknown, string>(({ message, logLevel, date, fiber, cause }) => {
  const messages = (Array.isArray(message) ? message : [message]).map(loggable)
  const entry: Record<string, unknown> = {
    timestamp: date.toISOString(),
    level: logLevel.toUpperCase(),
    message: messages.length === 1 ? messages[0] : messages
  }
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  for (const _ in annotations) {
    entry.annotations = annotations
    break
  }
  if (cause.reasons.length > 0) entry.cause = Cause.pretty(cause)
  return `${JSON.stringify(entry, replacer)}\n`
})

export const layer = Logger.layer([
  Logger.batched(format, {
    window: "25 millis",
    flush: (lines) =>
      Effect.sync(() => {
        process.stdout.write(lines.join(""))
      })
  })
])
