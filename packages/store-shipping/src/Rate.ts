/**
 * A store's shipping rates: for each of the 58 wilayas couriers deliver to, the price of home delivery and the
 * price of stop-desk delivery (a pickup point), each null when the store does not offer it there. A wilaya with
 * neither price has no rate: the store does not deliver there.
 *
 * This module holds the wire shapes (`GET /v1/shipping/rates`, the `POST` body, the courier rate sync's body and
 * answer), how a body is read (`parseRatesBody`, `parseSyncBody`: every refusal names its field), the form the
 * change history records (`RatesValues`) and how a courier's quote becomes prices (`quotedPrices`).
 */
import type { Shipment } from "@tawsil/courier"
import { AlgiersTime, BodyFields, StoreAmount, StoreText, WilayaCode } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { type BigDecimal, DateTime, Option, Redacted, Result, Schema } from "effect"
import { amountOf, amountRule, toNumber, wilayaOf } from "./internal/fields.ts"

/** The wilayas a store can price: the 58 of the division couriers accept. */
export const WILAYA_CODES: ReadonlyArray<WilayaCode.WilayaCode> = Wilayas.all.map((wilaya) =>
  WilayaCode.WilayaCode.make(wilaya.code)
)

/** A price on the wire and in recorded values: a JSON number in DZD (read exactly as written), or null. */
const Price = Schema.NullOr(
  Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: StoreAmount.toJsonNumber(StoreAmount.MAXIMUM) }))
)

// --- the rate as stored and shown -----------------------------------------------------------------------------

/** A wilaya's rate as the store keeps it: at least one price is set. */
export interface StoredRate {
  readonly wilaya_id: WilayaCode.WilayaCode
  readonly home_price: BigDecimal.BigDecimal | null
  readonly desk_price: BigDecimal.BigDecimal | null
  readonly updated_at: DateTime.Utc
}

/** A wilaya's prices as a write leaves them: both null means the wilaya has no rate (it is removed). */
export interface Prices {
  readonly wilaya_id: WilayaCode.WilayaCode
  readonly home_price: BigDecimal.BigDecimal | null
  readonly desk_price: BigDecimal.BigDecimal | null
}

export const hasPrice = (prices: Pick<Prices, "home_price" | "desk_price">): boolean =>
  prices.home_price !== null || prices.desk_price !== null

/** One wilaya of `GET /v1/shipping/rates`. */
export const Rate = Schema.Struct({
  wilaya_id: Schema.Int,
  /** The wilaya's French (Latin-script) name. */
  wilaya_name: Schema.String,
  wilaya_name_ar: Schema.String,
  /** Home delivery, in DZD; null when the store does not deliver to homes there. */
  home_price: Price,
  /** Stop-desk delivery (the buyer collects the parcel at the courier's desk), in DZD; null when not offered. */
  desk_price: Price,
  /** When the wilaya's prices last changed (`YYYY-MM-DD HH:MM:SS`, Algeria time); null when it has no rate. */
  updated_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ShippingRate" })
export type Rate = typeof Rate.Type

/** `GET /v1/shipping/rates` data: the 58 wilayas in code order, every one listed, priced or not. */
export const RatesTable = Schema.Struct({ items: Schema.Array(Rate) }).annotate({ identifier: "ShippingRates" })
export type RatesTable = typeof RatesTable.Type

/** The 58 wilayas with the store's prices, in code order. */
export const tableOf = (rates: ReadonlyArray<StoredRate>): RatesTable => {
  const byWilaya = new Map(rates.map((rate) => [rate.wilaya_id as number, rate]))
  return {
    items: Wilayas.all.map((wilaya): Rate => {
      const rate = byWilaya.get(wilaya.code)
      return {
        wilaya_id: wilaya.code,
        wilaya_name: wilaya.nameFr,
        wilaya_name_ar: wilaya.nameAr,
        home_price: toNumber(rate?.home_price ?? null),
        desk_price: toNumber(rate?.desk_price ?? null),
        updated_at: rate === undefined ? null : AlgiersTime.formatSql(rate.updated_at)
      }
    })
  }
}

// --- POST /v1/shipping/rates ------------------------------------------------------------------------------------

const RateWrite = Schema.Struct({
  /** 1 to 58. A wilaya of the 2026 division (59 to 69) is refused with the code couriers deliver it as. */
  wilaya_id: Schema.Int,
  /** Home delivery in DZD: a number or a decimal string, 0 to 100000000; null stops home delivery there; omitted keeps it. */
  home_price: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Number, Schema.String]))),
  /** Stop-desk delivery in DZD, as `home_price`. */
  desk_price: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Number, Schema.String])))
}).annotate({ identifier: "ShippingRateWrite" })

/**
 * `POST /v1/shipping/rates` body: the wilayas to price, each once. Only sent prices change; a wilaya left with
 * neither price has no rate any more.
 */
export const RatesBody = Schema.Struct({
  rates: Schema.Array(RateWrite).check(Schema.isMinLength(1), Schema.isMaxLength(WILAYA_CODES.length))
}).annotate({ identifier: "ShippingRatesWrite" })

/** One wilaya of a rates write: a price sent (an amount, or null to stop) or not sent (`undefined`: kept). */
export interface RatePatch {
  readonly wilaya_id: WilayaCode.WilayaCode
  readonly home_price: BigDecimal.BigDecimal | null | undefined
  readonly desk_price: BigDecimal.BigDecimal | null | undefined
}

const priceOf = (fields: Readonly<Record<string, unknown>>, name: string, at: string) => {
  if (!BodyFields.sent(fields, name)) return Result.succeed(undefined)
  const value = fields[name]
  if (value === null) return Result.succeed(null)
  return Option.match(amountOf(value), {
    onNone: () => Result.fail(amountRule(`${at}.${name}`, true)),
    onSome: (amount) => Result.succeed<BigDecimal.BigDecimal | null>(amount)
  })
}

/** A `POST /v1/shipping/rates` body read, or the message naming the first field that breaks its rule. */
export const parseRatesBody = (body: unknown): Result.Result<ReadonlyArray<RatePatch>, string> => {
  const fields = Option.getOrUndefined(BodyFields.fieldsOf(body))
  if (fields === undefined) return Result.fail("Body must be a JSON object: { rates: [...] }")
  const list = fields.rates
  if (!Array.isArray(list) || list.length === 0 || list.length > WILAYA_CODES.length) {
    return Result.fail(`rates must be an array of 1 to ${WILAYA_CODES.length} rates`)
  }
  const patches: Array<RatePatch> = []
  const seen = new Set<number>()
  for (const [index, item] of list.entries()) {
    const at = `rates[${index}]`
    const rate = Option.getOrUndefined(BodyFields.fieldsOf(item))
    if (rate === undefined) return Result.fail(`${at} must be an object: { wilaya_id, home_price, desk_price }`)
    const wilaya = wilayaOf(rate.wilaya_id, `${at}.wilaya_id`)
    if (Result.isFailure(wilaya)) return Result.fail(wilaya.failure)
    if (seen.has(wilaya.success)) return Result.fail(`${at}.wilaya_id: wilaya ${wilaya.success} is listed twice`)
    seen.add(wilaya.success)
    const home = priceOf(rate, "home_price", at)
    if (Result.isFailure(home)) return Result.fail(home.failure)
    const desk = priceOf(rate, "desk_price", at)
    if (Result.isFailure(desk)) return Result.fail(desk.failure)
    patches.push({ wilaya_id: wilaya.success, home_price: home.success, desk_price: desk.success })
  }
  return Result.succeed(patches)
}

// --- the change history's form ----------------------------------------------------------------------------------

/** A wilaya's prices as the change history records them. */
export const RateValues = Schema.Struct({
  wilaya_id: WilayaCode.WilayaCode,
  home_price: Price,
  desk_price: Price
})
export type RateValues = typeof RateValues.Type

/**
 * What `shipping.rates` changes record, and what an undo writes back: `rates`, the prices of the wilayas it lists,
 * and `absent`, wilayas left without a rate.
 *
 * - A rates write records, for the wilayas whose prices it changed, their prices before (`absent`: those that had
 *   none) and after.
 * - A courier rate sync records in `before` the prices it overwrote, with the `courier` it read (its `after` is
 *   null, spec): its undo puts those back and keeps the wilayas it added.
 * - An undo records the wilayas it wrote (`touched`): their prices as it found them, and as it left them.
 */
export const RatesValues = Schema.Struct({
  courier: Schema.optionalKey(Schema.String),
  rates: Schema.Array(RateValues),
  absent: Schema.optionalKey(Schema.Array(WilayaCode.WilayaCode))
})
export type RatesValues = typeof RatesValues.Type

/** How `shipping.rates` changes lay out their values: `rates` always (a write may leave only `absent` changed). */
export const LAYOUT = { kept: ["rates"] }

export const valuesOf = (prices: Pick<Prices, "wilaya_id" | "home_price" | "desk_price">): RateValues => ({
  wilaya_id: prices.wilaya_id,
  home_price: toNumber(prices.home_price),
  desk_price: toNumber(prices.desk_price)
})

/** The whole table in the recorded form: every wilaya, priced in `rates`, the others `absent`. */
export const snapshotOf = (rates: ReadonlyArray<StoredRate>): RatesValues => {
  const priced = new Set(rates.map((rate) => rate.wilaya_id as number))
  return {
    rates: rates.map(valuesOf),
    absent: WILAYA_CODES.filter((code) => !priced.has(code))
  }
}

/** Of a table (`snapshotOf`), the wilayas `values` lists: what an undo writing `values` records of it. */
export const touched = (table: RatesValues, values: RatesValues): RatesValues => {
  const listed = new Set<number>([...values.rates.map((rate) => rate.wilaya_id), ...(values.absent ?? [])])
  return {
    rates: table.rates.filter((rate) => listed.has(rate.wilaya_id)),
    absent: (table.absent ?? []).filter((wilaya) => listed.has(wilaya))
  }
}

/** Recorded values as the prices they write: the listed rates, then the `absent` wilayas without any. */
export const pricesOf = (values: RatesValues): ReadonlyArray<Prices> => {
  const amount = (price: number | null) => (price === null ? null : Option.getOrThrow(amountOf(price)))
  return [
    ...values.rates.map((rate) => ({
      wilaya_id: rate.wilaya_id,
      home_price: amount(rate.home_price),
      desk_price: amount(rate.desk_price)
    })),
    ...(values.absent ?? []).map((wilaya_id) => ({ wilaya_id, home_price: null, desk_price: null }))
  ]
}

/** `Updated shipping rates of 3 wilayas: 9, 16, 31` (the first ten codes, then the count of the rest). */
export const wilayaList = (codes: ReadonlyArray<number>): string => {
  const sorted = [...codes].sort((a, b) => a - b)
  const shown = sorted.slice(0, 10).join(", ")
  return sorted.length > 10 ? `${shown} and ${sorted.length - 10} more` : shown
}

// --- POST /v1/shipping/rates/sync -----------------------------------------------------------------------------

export const Tier = Schema.Literals(["economic", "express"])
export type Tier = typeof Tier.Type

/** `POST /v1/shipping/rates/sync` body. */
export const SyncBody = Schema.Struct({
  /** A courier key or alias of `GET /v1/couriers` (the shipping API's catalogue). */
  courier: Schema.String,
  /**
   * Your credentials for that courier, as the shipping API takes them (`requiredCredentials` of its catalogue
   * entry): used for this call only, never stored, recorded or logged. Omit them for `sandbox`.
   */
  credentials: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  /** Your tenant's address, for a generic platform courier only (the shipping API's `options.baseUrl`). */
  base_url: Schema.optionalKey(Schema.String),
  /** The courier's service level to price, for couriers that offer two; the courier's default otherwise. */
  tier: Schema.optionalKey(Tier),
  /** Only these wilayas (1 to 58, each once); all 58 when omitted. */
  wilaya_ids: Schema.optionalKey(Schema.Array(Schema.Int))
}).annotate({ identifier: "ShippingRatesSync" })

/** A sync's request, read: the credentials stay `Redacted` until they reach the gateway. */
export interface SyncRequest {
  readonly courier: string
  readonly credentials: Redacted.Redacted<Readonly<Record<string, string>>> | undefined
  readonly baseUrl: string | undefined
  readonly tier: Tier | undefined
  readonly wilayas: ReadonlyArray<WilayaCode.WilayaCode>
}

const MAX_CREDENTIALS = 8
const MAX_TEXT = 2048

/** A sync body read, or the message naming the first field that breaks its rule. Never echoes a credential. */
export const parseSyncBody = (body: unknown): Result.Result<SyncRequest, string> => {
  const fields = Option.getOrUndefined(BodyFields.fieldsOf(body))
  if (fields === undefined) return Result.fail("Body must be a JSON object: { courier, credentials }")
  const courier = fields.courier
  if (typeof courier !== "string" || courier.trim() === "" || courier.length > 100 || !StoreText.isStorable(courier)) {
    return Result.fail("courier must be a courier key of GET /v1/couriers (1 to 100 characters)")
  }
  let credentials: SyncRequest["credentials"]
  if (BodyFields.sent(fields, "credentials") && fields.credentials !== null) {
    const given = Option.getOrUndefined(BodyFields.fieldsOf(fields.credentials))
    const entries = given === undefined ? [] : Object.entries(given)
    const fits =
      given !== undefined &&
      entries.length >= 1 &&
      entries.length <= MAX_CREDENTIALS &&
      entries.every(
        ([name, value]) =>
          StoreText.isStorable(name) &&
          typeof value === "string" &&
          value.length <= MAX_TEXT &&
          StoreText.isStorable(value)
      )
    if (!fits) {
      return Result.fail(
        `credentials must be an object of 1 to ${MAX_CREDENTIALS} string fields (without NUL characters or lone ` +
          "surrogates), the ones the courier's catalogue entry names"
      )
    }
    credentials = Redacted.make(given as Readonly<Record<string, string>>)
  }
  let baseUrl: string | undefined
  if (BodyFields.sent(fields, "base_url") && fields.base_url !== null) {
    const url = fields.base_url
    if (typeof url !== "string" || url.length > MAX_TEXT || !StoreText.isStorable(url)) {
      return Result.fail("base_url must be your tenant's https address, for a generic platform courier")
    }
    baseUrl = url
  }
  let tier: Tier | undefined
  if (BodyFields.sent(fields, "tier") && fields.tier !== null) {
    if (!Schema.is(Tier)(fields.tier)) return Result.fail("tier must be economic or express")
    tier = fields.tier
  }
  let wilayas = WILAYA_CODES
  if (BodyFields.sent(fields, "wilaya_ids") && fields.wilaya_ids !== null) {
    const list = fields.wilaya_ids
    if (!Array.isArray(list) || list.length === 0 || list.length > WILAYA_CODES.length) {
      return Result.fail(`wilaya_ids must be an array of 1 to ${WILAYA_CODES.length} wilaya codes`)
    }
    const chosen: Array<WilayaCode.WilayaCode> = []
    for (const [index, value] of list.entries()) {
      const wilaya = wilayaOf(value, `wilaya_ids[${index}]`)
      if (Result.isFailure(wilaya)) return Result.fail(wilaya.failure)
      if (chosen.includes(wilaya.success)) {
        return Result.fail(`wilaya_ids[${index}]: wilaya ${wilaya.success} is listed twice`)
      }
      chosen.push(wilaya.success)
    }
    wilayas = chosen
  }
  return Result.succeed({ courier: courier.trim(), credentials, baseUrl, tier, wilayas })
}

/** A wilaya the sync left as it was because the courier does not deliver there (its refusal, passed on). */
export const Skipped = Schema.Struct({ wilaya_id: Schema.Int, reason: Schema.String })

/** `POST /v1/shipping/rates/sync` data. */
export const RatesSynced = Schema.Struct({
  /** The change recording the sync (undo it with `POST /v1/changes/{id}/undo`); null when no price changed. */
  change_id: Schema.NullOr(Schema.Int),
  /** The courier's key (an alias sent is answered with its key). */
  courier: Schema.String,
  /** The wilaya the prices are from: the settings' `origin_wilaya`. */
  origin_wilaya: Schema.Int,
  /** Wilayas that had a rate whose prices the courier's replaced. */
  updated: Schema.Array(Schema.Int),
  /** Wilayas that had no rate and now have the courier's. */
  added: Schema.Array(Schema.Int),
  /** Wilayas whose prices already were the courier's. */
  unchanged: Schema.Array(Schema.Int),
  /** Wilayas the courier does not deliver to: left as they were. */
  skipped: Schema.Array(Skipped),
  /** The 58 wilayas after the sync, as `GET /v1/shipping/rates` shows them. */
  items: Schema.Array(Rate)
}).annotate({ identifier: "ShippingRatesSynced" })
export type RatesSynced = typeof RatesSynced.Type

/** A store's latest courier rate sync, as the store keeps it. */
export interface StoredSync {
  readonly courier: string
  readonly total: number
  readonly done: number
  readonly started_at: DateTime.Utc
  /** When a destination last answered (or it started, or finished). */
  readonly moved_at: DateTime.Utc
  readonly finished_at: DateTime.Utc | null
  readonly change_id: number | null
  readonly error: string | null
}

/** How long a running sync may go without a destination answering before it is taken for interrupted. */
export const SYNC_STALLED_AFTER_MS = 120_000

/** `GET /v1/shipping/rates/sync` data: the store's latest sync, running or ended; null when it never synced. */
export const SyncProgress = Schema.Struct({
  courier: Schema.String,
  /**
   * `running`; `finished` (its `change_id`, null when no price changed); `failed` (`error` says why: nothing was
   * written); `interrupted` (no destination answered for two minutes: the instance running it stopped; nothing was
   * written — sync again).
   */
  state: Schema.Literals(["running", "finished", "failed", "interrupted"]),
  /** Destinations priced so far, of `total` (each is one paced call to the courier). */
  done: Schema.Int,
  total: Schema.Int,
  started_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String),
  change_id: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ShippingRatesSyncProgress" })
export type SyncProgress = typeof SyncProgress.Type

/** A kept sync as the API shows it, at `now`. */
export const progressOf = (sync: StoredSync, now: DateTime.Utc): SyncProgress => ({
  courier: sync.courier,
  state:
    sync.finished_at !== null
      ? sync.error === null
        ? "finished"
        : "failed"
      : DateTime.toEpochMillis(now) - DateTime.toEpochMillis(sync.moved_at) > SYNC_STALLED_AFTER_MS
        ? "interrupted"
        : "running",
  done: sync.done,
  total: sync.total,
  started_at: AlgiersTime.formatSql(sync.started_at),
  finished_at: sync.finished_at === null ? null : AlgiersTime.formatSql(sync.finished_at),
  change_id: sync.change_id,
  error: sync.error
})

/** What a courier answers for one route (the shipping API's `POST /v1/rates` answer). */
export type Quote = Shipment.RatesResult

/**
 * The prices a courier quoted for one destination: home and stop-desk delivery at `tier` (the quote's own tier when
 * none was asked); `None` for a delivery type it did not quote. The quote answers the home delivery it was asked
 * for, and lists every option the courier offers for the route.
 */
export const quotedPrices = (
  quote: Quote,
  tier: Tier | undefined
): { readonly home: Option.Option<number>; readonly desk: Option.Option<number> } => {
  const wanted = tier ?? quote.tier
  const fee = (type: "home" | "stopdesk") =>
    Option.fromNullishOr(
      quote.options.find(
        (option) => option.deliveryType === type && (option.tier === undefined || option.tier === wanted)
      )?.deliveryFee
    )
  const home = fee("home")
  return {
    home: Option.isSome(home)
      ? home
      : quote.deliveryType === "home"
        ? Option.some<number>(quote.deliveryFee)
        : Option.none(),
    desk: fee("stopdesk")
  }
}
