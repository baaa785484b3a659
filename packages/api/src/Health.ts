/**
 * The health endpoint both servers answer (`GET /health`): 200 while the database answers, 503 while it does not,
 * with the same document either way. Definitions only; the check is the app's.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

export const DatabaseHealth = Schema.Struct({
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
