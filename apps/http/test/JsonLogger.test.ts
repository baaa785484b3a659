import { assert, describe, it } from "@effect/vitest"
import { Cause, Clock, Context, Effect, Layer, Logger, Redacted, References } from "effect"
import fc from "fast-check"
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

/** Waits (up to 5 s, for a loaded machine) until `writes` holds `count` writes. */
const writtenWithin = (writes: ReadonlyArray<string>, count: number) =>
  Effect.sleep("5 millis").pipe(Effect.repeat({ until: () => writes.length >= count, times: 1_000 }))

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

  it.live("writes a batch 25 ms after its first line, in one write, while the logger runs", () =>
    Effect.gen(function* () {
      const writes: Array<string> = []
      const write = process.stdout.write
      yield* Effect.gen(function* () {
        process.stdout.write = ((chunk: string) => {
          writes.push(chunk)
          return true
        }) as typeof process.stdout.write
        yield* Effect.logInfo("first")
        yield* Effect.logInfo("second")
        assert.deepStrictEqual(writes, [], "nothing written before the batch's 25 ms")
        yield* writtenWithin(writes, 1)
        assert.lengthOf(writes, 1, "both lines in one write")
        assert.deepStrictEqual(
          writes[0]!
            .split("\n")
            .filter((line) => line !== "")
            .map((line) => JSON.parse(line).message),
          ["first", "second"]
        )
        yield* Effect.logInfo("third")
        yield* writtenWithin(writes, 2)
        assert.lengthOf(writes, 2, "a later line starts a new batch")
      }).pipe(
        Effect.provide(JsonLogger.layer),
        Effect.ensuring(
          Effect.sync(() => {
            process.stdout.write = write
          })
        )
      )
      assert.lengthOf(writes, 2, "nothing left for the shutdown write")
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

  it("writes the same text as JSON.stringify of the entry (fast-check)", () => {
    const replacer = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value)
    const value = fc.oneof(
      fc.jsonValue(),
      fc.double(),
      fc.bigInt(),
      fc.constantFrom(undefined, null, -0, Number.NaN, Number.POSITIVE_INFINITY, () => 1, Symbol("s")),
      fc.date({ noInvalidDate: true }),
      fc.string({ unit: "binary" }),
      fc.constant(Redacted.make("tw-secret-value"))
    )
    fc.assert(
      fc.property(
        fc.oneof(value, fc.array(value, { maxLength: 3 })),
        fc.dictionary(fc.string({ unit: "binary", maxLength: 8 }), value, { maxKeys: 6 }),
        fc.date({ min: new Date(-8_640_000_000_000), max: new Date(8_640_000_000_000), noInvalidDate: true }),
        fc.constantFrom("Info", "Warn", "Error", "Debug"),
        (message, annotations, date, logLevel) => {
          const fiber = { getRef: () => annotations }
          const written = JsonLogger.format.log({ message, logLevel, date, fiber, cause: Cause.empty } as never)
          const messages = Array.isArray(message) ? message : [message]
          const entry: Record<string, unknown> = {
            timestamp: date.toISOString(),
            level: logLevel.toUpperCase(),
            message: messages.length === 1 ? messages[0] : messages
          }
          if (Object.keys(annotations).length > 0) entry.annotations = annotations
          assert.strictEqual(written, `${JSON.stringify(entry, replacer)}\n`)
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it.effect("infoIn writes the logger's line, byte for byte, whatever the context's annotations (fast-check)", () =>
    Effect.gen(function* () {
      const value = fc.oneof(
        fc.jsonValue(),
        fc.bigInt(),
        fc.constantFrom(undefined, Number.NaN),
        fc.string({ unit: "binary" })
      )
      const annotations = fc.dictionary(
        fc.oneof(fc.string({ unit: "binary", maxLength: 6 }), fc.nat().map(String)),
        value,
        { maxKeys: 5 }
      )
      const cases = fc.sample(fc.tuple(annotations, annotations, fc.string({ unit: "binary" })), 500)
      const millis = Date.UTC(2026, 10, 27, 20, 40, 1, 7)
      const clock = { currentTimeMillisUnsafe: () => millis } as unknown as Clock.Clock
      const lines = yield* captureStdout(
        Effect.scoped(
          Effect.gen(function* () {
            const loggers = yield* Layer.build(JsonLogger.layer)
            for (const [base, own, message] of cases) {
              const context = Context.add(
                Context.add(loggers, References.CurrentLogAnnotations, base),
                Clock.Clock,
                clock
              )
              JsonLogger.infoIn(context)(message, own)
            }
          })
        )
      )
      assert.lengthOf(lines, cases.length)
      cases.forEach(([base, own, message], i) => {
        const fiber = { getRef: () => ({ ...base, ...own }) }
        const expected = JsonLogger.format.log({
          message,
          logLevel: "Info",
          date: new Date(millis),
          fiber,
          cause: Cause.empty
        } as never)
        assert.strictEqual(`${lines[i]}\n`, expected)
      })
    })
  )

  it.effect("infoIn writes nothing below the minimum level, and goes through Effect's log beside other loggers", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      const other = Logger.make(({ message }) => {
        seen.push(message)
      })
      const lines = yield* captureStdout(
        Effect.scoped(
          Effect.gen(function* () {
            const json = yield* Layer.build(JsonLogger.layer)
            JsonLogger.infoIn(Context.add(json, References.MinimumLogLevel, "Warn"))("quiet", { status: 200 })
            const both = yield* Layer.build(Logger.layer([other], { mergeWithExisting: true })).pipe(
              Effect.provideContext(json)
            )
            JsonLogger.infoIn(Context.merge(json, both))("request", { status: 200 })
            yield* Effect.yieldNow
          })
        )
      )
      assert.deepStrictEqual(seen, [["request"]])
      assert.deepStrictEqual(
        lines.map((line) => JSON.parse(line).message),
        ["request"]
      )
    })
  )
})
