/**
 * Whether the services' methods open spans (decision 0013). On by default: a host that embeds these packages with a
 * tracer sees every service call. The bundled app, which exports no traces, turns them off — a span costs about
 * 40 000 instructions of a request, 7 % of a store order create for its four service spans. Read once, when a
 * service's layer is built, so a method pays nothing to ask.
 */
import { Context, Effect, identity } from "effect"

export const ServiceSpans = Context.Reference<boolean>("@tawsil/tracing/ServiceSpans", { defaultValue: () => true })

/**
 * The way a service defines its methods, `method("Orders.create")(function* (…) { … })`: `Effect.fn(name)` with
 * spans on, `Effect.fnUntraced` with them off.
 */
export const method: Effect.Effect<(name: string) => Effect.fn.Untraced> = Effect.map(
  Effect.service(ServiceSpans),
  (on) => (on ? (name: string) => Effect.fn(name) : () => Effect.fnUntraced)
)

/** `Effect.withSpan(name)` with spans on, nothing with them off: for a span around a step that is not a method. */
export const span: Effect.Effect<
  (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
> = Effect.map(Effect.service(ServiceSpans), (on) => (on ? (name: string) => Effect.withSpan(name) : () => identity))
