import { assert, describe, it } from "@effect/vitest"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Tracer } from "effect"

/** A service written the way every request-path service is: its methods from `ServiceSpans.method`. */
class Greeter extends Context.Service<
  Greeter,
  { readonly greet: (name: string) => Effect.Effect<string>; readonly twice: (name: string) => Effect.Effect<string> }
>()("test/Greeter") {}

const layer = Layer.effect(
  Greeter,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const span = yield* ServiceSpans.span
    const greet = method("Greeter.greet")(function* (name: string) {
      const greeting = yield* Effect.succeed("salam")
      return `${greeting} ${name}`
    })
    return Greeter.of({
      greet,
      twice: (name) => Effect.map(greet(name), (text) => `${text}, ${text}`).pipe(span("Greeter.twice"))
    })
  })
)

/** The span names a run opens, through a tracer that records them. */
const spansOf = (effect: Effect.Effect<unknown, never, Greeter>, services: Layer.Layer<Greeter>) =>
  Effect.gen(function* () {
    const names: Array<string> = []
    const tracer = Tracer.make({
      span: (options) => {
        names.push(options.name)
        return new Tracer.NativeSpan(options)
      }
    })
    yield* effect.pipe(Effect.provide(services), Effect.withTracer(tracer))
    return names
  })

const use = Effect.gen(function* () {
  const greeter = yield* Greeter
  assert.strictEqual(yield* greeter.greet("Amina"), "salam Amina")
  assert.strictEqual(yield* greeter.twice("Yanis"), "salam Yanis, salam Yanis")
})

describe("ServiceSpans", () => {
  it.effect("is on by default: each method call and each wrapped step opens its span", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* spansOf(use, layer), ["Greeter.greet", "Greeter.twice", "Greeter.greet"])
    })
  )

  it.effect("off where the host says so (the bundled app): the same calls open none and answer the same", () =>
    Effect.gen(function* () {
      const quiet = layer.pipe(Layer.provide(Layer.succeed(ServiceSpans.ServiceSpans, false)))
      assert.deepStrictEqual(yield* spansOf(use, quiet), [])
    })
  )
})
