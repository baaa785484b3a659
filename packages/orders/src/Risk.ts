/**
 * The ban list and return risk of the store API (docs/risk.md): ban and unban a customer or a phone, the store's
 * setting for orders from banned phones, an order's risk (its flags and its customer's score), the outcomes of the
 * store's couriers per destination wilaya and the couriers recommended for an order. Scoped by the calling store's
 * id; answers JSON-ready values; failures are `RiskError`s.
 *
 * A ban is kept by phone, as customers' phones are kept (`CustomerMatch.phoneKey`), so a phone can be banned before
 * it orders; the customer holding it is marked `is_banned` in the same unit. `orderRisk` is what `Orders` asks at
 * create and on a customer's detail (`OrderRisk`).
 */
import { AlgiersTime, Ids, Pagination, StoreText } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, DateTime, Effect, Layer, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as CourierOutcomes from "./CourierOutcomes.ts"
import * as CustomerMatch from "./CustomerMatch.ts"
import * as FraudScore from "./FraudScore.ts"
import { parseInstant } from "./internal/instant.ts"
import { Phone } from "./OrderCreate.ts"
import { OrderRisk } from "./OrderRisk.ts"
import { type CustomerRecord, OrderStore } from "./OrderStore.ts"
import * as OrderStoreSql from "./OrderStoreSql.ts"
import * as RiskError from "./RiskError.ts"
import { BannedOrders, type BanRecord, RiskStore, type SettingsRecord } from "./RiskStore.ts"
import * as RiskStoreSql from "./RiskStoreSql.ts"

const Timestamp = Schema.String.annotate({ description: "YYYY-MM-DD HH:MM:SS, Algiers time (UTC+01:00)" })

/** The longest reason a ban keeps. */
export const REASON_MAX = 500

export const Reason = StoreText.StoreText.check(
  Schema.isBetweenCodePoints(1, REASON_MAX),
  Schema.makeFilter((s: string) => s.trim().length > 0, { expected: "a reason that is not blank" })
)

export const CustomerBanBody = Schema.Struct({ reason: Reason }).annotate({ identifier: "CustomerBan" })
export const PhoneBanBody = Schema.Struct({ phone: Phone, reason: Reason }).annotate({ identifier: "PhoneBan" })
export const SettingsBody = Schema.Struct({ banned_orders: BannedOrders }).annotate({ identifier: "RiskSettingsPatch" })

export const Ban = Schema.Struct({
  id: Schema.Int,
  /** As the store keeps phones: without spaces. */
  phone: Schema.String,
  reason: Schema.String,
  /** The store's customer with this phone; null when it has none yet. */
  customer_id: Schema.NullOr(Schema.Int),
  created_at: Timestamp
}).annotate({ identifier: "Ban" })
export type Ban = typeof Ban.Type

export const Unbanned = Schema.Struct({
  phone: Schema.String,
  customer_id: Schema.NullOr(Schema.Int),
  is_banned: Schema.Literal(false)
}).annotate({ identifier: "Unbanned" })
export type Unbanned = typeof Unbanned.Type

export const Settings = Schema.Struct({
  /** `refuse`: the create is refused (`CustomerBanned`). `flag` (the default): created, and flagged `customer_banned`. */
  banned_orders: BannedOrders,
  updated_at: Schema.NullOr(Timestamp)
}).annotate({ identifier: "RiskSettings" })
export type Settings = typeof Settings.Type

export const OrderRiskView = Schema.Struct({
  order_id: Schema.Int,
  customer_id: Schema.Int,
  phone: Schema.String,
  /** Whether the phone is banned now. */
  is_banned: Schema.Boolean,
  /** What the risk rules noted when the order was created. */
  flags: Schema.Array(Schema.Struct({ flag: Schema.String, created_at: Timestamp })),
  fraud_score: Schema.Int,
  fraud_level: FraudScore.Level,
  fraud_factors: Schema.Array(FraudScore.Factor)
}).annotate({ identifier: "OrderRisk" })
export type OrderRiskView = typeof OrderRiskView.Type

export const Recommendations = Schema.Struct({
  order_id: Schema.Int,
  wilaya_id: Schema.Int,
  delivery_type: Schema.String,
  items: Schema.Array(CourierOutcomes.Recommendation)
}).annotate({ identifier: "CourierRecommendations" })
export type Recommendations = typeof Recommendations.Type

/** The query of `GET /v1/reports/couriers`, raw: ISO 8601 instants (a date alone is its Algiers midnight). */
export interface ReportQuery {
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** What the recommendation weighs an order against: the store's couriers and its shipping rates. */
export interface RecommendationSources {
  /** The couriers the store can ship with (its courier accounts' couriers). */
  readonly couriers: ReadonlyArray<string>
  /** The store's prices by wilaya, in DZD; null where it offers none. */
  readonly rates: ReadonlyArray<{
    readonly wilaya_id: number
    readonly home_price: number | null
    readonly desk_price: number | null
  }>
}

export class Risk extends Context.Service<
  Risk,
  {
    readonly banCustomer: (storeId: Ids.StoreId, id: number, body: unknown) => Effect.Effect<Ban, RiskError.RiskError>
    readonly unbanCustomer: (storeId: Ids.StoreId, id: number) => Effect.Effect<Unbanned, RiskError.RiskError>
    readonly banPhone: (storeId: Ids.StoreId, body: unknown) => Effect.Effect<Ban, RiskError.RiskError>
    readonly unbanPhone: (storeId: Ids.StoreId, phone: string) => Effect.Effect<Unbanned, RiskError.RiskError>
    readonly listBans: (
      storeId: Ids.StoreId,
      query: { readonly limit?: string | number | undefined; readonly cursor?: string | undefined }
    ) => Effect.Effect<Pagination.Page<Ban>>
    readonly settings: (storeId: Ids.StoreId) => Effect.Effect<Settings>
    readonly updateSettings: (storeId: Ids.StoreId, body: unknown) => Effect.Effect<Settings, RiskError.RiskError>
    readonly orderRisk: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<OrderRiskView, RiskError.RiskError>
    readonly courierReport: (
      storeId: Ids.StoreId,
      query: ReportQuery
    ) => Effect.Effect<CourierOutcomes.Report, RiskError.RiskError>
    readonly recommend: (
      storeId: Ids.StoreId,
      orderId: number,
      sources: RecommendationSources
    ) => Effect.Effect<Recommendations, RiskError.RiskError>
  }
>()("@tawsil/orders/Risk") {}

const time = AlgiersTime.formatSql

const invalid = (error: Schema.SchemaError, make: (message: string) => RiskError.RiskErrorReason) =>
  RiskError.fail(make(error.message))

const decodeWith =
  <S extends Schema.Top & { readonly DecodingServices: never }>(
    schema: S,
    make: (message: string) => RiskError.RiskErrorReason
  ) =>
  (body: unknown) =>
    Schema.decodeUnknownEffect(schema)(body).pipe(Effect.mapError((error) => invalid(error, make)))

const invalidBan = (message: string) => new RiskError.InvalidBan({ message })
const invalidRequest = (message: string) => new RiskError.InvalidRiskRequest({ message })

const decodeCustomerBan = decodeWith(CustomerBanBody, invalidBan)
const decodePhoneBan = decodeWith(PhoneBanBody, invalidBan)
const decodeSettings = decodeWith(SettingsBody, invalidRequest)

const banView = (ban: BanRecord): Ban => ({
  id: ban.id,
  phone: ban.phone,
  reason: ban.reason,
  customer_id: ban.customer_id,
  created_at: time(ban.created_at)
})

const settingsView = (settings: SettingsRecord): Settings => ({
  banned_orders: settings.banned_orders,
  updated_at: settings.updated_at === null ? null : time(settings.updated_at)
})

/** The phone of a path or query, as the store keeps phones; undefined when it cannot be a phone. */
const phoneOf = (raw: string): string | undefined => (Schema.is(Phone)(raw) ? CustomerMatch.phoneKey(raw) : undefined)

export const layer: Layer.Layer<Risk, never, OrderStore | RiskStore> = Layer.effect(
  Risk,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const orders = yield* OrderStore
    const store = yield* RiskStore

    const customerOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      const customer = Ids.isStorableId(id) ? yield* orders.findCustomer(storeId, id) : undefined
      if (customer === undefined) {
        return yield* RiskError.fail(new RiskError.RiskCustomerNotFound({ message: `Customer ${id} not found` }))
      }
      return customer
    })

    const ban = (storeId: Ids.StoreId, phone: string, reason: string) =>
      orders.transaction(
        Effect.gen(function* () {
          yield* orders.setBanned(storeId, phone, true)
          return banView(yield* store.putBan(storeId, phone, reason))
        })
      )

    const unban = (storeId: Ids.StoreId, phone: string) =>
      orders.transaction(
        Effect.gen(function* () {
          if (!(yield* store.removeBan(storeId, phone))) {
            return yield* RiskError.fail(new RiskError.BanNotFound({ message: `${phone} is not banned` }))
          }
          const customerId = yield* orders.setBanned(storeId, phone, false)
          return { phone, customer_id: customerId ?? null, is_banned: false as const }
        })
      )

    const scoreOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, customer: CustomerRecord) {
      return FraudScore.score(yield* store.customerFacts(storeId, customer))
    })

    const reportOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, query: ReportQuery) {
      const bound = (name: "from" | "to"): Effect.Effect<DateTime.Utc | undefined, RiskError.RiskError> => {
        const raw = query[name]?.trim()
        if (raw === undefined || raw === "") return Effect.succeed(undefined)
        const at = parseInstant(raw)
        return at === undefined
          ? Effect.fail(RiskError.fail(invalidRequest(`${name} is not an ISO 8601 date or date-time`)))
          : Effect.succeed(at)
      }
      const from = yield* bound("from")
      const to = yield* bound("to")
      if (from !== undefined && to !== undefined && !DateTime.isLessThan(from, to)) {
        return yield* RiskError.fail(invalidRequest("from must be before to"))
      }
      return CourierOutcomes.summarize(yield* store.shipmentOutcomes(storeId, { from, to }))
    })

    return Risk.of({
      banCustomer: method("Risk.banCustomer")(function* (storeId, id, body) {
        const { reason } = yield* decodeCustomerBan(body)
        const customer = yield* customerOf(storeId, id)
        return yield* ban(storeId, customer.phone, reason)
      }),
      unbanCustomer: method("Risk.unbanCustomer")(function* (storeId, id) {
        const customer = yield* customerOf(storeId, id)
        return yield* unban(storeId, customer.phone)
      }),
      banPhone: method("Risk.banPhone")(function* (storeId, body) {
        const { phone, reason } = yield* decodePhoneBan(body)
        return yield* ban(storeId, CustomerMatch.phoneKey(phone), reason)
      }),
      unbanPhone: method("Risk.unbanPhone")(function* (storeId, raw) {
        const phone = phoneOf(raw)
        if (phone === undefined) {
          return yield* RiskError.fail(new RiskError.BanNotFound({ message: `${raw} is not banned` }))
        }
        return yield* unban(storeId, phone)
      }),
      listBans: method("Risk.listBans")(function* (storeId, query) {
        const limit = Pagination.limitOf(query.limit)
        const rows = yield* store.listBans(storeId, { afterId: Pagination.afterIdOf(query.cursor), limit: limit + 1 })
        return Pagination.page(rows, limit, (row) => row.id, banView)
      }),
      settings: method("Risk.settings")(function* (storeId) {
        return settingsView(yield* store.settings(storeId))
      }),
      updateSettings: method("Risk.updateSettings")(function* (storeId, body) {
        const { banned_orders } = yield* decodeSettings(body)
        return settingsView(yield* store.putSettings(storeId, banned_orders))
      }),
      orderRisk: method("Risk.orderRisk")(function* (storeId, orderId) {
        const order = Ids.isStorableId(orderId) ? yield* orders.findOrder(storeId, orderId) : undefined
        if (order === undefined) {
          return yield* RiskError.fail(new RiskError.RiskOrderNotFound({ message: `Order ${orderId} not found` }))
        }
        const customer = yield* customerOf(storeId, order.customer_id)
        const score = yield* scoreOf(storeId, customer)
        return {
          order_id: order.id,
          customer_id: customer.id,
          phone: customer.phone,
          is_banned: (yield* store.findBan(storeId, customer.phone)) !== undefined,
          flags: (yield* store.flagsOf(storeId, order.id)).map((flag) => ({
            flag: flag.flag,
            created_at: time(flag.created_at)
          })),
          fraud_score: score.score,
          fraud_level: score.level,
          fraud_factors: score.factors
        }
      }),
      courierReport: method("Risk.courierReport")(function* (storeId, query) {
        return yield* reportOf(storeId, query)
      }),
      recommend: method("Risk.recommend")(function* (storeId, orderId, sources) {
        const order = Ids.isStorableId(orderId) ? yield* orders.findOrder(storeId, orderId) : undefined
        if (order === undefined) {
          return yield* RiskError.fail(new RiskError.RiskOrderNotFound({ message: `Order ${orderId} not found` }))
        }
        const rate = sources.rates.find((r) => r.wilaya_id === order.wilaya_id)
        const price = (order.delivery_type === "desk" ? rate?.desk_price : rate?.home_price) ?? undefined
        const report = CourierOutcomes.summarize(yield* store.shipmentOutcomes(storeId, {}))
        return {
          order_id: order.id,
          wilaya_id: order.wilaya_id,
          delivery_type: order.delivery_type,
          items: CourierOutcomes.recommend(
            report,
            order.wilaya_id,
            sources.couriers.map((courier) => ({ courier, price }))
          )
        }
      })
    })
  })
)

/** The rules `Orders` asks at create and on a customer's detail (`OrderRisk`), over the risk store. */
export const orderRisk: Layer.Layer<never, never, OrderStore | RiskStore> = Layer.effect(
  OrderRisk,
  Effect.gen(function* () {
    const orders = yield* OrderStore
    const store = yield* RiskStore
    return {
      admit: Effect.fnUntraced(function* (storeId, phone) {
        if ((yield* store.findBan(storeId, phone)) === undefined) return "admit"
        return (yield* store.settings(storeId)).banned_orders === "refuse" ? "refuse" : "flag"
      }),
      flagged: Effect.fnUntraced(function* (storeId, orderId, phone) {
        yield* store.flagOrder(storeId, orderId, "customer_banned")
        yield* orders.setBanned(storeId, phone, true)
      }),
      score: Effect.fnUntraced(function* (storeId, customer) {
        return FraudScore.score(yield* store.customerFacts(storeId, customer))
      })
    }
  })
)

/** `Risk` on PostgreSQL, needing only `SqlClient`. */
export const layerSql: Layer.Layer<Risk, never, SqlClient.SqlClient> = layer.pipe(
  Layer.provide(Layer.merge(OrderStoreSql.layer, RiskStoreSql.layer))
)

/** `OrderRisk` on PostgreSQL, needing only `SqlClient`: what the app gives `Orders`. */
export const orderRiskSql: Layer.Layer<never, never, SqlClient.SqlClient> = orderRisk.pipe(
  Layer.provide(Layer.merge(OrderStoreSql.layer, RiskStoreSql.layer))
)
