/**
 * Why an operator's operation failed (`Admin`, the admin CLI's): `AdminError`, whose `reason` carries the message the
 * CLI prints. Transport-agnostic: the admin listener decides which status each reason gets.
 */
import { Schema } from "effect"
import { KeyNotFound, TooManyKeys } from "./AccessError.ts"

/** An input that breaks its rule (a plan name, a scope, a store name). */
export class InvalidAdminInput extends Schema.TaggedError<InvalidAdminInput>()("InvalidAdminInput", {
  message: Schema.String
}) {}

/** No store with that id. */
export class StoreNotFound extends Schema.TaggedError<StoreNotFound>()("StoreNotFound", { message: Schema.String }) {}

export { KeyNotFound, TooManyKeys }

export const AdminErrorReason = Schema.Union([InvalidAdminInput, StoreNotFound, KeyNotFound, TooManyKeys])
export type AdminErrorReason = typeof AdminErrorReason.Type

export class AdminError extends Schema.TaggedError<AdminError>()("AdminError", { reason: AdminErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: AdminErrorReason) => new AdminError({ reason })
