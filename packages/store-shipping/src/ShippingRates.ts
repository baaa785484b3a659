/**
 * A store's shipping rates (`GET` and `POST /v1/shipping/rates`) and the courier rate sync
 * (`POST /v1/shipping/rates/sync`), over a `ShippingStore`, each write recorded in the change history (entity
 * `shipping.rates`, entity id `rates`) in the same transaction.
 *
 * - A write upserts the wilayas it lists; only sent prices change. It records, for the wilayas whose prices it
 *   changed, their prices before (the wilayas that had none as `absent`) and after; it records nothing when no
 *   price changed.
 * - A sync asks the shipping API's gateway for one courier's prices to every wilaya (or the ones listed) from the
 *   store's `origin_wilaya`, with the caller's credentials — kept `Redacted` until the gateway, used for this call
 *   only, and never recorded — then overwrites the prices the courier quoted and adds the wilayas that had no rate.
 *   It records the prices it overwrote (its `after` is null, spec) and answers with the change's id. A destination
 *   the courier refuses is skipped; any other failure of the courier fails the sync with nothing written.
 * - A write whose recorded values would pass the change history's limit (`SnapshotLimit`, 256 KB) is refused before
 *   it runs (spec: 422 `snapshot_too_large`).
 */
import { Change, ChangeLog } from "@tawsil/changes"
import type { Ids, WilayaCode } from "@tawsil/domain"
import { Gateway } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { amountOf, sameAmount } from "./internal/fields.ts"
import {
  LAYOUT,
  type Prices,
  parseRatesBody,
  parseSyncBody,
  progressOf,
  quotedPrices,
  type RatesSynced,
  type RatesTable,
  type RatesValues,
  type StoredRate,
  type SyncProgress,
  type SyncRequest,
  tableOf,
  valuesOf,
  wilayaList
} from "./Rate.ts"
import { ShippingStore } from "./ShippingStore.ts"
import * as StoreShippingError from "./StoreShippingError.ts"

export const ENTITY = "shipping.rates"
export const ENTITY_ID = "rates"

/**
 * The most a rate write may record on either side, as JSON in UTF-8: the change history's limit. With today's
 * fields a write cannot reach it (58 wilayas of two prices); a host or a test may set it lower.
 */
export const SnapshotLimit = Context.Reference<number>("@tawsil/store-shipping/SnapshotLimit", {
  defaultValue: () => Change.MAX_VALUES_BYTES
})

/** How many destinations a sync prices at once. */
export const SYNC_CONCURRENCY = 4

/**
 * Each destination's deadline. The courier's limits pace the sync (the shipping transport queues each call for its
 * slot under 80 % of the account's limits): a full sync against an account of 50 calls a minute takes a minute and
 * a half, so a call may wait for its slot longer than the shipping API's default 15 seconds.
 */
export const SYNC_CALL_TIMEOUT_MS = 120_000

export const ORIGIN_MISSING =
  "A courier rate sync prices from the wilaya parcels leave from: set origin_wilaya with PATCH /v1/shipping/settings first"

export class ShippingRates extends Context.Service<
  ShippingRates,
  {
    /** `GET /v1/shipping/rates`: the 58 wilayas in code order. */
    readonly list: (storeId: Ids.StoreId) => Effect.Effect<RatesTable>
    /** `POST /v1/shipping/rates`: upserts the listed wilayas' prices; answers the whole table. */
    readonly write: (
      writer: ChangeLog.Writer,
      body: unknown
    ) => Effect.Effect<RatesTable, StoreShippingError.StoreShippingError>
    /** `POST /v1/shipping/rates/sync`: one courier's prices, from the store's origin wilaya. */
    readonly sync: (
      writer: ChangeLog.Writer,
      body: unknown
    ) => Effect.Effect<RatesSynced, StoreShippingError.StoreShippingError>
    /** `GET /v1/shipping/rates/sync`: the store's latest sync, running or ended; null when it never synced. */
    readonly syncProgress: (storeId: Ids.StoreId) => Effect.Effect<SyncProgress | null>
  }
>()("@tawsil/store-shipping/ShippingRates") {}

const refuse = (reason: StoreShippingError.StoreShippingErrorReason) => Effect.fail(StoreShippingError.fail(reason))

const invalid = (message: string) => refuse(new StoreShippingError.InvalidShippingBody({ message }))

const samePrices = (a: Pick<Prices, "home_price" | "desk_price">, b: Pick<Prices, "home_price" | "desk_price">) =>
  sameAmount(a.home_price, b.home_price) && sameAmount(a.desk_price, b.desk_price)

const NONE: Pick<Prices, "home_price" | "desk_price"> = { home_price: null, desk_price: null }

/** The values a write records, refused when either side passes `limit`. */
const checkSize = (limit: number, ...sides: ReadonlyArray<unknown>) =>
  sides.some((side) => Change.sizeOf(side) > limit)
    ? refuse(
        new StoreShippingError.SnapshotTooLarge({
          message: `The rates this write would record pass ${Math.floor(limit / 1024)} KB; write fewer wilayas at a time`
        })
      )
    : Effect.void

/** The recorded form of the prices of `wilayas` as `rates` holds them: priced ones in `rates`, the others `absent`. */
const recorded = (
  wilayas: ReadonlyArray<WilayaCode.WilayaCode>,
  prices: ReadonlyMap<number, Pick<Prices, "home_price" | "desk_price">>
): RatesValues => {
  const priced = wilayas.filter((wilaya) => {
    const found = prices.get(wilaya)
    return found !== undefined && (found.home_price !== null || found.desk_price !== null)
  })
  return {
    rates: priced.map((wilaya_id) => valuesOf({ wilaya_id, ...prices.get(wilaya_id)! })),
    absent: wilayas.filter((wilaya) => !priced.includes(wilaya))
  }
}

const byWilaya = (rates: ReadonlyArray<StoredRate>) =>
  new Map<number, Pick<Prices, "home_price" | "desk_price">>(rates.map((rate) => [rate.wilaya_id, rate]))

/** One destination's answer: the courier's quote, or its refusal to deliver there (skipped). */
type Priced =
  | {
      readonly _tag: "Quoted"
      readonly wilaya: WilayaCode.WilayaCode
      readonly home: Option.Option<number>
      readonly desk: Option.Option<number>
    }
  | {
      readonly _tag: "Refused"
      readonly wilaya: WilayaCode.WilayaCode
      readonly failure: StoreShippingError.CourierFailed["failure"]
      /** The courier's words. */
      readonly reason: string
    }

export const layer: Layer.Layer<ShippingRates, never, ShippingStore | ChangeLog.ChangeLog | Gateway.Gateway> =
  Layer.effect(
    ShippingRates,
    Effect.gen(function* () {
      const method = yield* ServiceSpans.method
      const store = yield* ShippingStore
      const gateway = yield* Gateway.Gateway
      const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)
      const limit = yield* SnapshotLimit

      const list = (storeId: Ids.StoreId) => Effect.map(store.rates(storeId), tableOf)

      /** The courier's prices to one destination; its refusal of that destination is a skip, any other failure fails. */
      const quote = (request: SyncRequest, origin: WilayaCode.WilayaCode) => (wilaya: WilayaCode.WilayaCode) =>
        gateway
          .rates({
            courier: request.courier,
            credentials: request.credentials === undefined ? undefined : Redacted.value(request.credentials),
            options: { fromWilaya: origin, baseUrl: request.baseUrl, timeoutMs: SYNC_CALL_TIMEOUT_MS },
            query: {
              fromWilaya: origin,
              toWilaya: wilaya,
              deliveryType: "home",
              ...(request.tier === undefined ? {} : { tier: request.tier })
            }
          })
          .pipe(
            Effect.map((quoted): Priced => ({ _tag: "Quoted", wilaya, ...quotedPrices(quoted, request.tier) })),
            Effect.catch((failure) =>
              failure._tag === "CourierError" && failure.reason._tag === "Refused"
                ? Effect.succeed<Priced>({ _tag: "Refused", wilaya, failure, reason: failure.reason.message })
                : refuse(new StoreShippingError.CourierFailed({ failure, message: failure.message }))
            )
          )

      return ShippingRates.of({
        list: method("ShippingRates.list")(function* (storeId) {
          return yield* list(storeId)
        }),
        write: method("ShippingRates.write")(function* (writer, body) {
          const patches = yield* parseRatesBody(body).pipe(Effect.catch(invalid))
          yield* store.lock(writer.storeId)
          const current = byWilaya(yield* store.rates(writer.storeId))
          const next = new Map<number, Pick<Prices, "home_price" | "desk_price">>()
          for (const patch of patches) {
            const was = current.get(patch.wilaya_id) ?? NONE
            next.set(patch.wilaya_id, {
              home_price: patch.home_price === undefined ? was.home_price : patch.home_price,
              desk_price: patch.desk_price === undefined ? was.desk_price : patch.desk_price
            })
          }
          const changed = patches
            .map((patch) => patch.wilaya_id)
            .filter((wilaya) => !samePrices(current.get(wilaya) ?? NONE, next.get(wilaya)!))
            .sort((a, b) => a - b)
          if (changed.length === 0) return yield* list(writer.storeId)
          const before = recorded(changed, current)
          const after = recorded(changed, next)
          yield* checkSize(limit, before, after)
          yield* store.putRates(
            writer.storeId,
            changed.map((wilaya_id) => ({ wilaya_id, ...next.get(wilaya_id)! }))
          )
          yield* record(
            writer,
            "update",
            ENTITY_ID,
            `Updated shipping rates of ${changed.length} ${changed.length === 1 ? "wilaya" : "wilayas"}: ${wilayaList(changed)}`,
            before,
            after
          )
          return yield* list(writer.storeId)
        }),
        sync: method("ShippingRates.sync")(function* (writer, body) {
          const request = yield* parseSyncBody(body).pipe(Effect.catch(invalid))
          const origin = (yield* store.settings(writer.storeId)).origin_wilaya
          if (origin === null)
            return yield* refuse(new StoreShippingError.OriginWilayaMissing({ message: ORIGIN_MISSING }))
          const courier = gateway.catalogue.resolve(request.courier)?.entry.key ?? request.courier
          const destinations = request.wilayas
          // Each destination's answer moves the sync's progress on (`GET /v1/shipping/rates/sync`).
          const price = (wilaya: WilayaCode.WilayaCode) =>
            Effect.tap(quote(request, origin)(wilaya), () => store.syncMoved(writer.storeId))
          yield* store.syncStarted(writer.storeId, { courier, total: destinations.length })
          return yield* Effect.gen(function* () {
            // The first destination alone: a wrong courier or credentials fail once, not once per concurrent call.
            const first = yield* price(destinations[0]!)
            const rest = yield* Effect.forEach(destinations.slice(1), price, { concurrency: SYNC_CONCURRENCY })
            const answers = [first, ...rest]
            const quoted = answers.filter((answer) => answer._tag === "Quoted")
            const refused = answers.filter((answer) => answer._tag === "Refused")
            if (quoted.length === 0) {
              // Nothing to sync: answered as the courier's refusal of the first destination.
              const { failure } = refused[0]!
              return yield* refuse(new StoreShippingError.CourierFailed({ failure, message: failure.message }))
            }

            // The courier was asked above, outside any transaction; the write takes the store's lock and records its
            // change in one, so no database connection is held while a courier answers.
            const { changeId, updated, added, unchanged } = yield* store.transaction(
              Effect.gen(function* () {
                yield* store.lock(writer.storeId)
                const current = byWilaya(yield* store.rates(writer.storeId))
                const updated: Array<WilayaCode.WilayaCode> = []
                const added: Array<WilayaCode.WilayaCode> = []
                const unchanged: Array<WilayaCode.WilayaCode> = []
                const writes: Array<Prices> = []
                for (const answer of quoted) {
                  const was = current.get(answer.wilaya)
                  const amount = (quotedPrice: Option.Option<number>, kept: Prices["home_price"]) =>
                    Option.match(
                      Option.flatMap(quotedPrice, (fee) => amountOf(fee)),
                      {
                        onNone: () => kept,
                        onSome: (fee) => fee
                      }
                    )
                  const next = {
                    wilaya_id: answer.wilaya,
                    home_price: amount(answer.home, was?.home_price ?? null),
                    desk_price: amount(answer.desk, was?.desk_price ?? null)
                  }
                  if (samePrices(was ?? NONE, next)) unchanged.push(answer.wilaya)
                  else {
                    ;(was === undefined || (was.home_price === null && was.desk_price === null) ? added : updated).push(
                      answer.wilaya
                    )
                    writes.push(next)
                  }
                }
                updated.sort((a, b) => a - b)
                // The sync's undo puts back what it overwrote and keeps what it added; with nothing overwritten there is
                // nothing to restore (`before` null).
                const before: RatesValues | null =
                  updated.length === 0
                    ? null
                    : {
                        courier,
                        rates: updated.map((wilaya_id) => valuesOf({ wilaya_id, ...current.get(wilaya_id)! }))
                      }
                yield* checkSize(limit, before)
                let changeId: number | null = null
                if (writes.length > 0) {
                  yield* store.putRates(writer.storeId, writes)
                  changeId = yield* record(
                    writer,
                    "update",
                    ENTITY_ID,
                    `Synced shipping rates from ${courier}: ${updated.length} updated, ${added.length} added`,
                    before,
                    null
                  )
                }
                return { changeId, updated, added, unchanged }
              })
            )
            const sorted = (codes: ReadonlyArray<number>) => [...codes].sort((a, b) => a - b)
            return {
              change_id: changeId,
              courier,
              origin_wilaya: origin,
              updated: sorted(updated),
              added: sorted(added),
              unchanged: sorted(unchanged),
              skipped: refused
                .map((answer) => ({ wilaya_id: answer.wilaya as number, reason: answer.reason }))
                .sort((a, b) => a.wilaya_id - b.wilaya_id),
              items: (yield* list(writer.storeId)).items
            }
          }).pipe(
            Effect.onExit((exit) =>
              store.syncFinished(
                writer.storeId,
                Exit.isSuccess(exit)
                  ? { changeId: exit.value.change_id, error: null }
                  : {
                      changeId: null,
                      error: Option.match(Exit.findErrorOption(exit), {
                        onNone: () => "the sync stopped before it finished; nothing was written",
                        onSome: (error) => error.message
                      })
                    }
              )
            )
          )
        }),
        syncProgress: method("ShippingRates.syncProgress")(function* (storeId) {
          const last = yield* store.lastSync(storeId)
          return last === undefined ? null : progressOf(last.sync, last.now)
        })
      })
    })
  )
