import { Conformance } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"
import { adapter } from "../src/Procolis.ts"
import { ProcolisFake } from "./fake/ProcolisFake.ts"
import { vocabulary } from "./fixtures/situations.ts"

/** The token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-procolis-7e2b90d41c5a"
const KEY = "conformance-key-61f0a3"

/** The loopback Procolis, accepting only the canary's account; the kit reads its recorded requests. */
const fake = Effect.map(Layer.build(ProcolisFake.layer({ accounts: [{ token: CANARY, key: KEY }] })), (services) =>
  Context.get(services, ProcolisFake)
)

Conformance.suite("Procolis conformance", {
  adapter,
  fake,
  credentials: { valid: { token: CANARY, key: KEY }, canary: CANARY },
  // Procolis reports a parcel's current situation only, so the statuses are checked through the table, not by
  // making the fake report every one of them as history.
  fixtures: { rawStatuses: vocabulary },
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
      name: "a token and key the courier does not know",
      credentials: { token: `${CANARY}-revoked`, key: KEY },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Wilaya non desservie" }),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    }
  ]
})
