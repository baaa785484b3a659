/**
 * What the undo engine knows of a recorded entity, and the registry of them. An entity registers its name (the one
 * its writes record changes under), the scopes that read and undo its changes, and how to read, validate and write
 * its values; `Changes` needs nothing else, so an entity is added by registering it, with no change to the engine.
 *
 * Values travel as the JSON the entity records (`ChangeLog.record`'s `before` and `after`, field-level: an update
 * records the fields it changed): `snapshot` reads an item's current values in that form, `values` decodes a
 * recorded form back (a form that no longer decodes cannot be restored), `write` puts decoded values back through
 * the same checks as the entity's own writes — those fields only — and `recorded` says which part of a snapshot
 * an undo writing them records.
 */
import type { Ids } from "@tawsil/domain"
import { Context, Effect, Layer, type Option, type Schema } from "effect"
import type * as Fields from "./Fields.ts"

/**
 * An entity module's own error (`PromoError`, `PixelError`…), as its writes raise it: an undo whose values the
 * entity's checks refuse fails with it, and is answered as the original write would be.
 */
export interface EntityError {
  readonly _tag: string
  readonly reason: { readonly _tag: string; readonly message: string }
}

/** How an undo writes values back: onto the item an update changed, or re-creating the item a delete removed. */
export type Restore = "update" | "recreate"

export interface Entity<Values> {
  /** The name its changes are recorded under (`promo_code`). */
  readonly name: string
  /** The scope that reads its changes (beside `store:read`). */
  readonly readScope: string
  /** The scope that undoes its changes. */
  readonly undoScope: string
  /**
   * Whether an undo is refused while a later change of the same item stands (the home layout, spec rule 3); the
   * message then says why. Other entities let a caller walk back newest first.
   */
  readonly laterChangesBlockUndo?: ((changeId: number) => string) | undefined
  /**
   * Decodes recorded values for `write`: a change's `before` (its undo), or the `after` of the change an undo undid
   * (the undo of that undo). An update's values hold only the fields it changed; a delete's, the whole item.
   */
  readonly values: Schema.Decoder<Values>
  /** The item's current values as this entity records them, whole; `None` when it does not exist. */
  readonly snapshot: (storeId: Ids.StoreId, entityId: string) => Effect.Effect<Option.Option<unknown>>
  /** How the entity's values are laid out (`Fields.Layout`): what `recorded` reads by default. */
  readonly layout?: Fields.Layout | undefined
  /**
   * What an undo writing `values` (as recorded) records of a snapshot — its `before` from the snapshot before the
   * write, its `after` from the one after. Default: the fields `values` has (`Fields.pick` with `layout`); an
   * entity whose values list items by key (stock's variants, the rates' wilayas) says which.
   */
  readonly recorded?: ((snapshot: unknown, values: unknown) => unknown) | undefined
  /**
   * Writes `values` back through the entity's own checks — the fields they hold, leaving the others as they are —
   * and returns the id of the item written (a re-created item may get a new id when its old one is taken).
   */
  readonly write: (
    storeId: Ids.StoreId,
    entityId: string,
    values: Values,
    how: Restore
  ) => Effect.Effect<string, EntityError>
}

/** An entity whatever its values' type, as the registry holds it. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds entities of every values type
export type AnyEntity = Entity<any>

/** The entities this process can undo changes of, by name. */
export class Entities extends Context.Service<Entities, ReadonlyMap<string, AnyEntity>>()("@tawsil/changes/Entities") {}

/**
 * The registry of the given entities, each built with the services it needs. Two entities with one name are a
 * wiring mistake: the layer dies.
 */
// biome-ignore lint/suspicious/noExplicitAny: each entity needs its own services; the layer needs them all
export const layer = <const Registered extends ReadonlyArray<Effect.Effect<AnyEntity, never, any>>>(
  ...entities: Registered
): Layer.Layer<Entities, never, Effect.Services<Registered[number]>> =>
  Layer.effect(
    Entities,
    Effect.flatMap(
      Effect.all(entities as ReadonlyArray<Effect.Effect<AnyEntity, never, Effect.Services<Registered[number]>>>),
      (built) => {
        const byName = new Map<string, AnyEntity>()
        for (const entity of built) {
          if (byName.has(entity.name)) return Effect.die(new Error(`entity ${entity.name} is registered twice`))
          byName.set(entity.name, entity)
        }
        return Effect.succeed(byName)
      }
    )
  )
