/** The conformance kit of `@tawsil/courier/testing`, run against the loopback fake. */
import { Shipment } from "@tawsil/courier"
import { Conformance, FakeCourier } from "@tawsil/courier/testing"
import { Schema } from "effect"
import { adapter } from "../src/NearDelivery.ts"
import * as Status from "../src/NearDeliveryStatus.ts"
import * as Fake from "./fake/NearDeliveryFake.ts"

/** The API key, unique enough that finding it anywhere but in the fake's own records is a leak. */
const CANARY = "canary-neardelivery-84036d2e5eca"
/** The secret is a credential too: it carries the canary as well. */
const SECRET = `${CANARY}-secret`
const credentials = { valid: { apiKey: CANARY, apiSecret: SECRET }, canary: CANARY }

/** Every parcel goes to a relay point: the kit's home order would be refused before any request. */
const order = Schema.decodeUnknownSync(Shipment.ParcelOrder)({
  ...Schema.encodeSync(Shipment.ParcelOrder)(Conformance.order),
  deliveryType: "stopdesk",
  stopDeskId: "101"
})

Conformance.suite("Near Delivery conformance", {
  adapter,
  fake: Fake.make({ accounts: [[CANARY, SECRET]] }),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addStatus(trackingNumber, rawStatus),
  credentials,
  fixtures: {
    rawStatuses: Object.keys(Status.statuses),
    order,
    ratesQuery: Schema.decodeUnknownSync(Shipment.RatesQuery)({
      fromWilaya: 16,
      toWilaya: 31,
      deliveryType: "stopdesk"
    })
  },
  failures: [
    ...FakeCourier.standardFailures({ adapter, credentials }),
    {
      name: "a secret that is not the key's",
      operation: "track",
      credentials: { apiKey: CANARY, apiSecret: `${SECRET}-other` },
      reason: "CredentialsRejected"
    },
    {
      name: "a credentials check with a secret that is not the key's",
      operation: "checkCredentials",
      credentials: { apiKey: CANARY, apiSecret: `${SECRET}-other` },
      reason: "CredentialsRejected"
    },
    {
      name: "the buralists list refused inside an HTTP 200",
      operation: "stopDesks",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Compte suspendu" }),
      reason: "Refused"
    },
    {
      name: "a failure inside an HTTP 200",
      operation: "create",
      arrange: (fake) => fake.misbehaveNext({ kind: "refuse", message: "Compte suspendu" }),
      reason: "Refused"
    },
    {
      name: "a refusal that quotes the API key",
      operation: "rates",
      arrange: (fake) => fake.misbehaveNext({ kind: "echoKey" }),
      reason: "Refused"
    },
    {
      name: "a home delivery: refused before any request, naming the relay-point rule",
      operation: "create",
      order: Conformance.order,
      reason: "Refused"
    },
    {
      name: "a buralist Near Delivery does not know",
      operation: "create",
      order: Schema.decodeUnknownSync(Shipment.ParcelOrder)({
        ...Schema.encodeSync(Shipment.ParcelOrder)(order),
        stopDeskId: "999"
      }),
      reason: "Refused"
    }
  ]
})
