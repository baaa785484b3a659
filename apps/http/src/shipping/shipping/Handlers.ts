/**
 * The `shipping` group: each call decoded (HttpApi), handed to the `Gateway` of @tawsil/shipping, its answer shaped
 * by `Answers` and its failure mapped through the wire table (`../Errors.ts`). The per-client window runs before them
 * (`ClientRateLimit`).
 */
import { ShippingApi } from "@tawsil/api/shipping/Api"
import { Answers, Gateway } from "@tawsil/shipping"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Errors from "../Errors.ts"

export const handlers = HttpApiBuilder.group(ShippingApi, "shipping", (handlers) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    return handlers
      .handle("createOrder", ({ payload, headers }) =>
        gateway.create(payload, headers["idempotency-key"]).pipe(Effect.mapError(Errors.fromGateway))
      )
      .handle("createOrders", ({ payload }) =>
        gateway.createBatch(payload).pipe(
          Effect.map((results) => Answers.batchCreate(payload.orders, results, Errors.createItemError)),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("track", ({ payload }) =>
        "trackingNumbers" in payload
          ? gateway.trackBatch(payload).pipe(
              Effect.map((items) => Answers.batchTrack(items, Errors.itemError)),
              Effect.mapError(Errors.fromGateway)
            )
          : gateway.track(payload).pipe(Effect.mapError(Errors.fromGateway))
      )
      .handle("rates", ({ payload }) => gateway.rates(payload).pipe(Effect.mapError(Errors.fromGateway)))
      .handle("label", ({ payload }) =>
        gateway.label(payload).pipe(
          Effect.map((label) => label.bytes),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("labels", ({ payload }) =>
        gateway.labelBatch(payload).pipe(
          Effect.map((merged) => Answers.labelSheet(merged, Errors.itemError)),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("cancel", ({ payload, headers }) =>
        gateway.cancel(payload, headers["idempotency-key"]).pipe(Effect.mapError(Errors.fromCancel))
      )
      .handle("stopDesks", ({ payload }) =>
        gateway.stopDesks(payload).pipe(
          Effect.map((desks) => desks.map(Answers.stopDesk)),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("desks", ({ payload }) =>
        gateway.stopDesks(payload).pipe(
          Effect.map((desks) => desks.map(Answers.desk)),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("checkCredentials", ({ payload }) =>
        gateway.checkCredentials(payload).pipe(
          Effect.map((check) => Answers.credentialsCheck(gateway.catalogue, payload.courier, check)),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("resolveCommune", ({ payload }) => {
        const { courier, credentials, options, wilayaCode, communeName } = payload
        const call = courier === undefined ? undefined : { courier, credentials, options }
        return gateway.resolveCommune({ call, wilayaCode, communeName }).pipe(
          // Here the name is the body's own `communeName`, not an order's.
          Effect.mapError((error) =>
            error._tag === "UnknownCommune" ? Errors.unknownCommune(error, "communeName") : Errors.fromGateway(error)
          ),
          Effect.map((resolved) => Answers.communeResolution(gateway.catalogue, courier, resolved))
        )
      })
      .handle("compareRates", ({ payload }) =>
        gateway.compareRates(payload).pipe(Effect.map((quotes) => Answers.comparison(quotes, Errors.itemError)))
      )
  })
)
