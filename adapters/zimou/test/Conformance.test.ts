import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { adapter } from "../src/Zimou.ts"
import * as Status from "../src/ZimouStatus.ts"
import * as Fake from "./fake/ZimouFake.ts"

/** The API token, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-zimou-936200132d43"
const credentials = { valid: { token: CANARY }, canary: CANARY }
/** A parcel the fake knows already picked up (3, EXPEDIE): Zimou no longer deletes it. */
const SHIPPED = "ZM-SHIPPED-1"

Conformance.suite("Zimou conformance", {
  adapter,
  fake: Fake.make({ tokens: [CANARY], seed: [{ tracking: SHIPPED, statusId: 3 }] }),
  credentials,
  // Zimou answers a parcel's current status only, so the statuses are checked through the table, not by making the
  // fake report every one of them as history (test/ZimouStatus.test.ts holds the table against the sources).
  fixtures: { rawStatuses: Object.keys(Status.statuses) },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a refusal inside the HTTP 201",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Solde insuffisant" }, "/api/v3/packages"),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the token",
      operation: "track",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoToken" }),
      reason: "Refused"
    },
    {
      name: "a stop-desk order without its office, refused before any call",
      operation: "create",
      order: { ...Conformance.order, deliveryType: "stopdesk" },
      reason: "Refused"
    },
    {
      name: "a stop-desk order to an office in another commune",
      operation: "create",
      order: { ...Conformance.order, deliveryType: "stopdesk", stopDeskId: "102" },
      reason: "Refused"
    },
    {
      name: "a commune Zimou does not know in the wilaya",
      operation: "create",
      order: {
        ...Conformance.order,
        recipient: { ...Conformance.order.recipient, communeName: "Oran" }
      },
      reason: "Refused"
    },
    {
      name: "cancelling a parcel already picked up",
      operation: "cancel",
      trackingNumber: SHIPPED,
      reason: "NotCancellable"
    },
    {
      name: "cancelling a code Zimou does not know",
      operation: "cancel",
      trackingNumber: "ZM-999999",
      reason: "Refused"
    },
    {
      name: "a batch status answer of an undocumented shape",
      operation: "trackBatch",
      trackingNumber: SHIPPED,
      arrange: (fake) =>
        fake.misbehaveNext(
          { kind: "json", status: 200, body: { [SHIPPED]: { etat: "?" } } },
          "/api/v3/packages/status"
        ),
      reason: "BadResponse"
    },
    {
      name: "an offices list of an undocumented shape",
      operation: "stopDesks",
      arrange: (fake) =>
        fake.misbehaveNext({ kind: "json", status: 200, body: { data: [{ bureau: "?" }] } }, "/api/v3/helpers/offices"),
      reason: "BadResponse"
    },
    {
      name: "a communes list that is not one",
      operation: "communes",
      arrange: (fake) =>
        fake.misbehaveNext({ kind: "json", status: 200, body: { data: "?" } }, "/api/v3/helpers/communes"),
      reason: "BadResponse"
    },
    {
      name: "a token Zimou does not know, on the token check",
      operation: "checkCredentials",
      credentials: { token: `${CANARY}-revoked` },
      reason: "CredentialsRejected"
    }
  ]
})
