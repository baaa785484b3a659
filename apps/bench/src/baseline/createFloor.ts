/**
 * The floor of our HTTP stack for a sandbox `POST /v1/orders`: effect's HttpApi serving one endpoint with our
 * definition's request and answer schemas (`CreateOrderRequest`, `ParcelCreated`, the create's error schemas),
 * doing the raw baseline's work in its handler (the phone check, the sandbox's refusal rules, its tracking number),
 * and nothing of ours around it: no edge (request id, access line, envelope check), no metrics, no door or client
 * window, no capacity guard, no idempotency, no commune check, no courier SDK. Between the raw `node:http` server and
 * the app, it tells what effect's runtime, router and schema codecs cost by themselves (issue 22).
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/createFloor.ts   (env: PORT)
 */

import * as NodeHttp from "node:http"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { SandboxTrackingNumber } from "@tawsil/adapter-sandbox"
import { CreateOrderRequest } from "@tawsil/api/shipping/Api"
import * as Errors from "@tawsil/api/shipping/Errors"
import { Shipment } from "@tawsil/courier"
import { AlgerianMobile } from "@tawsil/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

class FloorGroup extends HttpApiGroup.make("floor").add(
  HttpApiEndpoint.post("createOrder", "/v1/orders", {
    payload: CreateOrderRequest,
    headers: { "idempotency-key": Schema.optionalKey(Schema.String) },
    success: Shipment.ParcelCreated,
    error: [Errors.InvalidInput, Errors.Unprocessable]
  }),
  HttpApiEndpoint.get("health", "/health", { success: Schema.Struct({ status: Schema.String }) })
) {}

class FloorApi extends HttpApi.make("floor").add(FloorGroup) {}

const refused = (code: "invalid_phone" | "courier_refused") =>
  new Errors.Unprocessable({ error: { code, message: code } })

const handlers = HttpApiBuilder.group(FloorApi, "floor", (handlers) =>
  handlers
    .handle("createOrder", ({ payload: { order } }) => {
      if (Option.isNone(AlgerianMobile.normalize(order.recipient.phone))) return Effect.fail(refused("invalid_phone"))
      if (order.codAmount > 150_000 || (order.deliveryType === "home" && !order.recipient.addressLine))
        return Effect.fail(refused("courier_refused"))
      const random = [Math.floor(Math.random() * 32), Math.floor(Math.random() * 32), Math.floor(Math.random() * 32)]
      const trackingNumber = SandboxTrackingNumber.encode(
        Math.floor(Date.now() / 1000),
        `${order.deliveryType}_delivered`,
        random
      )
      return Effect.succeed(
        Shipment.ParcelCreated.make({ trackingNumber, status: "created", reference: order.reference ?? trackingNumber })
      )
    })
    .handle("health", () => Effect.succeed({ status: "ok" }))
)

const server = HttpRouter.serve(HttpApiBuilder.layer(FloorApi).pipe(Layer.provide(handlers)), {
  disableLogger: true,
  disableListenLog: true
}).pipe(
  Layer.provide(
    NodeHttpServer.layer(() => NodeHttp.createServer(), { host: "127.0.0.1", port: Number(process.env.PORT ?? 0) })
  )
)

NodeRuntime.runMain(Layer.launch(server))
