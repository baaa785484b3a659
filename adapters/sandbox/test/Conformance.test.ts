import { Shipment } from "@tawsil/courier"
import { Conformance } from "@tawsil/courier/testing"
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"
import { adapter, MAX_COD_AMOUNT } from "../src/Sandbox.ts"
import { statuses } from "../src/SandboxLifecycle.ts"

// The sandbox makes no HTTP calls: there is no fake, and the kit checks that nothing is sent. Its courier failures
// are the refusals a real courier would give.
Conformance.suite("Sandbox conformance", {
  adapter,
  fixtures: { rawStatuses: Object.keys(statuses) },
  failures: [
    {
      name: "a cash amount above the courier's limit",
      operation: "create",
      order: Shipment.ParcelOrder.make({
        ...Conformance.order,
        codAmount: Schema.decodeUnknownSync(Dzd.Dzd)(MAX_COD_AMOUNT + 1)
      }),
      reason: "Refused"
    },
    { name: "an unknown tracking number", operation: "track", trackingNumber: "SBX0000000000ZZ", reason: "Refused" }
  ]
})
