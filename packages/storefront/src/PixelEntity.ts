/**
 * Pixels as an entity of the change history (`pixels`, entity id the pixel's id in the store service, scopes
 * `pixels:read` / `pixels:write`; spec "Undo rules" 5 and 6).
 *
 * An update's undo restores `pixel_name`, `ad_account_id`, `conversion_label`, `is_active` and `is_default`, and
 * leaves the current token (and the dashboard's `test_event_code`); when it takes the default back from the pixel,
 * the pixel of its type that was the default before (`default_pixel_id`) gets it again, if it still exists. A
 * deleted pixel returns with its id when no pixel holds it, without token or assignments, through the plan limit
 * and the duplicate check (`LimitReached`, `PixelExists`).
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option } from "effect"
import { fits, PixelId, PixelValues } from "./Pixel.ts"
import * as PixelError from "./PixelError.ts"
import { limitReached, NOT_FOUND, pixelExists, planOf, snapshotOf } from "./Pixels.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

const refuse = (reason: PixelError.PixelErrorReason) => Effect.fail(PixelError.fail(reason))

export const entity: Effect.Effect<Entity.Entity<typeof PixelValues.Type>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<typeof PixelValues.Type> => ({
    name: "pixels",
    readScope: "pixels:read",
    undoScope: "pixels:write",
    values: PixelValues,
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
    write: Effect.fnUntraced(function* (storeId, _entityId, values, how) {
      if (how === "recreate") {
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
      const current = yield* store.getPixel(storeId, values.id)
      if (Option.isNone(current)) return yield* refuse(new PixelError.PixelNotFound({ message: NOT_FOUND }))
      yield* store.updatePixel(storeId, values.id, {
        pixel_name: values.pixel_name,
        ad_account_id: values.ad_account_id,
        conversion_label: values.conversion_label,
        is_active: values.is_active,
        is_default: values.is_default
      })
      const previous = values.default_pixel_id
      if (current.value.is_default && !values.is_default && previous !== null && previous !== values.id) {
        const holder = yield* store.getPixel(storeId, PixelId.make(previous))
        if (Option.isSome(holder) && holder.value.pixel_type === values.pixel_type) {
          yield* store.updatePixel(storeId, holder.value.id, { is_default: true })
        }
      }
      return String(values.id)
    })
  })
)
