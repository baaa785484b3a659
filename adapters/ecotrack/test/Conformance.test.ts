import { Conformance } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"
import { adapter } from "../src/Ecotrack.ts"
import { EcotrackFake } from "./fake/EcotrackFake.ts"
import { trackingPairs } from "./fixtures/responses.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-ecotrack-4b7e1d93a0c6"

/** The loopback tenant, accepting only the canary; the kit reads its recorded requests. */
const fake = Effect.map(Layer.build(EcotrackFake.layer({ tokens: [CANARY] })), (services) =>
  Context.get(services, EcotrackFake)
)

Conformance.suite("Ecotrack conformance", {
  adapter,
  fake,
  addStatus: (fake, trackingNumber, rawStatus) => fake.addActivity(trackingNumber, rawStatus),
  credentials: { valid: { token: CANARY }, canary: CANARY },
  fixtures: {
    // Every status the reviewed fixtures carry, except the undocumented one they keep to show it stays unknown.
    rawStatuses: trackingPairs
      .flatMap(([, , events]) => events.map(({ rawStatus }) => rawStatus))
      .filter((rawStatus) => rawStatus !== "colis_teleporte")
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
      name: "a token the courier does not know",
      credentials: { token: `${CANARY}-revoked` },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      // The caller's budget runs out on the second call: the adapter, not a timer around it, decides what that means.
      name: "no answer on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }, "/api/v1/valid/order"),
      timeoutMs: 300,
      reason: "Refused"
    },
    {
      name: "a 5xx on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, "/api/v1/valid/order"),
      reason: "Refused"
    }
  ]
})
