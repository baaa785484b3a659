/**
 * Pixels as an entity of the change history (`pixels`, entity id the pixel's id in the store service, scopes
 * `pixels:read` / `pixels:write`; spec "Undo rules" 5 and 6).
 *
 * An update's undo restores those of `pixel_name`, `ad_account_id`, `conversion_label`, `is_active` and `is_default`
 * the update changed (the others keep what later writes made them), and leaves the current token (and the
 * dashboard's `test_event_code`); when it takes the default back from the pixel, the pixel of its type that was the
 * default before (`default_pixel_id`) gets it again, if it still exists. A
 * deleted pixel returns with its id when no pixel holds it, without token or assignments, through the plan limit
 * and the duplicate check (`LimitReached`, `PixelExists`).
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option, Schema } from "effect"
import { fits, LAYOUT, PixelId, PixelValues, RecordedPixel } from "./Pixel.ts"
import * as PixelError from "./PixelError.ts"
import { limitReached, NOT_FOUND, pixelExists, planOf, snapshotOf } from "./Pixels.ts"
import { type PixelPatch, StorefrontStore } from "./StorefrontStore.ts"

const refuse = (reason: PixelError.PixelErrorReason) => Effect.fail(PixelError.fail(reason))

/** The fields an update's undo writes back. */
const RESTORED = ["pixel_name", "ad_account_id", "conversion_label", "is_active", "is_default"] as const

const isWhole = Schema.is(PixelValues)

export const entity: Effect.Effect<Entity.Entity<RecordedPixel>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<RecordedPixel> => ({
    name: "pixels",
    readScope: "pixels:read",
    undoScope: "pixels:write",
    values: RecordedPixel,
    layout: LAYOUT,
    snapshot: (storeId, entityId) =>
      /^[0-9]{1,10}$/.test(entityId) && Ids.isStorableId(Number(entityId))
        ? Effect.flatMap(store.getPixel(storeId, PixelId.make(Number(entityId))), (found) =>
            Option.match(found, {
              onNone: () => Effect.succeedNone,
              onSome: (pixel) =>
                Effect.map(store.defaultPixel(storeId, pixel.pixel_type), (holder) =>
                  Option.some(snapshotOf(pixel, Option.getOrNull(holder)))
                )
            })
          )
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, recordedValues, how) {
      if (how === "recreate") {
        // A delete records the whole pixel.
        if (!isWhole(recordedValues)) return yield* Effect.die(new Error("a pixel's delete recorded part of it"))
        const values = recordedValues
        const plan = yield* planOf(store, storeId)
        const type = values.pixel_type
        const created = yield* store
          .insertPixel(
            storeId,
            {
              pixel_type: type,
              pixel_id: values.pixel_id,
              pixel_name: values.pixel_name,
              access_token: null,
              ad_account_id: values.ad_account_id,
              conversion_label: values.conversion_label,
              is_active: values.is_active,
              is_default: values.is_default
            },
            (counts) => fits(plan, counts, type),
            { id: values.id, created_at: values.created_at }
          )
          .pipe(
            Effect.catchTags({
              PixelLimitHit: () => refuse(new PixelError.LimitReached({ message: limitReached(plan, type) })),
              PixelDuplicate: () => refuse(new PixelError.PixelExists({ message: pixelExists(type, values.pixel_id) })),
              PixelRefused: (refused) =>
                refuse(new PixelError.PixelWriteFailed({ message: `The pixel could not be saved: ${refused.message}` }))
            })
          )
        return String(created.id)
      }
      const values = recordedValues
      const current = yield* store.getPixel(storeId, values.id)
      if (Option.isNone(current)) return yield* refuse(new PixelError.PixelNotFound({ message: NOT_FOUND }))
      const patch: { -readonly [K in (typeof RESTORED)[number]]?: PixelPatch[K] } = {}
      for (const field of RESTORED) {
        if (values[field] !== undefined) Object.assign(patch, { [field]: values[field] })
      }
      if (Object.keys(patch).length > 0) yield* store.updatePixel(storeId, values.id, patch)
      const previous = values.default_pixel_id
      if (
        current.value.is_default &&
        values.is_default === false &&
        previous !== undefined &&
        previous !== null &&
        previous !== values.id
      ) {
        const holder = yield* store.getPixel(storeId, PixelId.make(previous))
        if (Option.isSome(holder) && holder.value.pixel_type === current.value.pixel_type) {
          yield* store.updatePixel(storeId, holder.value.id, { is_default: true })
        }
      }
      return String(values.id)
    })
  })
)
