/**
 * Why reading or undoing a change failed: `ChangeError`, whose `reason` says which undo rule spoke (spec "Undo
 * rules") and carries the message. Transport-agnostic: an API decides which status each reason gets. An entity's own
 * refusal of the values an undo writes back is not one of these: it is the entity's error, as its write would raise.
 */
import { Schema } from "effect"

/** No change with that id in the store. */
export class ChangeNotFound extends Schema.TaggedError<ChangeNotFound>()("ChangeNotFound", {
  message: Schema.String
}) {}

/** The caller lacks the scope the change's entity needs (its read scope to see it, its undo scope to undo it). */
export class MissingEntityScope extends Schema.TaggedError<MissingEntityScope>()("MissingEntityScope", {
  scope: Schema.String,
  message: Schema.String
}) {}

/** The change created something (delete the item instead), or holds no values to write back. */
export class NothingToRestore extends Schema.TaggedError<NothingToRestore>()("NothingToRestore", {
  message: Schema.String
}) {}

/** The change was undone already; of simultaneous undos, one runs and the others get this. */
export class AlreadyUndone extends Schema.TaggedError<AlreadyUndone>()("AlreadyUndone", { message: Schema.String }) {}

/** The entity refuses an undo while a later change of the same item exists (the home layout). */
export class LaterChangeExists extends Schema.TaggedError<LaterChangeExists>()("LaterChangeExists", {
  message: Schema.String
}) {}

/** The item an update changed no longer exists. */
export class RestoreTargetMissing extends Schema.TaggedError<RestoreTargetMissing>()("RestoreTargetMissing", {
  message: Schema.String
}) {}

/** This kind of change cannot be undone: an entity without undo, or values too large to have been recorded. */
export class NotUndoable extends Schema.TaggedError<NotUndoable>()("NotUndoable", { message: Schema.String }) {}

export const ChangeErrorReason = Schema.Union([
  ChangeNotFound,
  MissingEntityScope,
  NothingToRestore,
  AlreadyUndone,
  LaterChangeExists,
  RestoreTargetMissing,
  NotUndoable
])
export type ChangeErrorReason = typeof ChangeErrorReason.Type

export class ChangeError extends Schema.TaggedError<ChangeError>()("ChangeError", { reason: ChangeErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: ChangeErrorReason) => new ChangeError({ reason })
