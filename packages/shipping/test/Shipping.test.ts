import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { define, type RateLimit } from "@tawsil/courier/CourierAdapter"
import { Refused, Unreachable } from "@tawsil/courier/CourierError"
import { CourierHttp } from "@tawsil/courier/CourierHttp"
import { ParcelOrder } from "@tawsil/courier/Shipment"
import { Duration, Effect, Layer, Logger, Redacted, References, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as Catalogue from "../src/Catalogue.ts"
import { accountKey, Shipping, Transport } from "../src/Shipping.ts"

const order = Schema.decodeUnknownSync(ParcelOrder)({
  recipient: { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
})

const seen: Array<{
  courier: string
  tenantOrigin: string | undefined
  timeout: Duration.Duration
  deadline: number
  rateLimits: ReadonlyArray<RateLimit>
  account: string | undefined
}> = []

const pinned = define<{ readonly token: Redacted.Redacted<string> }>({
  platform: "alpha",
  couriers: [{ key: "alpha", name: "Alpha", aliases: ["alfa"], endpoint: { origin: "https://api.alpha.dz" } }],
  credentials: Schema.Struct({
    token: Schema.RedactedFromValue(Schema.String.check(Schema.isMinLength(8))),
    shop: Schema.optionalKey(Schema.String)
  }),
  rateLimits: [
    { limit: 5, window: "1 second" },
    { limit: 50, window: "1 minute" }
  ],
  statuses: { accepted: "pending_pickup", moving: "in_transit" },
  operations: {
    create: (_order, { credentials }) =>
      Effect.gen(function* () {
        const http = yield* CourierHttp
        const response = yield* http.request({ method: "POST", path: "/orders" })
        if (Redacted.value(credentials.token) === "refuse-me-please") {
          return yield* new Refused({ message: "wilaya not served" })
        }
        return { trackingNumber: response.text, rawStatus: "accepted" }
      }),
    track: () =>
      Effect.succeed([
        { rawStatus: "moving", timestamp: "2026-11-21T10:00:00+01:00" },
        { rawStatus: "teleported", timestamp: "2026-11-21T11:00:00+01:00" }
      ])
  }
})

const tenant = define({
  platform: "beta",
  couriers: [{ key: "beta", name: "Beta", aliases: [], endpoint: { tenantDomain: "beta.dz" } }],
  statuses: {},
  operations: { rates: () => Effect.fail(new Unreachable({ message: "no answer" })) }
})

/** A courier that quotes the request back: its answers carry the caller's token in every form it could take. */
const echoing = define<{ readonly token: Redacted.Redacted<string> }>({
  platform: "gamma",
  couriers: [{ key: "gamma", name: "Gamma", aliases: [], endpoint: { origin: "https://api.gamma.dz" } }],
  credentials: Schema.Struct({ token: Schema.RedactedFromValue(Schema.String) }),
  statuses: { accepted: "pending_pickup" },
  operations: {
    create: (_order, { credentials }) =>
      Effect.gen(function* () {
        const http = yield* CourierHttp
        const link = yield* http.request({
          method: "GET",
          path: "/label-link",
          query: { t: Redacted.value(credentials.token) }
        })
        return { trackingNumber: "G-1", labelUrl: link.text, rawStatus: "accepted" }
      }),
    track: () =>
      Effect.gen(function* () {
        const http = yield* CourierHttp
        const echoed = yield* http.request({ method: "GET", path: "/echo" })
        return yield* new Refused({ message: `the courier said: ${echoed.text}`, courierCode: echoed.text })
      }),
    // A careless adapter that quotes the credential itself: the core still blanks it out of the failure.
    rates: (_query, { credentials }) =>
      Effect.fail(
        new Unreachable({
          message: `GET /tariffs?token=${encodeURIComponent(Redacted.value(credentials.token))} failed`
        })
      )
  }
})

/**
 * A courier that separates creating from dispatching: `POST /orders` (with `hold=1` when asked to keep the parcel
 * undispatched) and `POST /orders/{t}/validate`; the adapter answers the raw status each step leaves.
 */
const held: Array<{ readonly path: string; readonly query: Readonly<Record<string, string>> | undefined }> = []
const dispatching = define({
  platform: "delta",
  couriers: [{ key: "delta", name: "Delta", aliases: [], endpoint: { origin: "https://api.delta.dz" } }],
  statuses: { uploaded: "created", validated: "pending_pickup" },
  // Its payments come only by push: tracking cannot say where the cash is.
  codStatuses: { paid: "remitted" },
  codTracked: false,
  operations: {
    create: (_order, { dispatch }) =>
      Effect.gen(function* () {
        const http = yield* CourierHttp
        const query = dispatch === false ? { hold: "1" } : undefined
        held.push({ path: "/orders", query })
        yield* http.request({ method: "POST", path: "/orders", query })
        return { trackingNumber: "D-1", rawStatus: dispatch === false ? "uploaded" : "validated" }
      }),
    dispatch: (trackingNumber) =>
      Effect.gen(function* () {
        held.push({ path: `/orders/${trackingNumber}/validate`, query: undefined })
        if (trackingNumber === "D-GONE") return yield* new Refused({ message: "unknown tracking" })
        return { rawStatus: trackingNumber === "D-ODD" ? "teleported" : "validated" }
      }),
    track: () => Effect.succeed([{ rawStatus: "validated", timestamp: "2026-11-21T10:00:00+01:00" }])
  }
})

const ECHOED_TOKEN = 'tok/en+with="quotes"~1'

const answer = (text: string) =>
  Effect.succeed({ status: 200, headers: {}, text, bytes: new TextEncoder().encode(text) })

const transport = Layer.succeed(
  Transport,
  Transport.of({
    bind: ({ courier, tenantOrigin, timeout, deadline, rateLimits, account }) => {
      seen.push({ courier: courier.key, tenantOrigin, timeout, deadline, rateLimits, account })
      return CourierHttp.of({
        request: (request) => {
          switch (request.path) {
            case "/label-link":
              return answer(`https://api.gamma.dz/labels/${request.query?.t}.pdf`)
            case "/echo":
              return answer(
                `raw ${ECHOED_TOKEN} uri ${encodeURIComponent(ECHOED_TOKEN)} form ${new URLSearchParams({ q: ECHOED_TOKEN })} json ${JSON.stringify({ t: ECHOED_TOKEN })}`
              )
            default:
              return answer("ALPHA-1")
          }
        }
      })
    }
  })
)

const accountSecret = Redacted.make("account-secret")
const layer = Shipping.layer(Catalogue.make([pinned, tenant, echoing, dispatching]), { accountSecret }).pipe(
  Layer.provide(transport)
)
const run = <A, E>(effect: Effect.Effect<A, E, Shipping>) => effect.pipe(Effect.provide(layer))

describe("Shipping", () => {
  it.effect("creates through the adapter on an HTTP service bound to the courier, with the caller's deadline", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        yield* TestClock.setTime(1_000_000)
        const created = yield* shipping.create({
          courier: "alpha",
          credentials: { token: "secret-token-1" },
          options: { timeoutMs: 2500 },
          order
        })
        assert.strictEqual(created.trackingNumber, "ALPHA-1")
        assert.strictEqual(created.status, "pending_pickup")
        assert.match(
          created.reference,
          /^TW-[0-9A-HJKMNP-TV-Z]{10}$/,
          "a reference is made for a parcel sent without one"
        )
        const bound = seen.at(-1)!
        assert.strictEqual(bound.courier, "alpha")
        assert.isUndefined(bound.tenantOrigin)
        assert.strictEqual(Duration.toMillis(bound.timeout), 2500)
        assert.strictEqual(bound.deadline, 1_002_500, "the whole operation's budget ends 2.5 s after it began")
        yield* shipping.create({ courier: "alpha", credentials: { token: "secret-token-1" }, order })
        assert.strictEqual(seen.at(-1)!.deadline, 1_015_000, "15 s when the caller does not say")
      })
    )
  )

  it.effect("creates a parcel undispatched for a courier that dispatches later, and dispatches it", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        held.length = 0
        const created = yield* shipping.create({ courier: "delta", order, dispatch: false })
        assert.strictEqual(created.status, "created", "an undispatched parcel is created, not yet handed over")
        const dispatched = yield* shipping.dispatch({ courier: "delta", trackingNumber: "D-1" })
        assert.deepStrictEqual(
          { ...dispatched },
          { trackingNumber: "D-1", status: "pending_pickup", rawStatus: "validated" },
          "dispatch answers the parcel's status after it"
        )
        assert.strictEqual((yield* shipping.create({ courier: "delta", order })).status, "pending_pickup")
        assert.deepStrictEqual(held, [
          { path: "/orders", query: { hold: "1" } },
          { path: "/orders/D-1/validate", query: undefined },
          { path: "/orders", query: undefined }
        ])
        const odd = yield* shipping.dispatch({ courier: "delta", trackingNumber: "D-ODD" })
        assert.strictEqual(odd.status, "unknown", "an unmapped status after dispatch is unknown, never guessed")
        const refused = yield* Effect.flip(shipping.dispatch({ courier: "delta", trackingNumber: "D-GONE" }))
        assert.strictEqual(refused._tag, "CourierError")
        if (refused._tag === "CourierError") {
          assert.strictEqual(refused.operation, "dispatch")
          assert.strictEqual(refused.reason._tag, "Refused")
        }
      })
    )
  )

  it.effect("reports no cash on delivery for a courier whose cash statuses come only by push", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const tracked = yield* shipping.track({ courier: "delta", trackingNumber: "D-1" })
        assert.strictEqual(tracked.status, "pending_pickup")
        assert.isUndefined(tracked.cod, "not `not_collected`: tracking cannot see the money")
      })
    )
  )

  it.effect("refuses an undispatched create, and dispatch, for a courier that cannot dispatch later", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const before = seen.length
        const refused = yield* Effect.flip(
          shipping.create({ courier: "alpha", credentials: { token: "secret-token-1" }, order, dispatch: false })
        )
        assert.strictEqual(refused._tag, "CourierError")
        if (refused._tag === "CourierError") {
          assert.strictEqual(refused.operation, "create")
          assert.strictEqual(refused.reason._tag, "Unsupported")
          assert.strictEqual(refused.message, "alpha create: this courier does not offer dispatch")
        }
        const dispatch = yield* Effect.flip(
          shipping.dispatch({ courier: "alpha", credentials: { token: "secret-token-1" }, trackingNumber: "A" })
        )
        assert.strictEqual(dispatch._tag === "CourierError" ? dispatch.reason._tag : dispatch._tag, "Unsupported")
        assert.strictEqual(seen.length, before, "nothing was bound, so nothing was sent")
      })
    )
  )

  it.effect("maps tracked statuses through the adapter's table", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const tracked = yield* shipping.track({
          courier: "alpha",
          credentials: { token: "secret-token-1" },
          trackingNumber: "A"
        })
        assert.deepStrictEqual(
          tracked.events.map((event) => [event.rawStatus, event.status]),
          [
            ["moving", "in_transit"],
            ["teleported", "unknown"]
          ]
        )
      })
    )
  )

  it.effect("logs an unmapped raw status once per courier, however often it comes back, never guessing it", () =>
    Effect.gen(function* () {
      const lines: Array<{ readonly message: unknown; readonly annotations: Readonly<Record<string, unknown>> }> = []
      const capture = Logger.make(({ message, fiber }) => {
        lines.push({ message, annotations: fiber.getRef(References.CurrentLogAnnotations) })
      })
      yield* run(
        Effect.gen(function* () {
          const shipping = yield* Shipping
          const call = { courier: "alpha", credentials: { token: "secret-token-1" }, trackingNumber: "A" }
          yield* shipping.track(call)
          yield* shipping.track({ ...call, courier: "alfa" })
        })
      ).pipe(Effect.provide(Logger.layer([capture])))
      const unmapped = lines.filter(({ message }) => JSON.stringify(message).includes("unmapped courier status"))
      assert.lengthOf(unmapped, 1)
      assert.deepInclude(unmapped[0]!.annotations, { courier: "alpha", rawStatus: "teleported" })
    })
  )

  it.effect("refuses what does not fit the courier before calling it", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const failure = (effect: Effect.Effect<unknown, { readonly _tag: string }>) =>
          Effect.map(Effect.flip(effect), (error) => error._tag)
        assert.strictEqual(yield* failure(shipping.create({ courier: "zeta", order })), "UnknownCourier")
        assert.strictEqual(yield* failure(shipping.create({ courier: "alpha", order })), "InvalidCredentials")
        assert.strictEqual(
          yield* failure(shipping.create({ courier: "alpha", credentials: { token: "short" }, order })),
          "InvalidCredentials"
        )
        assert.strictEqual(
          yield* failure(
            shipping.create({ courier: "alpha", credentials: { token: "secret-token-1", extra: "x" }, order })
          ),
          "InvalidCredentials"
        )
        assert.strictEqual(
          yield* failure(
            shipping.create({
              courier: "alpha",
              credentials: { token: "secret-token-1" },
              options: { baseUrl: "https://evil.example" },
              order
            })
          ),
          "BlockedEgress"
        )
        assert.strictEqual(
          yield* failure(shipping.rates({ courier: "beta", query: { toWilaya: 16, deliveryType: "home" } as never })),
          "BlockedEgress"
        )
        const notMobile = ParcelOrder.make({ ...order, recipient: { ...order.recipient, phone: "021123456" } })
        assert.strictEqual(
          yield* failure(
            shipping.create({ courier: "alpha", credentials: { token: "secret-token-1" }, order: notMobile })
          ),
          "NotAMobile"
        )
        assert.isEmpty(seen.filter((call) => call.courier === "zeta"))
      })
    )
  )

  it.effect("wraps the courier's failures with the courier and the operation, and never echoes credentials", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const refused = yield* Effect.flip(
          shipping.create({ courier: "alpha", credentials: { token: "refuse-me-please" }, order })
        )
        assert.strictEqual(refused._tag, "CourierError")
        if (refused._tag !== "CourierError") return
        assert.strictEqual(refused.reason._tag, "Refused")
        assert.strictEqual(refused.operation, "create")
        assert.notInclude(refused.message, "refuse-me-please")
        const unsupported = yield* Effect.flip(
          shipping.rates({
            courier: "alpha",
            credentials: { token: "secret-token-1" },
            query: { toWilaya: 16, deliveryType: "home" } as never
          })
        )
        assert.strictEqual(unsupported._tag === "CourierError" && unsupported.reason._tag, "Unsupported")
        const unreachable = yield* Effect.flip(
          shipping.rates({
            courier: "beta",
            options: { baseUrl: "https://t.beta.dz" },
            query: { toWilaya: 16, deliveryType: "home" } as never
          })
        )
        assert.strictEqual(unreachable._tag === "CourierError" && unreachable.reason._tag, "Unreachable")
        assert.strictEqual(seen.at(-1)?.tenantOrigin, "https://t.beta.dz")
      })
    )
  )

  it.effect("blanks the caller's credentials out of the courier's answers and out of every failure", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const credentials = { token: ECHOED_TOKEN }
        const created = yield* shipping.create({ courier: "gamma", credentials, order })
        assert.strictEqual(created.labelUrl, undefined, "a label link holding a credential is not passed on")
        const tracked = yield* Effect.flip(shipping.track({ courier: "gamma", credentials, trackingNumber: "G-1" }))
        const rated = yield* Effect.flip(
          shipping.rates({ courier: "gamma", credentials, query: { toWilaya: 16, deliveryType: "home" } as never })
        )
        for (const failure of [tracked, rated]) {
          assert.strictEqual(failure._tag, "CourierError")
          if (failure._tag !== "CourierError") continue
          const shown = JSON.stringify({ message: failure.message, reason: failure.reason })
          for (const form of ["tok/en", "tok%2Fen", "tok%2Fen%2Bwith", 'with=\\"quotes']) assert.notInclude(shown, form)
          assert.include(failure.message, "<redacted>")
        }
        assert.strictEqual(tracked._tag === "CourierError" && tracked.reason._tag, "Refused")
        if (tracked._tag === "CourierError" && tracked.reason._tag === "Refused") {
          assert.strictEqual(
            tracked.reason.message,
            'the courier said: raw <redacted> uri <redacted> form q=<redacted> json {"t":"<redacted>"}'
          )
        }
      })
    )
  )

  it.effect("binds the adapter's rate limits to the caller's account: a digest of the courier and credentials", () =>
    run(
      Effect.gen(function* () {
        const shipping = yield* Shipping
        const accountOf = (courier: string, credentials: Record<string, string>) =>
          Effect.map(shipping.create({ courier, credentials, order }), () => seen.at(-1)!.account)
        const account = yield* accountOf("alpha", { token: "secret-token-1", shop: "s1" })
        const expected = createHmac("sha256", "account-secret")
          .update('alpha\u0000{"shop":"s1","token":"secret-token-1"}')
          .digest("hex")
        assert.strictEqual(
          account,
          expected,
          "an HMAC of the key and the credentials' canonical JSON, under the secret"
        )
        assert.strictEqual(accountKey(accountSecret, "alpha", { token: "secret-token-1", shop: "s1" }), expected)
        assert.notStrictEqual(
          accountKey(Redacted.make("another-secret"), "alpha", { token: "secret-token-1", shop: "s1" }),
          expected,
          "another installation's secret, another digest"
        )
        assert.deepStrictEqual(
          seen.at(-1)!.rateLimits.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
          [
            [5, 1000],
            [50, 60_000]
          ]
        )
        assert.strictEqual(
          yield* accountOf("ALFA", { shop: "s1", token: "secret-token-1" }),
          account,
          "an alias, and the same fields in another order, are the same account"
        )
        assert.notStrictEqual(yield* accountOf("alpha", { token: "secret-token-2", shop: "s1" }), account)
        assert.notStrictEqual(yield* accountOf("alpha", { token: "secret-token-1" }), account)
        assert.notStrictEqual(
          accountKey(accountSecret, "alfa", { token: "secret-token-1", shop: "s1" }),
          account,
          "per courier key"
        )
        assert.notInclude(account!, "secret-token-1")

        yield* Effect.flip(
          shipping.rates({
            courier: "beta",
            options: { baseUrl: "https://t.beta.dz" },
            query: { toWilaya: 16, deliveryType: "home" } as never
          })
        )
        assert.deepStrictEqual(seen.at(-1)!.rateLimits, [])
        assert.isUndefined(seen.at(-1)!.account, "no limits, no account to count")
      })
    )
  )
})
