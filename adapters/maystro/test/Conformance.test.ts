import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Maystro.ts"
import * as Fake from "./fake/MaystroFake.ts"
import * as Pusher from "./fake/MaystroPusher.ts"
import { pushSamples } from "./fixtures/pushes.ts"
import { historyPairs } from "./fixtures/responses.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-maystro-9e2a6c41d7b3"
const credentials = { valid: { apiKey: CANARY }, canary: CANARY }

Conformance.suite("Maystro conformance", {
  adapter,
  fake: Fake.make({ keys: [CANARY], seed: true }),
  // Maystro sends numbers; the kit's stranger is a word, passed on as Maystro would send an undocumented code.
  addStatus: (fake, trackingNumber, rawStatus) =>
    fake.addStatus(trackingNumber, /^\d+$/.test(rawStatus) ? Number(rawStatus) : rawStatus),
  credentials,
  fixtures: {
    // Maystro refuses a second order for the same customer on the same day (README "Duplicates"), so the kit tracks
    // and labels an order the fake already has instead of creating the same order again for each check.
    trackingNumber: Fake.SEEDED_ORDER_ID,
    // Every status the reviewed fixtures carry, except the undocumented one they keep to show it stays unknown.
    rawStatuses: [
      ...new Set(
        historyPairs.flatMap(([, , events]) => events.map(({ rawStatus }) => rawStatus)).filter((raw) => raw !== "77")
      )
    ]
  },
  push: {
    ...pushSamples,
    sign: (body, secret) => Pusher.sign(body, secret),
    // A shared secret header: it proves the sender, not the body (README "Push").
    authenticates: "sender"
  },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "429 on the label",
      operation: "label",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", retryAfter: "5" }),
      reason: "CourierRateLimited",
      retryAfterSeconds: 5
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
    },
    {
      name: "cancelling an order already picked up",
      operation: "cancel",
      trackingNumber: Fake.SHIPPED_ORDER_ID,
      reason: "NotCancellable"
    },
    {
      name: "cancelling an order Maystro does not have",
      operation: "cancel",
      trackingNumber: "5e1c0a7d-3b2f-4c8e-9a61-00000000dead",
      reason: "Refused"
    },
    {
      name: "a key Maystro does not know, on the key check",
      operation: "checkCredentials",
      credentials: { apiKey: `${CANARY}-revoked` },
      reason: "CredentialsRejected"
    }
  ]
})
