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
    },
    {
      name: "a batch row without a readable situation",
      operation: "trackBatch",
      trackingNumber: "TWLBATCH00001",
      arrange: (fake) =>
        fake.misbehaveNext(
          { kind: "json", status: 200, body: { Colis: [{ Tracking: "TWLBATCH00001", Etat: "?" }] } },
          "/api_v1/lire"
        ),
      reason: "BadResponse"
    },
    {
      name: "credentials the gateway does not know, on the token check",
      operation: "checkCredentials",
      credentials: { token: CANARY, key: "another-key-0000" },
      reason: "CredentialsRejected"
    },
    {
      name: "an account the courier has not activated",
      operation: "checkCredentials",
      arrange: (fake) =>
        fake.misbehaveNext({ kind: "json", status: 200, body: { Statut: "Accès désactivé" } }, "/api_v1/token"),
      reason: "CredentialsRejected"
    }
  ]
})
