import { Conformance } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"
import { adapter } from "../src/Maystro.ts"
import { MaystroFake, SEEDED_ORDER_ID } from "./fake/MaystroFake.ts"
import { historyPairs } from "./fixtures/responses.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-maystro-9e2a6c41d7b3"

/** The loopback Maystro, accepting only the canary; the kit reads its recorded requests. */
const fake = Effect.map(Layer.build(MaystroFake.layer({ keys: [CANARY], seed: true })), (services) =>
  Context.get(services, MaystroFake)
)

Conformance.suite("Maystro conformance", {
  adapter,
  fake,
  // Maystro sends numbers; the kit's stranger is a word, passed on as Maystro would send an undocumented code.
  addStatus: (fake, trackingNumber, rawStatus) =>
    fake.addStatus(trackingNumber, /^\d+$/.test(rawStatus) ? Number(rawStatus) : rawStatus),
  credentials: { valid: { apiKey: CANARY }, canary: CANARY },
  fixtures: {
    // Maystro refuses a second order for the same customer on the same day (README "Duplicates"), so the kit tracks
    // and labels an order the fake already has instead of creating the same order again for each check.
    trackingNumber: SEEDED_ORDER_ID,
    // Every status the reviewed fixtures carry, except the undocumented one they keep to show it stays unknown.
    rawStatuses: [
      ...new Set(
        historyPairs.flatMap(([, , events]) => events.map(({ rawStatus }) => rawStatus)).filter((raw) => raw !== "77")
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
      name: "429 with Retry-After",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", retryAfter: "17" }),
      reason: "CourierRateLimited",
      retryAfterSeconds: 17
    },
    {
      name: "429 on the label",
      operation: "label",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", retryAfter: "5" }),
      reason: "CourierRateLimited",
      retryAfterSeconds: 5
    },
    {
      name: "a key the courier does not know",
      credentials: { apiKey: `${CANARY}-revoked` },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal that quotes the key",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a failure inside an HTTP 200",
      operation: "create",
      arrange: (fake) =>
        fake.misbehaveNext({ kind: "json", status: 200, body: { detail: "Commande refusée." } }, "/api/stores/orders/"),
      reason: "Refused"
    }
  ]
})
