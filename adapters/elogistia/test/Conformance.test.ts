/** The conformance kit of `@tawsil/courier/testing`, run against the loopback fake. */
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Elogistia.ts"
import * as Status from "../src/ElogistiaStatus.ts"
import * as Fake from "./fake/ElogistiaFake.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-elogistia-cdd543778045"
const credentials = { valid: { apiKey: CANARY }, canary: CANARY }

Conformance.suite("Elogistia conformance", {
  adapter,
  fake: Fake.make({ keys: [CANARY] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addStatus(trackingNumber, rawStatus),
  credentials,
  fixtures: { rawStatuses: Object.keys(Status.statuses) },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Cette commune n'existe pas" }),
      reason: "Refused"
    },
    {
      name: "the key refused in words inside an HTTP 200",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "keyRefusedIn200" }),
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal quoting the request URL, key included",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "quoteUrl" }),
      reason: "Refused"
    },
    {
      name: "a 401 quoting the key",
      operation: "rates",
      arrange: (fake) => fake.misbehaveNext({ kind: "rejectQuotingKey" }),
      reason: "CredentialsRejected"
    },
    {
      name: "a redirect whose Location carries the key",
      operation: "label",
      arrange: (fake) => fake.misbehaveNext({ kind: "redirectWithKey" }),
      reason: "BadResponse"
    },
    {
      name: "a PHP crash page quoting the URL",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "crashQuotingUrl" }),
      reason: "Unreachable"
    }
  ]
})
