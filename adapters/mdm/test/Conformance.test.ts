/** The conformance kit of `@tawsil/courier/testing`, run against the loopback fake. */
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Mdm.ts"
import * as Status from "../src/MdmStatus.ts"
import * as Fake from "./fake/MdmFake.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-mdm-7f3b91c2e6a4"
const credentials = { valid: { apiKey: CANARY }, canary: CANARY }

Conformance.suite("Mdm conformance", {
  adapter,
  // The seeded order lets the label rows print a slip without creating first (the kit creates only to track).
  fake: Fake.make({ keys: [CANARY], seed: true }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addStatus(trackingNumber, rawStatus),
  credentials,
  // Every status §1.8 documents (no recorded answer of the real API exists yet).
  fixtures: { rawStatuses: Object.keys(Status.statuses) },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal in MDM's words, with its code",
      operation: "create",
      arrange: (fake) =>
        fake.misbehaveNext({ kind: "refuse", code: "ORDERS.BLACKLISTED_PHONE", message: "Phone is blacklisted" }),
      reason: "Refused"
    },
    {
      name: "a credentials check with a key MDM does not know",
      operation: "checkCredentials",
      credentials: { apiKey: `${CANARY}-revoked` },
      reason: "CredentialsRejected"
    },
    {
      name: "the offices list refused in MDM's words",
      operation: "stopDesks",
      arrange: (fake) =>
        fake.misbehaveNext(
          { kind: "refuse", code: "SHIPPING.NO_COMPANY", message: "No shipping company" },
          "/api/v2/shipping/companies/offices"
        ),
      reason: "Refused"
    },
    {
      name: "a failure inside an HTTP 200",
      operation: "create",
      arrange: (fake) =>
        fake.misbehaveNext(
          { kind: "json", status: 200, body: { error: { code: "ORDERS.FAILED", message: "Order not created" } } },
          "/api/v2/orders"
        ),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the key",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoKey" }),
      reason: "CredentialsRejected"
    },
    {
      name: "the slip printer failing on a parcel not yet with a carrier (HTTP 500)",
      operation: "label",
      trackingNumber: Fake.SEEDED_ORDER,
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, "/api/prints/parcel-slips"),
      reason: "Unreachable"
    },
    {
      name: "a 429 on the printed file",
      operation: "label",
      trackingNumber: Fake.SEEDED_ORDER,
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", retryAfter: "5" }, /^\/api\/prints\/files\//),
      reason: "CourierRateLimited",
      retryAfterSeconds: 5
    }
  ]
})
