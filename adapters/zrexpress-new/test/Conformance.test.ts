import { Conformance } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"
import { adapter } from "../src/ZrExpressNew.ts"
import { ZrExpressNewFake } from "./fake/ZrExpressNewFake.ts"
import { stateNames } from "./fixtures/responses.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-zrexpress-3a9d5f18e2c7"
const TENANT = "0000000c-0000-4000-8000-0000c0f0a0ce"

/** The loopback platform, accepting only the canary's account; the kit reads its recorded requests. */
const fake = Effect.map(
  Layer.build(ZrExpressNewFake.layer({ accounts: [{ tenantId: TENANT, apiKey: CANARY }] })),
  (services) => Context.get(services, ZrExpressNewFake)
)

/** The state change after the create, whatever the new parcel's id. */
const STATE_CHANGE = /^\/api\/v1\/parcels\/[0-9a-f-]{36}\/state$/

Conformance.suite("ZR Express (new platform) conformance", {
  adapter,
  fake,
  addStatus: (fake, trackingNumber, rawStatus) => fake.addState(trackingNumber, rawStatus),
  credentials: { valid: { apiKey: CANARY, tenantId: TENANT }, canary: CANARY },
  fixtures: { rawStatuses: stateNames },
  failures: [
    {
      name: "no answer",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }),
      timeoutMs: 300,
      reason: "Unreachable"
    },
    { name: "a dropped connection", arrange: (fake) => fake.misbehaveNext({ kind: "reset" }), reason: "Unreachable" },
    {
      name: "HTTP 503",
      operation: "rates",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 503 }),
      reason: "Unreachable"
    },
    { name: "an HTML page", arrange: (fake) => fake.misbehaveNext({ kind: "html" }), reason: "BadResponse" },
    {
      name: "a redirect",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 301 }),
      reason: "BadResponse"
    },
    {
      name: "429 with Retry-After",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", retryAfter: "17" }),
      reason: "CourierRateLimited",
      retryAfterSeconds: 17
    },
    {
      name: "an API key the courier does not know",
      credentials: { apiKey: `${CANARY}-revoked`, tenantId: TENANT },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal that quotes the API key",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      // The parcel exists but is not ready: never a retryable error, or a retry would make a second parcel.
      name: "a 5xx on the ReadyToDispatch step, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, STATE_CHANGE),
      reason: "Refused"
    },
    {
      name: "no answer on the ReadyToDispatch step, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }, STATE_CHANGE),
      timeoutMs: 300,
      reason: "Refused"
    }
  ]
})
