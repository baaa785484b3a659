import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Noest.ts"
import * as Fake from "./fake/NoestFake.ts"
import { trackingPairs } from "./fixtures/responses.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-noest-2b8f0d6e4a17"
/** The user GUID is a credential too: it carries the canary as well. */
const GUID = `${CANARY}-guid`
const credentials = { valid: { apiToken: CANARY, guid: GUID }, canary: CANARY }

Conformance.suite("NOEST conformance", {
  adapter,
  fake: Fake.make({ accounts: [[CANARY, GUID]] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addEvent(trackingNumber, rawStatus),
  credentials,
  fixtures: {
    // Every status the reviewed fixtures carry, except the undocumented one they keep to show it stays unknown.
    rawStatuses: [
      ...new Set(
        trackingPairs
          .flatMap(([, , , events]) => events.map(({ rawStatus }) => rawStatus))
          .filter((rawStatus) => rawStatus !== "colis_teleporte")
      )
    ]
  },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "the label redirected to another host",
      operation: "label",
      arrange: (fake) => fake.misbehaveNext({ kind: "redirectLabel" }),
      reason: "BadResponse"
    },
    {
      name: "a GUID of another account",
      operation: "track",
      credentials: { apiToken: CANARY, guid: "NOEST-GUID-OTHER" },
      reason: "CredentialsRejected"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a failure inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Compte suspendu" }, "/api/public/create/order"),
      reason: "Refused"
    },
    {
      // The caller's budget runs out on the second call: the adapter, not a timer around it, decides what that means.
      name: "no answer on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }, "/api/public/valid/order"),
      timeoutMs: 300,
      reason: "Refused"
    },
    {
      name: "a 5xx on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, "/api/public/valid/order"),
      reason: "Refused"
    }
  ]
})
