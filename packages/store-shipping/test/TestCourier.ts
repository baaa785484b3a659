/**
 * The shipping API's gateway for the suites, over two couriers that make no HTTP call: the `sandbox` and `testco`,
 * whose rates are a formula of the destination and whose failures the caller's token chooses. `testco` does not
 * deliver to wilayas 33 and 56 (its refusal), and answers `rejected` (credentials refused), `down` (unreachable)
 * and `limited` (the courier's rate limit) tokens with those failures.
 */
import { adapter as sandbox } from "@tawsil/adapter-sandbox"
import { CourierAdapter, CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Catalogue, ClientWindow, Gateway, Shipping } from "@tawsil/shipping"
import { Effect, Layer, Redacted, Schema } from "effect"

/** `testco`'s prices from `from` to `to`: home 300 + 10 × to (+100 express), stop-desk 200 + 10 × to. */
export const priceOf = (to: number, tier: "economic" | "express" = "economic") => ({
  home: 300 + 10 * to + (tier === "express" ? 100 : 0),
  desk: 200 + 10 * to
})

export const UNSERVED: ReadonlyArray<number> = [33, 56]

/** How many rate requests reached `testco`, and with which tokens. */
export const calls: Array<{ readonly token: string; readonly from: number | undefined; readonly to: number }> = []

const Credentials = Schema.Struct({ token: Schema.RedactedFromValue(Schema.String) })

export const testco = CourierAdapter.define<typeof Credentials.Type>({
  platform: "testrates",
  couriers: [{ key: "testco", name: "Test Co", aliases: ["test_co"], endpoint: { origin: "https://api.testco.dz" } }],
  credentials: Credentials,
  statuses: {},
  operations: {
    rates: (query, { credentials }) =>
      Effect.gen(function* () {
        const token = Redacted.value(credentials.token)
        calls.push({ token, from: query.fromWilaya, to: query.toWilaya })
        if (token === "rejected") return yield* new CourierError.CredentialsRejected({ message: "token refused" })
        if (token === "down") return yield* new CourierError.Unreachable({ message: "no answer" })
        if (token === "limited") return yield* new CourierError.CourierRateLimited({ retryAfterSeconds: 42 })
        if (UNSERVED.includes(query.toWilaya)) {
          return yield* new CourierError.Refused({ message: `wilaya ${query.toWilaya} is not served` })
        }
        const tier = query.tier ?? "economic"
        const { home, desk } = priceOf(query.toWilaya, tier)
        const fee = (amount: number) => amount as Shipment.RatesResult["deliveryFee"]
        return Shipment.RatesResult.make({
          deliveryType: query.deliveryType,
          tier,
          deliveryFee: fee(query.deliveryType === "home" ? home : desk),
          returnFee: fee(0),
          codFee: fee(0),
          total: fee(query.deliveryType === "home" ? home : desk),
          currency: "DZD",
          options: [
            Shipment.RateOption.make({ deliveryType: "home", tier, deliveryFee: fee(home), returnFee: fee(0) }),
            Shipment.RateOption.make({ deliveryType: "stopdesk", tier, deliveryFee: fee(desk), returnFee: fee(0) })
          ]
        })
      })
  }
})

const noHttp = Layer.succeed(
  Shipping.Transport,
  Shipping.Transport.of({ bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
)

/** The gateway over the sandbox and `testco`, in memory. */
export const gateway: Layer.Layer<Gateway.Gateway> = Gateway.layer({
  requestsPerMinute: 100_000,
  maxConcurrentCreates: 4
}).pipe(
  Layer.provide(Shipping.Shipping.layer(Catalogue.make([sandbox, testco])).pipe(Layer.provide(noHttp))),
  Layer.provide(Idempotency.layer().pipe(Layer.provide(IdempotencyStore.layerMemory))),
  Layer.provide(ClientWindow.layerStoreMemory())
)
