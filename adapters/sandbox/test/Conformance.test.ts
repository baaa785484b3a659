import { Shipment } from "@tawsil/courier"
import { Conformance } from "@tawsil/courier/testing"
import { adapter } from "../src/Sandbox.ts"
import { statuses } from "../src/SandboxLifecycle.ts"
import { RETRY_AFTER_SECONDS, testValues } from "../src/SandboxTestValues.ts"

const phoneOf = (outcome: string) => testValues.find((value) => value.outcome === outcome)!.phone
const trackingNumberOf = (outcome: string) => testValues.find((value) => value.outcome === outcome)!.trackingNumber

/** The kit's order, sent to a test phone. */
const orderTo = (outcome: string) =>
  Shipment.ParcelOrder.make({
    ...Conformance.order,
    recipient: Shipment.Recipient.make({ ...Conformance.order.recipient, phone: phoneOf(outcome) })
  })

// The sandbox makes no HTTP calls: there is no fake, and the kit checks that nothing is sent. Its courier failures
// are the ones its documented test values play, each through the kit.
Conformance.suite("Sandbox conformance", {
  adapter,
  fixtures: { rawStatuses: Object.keys(statuses) },
  failures: [
    { name: "the refused test phone", operation: "create", order: orderTo("refused"), reason: "Refused" },
    {
      name: "the credentials-rejected test phone",
      operation: "create",
      order: orderTo("credentials_rejected"),
      reason: "CredentialsRejected"
    },
    { name: "the unreachable test phone", operation: "create", order: orderTo("unreachable"), reason: "Unreachable" },
    {
      name: "the timeout test phone, within the caller's timeoutMs",
      operation: "create",
      order: orderTo("timeout"),
      timeoutMs: 1000,
      reason: "Unreachable"
    },
    {
      name: "the rate-limited test phone",
      operation: "create",
      order: orderTo("rate_limited"),
      reason: "CourierRateLimited",
      retryAfterSeconds: RETRY_AFTER_SECONDS
    },
    {
      name: "the rate-limited test tracking number",
      operation: "track",
      trackingNumber: trackingNumberOf("rate_limited"),
      reason: "CourierRateLimited",
      retryAfterSeconds: RETRY_AFTER_SECONDS
    },
    { name: "an unknown tracking number", operation: "track", trackingNumber: "SBX0000000000ZZ", reason: "Refused" }
  ]
})
