/**
 * Why a courier call through a Tawsil host fails (`ShippingError`): the host's refusals before any courier is asked
 * (an unknown courier key, credentials that do not fit it, a phone that is not an Algerian mobile, a commune it
 * cannot resolve or the courier does not serve, an address the egress rules refuse) or the courier's own failure
 * (`CourierError`). The host (`@tawsil/shipping`) raises them; the API contract (`@tawsil/api`) and a store's rate
 * sync name them without installing the host. An adapter raises `CourierError` only.
 */
import { FieldIssues } from "@tawsil/domain"
import { BlockedEgress } from "@tawsil/egress/Egress"
import { Schema } from "effect"
import { CourierError } from "./CourierError.ts"

/** The courier key (or alias) names no courier of the host's catalogue. */
export class UnknownCourier extends Schema.TaggedError<UnknownCourier>()("UnknownCourier", {
  courier: Schema.String
}) {
  override get message() {
    return `unknown courier ${JSON.stringify(this.courier)}; GET /v1/couriers lists the keys`
  }
}

/** The credentials do not fit the courier: sent to one that takes none, fields missing or extra. */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {
  message: Schema.String,
  fields: Schema.optionalKey(FieldIssues.FieldIssues)
}) {}

/** A phone that is not an Algerian mobile (05, 06 or 07 and 8 digits). */
export class NotAMobile extends Schema.TaggedError<NotAMobile>()("NotAMobile", {
  field: Schema.String
}) {
  override get message() {
    return `${this.field} is not an Algerian mobile number (05, 06 or 07 followed by 8 digits)`
  }
}

export const CommuneSuggestion = Schema.Struct({
  nameFr: Schema.String,
  nameAr: Schema.String,
  /** How close the name is to what was sent, from 0 to 1. */
  score: Schema.Number
}).annotate({ identifier: "CommuneSuggestion" })
export type CommuneSuggestion = typeof CommuneSuggestion.Type

/** The commune sent is not one of the wilaya's, or could be several: the caller must say which. */
export class UnknownCommune extends Schema.TaggedError<UnknownCommune>()("UnknownCommune", {
  wilayaCode: Schema.Int,
  communeName: Schema.String,
  ambiguous: Schema.Boolean,
  suggestions: Schema.Array(CommuneSuggestion)
}) {
  override get message() {
    const what = this.ambiguous
      ? `${JSON.stringify(this.communeName)} could be several communes of wilaya ${this.wilayaCode}`
      : `${JSON.stringify(this.communeName)} is not a commune of wilaya ${this.wilayaCode}`
    const hint =
      this.suggestions.length === 0
        ? "GET /v1/communes?wilaya= lists them"
        : `did you mean ${this.suggestions.map((suggestion) => suggestion.nameFr).join(", ")}?`
    return `${what}: ${hint}`
  }
}

/** The courier lists the commune but does not deliver there the way the order asks (or does not list it). */
export class CommuneNotServed extends Schema.TaggedError<CommuneNotServed>()("CommuneNotServed", {
  courier: Schema.String,
  commune: Schema.String,
  deliveryType: Schema.optionalKey(Schema.Literals(["home", "stopdesk"]))
}) {
  override get message() {
    return this.deliveryType === undefined
      ? `${this.courier} lists no commune ${this.commune} in this wilaya`
      : this.deliveryType === "home"
        ? `${this.courier} does not deliver to the door in ${this.commune}`
        : `${this.courier} has no desk in ${this.commune}`
  }
}

/** Every failure of a courier call: the call refused before the courier, or the courier's own (`CourierError`). */
export const ShippingError = Schema.Union([
  UnknownCourier,
  InvalidCredentials,
  BlockedEgress,
  NotAMobile,
  UnknownCommune,
  CommuneNotServed,
  CourierError
])
export type ShippingError = typeof ShippingError.Type
