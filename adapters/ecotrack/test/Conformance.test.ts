import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Ecotrack.ts"
import * as Fake from "./fake/EcotrackFake.ts"
import { trackingPairs } from "./fixtures/responses.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-ecotrack-4b7e1d93a0c6"
const credentials = { valid: { token: CANARY }, canary: CANARY }

Conformance.suite("Ecotrack conformance", {
  adapter,
  // Ecotrack deletes an order only before `valid/order`: the kit cancels a parcel it created undispatched, and
  // dispatches another (a validated parcel is cancelled with `NotCancellable`: Ecotrack.test.ts).
  fake: Fake.make({ tokens: [CANARY] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addActivity(trackingNumber, rawStatus),
  credentials,
  fixtures: {
    // Every status the reviewed fixtures carry, except the undocumented one they keep to show it stays unknown.
    rawStatuses: trackingPairs
      .flatMap(([, , events]) => events.map(({ rawStatus }) => rawStatus))
      .filter((rawStatus) => rawStatus !== "colis_teleporte")
  },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      // The caller's budget runs out on the second call: the adapter, not a timer around it, decides what that means.
      name: "no answer on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }, "/api/v1/valid/order"),
      timeoutMs: 300,
      reason: "Refused"
    },
    {
      name: "a 5xx on validation, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, "/api/v1/valid/order"),
      reason: "Refused"
    }
  ]
})
