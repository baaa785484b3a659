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
  // The kit runs every declared operation back to back (eleven requests in about two seconds). The core holds them
  // to 5 a second, but its window need not line up with the fake's (README "Unverified" 11; the quotas and the
  // courier's 429 are tested in Yalidine.test.ts): the fake's per-second quota is raised here so that the kit checks
  // the operations, not how two windows line up. The minute, hour and day quotas stay the documented ones.
  fake: Fake.make({ accounts: [{ apiId: Fake.API_ID, apiToken: CANARY, quotas: { second: 20 } }] }),
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
