/**
 * Issue 35's batch figure: the wall time of one `Gateway.createBatch` of N parcels against N single
 * `Gateway.create`s of the same parcels, to the same courier fake, in the same run. The courier is a loopback server
 * answering what the Yalidine adapter reads, as its documentation gives it (`GET /v1/communes/?wilaya_id=`, the
 * `POST /v1/parcels/` array create keyed by `order_id`; the adapter's own fake keeps every request in memory and lives
 * in its tests), reached through the host's real transport (egress rule, breaker, the account's pace) as the app
 * reaches it, with the bundled communes (each create checks its commune; the batch reads each wilaya's list once) and
 * idempotency in memory. `--latency` adds a courier's answer time to every answer; `--pace` scales the
 * declared limits' windows (0.001 by default: no pacing to speak of, the calls' own cost; 1: Yalidine's documented
 * 5 a second and 50 a minute, kept at 80 %, where 100 singles and their commune reads wait minutes for their turn, as
 * on a real account, and the batch's one request does not).
 *
 *   npm run bench:batch -- [--parcels 100] [--rounds 3] [--latency 150] [--pace 0.001]
 *
 * Prints one row per round and the medians. Smoke it small (`--parcels 5 --rounds 1 --pace 0.001`).
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { parseArgs } from "node:util"
import { adapter as yalidineAdapter } from "@tawsil/adapter-yalidine"
import { Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Egress } from "@tawsil/egress"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Communes } from "@tawsil/reference"
import { Catalogue, ClientWindow, CourierPacer, Gateway, HttpTransport, Shipping } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Result, Schema } from "effect"
import { median } from "./host.ts"

const { values } = parseArgs({
  options: {
    parcels: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    latency: { type: "string", default: "150" },
    pace: { type: "string", default: "0.001" }
  }
})
const PARCELS = Number(values.parcels)
const ROUNDS = Number(values.rounds)
const LATENCY_MS = Number(values.latency)
const PACE = Number(values.pace)
if (!(PARCELS >= 1 && PARCELS <= 100) || !(ROUNDS >= 1) || !(LATENCY_MS >= 0) || !(PACE > 0)) {
  throw new Error("--parcels 1–100, --rounds ≥ 1, --latency ≥ 0, --pace > 0")
}

const ACCOUNT = { apiId: "94986571734304520846", apiToken: "fake-token-5MKfvcyQtO3eouL6tDv0VDFh" }

/**
 * The courier: Oran's communes (one page), and the array create, each parcel made under its `order_id`, every answer
 * `latency` ms late. Requests are counted.
 */
const yalidine = (latency: number) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ readonly origin: string; readonly server: Http.Server; readonly counts: Record<string, number> }>(
          (resolve) => {
            let issued = 0
            const counts: Record<string, number> = {}
            const answer = (response: Http.ServerResponse, body: unknown) =>
              setTimeout(() => {
                const text = JSON.stringify(body)
                response.writeHead(200, {
                  "content-type": "application/json",
                  "content-length": Buffer.byteLength(text)
                })
                response.end(text)
              }, latency)
            const server = Http.createServer((request, response) => {
              const path = new URL(request.url ?? "/", "http://fake").pathname
              const route = `${request.method} ${path}`
              counts[route] = (counts[route] ?? 0) + 1
              const chunks: Array<Buffer> = []
              request.on("data", (chunk: Buffer) => chunks.push(chunk))
              request.on("end", () => {
                if (route === "GET /v1/communes/") {
                  return answer(response, {
                    has_more: false,
                    total_data: 1,
                    data: [{ id: 3101, name: "Bir El Djir", wilaya_id: 31, has_stop_desk: 1, is_deliverable: 1 }]
                  })
                }
                if (route === "POST /v1/parcels/") {
                  const parcels = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ReadonlyArray<{
                    order_id: string
                  }>
                  return answer(
                    response,
                    Object.fromEntries(
                      parcels.map((parcel) => {
                        issued += 1
                        const tracking = `yal-${issued.toString(36).toUpperCase().padStart(6, "0")}`
                        return [parcel.order_id, { success: true, order_id: parcel.order_id, tracking, message: "" }]
                      })
                    )
                  )
                }
                response.writeHead(404, { "content-type": "application/json" })
                response.end("{}")
              })
            })
            server.listen(0, "127.0.0.1", () =>
              resolve({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, counts })
            )
          }
        )
    ),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  )

const order = (reference: string) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference,
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 31, communeName: "Bir El Djir" },
    deliveryType: "home",
    productList: "1x robe",
    codAmount: 4500
  })

const program = Effect.gen(function* () {
  const fake = yield* yalidine(LATENCY_MS)
  const overrides = Result.getOrThrow(Egress.parseOverrides(`https://api.yalidine.app=${fake.origin}`))
  const courierCore = Layer.unwrap(
    Effect.map(Effect.service(Communes.Communes), (communes) =>
      Shipping.Shipping.layer(Catalogue.make([yalidineAdapter]), { communes })
    )
  ).pipe(
    Layer.provide(Communes.layerBundled),
    Layer.provide(
      HttpTransport.layer({ overrides }).pipe(
        Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemoryScaled(PACE)])
      )
    )
  )
  const gatewayLayer = Gateway.layer({ requestsPerMinute: 1_000_000, maxConcurrentCreates: 100_000 }).pipe(
    Layer.provide(courierCore),
    Layer.provide(Idempotency.layer().pipe(Layer.provide(IdempotencyStore.layerMemory))),
    Layer.provide(ClientWindow.layerStoreMemory()),
    Layer.provide(Layer.succeed(ServiceSpans.ServiceSpans, false))
  )
  const gateway = Context.get(yield* Layer.build(gatewayLayer), Gateway.Gateway)
  const call = { courier: "yalidine", credentials: ACCOUNT, options: { fromWilaya: WilayaCode.WilayaCode.make(16) } }

  console.log(
    `${PARCELS} parcels to the Yalidine fake, ${LATENCY_MS} ms a courier answer, the declared pace × ${PACE} (windows)`
  )
  console.log("| round | batch (1 call) ms | singles (N calls, 4 at a time) ms | singles sequential ms | ratio |")
  console.log("| --- | --- | --- | --- | --- |")
  // A warm-up, not counted: the first calls compile the code paths and read each wilaya's commune list.
  yield* gateway.createBatch({ ...call, orders: ["warm-1", "warm-2"].map(order) })
  yield* Effect.forEach(["warm-3", "warm-4"], (reference) =>
    Effect.result(gateway.create({ ...call, order: order(reference) }))
  )
  const batches: Array<number> = []
  const concurrents: Array<number> = []
  const sequentials: Array<number> = []
  for (let round = 1; round <= ROUNDS; round++) {
    const references = (kind: string) => Array.from({ length: PARCELS }, (_, i) => `${kind}-${round}-${i}`)
    const time = function* (run: Effect.Effect<ReadonlyArray<boolean>, unknown>) {
      const started = process.hrtime.bigint()
      const created = yield* run
      const millis = Number(process.hrtime.bigint() - started) / 1e6
      const made = created.filter(Boolean).length
      if (made !== PARCELS) return yield* Effect.die(new Error(`${made} of ${PARCELS} parcels made`))
      return millis
    }
    const batch = yield* time(
      Effect.map(gateway.createBatch({ ...call, orders: references("batch").map(order) }), (results) =>
        results.map(Result.isSuccess)
      )
    )
    const single = (reference: string) =>
      Effect.map(Effect.result(gateway.create({ ...call, order: order(reference) })), Result.isSuccess)
    // The singles as a client that sends four at a time would (the batch's own fallback concurrency), and one by one.
    const concurrent = yield* time(Effect.forEach(references("four"), single, { concurrency: 4 }))
    const sequential = yield* time(Effect.forEach(references("one"), single))
    batches.push(batch)
    concurrents.push(concurrent)
    sequentials.push(sequential)
    console.log(
      `| ${round} | ${batch.toFixed(1)} | ${concurrent.toFixed(1)} | ${sequential.toFixed(1)} | ${(concurrent / batch).toFixed(1)}× |`
    )
  }
  console.log(`courier requests, all rounds and the warm-up: ${JSON.stringify(fake.counts)}`)
  console.log(
    `| median | ${median(batches).toFixed(1)} | ${median(concurrents).toFixed(1)} | ${median(sequentials).toFixed(1)} | ${(median(concurrents) / median(batches)).toFixed(1)}× |`
  )
})

await Effect.runPromise(Effect.scoped(program))
