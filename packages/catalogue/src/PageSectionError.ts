/**
 * Why a landing page section operation failed: `PageSectionError`, whose `reason` names the rule (its wire code,
 * where it has one of its own) and carries the message. Transport-agnostic: an API decides which status each reason
 * gets.
 */
import { Schema } from "effect"

/** The body is not a JSON object, or `is_visible` is not a boolean. */
export class InvalidSectionBody extends Schema.TaggedError<InvalidSectionBody>()("InvalidSectionBody", {
  message: Schema.String
}) {}
/** `type` missing or not one of the section types. */
export class InvalidSectionType extends Schema.TaggedError<InvalidSectionType>()("InvalidSectionType", {
  message: Schema.String
}) {}
/** `position` not a whole number from 1 to the end of the page. */
export class InvalidPosition extends Schema.TaggedError<InvalidPosition>()("InvalidPosition", {
  message: Schema.String
}) {}
/** `settings` not a JSON object within the bounds (size, depth, text, numbers, keys). */
export class InvalidSettings extends Schema.TaggedError<InvalidSettings>()("InvalidSettings", {
  message: Schema.String
}) {}
/** `section_ids` does not name every section of the page exactly once. */
export class InvalidSectionOrder extends Schema.TaggedError<InvalidSectionOrder>()("InvalidSectionOrder", {
  message: Schema.String
}) {}
/** A PATCH sent `type` or `position`. */
export class ImmutableField extends Schema.TaggedError<ImmutableField>()("ImmutableField", {
  message: Schema.String
}) {}
/** The page holds its maximum of sections. */
export class LimitReached extends Schema.TaggedError<LimitReached>()("LimitReached", { message: Schema.String }) {}
/** No landing page with that id in the store. */
export class PageNotFound extends Schema.TaggedError<PageNotFound>()("PageNotFound", { message: Schema.String }) {}
/** No section with that id on that page. */
export class SectionNotFound extends Schema.TaggedError<SectionNotFound>()("SectionNotFound", {
  message: Schema.String
}) {}
/** An undo's section or page no longer exists. */
export class RestoreTargetMissing extends Schema.TaggedError<RestoreTargetMissing>()("RestoreTargetMissing", {
  message: Schema.String
}) {}

export const PageSectionErrorReason = Schema.Union([
  InvalidSectionBody,
  InvalidSectionType,
  InvalidPosition,
  InvalidSettings,
  InvalidSectionOrder,
  ImmutableField,
  LimitReached,
  PageNotFound,
  SectionNotFound,
  RestoreTargetMissing
])
export type PageSectionErrorReason = typeof PageSectionErrorReason.Type

export class PageSectionError extends Schema.TaggedError<PageSectionError>()("PageSectionError", {
  reason: PageSectionErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: PageSectionErrorReason) => new PageSectionError({ reason })
