/** The conformance kit of `@tawsil/courier/testing`, run against the loopback fake. */
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Ecomdelivery.ts"
import * as Status from "../src/EcomdeliveryStatus.ts"
import * as Fake from "./fake/EcomdeliveryFake.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-ecomdelivery-ecf7f922d52b"
const credentials = { valid: { apiToken: CANARY }, canary: CANARY }

Conformance.suite("Ecomdelivery conformance", {
  adapter,
  fake: Fake.make({ tokens: [CANARY] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addEvent(trackingNumber, rawStatus),
  credentials,
  // Every status the courier sends: take them from recorded answers of the real API once you have some.
  fixtures: { rawStatuses: Object.keys(Status.statuses) },
  failures: [
    // What every courier can do: no answer, a dropped connection, a 5xx, HTML, a redirect, a 429, a refused token.
    ...FakeCourier.standardFailures({ adapter, credentials }),
    // Then what this courier does: a row for each way its API refuses or misbehaves.
    {
      name: "a refusal in the courier's words",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "json", status: 422, body: { error: "Unknown wilaya" } }),
      reason: "Refused"
    }
  ]
})
