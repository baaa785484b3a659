/**
 * `GET /health` on both servers: 200 while the database answers, 503 while it does not, with the same document
 * either way so that a load balancer and a person read one shape.
 */

import { Database } from "@tawsil/storage"
import { Clock, Context, Effect, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

/** This process: its row in `app_instances`, its version and when it started. */
export class RunningInstance extends Context.Service<
  RunningInstance,
  { readonly id: string; readonly version: string; readonly startedAtMillis: number }
>()("@tawsil/http/Health/RunningInstance") {}

const DatabaseHealth = Schema.Struct({
  status: Schema.Literals(["up", "down"]),
  kind: Schema.Literals(["embedded", "server"]),
  latencyMs: Schema.optionalKey(Schema.Number),
  error: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "DatabaseHealth" })

const fields = {
  service: Schema.Literals(["shipping", "store"]),
  version: Schema.String,
  instance: Schema.String.annotate({ description: "This process's id in app_instances" }),
  uptimeSeconds: Schema.Int,
  database: DatabaseHealth
}

export class HealthReport extends Schema.Class<HealthReport>("HealthReport")({
  status: Schema.Literal("ok"),
  ...fields
}) {}

export class HealthUnavailable extends Schema.Error<HealthUnavailable>("HealthUnavailable")(
  { status: Schema.Literal("unavailable"), ...fields },
  { httpApiStatus: 503 }
) {}

export class HealthGroup extends HttpApiGroup.make("health", { topLevel: true })
  .add(HttpApiEndpoint.get("health", "/health", { success: HealthReport, error: HealthUnavailable }))
  .annotateMerge(
    OpenApi.annotations({
      title: "Health",
      description: "200 while the database answers, 503 while it does not; the same document either way."
    })
  ) {}

/** Pings the database and reports. */
export const check = Effect.fn("Health.check")(function* (service: "shipping" | "store") {
  const database = yield* Database.Database
  const instance = yield* RunningInstance
  const started = yield* Clock.currentTimeMillis
  const ping = yield* Effect.result(database.ping)
  const now = yield* Clock.currentTimeMillis
  const common = {
    service,
    version: instance.version,
    instance: instance.id,
    uptimeSeconds: Math.floor((now - instance.startedAtMillis) / 1000)
  }
  if (ping._tag === "Failure") {
    return yield* new HealthUnavailable({
      status: "unavailable",
      ...common,
      database: { status: "down", kind: database.kind, error: ping.failure.reason }
    })
  }
  return new HealthReport({
    status: "ok",
    ...common,
    database: { status: "up", kind: database.kind, latencyMs: now - started }
  })
})
