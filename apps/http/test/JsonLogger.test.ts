import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Redacted } from "effect"
import * as JsonLogger from "../src/JsonLogger.ts"

const captureStdout = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const lines: Array<string> = []
      const write = process.stdout.write
      process.stdout.write = ((chunk: string) => {
        lines.push(chunk)
        return true
      }) as typeof process.stdout.write
      return { lines, write }
    }),
    ({ lines }) =>
      Effect.map(effect, () =>
        lines
          .join("")
          .split("\n")
          .filter((line) => line !== "")
      ),
    ({ write }) =>
      Effect.sync(() => {
        process.stdout.write = write
      })
  )

describe("JsonLogger", () => {
  it.effect("writes one JSON object per line, with annotations, and never a secret's value", () =>
    Effect.gen(function* () {
      const lines = yield* captureStdout(
        Effect.logInfo("request").pipe(
          Effect.annotateLogs({ status: 200, id: 12n, token: Redacted.make("tw-secret-value") }),
          Effect.provide(JsonLogger.layer)
        )
      )
      assert.lengthOf(lines, 1)
      const entry = JSON.parse(lines[0]!)
      assert.strictEqual(entry.level, "INFO")
      assert.strictEqual(entry.message, "request")
      assert.deepStrictEqual(entry.annotations, { status: 200, id: "12", token: "<redacted>" })
      assert.notInclude(lines[0], "tw-secret-value")
    })
  )

  it.effect("renders errors and causes as text rather than {}", () =>
    Effect.gen(function* () {
      const lines = yield* captureStdout(
        Effect.gen(function* () {
          yield* Effect.logError("failed", new TypeError("boom"))
          yield* Effect.logError("unhandled failure", Cause.die(new Error("kaboom")))
        }).pipe(Effect.provide(JsonLogger.layer))
      )
      const [error, cause] = lines.map((line) => JSON.parse(line))
      assert.deepStrictEqual(error.message, ["failed", "TypeError: boom"])
      assert.include(JSON.stringify(cause), "kaboom")
    })
  )
})
