/**
 * The store API's promo codes (spec "Promo codes"): list, create, PATCH and delete over a `PromoStore`, each write
 * recorded in the change history (entity `promo_code`) in the same transaction.
 *
 * A write, in order: the Promo codes add-on must be active (`AddonInactive`); the code must exist (PATCH, DELETE);
 * the body's rules (`PromoRules`, in the spec's order); the text must be free (`CodeExists`); a write whose result
 * is a 100% percentage code needs its confirmation (`ConfirmationRequired`, `ConfirmationStale`); then the write and
 * its change record.
 */
import { ChangeLog } from "@tawsil/changes"
import { AlgiersTime, Ids, LooseBoolean, Pagination } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Clock, Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { identity } from "effect/Function"
import * as Confirmation from "./Confirmation.ts"
import { LAYOUT, PromoCode, type PromoCodeDeleted, PromoCodeId, type PromoCodeList } from "./PromoCode.ts"
import * as PromoError from "./PromoError.ts"
import * as PromoRules from "./PromoRules.ts"
import { PromoStore } from "./PromoStore.ts"

export const ENTITY = "promo_code"

/** Who writes: the store, the key's id (recorded on the change) and whether the key was made from the dashboard. */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
  /** Dashboard-created keys may send `confirm_full_discount: true` to skip the 100% round trip. */
  readonly dashboardKey: boolean
}

export interface ListParams {
  readonly is_active?: string | undefined
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
}

export const ADDON_INACTIVE = "The Promo codes add-on is not active on this store; activate it to write promo codes"
export const NOT_FOUND = "Promo code not found"
export const CONFIRMATION_REQUIRED =
  "A 100% discount makes orders free: nothing was written. To confirm, send the same body with confirm_token and a " +
  "new Idempotency-Key"
export const CONFIRMATION_STALE =
  "The confirmation token is expired, used or was issued for another change: nothing was written. Confirm with the " +
  "fresh confirm_token"
const WILL_CHANGE_NOTE =
  "Orders using this code will have a products subtotal of 0; shipping is still charged. Undo the change from the " +
  "change history, or edit or delete the code, to stop it."

export const codeExists = (code: string) => `Another promo code of this store is already ${code}`

/** A code as the change history records it: its wire form. */
export const snapshot = Schema.encodeSync(PromoCode)

const CHANGED_FIELDS = [
  "code",
  "discount_type",
  "discount_value",
  "min_order_amount",
  "max_uses",
  "is_active",
  "starts_at",
  "expires_at"
] as const

/** The fields whose recorded form differs between two snapshots. */
export const changedFields = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  CHANGED_FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))

export class Promos extends Context.Service<
  Promos,
  {
    /** `GET /v1/promo-codes`: newest first, plus whether the add-on is active. */
    readonly list: (storeId: Ids.StoreId, params?: ListParams) => Effect.Effect<PromoCodeList>
    readonly create: (writer: Writer, body: unknown) => Effect.Effect<PromoCode, PromoError.PromoError>
    /** Only sent fields change; an empty body changes nothing (and records nothing). */
    readonly update: (writer: Writer, id: number, body: unknown) => Effect.Effect<PromoCode, PromoError.PromoError>
    readonly remove: (writer: Writer, id: number) => Effect.Effect<PromoCodeDeleted, PromoError.PromoError>
  }
>()("@tawsil/promos/Promos") {}

const refuse = (reason: PromoError.PromoErrorReason) => Effect.fail(PromoError.fail(reason))
const notFound = () => refuse(new PromoError.PromoNotFound({ message: NOT_FOUND }))

export const layer: Layer.Layer<Promos, never, PromoStore | ChangeLog.ChangeLog> = Layer.effect(
  Promos,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* PromoStore
    const log = yield* ChangeLog.ChangeLog
    const secret = yield* store.confirmationSecret

    const requireAddon = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      if (!(yield* store.addonActive(storeId)))
        return yield* refuse(new PromoError.AddonInactive({ message: ADDON_INACTIVE }))
    })

    const requireFree = Effect.fnUntraced(function* (storeId: Ids.StoreId, code: string, except?: number) {
      const holder = yield* store.findByCode(storeId, code)
      if (Option.isSome(holder) && holder.value.id !== except) {
        return yield* refuse(new PromoError.CodeExists({ message: codeExists(code) }))
      }
    })

    /** The 100% rule: passes with a dashboard key's `confirm_full_discount`, or a valid unspent token. */
    const confirm = Effect.fnUntraced(function* (
      writer: Writer,
      subject: Confirmation.Subject,
      approval: PromoRules.Approval,
      willChange: PromoError.WillChange
    ) {
      if (writer.dashboardKey && approval.confirmFullDiscount) return
      const now = yield* Clock.currentTimeMillis
      if (approval.confirmToken !== undefined) {
        const valid = Confirmation.verify(secret, approval.confirmToken, subject, now)
        if (
          valid !== undefined &&
          (yield* store.spendConfirmation(
            writer.storeId,
            valid.nonce,
            DateTime.makeUnsafe(valid.expiresAtSeconds * 1000)
          ))
        ) {
          return
        }
      }
      const issued = yield* Confirmation.issue(secret, subject, now)
      const fields = {
        confirmToken: issued.token,
        expiresIn: issued.expiresIn,
        action: subject.action,
        willChange
      }
      return yield* refuse(
        approval.confirmToken === undefined
          ? new PromoError.ConfirmationRequired({ message: CONFIRMATION_REQUIRED, ...fields })
          : new PromoError.ConfirmationStale({ message: CONFIRMATION_STALE, ...fields })
      )
    })

    const record = ChangeLog.recorder(log, ENTITY, LAYOUT)

    const existing = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      if (!Ids.isStorableId(id)) return yield* notFound()
      const found = yield* store.get(storeId, PromoCodeId.make(id))
      if (Option.isNone(found)) return yield* notFound()
      return found.value
    })

    const codeTaken = (code: string) => () => refuse(new PromoError.CodeExists({ message: codeExists(code) }))

    return Promos.of({
      list: method("Promos.list")(function* (storeId, params = {}) {
        const limit = Pagination.limitOf(params.limit)
        const rows = yield* store.list(storeId, {
          limit: limit + 1,
          afterId: Pagination.afterIdOf(params.cursor),
          // `true`, `1`, `yes`, `on` exactly give active codes, any other value inactive, none all.
          active: LooseBoolean.fromQuery(params.is_active)
        })
        const page = Pagination.page(rows, limit, (row) => row.id, identity)
        return { ...page, addon_enabled: yield* store.addonActive(storeId) }
      }),
      create: method("Promos.create")(function* (writer, body) {
        yield* requireAddon(writer.storeId)
        const { values, approval } = yield* PromoRules.parseCreate(body, DateTime.toUtc(yield* AlgiersTime.now))
        yield* requireFree(writer.storeId, values.code)
        if (PromoRules.isFullDiscount(values)) {
          yield* confirm(
            writer,
            { storeId: writer.storeId, action: Confirmation.CREATE_ACTION, code: values.code },
            approval,
            {
              action: `Create promo code ${values.code} to make orders free`,
              code: values.code,
              discount: "100%",
              reversible: true,
              note: WILL_CHANGE_NOTE
            }
          )
        }
        const created = yield* store
          .insert(writer.storeId, values)
          .pipe(Effect.catchTag("CodeTaken", codeTaken(values.code)))
        yield* record(writer, "create", created.id, `Created promo code ${created.code}`, null, snapshot(created))
        return created
      }),
      update: method("Promos.update")(function* (writer, id, body) {
        yield* requireAddon(writer.storeId)
        const current = yield* existing(writer.storeId, id)
        const { patch, approval } = yield* PromoRules.parsePatch(body, current, DateTime.toUtc(yield* AlgiersTime.now))
        if (Object.keys(patch).length === 0) return current
        if (patch.code !== undefined && patch.code !== current.code) yield* requireFree(writer.storeId, patch.code, id)
        const result = PromoRules.applyPatch(current, patch)
        if (
          (patch.discount_type !== undefined || patch.discount_value !== undefined) &&
          PromoRules.isFullDiscount(result)
        ) {
          yield* confirm(
            writer,
            { storeId: writer.storeId, action: Confirmation.updateAction(id), code: result.code },
            approval,
            {
              action: `Change promo code #${id} to make orders free`,
              code: result.code,
              discount: "100%",
              reversible: true,
              note: WILL_CHANGE_NOTE
            }
          )
        }
        const updated = yield* store
          .update(writer.storeId, current.id, patch)
          .pipe(Effect.catchTag("CodeTaken", codeTaken(patch.code ?? current.code)))
        if (Option.isNone(updated)) return yield* notFound()
        const before = snapshot(current)
        const after = snapshot(updated.value)
        const changed = changedFields(before, after)
        if (changed.length > 0) {
          yield* record(
            writer,
            "update",
            id,
            `Updated promo code ${updated.value.code} (${changed.join(", ")})`,
            before,
            after
          )
        }
        return updated.value
      }),
      remove: method("Promos.remove")(function* (writer, id) {
        yield* requireAddon(writer.storeId)
        if (!Ids.isStorableId(id)) return yield* notFound()
        const removed = yield* store.remove(writer.storeId, PromoCodeId.make(id))
        if (Option.isNone(removed)) return yield* notFound()
        yield* record(writer, "delete", id, `Deleted promo code ${removed.value.code}`, snapshot(removed.value), null)
        return { deleted: true as const, id }
      })
    })
  })
)
