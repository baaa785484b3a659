/**
 * Why a `LandingPages` operation failed: `LandingPageError`, whose `reason` carries the spec's message.
 * Transport-agnostic: an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** The body breaks a rule of the landing page bodies, or names a product the store does not have. */
export class InvalidLandingPage extends Schema.TaggedError<InvalidLandingPage>()("InvalidLandingPage", {
  message: Schema.String
}) {}

/** No landing page with that id in the store. */
export class LandingPageNotFound extends Schema.TaggedError<LandingPageNotFound>()("LandingPageNotFound", {
  message: Schema.String
}) {}

export const LandingPageErrorReason = Schema.Union([InvalidLandingPage, LandingPageNotFound])
export type LandingPageErrorReason = typeof LandingPageErrorReason.Type

export class LandingPageError extends Schema.TaggedError<LandingPageError>()("LandingPageError", {
  reason: LandingPageErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: LandingPageErrorReason) => new LandingPageError({ reason })
