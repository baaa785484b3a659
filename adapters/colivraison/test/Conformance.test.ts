/** The conformance kit of `@tawsil/courier/testing`, run against the loopback Colivraison fake. */
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Colivraison.ts"
import * as Status from "../src/ColivraisonStatus.ts"
import * as Fake from "./fake/ColivraisonFake.ts"

/** The access token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-colivraison-4f7d2e9a1b63"
/** The public key is a credential too: it carries the canary as well. */
const PUBLIC_KEY = `${CANARY}-public`
const credentials = { valid: { publicKey: PUBLIC_KEY, token: CANARY }, canary: CANARY }

Conformance.suite("Colivraison conformance", {
  adapter,
  fake: Fake.make({ accounts: [[PUBLIC_KEY, CANARY]] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addStatus(trackingNumber, rawStatus),
  credentials,
  // Every status of the one public list (WooBordereauGenerator's `status()`); no answer of the real API was recorded.
  fixtures: { rawStatuses: Object.keys(Status.statuses) },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a public key of another account",
      operation: "track",
      credentials: { publicKey: "coliv-public-other-account", token: CANARY },
      reason: "CredentialsRejected"
    },
    {
      name: "an order refused inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuseOrder", message: "Wilaya introuvable" }, "/v2/orders/bulk"),
      reason: "Refused"
    },
    {
      name: "an error member inside an HTTP 200",
      operation: "rates",
      arrange: (fake) => fake.misbehaveNext({ kind: "errorInside200", message: "Compte suspendu" }),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the token",
      operation: "label",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a route the API does not have (Laravel's bare 404)",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "json", status: 404, body: { message: "Not Found" } }),
      reason: "BadResponse"
    }
  ]
})
