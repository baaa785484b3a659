/**
 * Tracking pixels (spec "Tracking pixel"): the seven platforms with each one's id format, the record as the store API
 * shows it (the access token is write-only: only `has_token` shows), the token cleaning rules and the plan limits.
 *
 * The spec's rule is the only refusal of a `pixel_id` (checks are syntactic only): 1 to 100 letters, digits, `-`
 * and `_`, and for `facebook` 15 to 17 digits. Each platform's usual format only informs: an id in it is kept in
 * the platform's letter case (so `gtm-abc1234` and `GTM-ABC1234` are one container); any other id is kept as sent
 * and the pixel's answers carry a warning (`warnings`, never recorded in the change history).
 *
 * | type | platform | usual id |
 * |---|---|---|
 * | `facebook` | Meta pixel | 15 to 17 digits (required) |
 * | `tiktok` | TikTok pixel | 20 letters and digits, upper-cased |
 * | `snapchat` | Snap pixel | a UUID, lower-cased |
 * | `pinterest` | Pinterest tag | 13 digits |
 * | `google_analytics` | GA4 measurement id | `G-` and 4 to 12 letters or digits, upper-cased |
 * | `gtm` | Google Tag Manager container | `GTM-` and 4 to 10 letters or digits, upper-cased |
 * | `google_ads` | Google Ads conversion id | `AW-` and 9 to 11 digits, upper-cased |
 */
import { AlgiersTime, type Plans, StoreText } from "@tawsil/domain"
import { Schema, Struct } from "effect"

export const PIXEL_TYPES = [
  "facebook",
  "tiktok",
  "snapchat",
  "pinterest",
  "google_analytics",
  "gtm",
  "google_ads"
] as const
export const PixelType = Schema.Literals(PIXEL_TYPES)
export type PixelType = typeof PixelType.Type

/** A type name as sent: trimmed, any letter case. */
export const pixelTypeOf = (raw: string): PixelType | undefined => {
  const name = raw.trim().toLowerCase()
  return PIXEL_TYPES.find((type) => type === name)
}

interface IdFormat {
  readonly pattern: RegExp
  readonly normalize: (id: string) => string
  readonly expected: string
}

const upper = (id: string) => id.toUpperCase()
const lower = (id: string) => id.toLowerCase()
const same = (id: string) => id

/** Each platform's usual id: required for `facebook` (the spec's rule), a warning when not met for the others. */
export const ID_FORMATS: Readonly<Record<PixelType, IdFormat>> = {
  facebook: { pattern: /^\d{15,17}$/, normalize: same, expected: "15 to 17 digits" },
  tiktok: { pattern: /^[A-Z0-9]{20}$/, normalize: upper, expected: "20 letters and digits" },
  snapchat: {
    pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    normalize: lower,
    expected: "a UUID such as 1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d"
  },
  pinterest: { pattern: /^\d{13}$/, normalize: same, expected: "13 digits" },
  google_analytics: { pattern: /^G-[A-Z0-9]{4,12}$/, normalize: upper, expected: "G- and 4 to 12 letters or digits" },
  gtm: { pattern: /^GTM-[A-Z0-9]{4,10}$/, normalize: upper, expected: "GTM- and 4 to 10 letters or digits" },
  google_ads: { pattern: /^AW-\d{9,11}$/, normalize: upper, expected: "AW- and 9 to 11 digits" }
}

/** The spec's rule for every type: 1 to 100 letters, digits, `-`, `_`. */
const GENERAL_ID = /^[A-Za-z0-9_-]{1,100}$/

/** The types whose usual format is also the spec's rule. */
const REQUIRED_FORMAT: ReadonlySet<PixelType> = new Set(["facebook"])

/** What the spec requires of a `pixel_id` of `type`, for the refusal's message. */
export const requiredId = (type: PixelType): string =>
  REQUIRED_FORMAT.has(type) ? ID_FORMATS[type].expected : "1 to 100 letters, digits, - or _"

/**
 * The id to store for `raw` (trimmed; in the platform's letter case when that makes it the platform's usual id), or
 * undefined when the spec's rule refuses it.
 */
export const pixelIdOf = (type: PixelType, raw: string): string | undefined => {
  const id = raw.trim()
  if (!GENERAL_ID.test(id)) return undefined
  const format = ID_FORMATS[type]
  const normalized = format.normalize(id)
  if (format.pattern.test(normalized)) return normalized
  return REQUIRED_FORMAT.has(type) ? undefined : id
}

/** Something a caller may want to fix that was not refused; `field` names the body's field. */
export const PixelWarning = Schema.Struct({
  field: Schema.String,
  /** `unusual_pixel_id`: the id is not in the platform's usual format (saved as sent). */
  code: Schema.Literal("unusual_pixel_id"),
  message: Schema.String
}).annotate({ identifier: "PixelWarning" })
export type PixelWarning = typeof PixelWarning.Type

/** The warnings a pixel's id gets: one when it is not in its platform's usual format. */
export const warningsOf = (type: PixelType, pixelId: string): ReadonlyArray<PixelWarning> =>
  ID_FORMATS[type].pattern.test(pixelId)
    ? []
    : [
        {
          field: "pixel_id",
          code: "unusual_pixel_id",
          message:
            `pixel_id is not in the usual ${type} format (${ID_FORMATS[type].expected}); it was saved as sent: ` +
            "check it against the platform"
        }
      ]

export const NAME_MAX = 100
export const AD_ACCOUNT_MAX = 64
export const CONVERSION_LABEL_MAX = 64
export const FACEBOOK_TOKEN_MIN = 40

/** Eight bullets: how a stored token shows where one is shown at all (the change history). */
export const MASK = "••••••••"

/** Zero-width and direction marks, soft hyphens, word joiners and byte-order marks: removed anywhere. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g
/** Spaces and quotes (straight, curly, guillemets, backticks) around a pasted token. */
const SURROUNDING = /^[\s"'`\u2018\u2019\u201c\u201d\u00ab\u00bb]+|[\s"'`\u2018\u2019\u201c\u201d\u00ab\u00bb]+$/g

/** A pasted token cleaned: invisible characters removed, then surrounding spaces and quotes. */
export const cleanToken = (raw: string): string => raw.replace(INVISIBLE, "").replace(SURROUNDING, "")

/** Why a cleaned token is refused, if it is. */
export const tokenProblem = (token: string, type: PixelType, pixelId: string): string | undefined => {
  // Not an invisible character to remove: the token would be stored altered, so it is refused (`StoreText`).
  if (!StoreText.isStorable(token)) return "access_token must not contain NUL characters or lone surrogates"
  if (token.includes("<")) return "access_token must not contain <"
  if (/\s/.test(token)) return "access_token must not contain spaces or line breaks"
  if (token === pixelId) return "access_token must not be the pixel id"
  if (type === "facebook" && token.length < FACEBOOK_TOKEN_MIN) {
    return `access_token for facebook must be at least ${FACEBOOK_TOKEN_MIN} characters`
  }
  return undefined
}

/** Text cut to `max` characters (code points). */
export const cut = (text: string, max: number): string => Array.from(text).slice(0, max).join("")

/**
 * Whether the pixel sends server-side events: Meta, TikTok and Snap with a token, Pinterest with a token and an ad
 * account; the Google tags never (a token sent for them is stored and not used).
 */
export const sendsServerEvents = (pixel: {
  readonly pixel_type: PixelType
  readonly has_token: boolean
  readonly ad_account_id: string | null
}): boolean => {
  switch (pixel.pixel_type) {
    case "facebook":
    case "tiktok":
    case "snapchat":
      return pixel.has_token
    case "pinterest":
      return pixel.has_token && pixel.ad_account_id !== null
    default:
      return false
  }
}

export const PixelId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.brand("PixelId"))
export type PixelId = typeof PixelId.Type

const recordFields = {
  /** The pixel's id in the store service; used in paths. */
  id: PixelId,
  pixel_type: PixelType,
  /** The platform's pixel, tag or measurement id; fixed at creation. */
  pixel_id: Schema.String,
  pixel_name: Schema.NullOr(Schema.String),
  /** Whether a server-side access token is stored (the token itself is never shown). */
  has_token: Schema.Boolean,
  /** Set in the dashboard only; a PATCH that writes a field clears it. */
  test_event_code: Schema.NullOr(Schema.String),
  /** Used by `pinterest`. */
  ad_account_id: Schema.NullOr(Schema.String),
  /** Read for `google_ads` only. */
  conversion_label: Schema.NullOr(Schema.String),
  is_active: Schema.Boolean,
  /** At most one default pixel per type and store. */
  is_default: Schema.Boolean,
  /** Algeria time. */
  created_at: AlgiersTime.SqlTimestamp,
  updated_at: AlgiersTime.SqlTimestamp
}

const PixelRecord = Schema.Struct(recordFields)
/** A pixel as stored. */
export type PixelRecord = typeof PixelRecord.Type

/** A pixel as the store API answers it: the record and the warnings of its id (`warningsOf`; possibly none). */
export class Pixel extends Schema.Class<Pixel>("Pixel")({
  ...recordFields,
  warnings: Schema.Array(PixelWarning)
}) {}

/** The answer of a stored pixel. */
export const pixelOf = (record: PixelRecord): Pixel =>
  new Pixel({ ...record, warnings: warningsOf(record.pixel_type, record.pixel_id) })

/** Per-type counts of a store's pixels, active or not. */
export const Counts = Schema.Struct({
  facebook: Schema.Int,
  tiktok: Schema.Int,
  snapchat: Schema.Int,
  pinterest: Schema.Int,
  google_analytics: Schema.Int,
  gtm: Schema.Int,
  google_ads: Schema.Int
})
export type Counts = typeof Counts.Type

export const Limits = Schema.Struct({
  plan: Schema.String,
  /** False only when the plan allows no pixels (counts are not considered). */
  can_add: Schema.Boolean,
  per_type_limit: Schema.NullOr(Schema.Int),
  total_limit: Schema.NullOr(Schema.Int),
  counts: Counts,
  /** All the store's pixels, active or not. */
  total: Schema.Int
}).annotate({ identifier: "PixelLimits" })
export type Limits = typeof Limits.Type

/** What a plan allows: Free none, Pro one of each type, Unlimited and Enterprise no limit. */
export const limitsOf = (plan: Plans.Plan): { readonly perType: number | null; readonly total: number | null } => {
  switch (plan) {
    case "free":
      return { perType: 0, total: 0 }
    case "pro":
      return { perType: 1, total: null }
    default:
      return { perType: null, total: null }
  }
}

/** Whether one more pixel of `type` fits the plan, given the store's counts. */
export const fits = (plan: Plans.Plan, counts: Counts, type: PixelType): boolean => {
  const { perType, total } = limitsOf(plan)
  const all = PIXEL_TYPES.reduce((sum, each) => sum + counts[each], 0)
  return (perType === null || counts[type] < perType) && (total === null || all < total)
}

export const limitsView = (plan: Plans.Plan, counts: Counts): Limits => {
  const { perType, total } = limitsOf(plan)
  return {
    plan,
    can_add: total !== 0,
    per_type_limit: perType,
    total_limit: total,
    counts,
    total: PIXEL_TYPES.reduce((sum, each) => sum + counts[each], 0)
  }
}

export const emptyCounts: Counts = {
  facebook: 0,
  tiktok: 0,
  snapchat: 0,
  pinterest: 0,
  google_analytics: 0,
  gtm: 0,
  google_ads: 0
}

/** `GET /v1/pixels` data: the list envelope plus the store's `limits`. */
export const PixelList = Schema.Struct({
  items: Schema.Array(Pixel),
  next_cursor: Schema.NullOr(Schema.String),
  has_more: Schema.Boolean,
  limits: Limits
}).annotate({ identifier: "PixelList" })
export type PixelList = typeof PixelList.Type

export const PixelDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: Schema.Int }).annotate({
  identifier: "PixelDeleted"
})
export type PixelDeleted = typeof PixelDeleted.Type

/**
 * A pixel as the change history records it: its fields, the token as the mask (or null), and which pixel of its
 * type was the default then (`default_pixel_id`), so that undoing a write that took the default gives it back. A
 * create and a delete record the whole pixel; an update the fields it changed, with `id` and `default_pixel_id`.
 */
const { has_token: _, ...recorded } = recordFields

export const PixelValues = Schema.Struct({
  ...recorded,
  access_token: Schema.NullOr(Schema.Literal(MASK)),
  default_pixel_id: Schema.NullOr(Schema.Int)
})
export type PixelValues = typeof PixelValues.Type

/** What a `pixels` change records: the whole pixel (a delete), or some of its fields (an update). */
export const RecordedPixel = PixelValues.mapFields((fields) => ({
  ...Struct.map(fields, Schema.optionalKey),
  id: PixelId
}))
export type RecordedPixel = typeof RecordedPixel.Type

/** How `pixels` changes lay out their values: `id` and `default_pixel_id` always; `updated_at` never. */
export const LAYOUT = { kept: ["id", "default_pixel_id"], ignored: ["updated_at"] }

const pixelFields = {
  /** Up to 100 characters (cut); `name` is accepted as an alias. On PATCH null or `""` clears it. */
  pixel_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /**
   * The server-side token: invisible characters and surrounding spaces and quotes are removed, then it must not
   * contain `<`, a space or a line break, nor equal `pixel_id`, and for `facebook` be 40 characters or more.
   * Write-only. On PATCH an empty string, null or a value holding the mask (eight bullets) keeps the stored one.
   */
  access_token: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Up to 64 characters (cut); used by `pinterest`. On PATCH null or `""` clears it. */
  ad_account_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Up to 64 characters (cut); read for `google_ads`. On PATCH null or `""` clears it. */
  conversion_label: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** Default true. */
  is_active: Schema.optionalKey(Schema.Boolean),
  /** Default false; true takes the default from the store's other pixels of the type. */
  is_default: Schema.optionalKey(Schema.Boolean)
}

/** `POST /v1/pixels` body, as documented; `Pixels` reads it with the spec's checks in order. */
export const PixelCreateBody = Schema.Struct({
  /** One of the seven types, any letter case; `type` is accepted as an alias. */
  pixel_type: Schema.String,
  /**
   * 1 to 100 letters, digits, `-`, `_` (for `facebook` 15 to 17 digits); an id not in its platform's usual format
   * (see the table above) is saved as sent, with a warning in the answer.
   */
  pixel_id: Schema.String,
  ...pixelFields
}).annotate({ identifier: "PixelCreate" })

/** `PATCH /v1/pixels/{id}` body: only sent fields change; `pixel_type`, `type` and `pixel_id` answer 422. */
export const PixelPatchBody = Schema.Struct(pixelFields).annotate({ identifier: "PixelPatch" })
