import { Conformance } from "@tawsil/courier/testing"
import { WilayaCode } from "@tawsil/domain"
import { Context, Effect, Layer } from "effect"
import { adapter } from "../src/Yalidine.ts"
import { API_ID, YalidineFake } from "./fake/YalidineFake.ts"
import { sent } from "./fixtures/statuses.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-yalidine-8d2f6a1c9e47"

/** The loopback network, accepting only the canary's account; the kit reads its recorded requests. */
const fake = Effect.map(
  Layer.build(YalidineFake.layer({ accounts: [{ apiId: API_ID, apiToken: CANARY }] })),
  (services) => Context.get(services, YalidineFake)
)

Conformance.suite("Yalidine conformance", {
  adapter,
  fake,
  addStatus: (fake, trackingNumber, rawStatus) => fake.addHistory(trackingNumber, rawStatus),
  credentials: { valid: { apiId: API_ID, apiToken: CANARY }, canary: CANARY },
  fixtures: {
    rawStatuses: sent,
    // Yalidine needs the wilaya parcels ship from, in every call's options.
    fromWilaya: WilayaCode.WilayaCode.make(16)
  },
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
      name: "429 with only the quota headers (the hour is spent)",
      operation: "rates",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", quotaLeft: { second: 4, minute: 30, hour: 0 } }),
      reason: "CourierRateLimited",
      retryAfterSeconds: 3600
    },
    {
      name: "an API token the courier does not know",
      credentials: { apiId: API_ID, apiToken: `${CANARY}-revoked` },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a parcel refused inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuseParcel", message: "Solde insuffisant" }),
      reason: "Refused"
    },
    {
      name: "a label that is not a PDF",
      operation: "label",
      trackingNumber: "yal-000001",
      arrange: (fake) => fake.misbehaveNext({ kind: "html" }),
      reason: "BadResponse"
    }
  ]
})
