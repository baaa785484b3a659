/**
 * What a courier plugin is: one platform (an API family) serving one or more couriers, declared with `define`.
 * The manifest (couriers, credentials, status map) is data the core validates at load; the operations are Effects
 * that may only reach their courier through `CourierHttp`; `push`, when the courier pushes tracking events, is pure.
 * Capabilities are derived from the operations an adapter implements (and from `push`), so a capability is true
 * exactly when it works.
 */
import type { WilayaCode } from "@tawsil/domain"
import { Duration, type Effect, Option, type Result, Schema } from "effect"
import { CanonicalStatus, CodStatus } from "./CanonicalStatus.ts"
import { type Capability, capabilities } from "./Capability.ts"
import type { CourierErrorReason } from "./CourierError.ts"
import type { CourierHttp } from "./CourierHttp.ts"
import type { Push } from "./Push.ts"
import type { ParcelOrder, PaymentReport, RatesQuery, RatesResult } from "./Shipment.ts"

/** One courier of a platform, as the catalogue lists it. */
export const CourierManifest = Schema.Struct({
  /** Stable key callers send (`dhd`, `yalidine`), lowercase. */
  key: Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_]{1,39}$/)),
  name: Schema.String.check(Schema.isBetweenLength(1, 80)),
  /** Other names callers may send for it. */
  aliases: Schema.Array(Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_]{1,39}$/))),
  /**
   * Where it is reached: a pinned `https://host` origin, or for a generic platform key `{ tenantDomain }`, whose
   * callers name their tenant in `options.baseUrl` (any subdomain of that domain).
   */
  endpoint: Schema.Union([
    Schema.Struct({ origin: Schema.String.check(Schema.isPattern(/^https:\/\/[a-z0-9.-]+$/)) }),
    Schema.Struct({ tenantDomain: Schema.String.check(Schema.isPattern(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/)) })
  ]),
  /**
   * Hosts of the documents the courier's answers link to (a label kept on a storage host), fetched with
   * `CourierHttp.documentRequest`: an exact host name, or `*.domain` for any subdomain of it. No host but these and
   * the origin is ever reached, and these only by a bare GET.
   */
  documents: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isPattern(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/)))
  ),
  /**
   * What is known to be uncertain about this courier alone (its origin, its name), one short sentence each, for
   * docs/couriers.md. Doubts shared by every courier of a platform belong in the adapter's README instead.
   */
  unverified: Schema.optionalKey(Schema.Array(Schema.String.check(Schema.isBetweenLength(1, 300))))
}).annotate({ identifier: "CourierManifest" })
export type CourierManifest = typeof CourierManifest.Type

/** A status the courier reported, before the core maps it. */
export interface RawEvent {
  readonly rawStatus: string
  /** ISO 8601; the core orders and de-duplicates events. */
  readonly timestamp: string
  /**
   * What the courier says of the cash with a cash event, where its API says more than the status (an amount paid
   * out, a fee, a payout id): the COD ledger's facts (docs/cod-ledger.md). Optional; the host drops what is unusable.
   */
  readonly payment?: PaymentReport | undefined
}

/** The parcel as the courier created it; the core maps `rawStatus`. */
export interface CreatedParcel {
  readonly trackingNumber: string
  readonly courierReference?: string | undefined
  readonly labelUrl?: string | undefined
  readonly rawStatus: string
}

/** A parcel handed over to the courier by `dispatch`: its raw status now, which the core maps. */
export interface DispatchedParcel {
  readonly rawStatus: string
}

/** A shipping label as the courier renders it (a PDF for every platform known so far). */
export interface Label {
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** A desk where recipients collect parcels (a stop desk, an office, a relay point): an order's `stopDeskId`. */
export interface StopDesk {
  /** What an order sends as `stopDeskId`. */
  readonly id: string
  readonly name: string
  readonly wilayaCode: WilayaCode.WilayaCode
  /** The commune it is in, as the courier names it, when the courier says. */
  readonly communeName?: string | undefined
  readonly address?: string | undefined
  readonly phone?: string | undefined
}

/** A commune as the courier names it, and how it delivers there. */
export interface CourierCommune {
  /** The courier's own spelling, which its create expects. */
  readonly name: string
  /** The courier's id for it, when its API uses ids. */
  readonly id?: string | undefined
  /** Delivers to the door there. */
  readonly home: boolean
  /** Has a desk there (or serves one for it). */
  readonly stopdesk: boolean
}

export interface Context<Credentials> {
  readonly credentials: Credentials
  /** The caller's origin wilaya (`options.fromWilaya`), when given. */
  readonly fromWilaya?: WilayaCode.WilayaCode | undefined
  /**
   * For `create` only: `false` asks for the parcel undispatched — created, but not yet handed over to the courier
   * (not validated, not ready to ship), so that it can still be cancelled — to be dispatched later by `dispatch`.
   * The core sends `false` only to an adapter that implements `dispatch`, which then skips its dispatch step and
   * answers the raw status the parcel has before it (one its table maps to `created`). Absent: dispatched.
   */
  readonly dispatch?: boolean | undefined
}

type Operation<In, Out, Credentials> = (
  input: In,
  context: Context<Credentials>
) => Effect.Effect<Out, CourierErrorReason, CourierHttp>

export interface Operations<Credentials> {
  readonly create?: Operation<ParcelOrder, CreatedParcel, Credentials>
  readonly track?: Operation<string, ReadonlyArray<RawEvent>, Credentials>
  readonly rates?: Operation<RatesQuery, RatesResult, Credentials>
  /** The label of a parcel, by tracking number. */
  readonly label?: Operation<string, Label, Credentials>
  /**
   * Cancels a parcel, by tracking number. A courier that refuses because the parcel is past the point it can be
   * cancelled (picked up, shipped) fails with `NotCancellable` and its words; other refusals are `Refused`.
   */
  readonly cancel?: Operation<string, void, Credentials>
  /**
   * Hands a parcel created undispatched (`Context.dispatch` false) over to the courier, by tracking number: the step
   * a dispatched create takes after creating it (validate, mark ready to ship). Declare it only for a platform that
   * separates the two, and so that its `create` honours `dispatch: false`. A courier that refuses (the parcel is
   * unknown, cancelled) fails with `Refused` and its words.
   */
  readonly dispatch?: Operation<string, DispatchedParcel, Credentials>
  /**
   * The events of up to 100 parcels in one call, through the platform's batch endpoint. A number the courier does
   * not know is left out of the map. Without it the host tracks the numbers one by one.
   */
  readonly trackBatch?: Operation<ReadonlyArray<string>, ReadonlyMap<string, ReadonlyArray<RawEvent>>, Credentials>
  /**
   * Up to 100 parcels in one call, through the platform's bulk create: one result per order, in the order given —
   * the parcel (`Result.succeed`), or the courier's refusal of that order alone (`Result.fail`). A failure of the call
   * itself (the courier unreachable, the credentials refused) fails every order of it. Every order carries its
   * reference, unique in the call. Without it the host creates the orders one by one, a few at a time, under the
   * account's pace. Declare it only beside `create`, for couriers whose bulk endpoint creates what `create` does.
   */
  readonly createBatch?: Operation<
    ReadonlyArray<ParcelOrder>,
    ReadonlyArray<Result.Result<CreatedParcel, CourierErrorReason>>,
    Credentials
  >
  /** The courier's desks in a wilaya. */
  readonly stopDesks?: Operation<WilayaCode.WilayaCode, ReadonlyArray<StopDesk>, Credentials>
  /** The communes of a wilaya as the courier names them, with what it delivers there. */
  readonly communes?: Operation<WilayaCode.WilayaCode, ReadonlyArray<CourierCommune>, Credentials>
  /**
   * Whether the credentials work, through the cheapest read the platform has; creates nothing. Succeeds when they
   * do; fails with `CredentialsRejected` when the courier refuses them.
   */
  readonly checkCredentials?: Operation<void, void, Credentials>
}

export { type Capability, capabilities, type OperationName, operations } from "./Capability.ts"

/**
 * A limit the courier puts on one account: at most `limit` requests per `window`, for each credential (courier key
 * and caller's credentials) on its own. The core counts every request an adapter sends and holds one back that
 * would exceed a limit (HttpTransport, docs/adapters.md "Rate limits").
 */
export interface RateLimit {
  /** Requests per window: a positive integer. */
  readonly limit: number
  /** A positive whole number of milliseconds. */
  readonly window: Duration.Duration
}

export interface Adapter<Credentials = unknown> {
  readonly platform: string
  readonly couriers: ReadonlyArray<CourierManifest>
  /** Decodes the caller's `credentials` object; `undefined` for a courier that takes none (the sandbox). */
  readonly credentials: Schema.Codec<Credentials, Readonly<Record<string, string>>> | undefined
  /** The credential field names, in order, as the catalogue lists them. */
  readonly requiredCredentials: ReadonlyArray<string>
  /** Every raw status the platform is known to send, mapped. Unlisted ones become `unknown`. */
  readonly statuses: Readonly<Record<string, CanonicalStatus>>
  /**
   * The raw statuses that report cash on delivery (collected by the courier, remitted to the merchant), kept apart
   * from movement so a money event never overwrites where the parcel is. Absent: the platform reports no cash.
   */
  readonly codStatuses: Readonly<Record<string, CodStatus>> | undefined
  /**
   * Whether tracking can see the cash: true when `codStatuses` are declared, unless the adapter says they reach the
   * host only by push. Without it, a tracked parcel reports no cash on delivery at all, rather than "not collected"
   * for money it cannot see.
   */
  readonly codTracked: boolean
  readonly operations: Operations<Credentials>
  /** How the adapter reads what its courier pushes (verify, challenge, events); absent when the courier pushes none. */
  readonly push: Push | undefined
  readonly capabilities: Readonly<Record<Capability, boolean>>
  /** The courier's documented limits per account, enforced by the core on every request; empty when none. */
  readonly rateLimits: ReadonlyArray<RateLimit>
}

/**
 * An adapter whatever its credentials type, as hosts hold them. (`Adapter<C>` is invariant in `C`: its schema
 * produces credentials and its operations consume them.)
 */
// biome-ignore lint/suspicious/noExplicitAny: the one place an adapter's credentials type is erased
export type Any = Adapter<any>

/** Problems `define` finds in a manifest: the host refuses to load such an adapter. */
export class InvalidAdapter extends Schema.TaggedError<InvalidAdapter>()("InvalidAdapter", {
  platform: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `courier adapter ${this.platform}: ${this.problem}`
  }
}

/** Declares an adapter; throws `InvalidAdapter` on a malformed manifest (at load, never per request). */
export const define = <Credentials>(input: {
  readonly platform: string
  readonly couriers: ReadonlyArray<CourierManifest>
  readonly credentials?: Schema.Struct<Record<string, Schema.Codec<unknown, string>>> | undefined
  readonly statuses: Readonly<Record<string, CanonicalStatus>>
  readonly codStatuses?: Readonly<Record<string, CodStatus>> | undefined
  /** `false` when the cash statuses come only from what the courier pushes, never from tracking. */
  readonly codTracked?: boolean | undefined
  readonly operations: Operations<Credentials>
  readonly push?: Push | undefined
  readonly rateLimits?: ReadonlyArray<{ readonly limit: number; readonly window: Duration.Input }> | undefined
}): Adapter<Credentials> => {
  const fail = (problem: string) => new InvalidAdapter({ platform: input.platform, problem })
  if (input.couriers.length === 0) throw fail("declares no courier")
  for (const courier of input.couriers) {
    if (!Schema.is(CourierManifest)(courier))
      throw fail(`courier ${JSON.stringify(courier)} does not match the manifest schema`)
  }
  for (const [raw, status] of Object.entries(input.statuses)) {
    if (!Schema.is(CanonicalStatus)(status)) throw fail(`raw status ${JSON.stringify(raw)} maps to ${status}`)
  }
  for (const [raw, status] of Object.entries(input.codStatuses ?? {})) {
    if (!Schema.is(CodStatus)(status)) throw fail(`raw cash status ${JSON.stringify(raw)} maps to ${status}`)
  }
  if (input.operations.createBatch !== undefined && input.operations.create === undefined) {
    throw fail("declares createBatch without create: a bulk create is a faster way to do what create does")
  }
  if (input.operations.dispatch !== undefined && input.operations.create === undefined) {
    throw fail("declares dispatch without create: only a parcel it created undispatched can be dispatched")
  }
  const { push } = input
  if (push !== undefined && (typeof push.receive !== "function" || !Schema.isSchema(push.secret))) {
    throw fail("push needs a secret schema and a receive function")
  }
  const fields = input.credentials ? Object.keys(input.credentials.fields) : []
  if (fields.length > 8) throw fail("more than 8 credential fields")
  const rateLimits = (input.rateLimits ?? []).map(({ limit, window }): RateLimit => {
    const duration = Option.getOrUndefined(Duration.fromInput(window))
    const millis = duration === undefined ? Number.NaN : Duration.toMillis(duration)
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw fail(`rate limit ${JSON.stringify(limit)}: the limit must be a positive integer`)
    }
    if (!Number.isSafeInteger(millis) || millis < 1) {
      throw fail(`rate limit of ${limit}: the window must be a positive whole number of milliseconds`)
    }
    return { limit, window: Duration.millis(millis) }
  })
  return {
    platform: input.platform,
    couriers: input.couriers,
    credentials: input.credentials as Adapter<Credentials>["credentials"],
    requiredCredentials: fields,
    statuses: input.statuses,
    codStatuses: input.codStatuses,
    codTracked: input.codStatuses !== undefined && input.codTracked !== false,
    operations: input.operations,
    push,
    capabilities: Object.fromEntries(
      capabilities.map((capability) => [
        capability,
        capability === "push" ? push !== undefined : input.operations[capability] !== undefined
      ])
    ) as Record<Capability, boolean>,
    rateLimits
  }
}
