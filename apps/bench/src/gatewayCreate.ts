/**
 * A sandbox create's own work, in process (issue 22): the shipping `Gateway` as the app builds it (spans off, the
 * bundled communes, idempotency and client windows in memory), called directly — no HTTP, no schema decoding, no
 * edge. Beside it, the parts a create is made of, each alone: the commune check (the same create with
 * `options.resolveCommune: false`), the client window's count, the request's decoding and the answer's making.
 * Microseconds per call, after a warm-up; what the app adds around these is the HTTP stack (`npm run bench --
 * --scenario create-floor`).
 *
 *   npm run bench:gateway -- [--calls 50000] [--warmup 20000]
 */

import { parseArgs } from "node:util"
import { adapter } from "@tawsil/adapter-sandbox"
import { CreateOrderRequest } from "@tawsil/api/shipping/Api"
import { CourierHttp, Shipment } from "@tawsil/courier"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Communes } from "@tawsil/reference"
import { Catalogue, ClientWindow, Gateway, Shipping } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Effect, Layer, Schema } from "effect"
import { sandboxOrder } from "./sandboxOrder.ts"

const { values } = parseArgs({
  options: { calls: { type: "string", default: "50000" }, warmup: { type: "string", default: "20000" } }
})

// The sandbox makes no HTTP request: its transport is never asked.
const transport = Layer.succeed(
  Shipping.Transport,
  Shipping.Transport.of({ bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
)
const courierCore = Layer.unwrap(
  Effect.map(Effect.service(Communes.Communes), (communes) =>
    Shipping.Shipping.layer(Catalogue.make([adapter]), { communes })
  )
).pipe(Layer.provide(Communes.layerBundled), Layer.provide(transport))
const gateway = Gateway.layer({ requestsPerMinute: 1_000_000, maxConcurrentCreates: 100_000 }).pipe(
  Layer.provide(courierCore),
  Layer.provide(Idempotency.layer().pipe(Layer.provide(IdempotencyStore.layerMemory))),
  Layer.provide(ClientWindow.layerStoreMemory()),
  Layer.provide(Layer.succeed(ServiceSpans.ServiceSpans, false))
)

const decode = Schema.decodeUnknownSync(CreateOrderRequest)
const request = decode(sandboxOrder)
const unchecked = decode({ ...sandboxOrder, options: { resolveCommune: false } })

const program = Effect.gen(function* () {
  const gateway = yield* Gateway.Gateway
  const time = function* (label: string, call: () => Effect.Effect<unknown, unknown>) {
    for (let i = 0; i < Number(values.warmup); i++) yield* Effect.ignore(call())
    const calls = Number(values.calls)
    const started = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) yield* Effect.ignore(call())
    const micros = Number(process.hrtime.bigint() - started) / calls / 1000
    console.log(`| ${label} | ${micros.toFixed(2)} |`)
  }
  console.log("| call | µs per call |")
  console.log("| --- | --- |")
  yield* time("`Gateway.create`, sandbox, commune checked (the app's default)", () => gateway.create(request))
  yield* time("the same with `options.resolveCommune: false`", () => gateway.create(unchecked))
  const door = gateway.door
  if (door === undefined) return yield* Effect.die("expected the window to count in this process")
  yield* time("`Door.decide` (the client window and the capacity guard, a plain call in process)", () =>
    Effect.sync(() => door.decide("192.0.2.1", true))
  )
  yield* time("decoding the request (`CreateOrderRequest`, interpreted)", () => Effect.sync(() => decode(sandboxOrder)))
  yield* time("`ParcelCreated.make`", () =>
    Effect.sync(() => Shipment.ParcelCreated.make({ trackingNumber: "SBX", status: "created", reference: "r" }))
  )
})

await Effect.runPromise(Effect.provide(program, gateway))
