import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/ZrExpressNew.ts"
import { TOLERANCE_SECONDS } from "../src/ZrExpressPush.ts"
import * as Fake from "./fake/ZrExpressNewFake.ts"
import * as Pusher from "./fake/ZrExpressPusher.ts"
import { MESSAGE_ID, pushSamples } from "./fixtures/pushes.ts"
import { stateNames } from "./fixtures/responses.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-zrexpress-3a9d5f18e2c7"
const TENANT = "0000000c-0000-4000-8000-0000c0f0a0ce"
const credentials = { valid: { apiKey: CANARY, tenantId: TENANT }, canary: CANARY }

/** The state change after the create, whatever the new parcel's id. */
const STATE_CHANGE = /^\/api\/v1\/parcels\/[0-9a-f-]{36}\/state$/

Conformance.suite("ZR Express (new platform) conformance", {
  adapter,
  fake: Fake.make({ accounts: [{ tenantId: TENANT, apiKey: CANARY }] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addState(trackingNumber, rawStatus),
  credentials,
  fixtures: { rawStatuses: stateNames },
  push: {
    ...pushSamples,
    // Signed by the Standard Webhooks reference library, as the fake's sender signs.
    sign: (body, secret, now) => Pusher.sign(body, secret, now, MESSAGE_ID),
    authenticates: "body",
    toleranceSeconds: TOLERANCE_SECONDS
  },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal that quotes the API key",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      // The parcel exists but is not ready: never a retryable error, or a retry would make a second parcel.
      name: "a 5xx on the ReadyToDispatch step, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "status", status: 500 }, STATE_CHANGE),
      reason: "Refused"
    },
    {
      name: "no answer on the ReadyToDispatch step, after the parcel was created",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "hang" }, STATE_CHANGE),
      timeoutMs: 300,
      reason: "Refused"
    }
  ]
})
