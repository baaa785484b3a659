/** The conformance kit of `@tawsil/courier/testing`, run against the loopback fake. */
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/EcomDelivery.ts"
import * as Status from "../src/EcomDeliveryStatus.ts"
import * as Fake from "./fake/EcomDeliveryFake.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-ecomdelivery-2b7d04e9f1c6"
const KEY = "conformance-ecom-key-5a90c3"
const credentials = { valid: { apiKey: KEY, apiToken: CANARY }, canary: CANARY }

Conformance.suite("EcomDelivery conformance", {
  adapter,
  fake: Fake.make({ accounts: [{ key: KEY, token: CANARY }] }),
  credentials,
  // E-COM reports a parcel's current state only (one Avancement, one Situation), so the statuses are checked through
  // the tables, not by making the fake report every one of them as history.
  fixtures: { rawStatuses: [...Object.keys(Status.statuses), ...Object.keys(Status.codStatuses)] },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal in the courier's words",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Commune non reconnue" }),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a credentials check with a token that is not the key's",
      operation: "checkCredentials",
      credentials: { apiKey: KEY, apiToken: `${CANARY}-old` },
      reason: "CredentialsRejected"
    },
    {
      name: "a cancel once E-COM has collected the parcel",
      operation: "cancel",
      trackingNumber: "EC900001",
      arrange: (fake) => fake.seedParcel("EC900001", "Dispatcher"),
      reason: "NotCancellable"
    },
    {
      name: "a batch tracking refused in the courier's words",
      operation: "trackBatch",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Compte suspendu" }),
      reason: "Refused"
    },
    {
      name: "the parcel is made but not marked ready to ship",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 503 }, /^\/Api_v1\/aExp/),
      reason: "Refused"
    }
  ]
})
