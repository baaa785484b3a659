import { Conformance } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"
import { adapter } from "../src/Noest.ts"
import { NoestFake } from "./fake/NoestFake.ts"
import { trackingPairs } from "./fixtures/responses.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-noest-2b8f0d6e4a17"
/** The user GUID is a credential too: it carries the canary as well. */
const GUID = `${CANARY}-guid`

/** The loopback NOEST, accepting only the canary's account; the kit reads its recorded requests. */
const fake = Effect.map(Layer.build(NoestFake.layer({ accounts: [[CANARY, GUID]] })), (services) =>
  Context.get(services, NoestFake)
)

Conformance.suite("NOEST conformance", {
  adapter,
  fake,
  addStatus: (fake, trackingNumber, rawStatus) => fake.addEvent(trackingNumber, rawStatus),
  credentials: { valid: { apiToken: CANARY, guid: GUID }, canary: CANARY },
  fixtures: {
    // Every status the reviewed fixtures carry, except the undocumented one they keep to show it stays unknown.
    rawStatuses: [
      ...new Set(
        trackingPairs
          .flatMap(([, , , events]) => events.map(({ rawStatus }) => rawStatus))
          .filter((rawStatus) => rawStatus !== "colis_teleporte")
      )
    ]
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
      name: "the label redirected to another host",
      operation: "label",
      arrange: (fake) => fake.misbehaveNext({ kind: "redirectLabel" }),
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
      credentials: { apiToken: `${CANARY}-revoked`, guid: GUID },
      reason: "CredentialsRejected"
    },
    {
      name: "a GUID of another account",
      operation: "track",
      credentials: { apiToken: CANARY, guid: "NOEST-GUID-OTHER" },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a failure inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Compte suspendu" }, "/api/public/create/order"),
      reason: "Refused"
    },
    {
      // The caller's budget runs out on the second call: the adapter, not a timer around it, decides what that means.
      name: "no answer on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }, "/api/public/valid/order"),
      timeoutMs: 300,
      reason: "Refused"
    },
    {
      name: "a 5xx on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, "/api/public/valid/order"),
      reason: "Refused"
    }
  ]
})
