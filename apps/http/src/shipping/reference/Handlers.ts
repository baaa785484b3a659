/**
 * The `reference` group: the catalogue's couriers, the wilayas and the communes of @tawsil/reference (with the
 * public dzship client's `?16` shorthand for a code); none is counted in the client's window.
 */
import { listsAll, ShippingApi } from "@tawsil/api/shipping/Api"
import { FieldIssues, WilayaCode } from "@tawsil/domain"
import { Communes, Wilayas } from "@tawsil/reference"
import { Gateway } from "@tawsil/shipping"
import { Effect, Option, Result, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Errors from "../Errors.ts"

const decodeWilayaCode = Schema.decodeUnknownResult(WilayaCode.WilayaCode)

export const handlers = HttpApiBuilder.group(ShippingApi, "reference", (handlers) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    const communes = yield* Communes.Communes
    return handlers
      .handle("couriers", ({ query }) => Effect.succeed(gateway.catalogue.list(query)))
      .handle("wilayas", ({ query, request }) => {
        const code = query.code ?? Wilayas.shorthandCode(request.url)
        if (code === undefined) {
          const all = listsAll(query.all)
          return Effect.succeed(query.q ? Wilayas.search(query.q, { all }) : Wilayas.list({ all }))
        }
        return Option.match(Wilayas.byCode(code), {
          onSome: Effect.succeed,
          onNone: () => Effect.fail(Errors.make("not_found", Wilayas.unknownCodeMessage(code)))
        })
      })
      .handle("communes", ({ query, request }) => {
        const wilaya = query.wilaya ?? Wilayas.shorthandCode(request.url)
        const checked = wilaya === undefined ? undefined : decodeWilayaCode(wilaya)
        if (checked !== undefined && Result.isFailure(checked)) {
          return Effect.fail(
            Errors.make("invalid_input", "Request validation failed", {
              fields: FieldIssues.fromIssue(checked.failure.issue, { prefix: "query.wilaya" })
            })
          )
        }
        return communes.search({ wilaya: checked?.success, q: query.q }).pipe(
          Effect.map((found) => found.map(Communes.listed)),
          Effect.mapError((error) => Errors.make("communes_unavailable", error.message))
        )
      })
  })
)
