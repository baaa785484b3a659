/** The conformance kit of `@tawsil/courier/testing`, run against the loopback fake. */
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Mylerz.ts"
import * as Status from "../src/MylerzStatus.ts"
import * as Fake from "./fake/MylerzFake.ts"

/** The password, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-mylerz-3a9e07c5d1f4"
const account = { username: "conformance@example.dz", password: CANARY }
const credentials = { valid: account, canary: CANARY }

Conformance.suite("Mylerz conformance", {
  adapter,
  // The seeded package lets the label and cancel rows run without creating first.
  fake: Fake.make({ accounts: [account], seed: true }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addStatus(trackingNumber, rawStatus),
  credentials,
  // Every status the public integrations name (Mylerz documents none; no recorded answer of the real API exists).
  fixtures: { rawStatuses: Object.keys(Status.statuses), unknownTrackingNumber: "29999999999999" },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal inside an HTTP 200 (IsErrorState)",
      operation: "label",
      trackingNumber: Fake.SEEDED_PACKAGE,
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "AWB is not ready" }, "/api/packages/GetAWB"),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the password",
      operation: "track",
      trackingNumber: Fake.SEEDED_PACKAGE,
      arrange: (fake) => fake.misbehaveNext({ kind: "echoPassword" }, "/api/packages/TrackPackages"),
      reason: "Refused"
    },
    {
      name: "a login that works and a token refused all the same (no API access)",
      operation: "track",
      trackingNumber: Fake.SEEDED_PACKAGE,
      arrange: (fake) => {
        fake.misbehaveNext({ kind: "expireTokens" }, "/api/packages/TrackPackages")
        fake.misbehaveNext({ kind: "denyToken" }, "/api/packages/TrackPackages")
      },
      reason: "CredentialsRejected"
    },
    {
      name: "a credentials check with a password Mylerz does not know",
      operation: "checkCredentials",
      credentials: { username: account.username, password: `${CANARY}-changed` },
      reason: "CredentialsRejected"
    },
    {
      name: "a cancel past the point Mylerz allows",
      operation: "cancel",
      trackingNumber: Fake.SEEDED_PACKAGE,
      arrange: (fake) => fake.addStatus(Fake.SEEDED_PACKAGE, "Picked"),
      reason: "NotCancellable"
    },
    {
      name: "a cancel of a package Mylerz does not know",
      operation: "cancel",
      trackingNumber: "29999999999999",
      reason: "Refused"
    }
  ]
})
