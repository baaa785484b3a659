/**
 * The one request shape for every courier (spec: shipping-service.md "Resources and their fields"): the parcel
 * order, the track request and the rates query, and what the service answers. Adapters map these to and from
 * their platform's wire format; the HTTP API decodes requests with them.
 */
import { Dzd, StoreText, WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import { CanonicalStatus, CodStatus } from "./CanonicalStatus.ts"
import { Refused } from "./CourierError.ts"

/**
 * Text sent to a courier: its length, and no NUL character or lone surrogate, which a courier's database could not
 * keep as sent (the store API's rule, `StoreText`): refused with 400 here rather than mangled or failed there.
 */
const text = (minimum: number, maximum: number) =>
  Schema.String.check(Schema.isBetweenLength(minimum, maximum), StoreText.storable())

export const DeliveryType = Schema.Literals(["home", "stopdesk"])
export type DeliveryType = typeof DeliveryType.Type

export const Tier = Schema.Literals(["express", "economic"])
export type Tier = typeof Tier.Type

export class Recipient extends Schema.Opaque<Recipient>()(
  Schema.Struct({
    fullName: text(2, 120),
    /** Any string: whether it is an Algerian mobile is a rule of its own (the API answers 422, not 400). */
    phone: Schema.String,
    phoneAlt: Schema.optionalKey(Schema.String),
    wilayaCode: WilayaCode.WilayaCode,
    communeName: text(1, 100),
    addressLine: Schema.optionalKey(text(0, 255))
  }).annotate({ identifier: "Recipient" })
) {}

export class ParcelOrder extends Schema.Opaque<ParcelOrder>()(
  Schema.Struct({
    reference: Schema.optionalKey(text(0, 64)),
    recipient: Recipient,
    deliveryType: DeliveryType,
    stopDeskId: Schema.optionalKey(text(1, 64)),
    /** The speed, for a courier that sells two (Zimou's Express and Flexible); absent: the courier's default. */
    tier: Schema.optionalKey(Tier),
    productList: text(1, 500),
    codAmount: Dzd.Dzd,
    weightKg: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))),
    declaredValue: Schema.optionalKey(Dzd.Dzd),
    freeShipping: Schema.optionalKey(Schema.Boolean),
    isExchange: Schema.optionalKey(Schema.Boolean),
    hasOpenPackage: Schema.optionalKey(Schema.Boolean),
    notes: Schema.optionalKey(text(0, 255))
  }).annotate({ identifier: "ParcelOrder" })
) {}

export class ParcelCreated extends Schema.Opaque<ParcelCreated>()(
  Schema.Struct({
    trackingNumber: Schema.String,
    courierReference: Schema.optionalKey(Schema.String),
    labelUrl: Schema.optionalKey(Schema.String),
    status: CanonicalStatus,
    /** The courier's own word for the status, which `status` maps (absent from answers replayed from before it). */
    rawStatus: Schema.optionalKey(Schema.String),
    /** The caller's `order.reference`, or the one the service made when none was sent (`TW-` and 10 characters). */
    reference: Schema.String,
    /**
     * The commune the parcel went to: what the caller wrote, what was sent (the reference spelling, or the courier's
     * own), and whether they differ. Absent when the commune went as written without a check (`resolveCommune`).
     * `warning`, only when the courier's commune list could not be read: the reference spelling was sent, unchecked
     * against the courier's list, and why.
     */
    commune: Schema.optionalKey(
      Schema.Struct({
        requested: Schema.String,
        sent: Schema.String,
        corrected: Schema.Boolean,
        warning: Schema.optionalKey(Schema.String)
      }).annotate({
        identifier: "CommuneSent"
      })
    )
  }).annotate({ identifier: "ParcelCreated" })
) {}

/** A parcel created undispatched, handed over to the courier (`dispatch`): its status now. */
export class ParcelDispatched extends Schema.Opaque<ParcelDispatched>()(
  Schema.Struct({
    trackingNumber: Schema.String,
    status: CanonicalStatus,
    rawStatus: Schema.String
  }).annotate({ identifier: "ParcelDispatched" })
) {}

/** What a cancel answers (and replays under its `Idempotency-Key`). */
export const ParcelCancelled = Schema.Struct({
  trackingNumber: Schema.String,
  status: Schema.Literal("cancelled")
}).annotate({ identifier: "ParcelCancelled" })
export type ParcelCancelled = typeof ParcelCancelled.Type

export const TrackingNumber = text(1, 80)

/**
 * What a courier says of a parcel's cash beyond its COD status, where it says it (docs/cod-ledger.md): the amount it
 * collected or paid out, the fee it kept, the payout (statement) the parcel was paid in. Each part is there only when
 * the courier reports it.
 */
export class Payment extends Schema.Opaque<Payment>()(
  Schema.Struct({
    /** Whole dinars: collected from the customer (a `collected` event) or paid to the merchant (`remitted`). */
    amount: Schema.optionalKey(Dzd.Dzd),
    /** Whole dinars the courier kept for itself on this parcel. */
    fee: Schema.optionalKey(Dzd.Dzd),
    /** The courier's id of the payout the parcel was paid in (Yalidine's `payment_id`). */
    statement: Schema.optionalKey(text(1, 80))
  }).annotate({ identifier: "Payment" })
) {}

/** A payment as an adapter reports it, before the host checks it (`readPayment`): plain numbers and text. */
export interface PaymentReport {
  readonly amount?: number | undefined
  readonly fee?: number | undefined
  readonly statement?: string | undefined
}

const decodePayment = Schema.decodeUnknownOption(Payment)

/**
 * An adapter's payment as the host keeps it: undefined when there is none, or nothing in it is usable — an amount
 * that is not a whole number of dinars, a statement id that is empty or too long — the parts that are usable kept.
 */
export const readPayment = (report: PaymentReport | undefined): Payment | undefined => {
  if (report === undefined || report === null || typeof report !== "object") return undefined
  const parts: Record<string, unknown> = {}
  for (const key of ["amount", "fee", "statement"] as const) {
    const value = report[key]
    if (value === undefined) continue
    const one = decodePayment({ [key]: value })
    if (one._tag === "Some") parts[key] = value
  }
  return Object.keys(parts).length === 0 ? undefined : Payment.make(parts)
}

export class TrackEvent extends Schema.Opaque<TrackEvent>()(
  Schema.Struct({
    status: CanonicalStatus,
    rawStatus: Schema.String,
    /** ISO 8601 with offset. */
    timestamp: Schema.String,
    /** What the courier said of the cash with this event, for couriers that say more than its status. */
    payment: Schema.optionalKey(Payment)
  }).annotate({ identifier: "TrackEvent" })
) {}

export class TrackResult extends Schema.Opaque<TrackResult>()(
  Schema.Struct({
    trackingNumber: Schema.String,
    /** Where the parcel is: the newest movement event's canonical status. */
    status: CanonicalStatus,
    /**
     * The cash on delivery, apart from movement: `not_collected`, `collected` (by the courier) or `remitted` (to the
     * merchant). Present for couriers that report it.
     */
    cod: Schema.optionalKey(CodStatus),
    events: Schema.Array(TrackEvent)
  }).annotate({ identifier: "TrackResult" })
) {}

export class RatesQuery extends Schema.Opaque<RatesQuery>()(
  Schema.Struct({
    fromWilaya: Schema.optionalKey(WilayaCode.WilayaCode),
    toWilaya: WilayaCode.WilayaCode,
    toCommune: Schema.optionalKey(text(1, 100)),
    deliveryType: DeliveryType,
    tier: Schema.optionalKey(Tier),
    codAmount: Schema.optionalKey(Dzd.Dzd)
  }).annotate({ identifier: "RatesQuery" })
) {}

/** One priced option the courier offers for the route. */
export class RateOption extends Schema.Opaque<RateOption>()(
  Schema.Struct({
    deliveryType: DeliveryType,
    tier: Schema.optionalKey(Tier),
    deliveryFee: Dzd.Dzd,
    returnFee: Dzd.Dzd
  }).annotate({ identifier: "RateOption" })
) {}

/**
 * The rates answer (not shown in the spec; designed here, documented in docs/api): the fees for the asked
 * delivery type and tier, their total, and every option the courier quoted for the route.
 */
export class RatesResult extends Schema.Opaque<RatesResult>()(
  Schema.Struct({
    deliveryType: DeliveryType,
    tier: Schema.optionalKey(Tier),
    deliveryFee: Dzd.Dzd,
    /** Charged only if the parcel comes back. */
    returnFee: Dzd.Dzd,
    /** The courier's fee on the cash it collects (0 when it charges none, or without `codAmount`). */
    codFee: Dzd.Dzd,
    /** What a delivered parcel costs the merchant: `deliveryFee + codFee`. */
    total: Dzd.Dzd,
    currency: Schema.Literal("DZD"),
    options: Schema.Array(RateOption)
  }).annotate({ identifier: "RatesResult" })
) {}

const noFee = 0 as Dzd.Dzd

/**
 * The rates answer of a courier whose price list has one tier (economic) and no fee on the cash it collects, as most
 * do: of the `options` its list offers for the route, the one of the asked delivery type, its delivery fee the total;
 * refused in `courier`'s name when the list offers no such delivery to the wilaya.
 */
export const economicRates = (
  query: RatesQuery,
  options: ReadonlyArray<RateOption>,
  courier = "the courier"
): Result.Result<RatesResult, Refused> => {
  const asked = options.find((option) => option.deliveryType === query.deliveryType)
  if (asked === undefined) {
    const kind = query.deliveryType === "home" ? "home" : "stop-desk"
    return Result.fail(new Refused({ message: `${courier} has no ${kind} delivery to wilaya ${query.toWilaya}` }))
  }
  return Result.succeed(
    RatesResult.make({
      deliveryType: asked.deliveryType,
      tier: "economic",
      deliveryFee: asked.deliveryFee,
      returnFee: asked.returnFee,
      codFee: noFee,
      total: asked.deliveryFee,
      currency: "DZD",
      options
    })
  )
}
