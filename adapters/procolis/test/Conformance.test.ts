import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Procolis.ts"
import * as Fake from "./fake/ProcolisFake.ts"
import { vocabulary } from "./fixtures/situations.ts"

/** The token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-procolis-7e2b90d41c5a"
const KEY = "conformance-key-61f0a3"
const credentials = { valid: { token: CANARY, key: KEY }, canary: CANARY }

Conformance.suite("Procolis conformance", {
  adapter,
  fake: Fake.make({ accounts: [{ token: CANARY, key: KEY }] }),
  credentials,
  // Procolis reports a parcel's current situation only, so the statuses are checked through the table, not by
  // making the fake report every one of them as history.
  fixtures: { rawStatuses: vocabulary },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
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
