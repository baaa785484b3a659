/**
 * Where promo codes live: the port, and its in-memory implementation (tests, one-process runs).
 *
 * The port keeps records and the invariants that need the storage's atomicity: a code's text is unique per store,
 * a code is never used more than `max_uses` times however many checkouts redeem it at once (`claimUse`), and a
 * confirmation token is spent once (`spendConfirmation`). Rules, messages and the change history are `Promos`'s.
 */
import { randomBytes } from "node:crypto"
import type { Ids } from "@tawsil/domain"
import { Clock, Context, Data, DateTime, Effect, Layer, Option, Redacted } from "effect"
import {
  PromoCode,
  type PromoCodeId,
  PromoCodeId as PromoCodeIdSchema,
  type PromoPatch,
  type PromoRestore,
  type PromoValues
} from "./PromoCode.ts"

export interface ListQuery {
  readonly limit: number
  /** Only codes with a smaller id (the page after a cursor). */
  readonly afterId: number | undefined
  /** Only active (true) or inactive (false) codes; all when undefined. */
  readonly active: boolean | undefined
}

/** Another code of the store already has this text. */
export class CodeTaken extends Data.TaggedError("CodeTaken")<{ readonly code: string }> {}

export class PromoStore extends Context.Service<
  PromoStore,
  {
    /** The store's codes, newest (highest id) first. */
    readonly list: (storeId: Ids.StoreId, query: ListQuery) => Effect.Effect<ReadonlyArray<PromoCode>>
    readonly get: (storeId: Ids.StoreId, id: PromoCodeId) => Effect.Effect<Option.Option<PromoCode>>
    readonly findByCode: (storeId: Ids.StoreId, code: string) => Effect.Effect<Option.Option<PromoCode>>
    /**
     * Adds a code. `restore` brings a deleted code back with its id (when no code of any store holds it), usage
     * count and creation time.
     */
    readonly insert: (
      storeId: Ids.StoreId,
      values: PromoValues,
      restore?: Pick<PromoRestore, "id" | "used_count" | "created_at">
    ) => Effect.Effect<PromoCode, CodeTaken>
    /** Applies the fields present in `patch`; None when absent. */
    readonly update: (
      storeId: Ids.StoreId,
      id: PromoCodeId,
      patch: PromoPatch
    ) => Effect.Effect<Option.Option<PromoCode>, CodeTaken>
    /** Deletes the code; the deleted record, or None when absent. */
    readonly remove: (storeId: Ids.StoreId, id: PromoCodeId) => Effect.Effect<Option.Option<PromoCode>>
    /**
     * Counts one use unless the code has reached `max_uses`: true for at most `max_uses - used_count` of any number
     * of simultaneous callers.
     */
    readonly claimUse: (storeId: Ids.StoreId, id: PromoCodeId) => Effect.Effect<Option.Option<PromoCode>>
    /** Whether the store's Promo codes add-on is active (on unless turned off). */
    readonly addonActive: (storeId: Ids.StoreId) => Effect.Effect<boolean>
    /** Turns the add-on on or off; false when no such store exists. */
    readonly setAddon: (storeId: Ids.StoreId, active: boolean) => Effect.Effect<boolean>
    /** This installation's secret for confirmation tokens (every instance on the database shares it). */
    readonly confirmationSecret: Effect.Effect<Redacted.Redacted<string>>
    /** Spends a confirmation token's nonce: true once, false when it was spent already. */
    readonly spendConfirmation: (storeId: Ids.StoreId, nonce: string, expiresAt: DateTime.Utc) => Effect.Effect<boolean>
  }
>()("@tawsil/promos/PromoStore") {}

/** Codes in a `Map`, on `Clock` time; every operation is one synchronous step. */
export const layerMemory: Layer.Layer<PromoStore> = Layer.sync(PromoStore, () => {
  const codes = new Map<number, { readonly storeId: Ids.StoreId; readonly promo: PromoCode }>()
  const addonOff = new Set<number>()
  const spent = new Set<string>()
  const secret = Redacted.make(randomBytes(32).toString("hex"))
  let lastId = 0
  const now = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.makeUnsafe(millis))
  const own = (storeId: Ids.StoreId, id: number) => {
    const entry = codes.get(id)
    return entry !== undefined && entry.storeId === storeId ? entry.promo : undefined
  }
  const taken = (storeId: Ids.StoreId, code: string, except?: number) =>
    [...codes.values()].some(
      (entry) => entry.storeId === storeId && entry.promo.code === code && entry.promo.id !== except
    )

  return PromoStore.of({
    list: (storeId, query) =>
      Effect.sync(() =>
        [...codes.values()]
          .filter(
            ({ storeId: owner, promo }) =>
              owner === storeId &&
              (query.afterId === undefined || promo.id < query.afterId) &&
              (query.active === undefined || promo.is_active === query.active)
          )
          .map(({ promo }) => promo)
          .sort((a, b) => b.id - a.id)
          .slice(0, query.limit)
      ),
    get: (storeId, id) => Effect.sync(() => Option.fromNullishOr(own(storeId, id))),
    findByCode: (storeId, code) =>
      Effect.sync(() =>
        Option.fromNullishOr(
          [...codes.values()].find((entry) => entry.storeId === storeId && entry.promo.code === code)?.promo
        )
      ),
    insert: (storeId, values, restore) =>
      Effect.flatMap(now, (at) => {
        if (taken(storeId, values.code)) return Effect.fail(new CodeTaken({ code: values.code }))
        const id = restore !== undefined && !codes.has(restore.id) ? restore.id : PromoCodeIdSchema.make(++lastId)
        lastId = Math.max(lastId, id)
        const promo = new PromoCode({
          id,
          ...values,
          used_count: restore?.used_count ?? 0,
          created_at: restore?.created_at ?? at,
          updated_at: at
        })
        codes.set(id, { storeId, promo })
        return Effect.succeed(promo)
      }),
    update: (storeId, id, patch) =>
      Effect.flatMap(now, (at) => {
        const current = own(storeId, id)
        if (current === undefined) return Effect.succeedNone
        if (patch.code !== undefined && taken(storeId, patch.code, id)) {
          return Effect.fail(new CodeTaken({ code: patch.code }))
        }
        const promo = new PromoCode({ ...current, ...patch, updated_at: at })
        codes.set(id, { storeId, promo })
        return Effect.succeed(Option.some(promo))
      }),
    remove: (storeId, id) =>
      Effect.sync(() => {
        const current = own(storeId, id)
        if (current === undefined) return Option.none()
        codes.delete(id)
        return Option.some(current)
      }),
    claimUse: (storeId, id) =>
      Effect.sync(() => {
        const current = own(storeId, id)
        if (current === undefined || (current.max_uses !== null && current.used_count >= current.max_uses)) {
          return Option.none()
        }
        const promo = new PromoCode({ ...current, used_count: current.used_count + 1 })
        codes.set(id, { storeId, promo })
        return Option.some(promo)
      }),
    addonActive: (storeId) => Effect.sync(() => !addonOff.has(storeId)),
    setAddon: (storeId, active) =>
      Effect.sync(() => {
        if (active) addonOff.delete(storeId)
        else addonOff.add(storeId)
        return true
      }),
    confirmationSecret: Effect.succeed(secret),
    spendConfirmation: (_storeId, nonce) =>
      Effect.sync(() => {
        if (spent.has(nonce)) return false
        spent.add(nonce)
        return true
      })
  })
})
