/**
 * The wire format of Elogistia's API: what the adapter sends, and schemas for what it reads back. Answers are
 * untrusted input, decoded here, never checked by hand. Replace these with your courier's documented shapes.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

/** `POST /v1/parcels` */
export interface CreateParcel {
  readonly reference?: string
  readonly recipient: {
    readonly name: string
    readonly phone: string
    readonly wilaya: number
    readonly commune: string
    readonly address?: string
  }
  readonly delivery: "home" | "desk"
  readonly desk_id?: string
  readonly cod: number
  readonly products: string
}

/** `201` to `POST /v1/parcels` */
export const Created = Schema.Struct({
  tracking: Schema.String.check(Schema.isBetweenLength(1, 80)),
  status: Schema.String
})

/** `GET /v1/parcels/{tracking}/events`, oldest first */
export const Events = Schema.Struct({
  events: Schema.Array(Schema.Struct({ status: Schema.String, at: Schema.String }))
})

/** `GET /v1/rates?to={wilaya}`: `desk` is null where the courier has no desk. */
export const Rates = Schema.Struct({
  home: Dzd.Dzd,
  desk: Schema.NullOr(Dzd.Dzd),
  return: Dzd.Dzd
})

/** Any refusal: `{ "error": "…" }` */
export const Failure = Schema.Struct({ error: Schema.String })
