/**
 * The store API's tracking pixels (spec "Tracking pixels"): list with the store's `limits`, create, PATCH and delete
 * over a `StorefrontStore`, each write recorded in the change history (entity `pixels`, entity id the pixel's id) in
 * the same transaction.
 *
 * A create checks, in the spec's order, the first failure answering: the type (`InvalidPixelType`), the id's format
 * (`InvalidPixelId`), the plan's room for another of the type (`LimitReached`), a pixel with the same type and id
 * (`PixelExists`), the cleaned token (`InvalidAccessToken`). A PATCH refuses `pixel_type`, `type` and `pixel_id`
 * (`ImmutableField`), keeps the stored token for an empty, null or masked one, and clears `test_event_code` when it
 * writes a field. Making a pixel the default takes the default from the store's other pixels of its type.
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, Ids, LooseBoolean, Pagination, Plans, StoreText } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { identity } from "effect/Function"
import {
  AD_ACCOUNT_MAX,
  CONVERSION_LABEL_MAX,
  cleanToken,
  cut,
  fits,
  LAYOUT,
  limitsOf,
  limitsView,
  MASK,
  NAME_MAX,
  PIXEL_TYPES,
  Pixel,
  type PixelDeleted,
  PixelId,
  type PixelList,
  type PixelType,
  type PixelValues,
  pixelIdOf,
  pixelTypeOf,
  requiredId,
  tokenProblem
} from "./Pixel.ts"
import * as PixelError from "./PixelError.ts"
import { type PixelPatch, StorefrontStore } from "./StorefrontStore.ts"

export const ENTITY = "pixels"

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export interface ListParams {
  readonly pixel_type?: string | undefined
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
}

export const INVALID_TYPE = `pixel_type must be one of ${PIXEL_TYPES.join(", ")}`
export const IMMUTABLE =
  "pixel_type and pixel_id are fixed at creation; delete the pixel and add it again to change them"
export const NOT_FOUND = "Pixel not found"

export const invalidId = (type: PixelType) => `pixel_id for ${type} must be ${requiredId(type)}`
export const limitReached = (plan: Plans.Plan, type: PixelType) =>
  limitsOf(plan).total === 0
    ? `The ${plan} plan allows no tracking pixels`
    : `The ${plan} plan allows one ${type} pixel per store`
export const pixelExists = (type: PixelType, pixelId: string) => `A ${type} pixel with id ${pixelId} already exists`

const refuse = (reason: PixelError.PixelErrorReason) => Effect.fail(PixelError.fail(reason))
const notFound = () => refuse(new PixelError.PixelNotFound({ message: NOT_FOUND }))

const bodyObject = (body: unknown) =>
  Schema.decodeUnknownEffect(BodyFields.BodyFields)(body).pipe(
    Effect.mapError(() => PixelError.fail(new PixelError.InvalidPixelBody({ message: "Body must be a JSON object" })))
  )

/**
 * An optional text field: a string cut to `max` (empty: none), null for none; anything else is refused, and so is a
 * string PostgreSQL could not keep as sent (`StoreText`: a NUL character, a lone surrogate), wherever it holds one.
 */
const optionalText = (fields: Readonly<Record<string, unknown>>, name: string, max: number) => {
  const value = fields[name]
  if (value === null || value === undefined) return Effect.succeed(null)
  if (typeof value !== "string" || !StoreText.isStorable(value)) {
    return refuse(new PixelError.InvalidPixelBody({ message: `${name} must be a string or null` }))
  }
  const text = cut(value.trim(), max)
  return Effect.succeed(text === "" ? null : text)
}

/**
 * A sent token, cleaned: `undefined` to keep (or have) none — absent, null, empty or, on PATCH, holding the mask —
 * else the token, or `InvalidAccessToken`.
 */
const tokenOf = (value: unknown, type: PixelType, pixelId: string) => {
  if (value === undefined || value === null) return Effect.succeed(undefined)
  if (typeof value !== "string") {
    return refuse(new PixelError.InvalidAccessToken({ message: "access_token must be a string" }))
  }
  if (value.includes(MASK)) return Effect.succeed(undefined)
  const token = cleanToken(value)
  if (token === "") return Effect.succeed(undefined)
  const problem = tokenProblem(token, type, pixelId)
  return problem === undefined
    ? Effect.succeed(Redacted.make(token))
    : refuse(new PixelError.InvalidAccessToken({ message: problem }))
}

export class Pixels extends Context.Service<
  Pixels,
  {
    /** `GET /v1/pixels`: newest first, an unknown type giving an empty list, plus the whole store's `limits`. */
    readonly list: (storeId: Ids.StoreId, params?: ListParams) => Effect.Effect<PixelList>
    readonly create: (writer: Writer, body: unknown) => Effect.Effect<Pixel, PixelError.PixelError>
    /** Only sent fields change; an empty body changes nothing (and records nothing). */
    readonly update: (writer: Writer, id: number, body: unknown) => Effect.Effect<Pixel, PixelError.PixelError>
    /** Deletes the pixel and its assignments. */
    readonly remove: (writer: Writer, id: number) => Effect.Effect<PixelDeleted, PixelError.PixelError>
  }
>()("@tawsil/storefront/Pixels") {}

const encodePixel = Schema.encodeSync(Pixel)

/** A pixel as the change history records it, with its type's default pixel at that moment. */
export const snapshotOf = (pixel: Pixel, defaultPixelId: number | null): typeof PixelValues.Encoded => {
  // The warnings describe the answer, not the pixel's values: never recorded.
  const { has_token, warnings: _, ...fields } = encodePixel(pixel)
  return { ...fields, access_token: has_token ? MASK : null, default_pixel_id: defaultPixelId }
}

/** The plan the store has the use of now (a store that vanished mid-request has none: `free`). */
export const planOf = (store: StorefrontStore["Service"], storeId: Ids.StoreId) =>
  Effect.gen(function* () {
    const settings = yield* store.settings(storeId)
    const now = yield* DateTime.now
    return Option.match(settings, {
      onNone: () => "free" as const,
      onSome: (found) => Plans.effective(found.plan, found.planExpiresAt, now)
    })
  })

export const layer: Layer.Layer<Pixels, never, StorefrontStore | ChangeLog.ChangeLog> = Layer.effect(
  Pixels,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StorefrontStore
    const log = yield* ChangeLog.ChangeLog

    const snapshot = (storeId: Ids.StoreId, pixel: Pixel) =>
      Effect.map(store.defaultPixel(storeId, pixel.pixel_type), (holder) => snapshotOf(pixel, Option.getOrNull(holder)))

    const record = ChangeLog.recorder(log, ENTITY, LAYOUT)

    const existing = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      if (!Ids.isStorableId(id)) return yield* notFound()
      const found = yield* store.getPixel(storeId, PixelId.make(id))
      if (Option.isNone(found)) return yield* notFound()
      return found.value
    })

    return Pixels.of({
      list: method("Pixels.list")(function* (storeId, params = {}) {
        const limit = Pagination.limitOf(params.limit)
        const type = params.pixel_type === undefined ? undefined : pixelTypeOf(params.pixel_type)
        const rows =
          params.pixel_type !== undefined && type === undefined
            ? []
            : yield* store.listPixels(storeId, {
                limit: limit + 1,
                afterId: Pagination.afterIdOf(params.cursor),
                type
              })
        const page = Pagination.page(rows, limit, (row) => row.id, identity)
        return { ...page, limits: limitsView(yield* planOf(store, storeId), yield* store.counts(storeId)) }
      }),
      create: method("Pixels.create")(function* (writer, body) {
        const fields = yield* bodyObject(body)
        const rawType = fields.pixel_type ?? fields.type
        const type = typeof rawType === "string" ? pixelTypeOf(rawType) : undefined
        if (type === undefined) return yield* refuse(new PixelError.InvalidPixelType({ message: INVALID_TYPE }))
        const pixelId = typeof fields.pixel_id === "string" ? pixelIdOf(type, fields.pixel_id) : undefined
        if (pixelId === undefined) return yield* refuse(new PixelError.InvalidPixelId({ message: invalidId(type) }))
        const plan = yield* planOf(store, writer.storeId)
        if (!fits(plan, yield* store.counts(writer.storeId), type)) {
          return yield* refuse(new PixelError.LimitReached({ message: limitReached(plan, type) }))
        }
        if (Option.isSome(yield* store.findPixel(writer.storeId, type, pixelId))) {
          return yield* refuse(new PixelError.PixelExists({ message: pixelExists(type, pixelId) }))
        }
        const token = yield* tokenOf(fields.access_token, type, pixelId)
        const nameField = BodyFields.sent(fields, "pixel_name") ? "pixel_name" : "name"
        const created = yield* store
          .insertPixel(
            writer.storeId,
            {
              pixel_type: type,
              pixel_id: pixelId,
              pixel_name: yield* optionalText(fields, nameField, NAME_MAX),
              access_token: token ?? null,
              ad_account_id: yield* optionalText(fields, "ad_account_id", AD_ACCOUNT_MAX),
              conversion_label: yield* optionalText(fields, "conversion_label", CONVERSION_LABEL_MAX),
              is_active:
                fields.is_active === undefined || fields.is_active === null
                  ? true
                  : LooseBoolean.cast(fields.is_active),
              is_default:
                fields.is_default === undefined || fields.is_default === null
                  ? false
                  : LooseBoolean.cast(fields.is_default)
            },
            (counts) => fits(plan, counts, type)
          )
          .pipe(
            Effect.catchTags({
              PixelLimitHit: () => refuse(new PixelError.LimitReached({ message: limitReached(plan, type) })),
              PixelDuplicate: () => refuse(new PixelError.PixelExists({ message: pixelExists(type, pixelId) })),
              PixelRefused: (refused) =>
                refuse(new PixelError.PixelWriteFailed({ message: `The pixel could not be saved: ${refused.message}` }))
            })
          )
        yield* record(
          writer,
          "create",
          created.id,
          `Added ${type} pixel ${pixelId}`,
          null,
          yield* snapshot(writer.storeId, created)
        )
        return created
      }),
      update: method("Pixels.update")(function* (writer, id, body) {
        const current = yield* existing(writer.storeId, id)
        const fields = yield* bodyObject(body)
        if (
          BodyFields.sent(fields, "pixel_type") ||
          BodyFields.sent(fields, "type") ||
          BodyFields.sent(fields, "pixel_id")
        ) {
          return yield* refuse(new PixelError.ImmutableField({ message: IMMUTABLE }))
        }
        const patch: { -readonly [K in keyof PixelPatch]: PixelPatch[K] } = {}
        const token = yield* tokenOf(fields.access_token, current.pixel_type, current.pixel_id)
        if (token !== undefined) patch.access_token = token
        if (BodyFields.sent(fields, "pixel_name"))
          patch.pixel_name = yield* optionalText(fields, "pixel_name", NAME_MAX)
        else if (BodyFields.sent(fields, "name")) patch.pixel_name = yield* optionalText(fields, "name", NAME_MAX)
        if (BodyFields.sent(fields, "ad_account_id")) {
          patch.ad_account_id = yield* optionalText(fields, "ad_account_id", AD_ACCOUNT_MAX)
        }
        if (BodyFields.sent(fields, "conversion_label")) {
          patch.conversion_label = yield* optionalText(fields, "conversion_label", CONVERSION_LABEL_MAX)
        }
        if (fields.is_active !== undefined && fields.is_active !== null)
          patch.is_active = LooseBoolean.cast(fields.is_active)
        if (fields.is_default !== undefined && fields.is_default !== null) {
          patch.is_default = LooseBoolean.cast(fields.is_default)
        }
        const written = Object.keys(patch)
        if (written.length === 0) return current
        const before = yield* snapshot(writer.storeId, current)
        const updated = yield* store.updatePixel(writer.storeId, current.id, { ...patch, clearTestEventCode: true })
        if (Option.isNone(updated)) return yield* notFound()
        yield* record(
          writer,
          "update",
          id,
          `Updated ${current.pixel_type} pixel ${current.pixel_id} (${written.join(", ")})`,
          before,
          yield* snapshot(writer.storeId, updated.value)
        )
        return updated.value
      }),
      remove: method("Pixels.remove")(function* (writer, id) {
        const current = yield* existing(writer.storeId, id)
        const before = yield* snapshot(writer.storeId, current)
        if (Option.isNone(yield* store.removePixel(writer.storeId, current.id))) return yield* notFound()
        yield* record(writer, "delete", id, `Deleted ${current.pixel_type} pixel ${current.pixel_id}`, before, null)
        return { deleted: true as const, id }
      })
    })
  })
)
