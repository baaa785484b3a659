/**
 * The receiver of courier push (`POST` and `GET /v1/hooks/couriers/{account_id}`; docs/cod-loop.md, "Push"): a
 * request is authenticated by the courier's signature only, with the account's webhook secret, through the
 * adapter's `push` (pure: verify, challenge, read). The courier's 2xx waits for one thing: every event the request
 * carries recorded, once per account, in one statement — an acknowledged event is never lost, and a replayed one
 * changes nothing. Applying them to their shipments follows, in the background (`PushApplier`, woken through
 * `PushSignal`). An event for a parcel not attached yet (a push that overtakes our own create's commit) waits, and
 * is applied when the shipment is attached (`applyPending`).
 *
 * A refusal (`HookRefused`) echoes nothing of the request and changes nothing: an unknown account (or one whose
 * courier does not push) is `unknown_account`, a bad or missing signature or an account without a webhook secret
 * `signature`, a timestamped request outside its window `stale`, a body that is not the courier's `malformed`.
 */

import { createHash } from "node:crypto"
import type { PushedEvent, PushRequest } from "@tawsil/courier/Push"
import { readPayment } from "@tawsil/courier/Shipment"
import { type Ids, StoreText } from "@tawsil/domain"
import { OrderShipment, Orders } from "@tawsil/orders"
import { Gateway } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Clock, Context, Effect, Layer, Result, Schema } from "effect"
import { CourierAccounts } from "./CourierAccounts.ts"
import * as Pushed from "./internal/applyPushed.ts"
import * as Following from "./internal/follow.ts"
import { PushSignal } from "./PushSignal.ts"
import type { ShipmentsError } from "./ShipmentsError.ts"
import { type PushedRow, TrackingStore } from "./TrackingStore.ts"

/** Why a pushed request was refused. */
export class HookRefused extends Schema.TaggedError<HookRefused>()("HookRefused", {
  reason: Schema.Literals(["unknown_account", "signature", "stale", "malformed"]),
  message: Schema.String
}) {}

/** What the courier is answered: 200 with this body. */
export interface HookAnswer {
  readonly contentType: string
  readonly body: string
}

/** A parcel a shipment was just attached for: the names pushed events may use for it. */
export interface Attached {
  readonly accountId: number
  readonly courier: string
  readonly storeId: Ids.StoreId
  readonly orderId: number
  readonly trackingNumber: string
  readonly courierReference: string | null
  readonly reference: string
}

export class PushIntake extends Context.Service<
  PushIntake,
  {
    readonly receive: (
      accountId: number,
      request: PushRequest
    ) => Effect.Effect<HookAnswer, HookRefused | ShipmentsError>
    /** Applies the account's waiting pushed events that name this parcel; true when there were some. */
    readonly applyPending: (attached: Attached) => Effect.Effect<boolean>
  }
>()("@tawsil/shipments/PushIntake") {}

const refused = (reason: HookRefused["reason"], message: string) => Effect.fail(new HookRefused({ reason, message }))

/** The longest name of a parcel kept (an index holds it; tracking numbers are at most 80 characters). */
const NAME_MAX = 200

/**
 * An event's key: the courier's id, else the parcel's name, raw status and time (the dedup rule); one too
 * long to index is kept as its SHA-256.
 */
const keyOf = (event: PushedEvent): string => {
  const key =
    event.eventId !== undefined && event.eventId !== ""
      ? `id:${event.eventId}`
      : `at:${event.parcel.trackingNumber ?? event.parcel.courierReference ?? event.parcel.reference ?? ""}|${
          event.rawStatus
        }|${event.occurredAt}`
  const kept = StoreText.toStorable(key, Number.MAX_SAFE_INTEGER)
  return kept.length <= OrderShipment.EVENT_ID_MAX ? kept : `sha256:${createHash("sha256").update(kept).digest("hex")}`
}

/** Text a courier pushed, as it can be kept (a signed request may still carry a NUL character or a huge field). */
const name = (text: string | undefined) => (text === undefined ? null : StoreText.toStorable(text, NAME_MAX))

const rowOf = (event: PushedEvent): PushedRow => ({
  key: keyOf(event),
  trackingNumber: name(event.parcel.trackingNumber),
  courierReference: name(event.parcel.courierReference),
  reference: name(event.parcel.reference),
  rawStatus: StoreText.toStorable(event.rawStatus, OrderShipment.RAW_STATUS_MAX),
  reason: event.reason === undefined ? null : StoreText.toStorable(event.reason, OrderShipment.REASON_MAX),
  occurredAt: Following.timeOf(event.occurredAt),
  payment: readPayment(event.payment) ?? null
})

const acknowledged = (received: number, recorded: number): HookAnswer => ({
  contentType: "application/json",
  body: JSON.stringify({ received, recorded })
})

export const layer: Layer.Layer<
  PushIntake,
  never,
  Orders.Orders | CourierAccounts | TrackingStore | Gateway.Gateway | PushSignal
> = Layer.effect(
  PushIntake,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const orders = yield* Orders.Orders
    const accounts = yield* CourierAccounts
    const tracking = yield* TrackingStore
    const signal = yield* PushSignal
    const { catalogue } = yield* Gateway.Gateway
    const { apply } = Pushed.applier(orders, tracking, catalogue)

    return PushIntake.of({
      receive: method("PushIntake.receive")(function* (accountId, request) {
        const found = yield* accounts.forHook(accountId)
        const adapter = found === undefined ? undefined : catalogue.resolve(found.account.courier)?.adapter
        const push = adapter?.push
        if (found === undefined || push === undefined) {
          return yield* refused("unknown_account", "No courier account receives pushes here")
        }
        if (found.webhookSecret === undefined) {
          return yield* refused(
            "signature",
            "This courier account has no webhook secret: pushes cannot be verified (set one on the account)"
          )
        }
        const read = push.receive(request, found.webhookSecret, yield* Clock.currentTimeMillis)
        if (Result.isFailure(read)) return yield* refused(read.failure.reason, read.failure.message)
        const answer = read.success
        if (answer._tag === "Challenge") return { contentType: answer.contentType, body: answer.body }
        if (answer.unread > 0) {
          // Acknowledged all the same (a refused batch is retried for days, then the webhook disabled): polling
          // catches those parcels up.
          yield* Effect.logWarning("courier push: events the adapter could not read").pipe(
            Effect.annotateLogs({ courier: found.account.courier, account: accountId, unread: answer.unread })
          )
        }
        const rows = answer.events.map(rowOf)
        // Durably recorded (one statement, committed): that is what the courier's 2xx says. Applied behind it.
        const fresh = yield* tracking.recordPushed(accountId, rows)
        if (fresh.length > 0) yield* signal.notify
        return acknowledged(rows.length, fresh.length)
      }),

      applyPending: method("PushIntake.applyPending")(function* (attached) {
        const adapter = catalogue.resolve(attached.courier)?.adapter
        if (adapter === undefined) return false
        // Events recorded before the attach committed. One recorded after it is found by the applier, whose look
        // for its parcel follows the record's commit: in either order, every event finds its shipment.
        const waiting = yield* tracking.pendingPushed(attached.accountId, attached)
        if (waiting.length === 0) return false
        return (yield* apply(attached.accountId, adapter, waiting)).applied > 0
      })
    })
  })
)
