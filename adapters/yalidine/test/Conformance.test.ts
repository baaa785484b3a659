import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { WilayaCode } from "@tawsil/domain"
import { adapter } from "../src/Yalidine.ts"
import * as Fake from "./fake/YalidineFake.ts"
import * as Pusher from "./fake/YalidinePusher.ts"
import { pushSamples } from "./fixtures/pushes.ts"
import { sent } from "./fixtures/statuses.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-yalidine-8d2f6a1c9e47"
const credentials = { valid: { apiId: Fake.API_ID, apiToken: CANARY }, canary: CANARY }

Conformance.suite("Yalidine conformance", {
  adapter,
  // The kit keeps the host's pace in its own time and does not wait it out: its requests reach the fake back to back
  // (the pacing itself, against the documented quotas, is tested in YalidineDocumented.test.ts). The fake's
  // per-second quota is raised here so that the kit checks the operations; the others stay the documented ones. Its
  // label links are the 2026 form, the one whose label the adapter can read (the docs' own form is refused with the
  // link's host, YalidineDocumented.test.ts).
  fake: Fake.make({
    accounts: [{ apiId: Fake.API_ID, apiToken: CANARY, quotas: { second: 20 } }],
    labelLinks: "api"
  }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addHistory(trackingNumber, rawStatus),
  credentials,
  fixtures: {
    rawStatuses: sent,
    // Yalidine needs the wilaya parcels ship from, in every call's options.
    fromWilaya: WilayaCode.WilayaCode.make(16)
  },
  push: {
    secret: pushSamples.secret,
    otherSecret: pushSamples.otherSecret,
    sign: (body, secret) => Pusher.sign(body, secret),
    authenticates: "body",
    samples: pushSamples.samples,
    malformed: pushSamples.malformed,
    challenge: pushSamples.challenge
  },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "429 with only the quota headers (the hour is spent)",
      operation: "rates",
      arrange: (fake) => fake.misbehaveNext({ kind: "rateLimited", quotaLeft: { second: 4, minute: 30, hour: 0 } }),
      reason: "CourierRateLimited",
      retryAfterSeconds: 3600
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a parcel refused inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuseParcel", message: "Solde insuffisant" }),
      reason: "Refused"
    },
    {
      name: "a label that is not a PDF",
      operation: "label",
      trackingNumber: "yal-000001",
      arrange: (fake) => fake.misbehaveNext({ kind: "html" }),
      reason: "BadResponse"
    }
  ]
})
