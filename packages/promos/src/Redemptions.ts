/**
 * Redeeming a promo code at checkout: what the storefront's checkout calls when an order with a code is placed, in
 * the order's transaction. Beyond the spec (which notes that simultaneous checkouts can push `used_count` above
 * `max_uses`): here they cannot. The checks are `PromoRules.checkoutRefusal`; the use is then counted by the store's
 * one atomic step (`PromoStore.claimUse`), so of N simultaneous redemptions of a code with M uses left exactly M
 * succeed and the others are refused with `UsesExhausted`.
 */
import type { Ids } from "@tawsil/domain"
import { AlgiersTime } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { type BigDecimal, Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import * as PromoRules from "./PromoRules.ts"
import { PromoStore } from "./PromoStore.ts"

export class CodeUnknown extends Schema.TaggedError<CodeUnknown>()("CodeUnknown", { message: Schema.String }) {}
export class PromosOff extends Schema.TaggedError<PromosOff>()("PromosOff", { message: Schema.String }) {}
export class CodeInactive extends Schema.TaggedError<CodeInactive>()("CodeInactive", { message: Schema.String }) {}
export class CodeNotStarted extends Schema.TaggedError<CodeNotStarted>()("CodeNotStarted", {
  message: Schema.String
}) {}
export class CodeExpired extends Schema.TaggedError<CodeExpired>()("CodeExpired", { message: Schema.String }) {}
export class BelowMinimum extends Schema.TaggedError<BelowMinimum>()("BelowMinimum", { message: Schema.String }) {}
export class UsesExhausted extends Schema.TaggedError<UsesExhausted>()("UsesExhausted", { message: Schema.String }) {}

export const RedemptionErrorReason = Schema.Union([
  CodeUnknown,
  PromosOff,
  CodeInactive,
  CodeNotStarted,
  CodeExpired,
  BelowMinimum,
  UsesExhausted
])
export type RedemptionErrorReason = typeof RedemptionErrorReason.Type

/** Why a buyer's code was refused at checkout. */
export class RedemptionError extends Schema.TaggedError<RedemptionError>()("RedemptionError", {
  reason: RedemptionErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

/** A redeemed code: the discount on the products subtotal, and the code's uses now. */
export interface Redemption {
  readonly promoCodeId: number
  readonly code: string
  readonly discount: BigDecimal.BigDecimal
  readonly usedCount: number
}

export class Redemptions extends Context.Service<
  Redemptions,
  {
    /**
     * Redeems `code` (trimmed, any letter case) on a products subtotal: the discount, with the use counted. Run it
     * in the order's transaction, so a failed order gives the use back.
     */
    readonly redeem: (
      storeId: Ids.StoreId,
      code: string,
      subtotal: BigDecimal.BigDecimal
    ) => Effect.Effect<Redemption, RedemptionError>
  }
>()("@tawsil/promos/Redemptions") {}

const refusals: Record<PromoRules.CheckoutRefusal, () => RedemptionErrorReason> = {
  inactive: () => new CodeInactive({ message: "This promo code is not active" }),
  not_started: () => new CodeNotStarted({ message: "This promo code is not valid yet" }),
  expired: () => new CodeExpired({ message: "This promo code has expired" }),
  below_minimum: () => new BelowMinimum({ message: "The order does not reach this promo code's minimum amount" }),
  used_up: () => new UsesExhausted({ message: "This promo code has been used as many times as it may be" })
}

const refuse = (reason: RedemptionErrorReason) => Effect.fail(new RedemptionError({ reason }))

export const layer: Layer.Layer<Redemptions, never, PromoStore> = Layer.effect(
  Redemptions,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* PromoStore
    return Redemptions.of({
      redeem: method("Redemptions.redeem")(function* (storeId, raw, subtotal) {
        if (!(yield* store.addonActive(storeId))) {
          return yield* refuse(new PromosOff({ message: "Promo codes are not available in this store" }))
        }
        const found = yield* store.findByCode(storeId, raw.trim().toUpperCase())
        if (Option.isNone(found)) return yield* refuse(new CodeUnknown({ message: "Unknown promo code" }))
        const refusal = PromoRules.checkoutRefusal(found.value, subtotal, DateTime.toUtc(yield* AlgiersTime.now))
        if (Option.isSome(refusal)) return yield* refuse(refusals[refusal.value]())
        // The checks above read a snapshot; the use itself is counted atomically against max_uses.
        const claimed = yield* store.claimUse(storeId, found.value.id)
        if (Option.isNone(claimed)) return yield* refuse(refusals.used_up())
        return {
          promoCodeId: claimed.value.id,
          code: claimed.value.code,
          discount: PromoRules.discountOf(claimed.value, subtotal),
          usedCount: claimed.value.used_count
        }
      })
    })
  })
)
