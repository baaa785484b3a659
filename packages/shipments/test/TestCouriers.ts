/**
 * Couriers for the suites that make no HTTP call: an in-memory courier platform (`Desk`) that keeps the parcels it
 * created, reports what a test says happened to them, and counts every call it answers; adapters over it declared as
 * a test needs them (a batch read or not, rate limits, `dispatch`, a `push` the test writes); and the shipping API's
 * gateway over them and the sandbox.
 */
import { adapter as sandbox } from "@tawsil/adapter-sandbox"
import { CourierAdapter, CourierError, CourierHttp, type Push } from "@tawsil/courier"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Catalogue, ClientWindow, Gateway, Shipping } from "@tawsil/shipping"
import { Clock, DateTime, type Duration, Effect, Layer, Redacted, Schema } from "effect"

/** A call a test courier answered. */
export interface Call {
  readonly courier: string
  readonly operation: string
  /** The tracking numbers it was about. */
  readonly parcels: ReadonlyArray<string>
}

interface Held {
  readonly courier: string
  readonly reference: string | undefined
  events: Array<CourierAdapter.RawEvent>
  dispatched: boolean
  cancelled: boolean
}

/** The test couriers' side: their parcels and the calls they answered. */
export const desk = {
  parcels: new Map<string, Held>(),
  calls: [] as Array<Call>,
  created: 0,
  /** What happens elsewhere while the courier creates a parcel (a concurrent write of the test's), once. */
  duringCreate: undefined as Effect.Effect<void> | undefined,
  /** What happens elsewhere once the gateway answered a create, before its caller goes on, once. */
  afterCreate: undefined as Effect.Effect<void> | undefined,
  /** The courier reports `rawStatus` for a parcel, at `at` (epoch milliseconds). */
  report: (trackingNumber: string, rawStatus: string, at: number) => {
    desk.parcels.get(trackingNumber)!.events.push({ rawStatus, timestamp: DateTime.formatIso(DateTime.makeUnsafe(at)) })
  },
  /** A parcel the courier holds, made outside `create` (a backlog a test made in bulk), ready for pickup since `at`. */
  hold: (courier: string, trackingNumber: string, at: number) => {
    desk.parcels.set(trackingNumber, {
      courier,
      reference: undefined,
      events: [{ rawStatus: "READY", timestamp: DateTime.formatIso(DateTime.makeUnsafe(at)) }],
      dispatched: true,
      cancelled: false
    })
  },
  /** The calls of one courier. */
  callsOf: (courier: string) => desk.calls.filter((call) => call.courier === courier),
  /** How often each parcel was read by tracking (`track` or `trackBatch`). */
  reads: (courier: string) => {
    const counts = new Map<string, number>()
    for (const call of desk.callsOf(courier)) {
      if (call.operation !== "track" && call.operation !== "trackBatch") continue
      for (const parcel of call.parcels) counts.set(parcel, (counts.get(parcel) ?? 0) + 1)
    }
    return counts
  }
}

const Credentials = Schema.Struct({ token: Schema.RedactedFromValue(Schema.String) })
type Credentials = typeof Credentials.Type

/**
 * The raw statuses every test courier speaks, and its cash ones. `CREATED` is what an undispatched create answers,
 * `READY` a dispatched one.
 */
export const statuses = {
  CREATED: "created",
  READY: "pending_pickup",
  PICKED: "picked_up",
  TRANSIT: "in_transit",
  OUT: "out_for_delivery",
  FAILED: "failed_attempt",
  DELIVERED: "delivered",
  RETURNING: "returning",
  RETURNED: "returned",
  CANCELLED: "cancelled"
} as const

/** Statuses after which a parcel is on its way: the courier no longer cancels it. */
const PAST_PICKUP = new Set(["PICKED", "TRANSIT", "OUT", "FAILED", "DELIVERED", "RETURNING", "RETURNED"])

const meanwhile = Effect.suspend(() => {
  const during = desk.duringCreate
  desk.duringCreate = undefined
  return during ?? Effect.void
})

/** Tokens that make a test courier fail: refused credentials, or no answer at all. */
const failure = (courier: string, token: string): CourierError.CourierErrorReason | undefined =>
  token === "rejected"
    ? new CourierError.CredentialsRejected({ message: `${courier} does not know this token` })
    : token === "down"
      ? new CourierError.Unreachable({ message: `${courier} did not answer` })
      : undefined

export interface Options {
  readonly key: string
  /** Whether it reads 100 parcels in one call (else one by one). Default true. */
  readonly batch?: boolean
  /** Whether it separates creating a parcel from handing it over. Default false. */
  readonly dispatch?: boolean
  readonly rateLimits?: ReadonlyArray<{ readonly limit: number; readonly window: Duration.Input }>
  readonly push?: Push.Push
}

/** A courier over the desk, named `key`, taking a `token` credential. */
export const courier = (options: Options) => {
  const { key } = options
  const answered = <A>(
    operation: string,
    parcels: ReadonlyArray<string>,
    credentials: Credentials,
    answer: () => Effect.Effect<A, CourierError.CourierErrorReason>
  ): Effect.Effect<A, CourierError.CourierErrorReason> =>
    Effect.suspend(() => {
      desk.calls.push({ courier: key, operation, parcels })
      const failed = failure(key, Redacted.value(credentials.token))
      return failed === undefined ? answer() : Effect.fail(failed)
    })
  const held = (trackingNumber: string) => {
    const parcel = desk.parcels.get(trackingNumber)
    return parcel === undefined || parcel.courier !== key
      ? Effect.fail(new CourierError.Refused({ message: `no parcel ${trackingNumber}` }))
      : Effect.succeed(parcel)
  }
  return CourierAdapter.define<Credentials>({
    platform: `test-${key}`,
    couriers: [{ key, name: `Test ${key}`, aliases: [], endpoint: { origin: `https://api.${key}.test` } }],
    credentials: Credentials,
    statuses,
    codStatuses: { PAID: "collected", REMITTED: "remitted" },
    ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits }),
    ...(options.push === undefined ? {} : { push: options.push }),
    operations: {
      create: (order, { credentials, dispatch }) =>
        answered("create", [], credentials, () =>
          Effect.map(Effect.andThen(meanwhile, Clock.currentTimeMillis), (now) => {
            const trackingNumber = `${key.toUpperCase()}-${++desk.created}`
            const rawStatus = dispatch === false ? "CREATED" : "READY"
            desk.parcels.set(trackingNumber, {
              courier: key,
              reference: order.reference,
              events: [{ rawStatus, timestamp: DateTime.formatIso(DateTime.makeUnsafe(now)) }],
              dispatched: dispatch !== false,
              cancelled: false
            })
            return { trackingNumber, courierReference: `ref-${trackingNumber}`, rawStatus }
          })
        ),
      track: (trackingNumber, { credentials }) =>
        answered("track", [trackingNumber], credentials, () =>
          Effect.map(held(trackingNumber), (parcel) => [...parcel.events])
        ),
      ...(options.batch === false
        ? {}
        : {
            trackBatch: (
              trackingNumbers: ReadonlyArray<string>,
              { credentials }: CourierAdapter.Context<Credentials>
            ) =>
              answered("trackBatch", trackingNumbers, credentials, () =>
                Effect.sync(() => {
                  const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
                  for (const trackingNumber of trackingNumbers) {
                    const parcel = desk.parcels.get(trackingNumber)
                    if (parcel?.courier === key) found.set(trackingNumber, [...parcel.events])
                  }
                  return found
                })
              )
          }),
      cancel: (trackingNumber, { credentials }) =>
        answered("cancel", [trackingNumber], credentials, () =>
          Effect.flatMap(held(trackingNumber), (parcel) => {
            if (parcel.events.some((event) => PAST_PICKUP.has(event.rawStatus))) {
              return Effect.fail(new CourierError.NotCancellable({ message: `${trackingNumber} left already` }))
            }
            parcel.cancelled = true
            return Effect.void
          })
        ),
      ...(options.dispatch === true
        ? {
            dispatch: (trackingNumber: string, { credentials }: CourierAdapter.Context<Credentials>) =>
              answered("dispatch", [trackingNumber], credentials, () =>
                Effect.flatMap(held(trackingNumber), (parcel) => {
                  if (parcel.cancelled) return Effect.fail(new CourierError.Refused({ message: "cancelled" }))
                  parcel.dispatched = true
                  return Effect.succeed({ rawStatus: "READY" })
                })
              )
          }
        : {}),
      label: (trackingNumber, { credentials }) =>
        answered("label", [trackingNumber], credentials, () =>
          Effect.map(held(trackingNumber), () => ({
            contentType: "application/pdf",
            bytes: new TextEncoder().encode(`%PDF-1.4 ${trackingNumber}`)
          }))
        ),
      checkCredentials: (_, { credentials }) => answered("checkCredentials", [], credentials, () => Effect.void)
    }
  })
}

const noHttp = Layer.succeed(
  Shipping.Transport,
  Shipping.Transport.of({ bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
)

/** The shipping API's gateway over the sandbox and `couriers`, in memory; `desk.afterCreate` runs after a create. */
export const gateway = (couriers: ReadonlyArray<CourierAdapter.Any>): Layer.Layer<Gateway.Gateway> =>
  Layer.effect(
    Gateway.Gateway,
    Effect.map(Gateway.Gateway, (inner) =>
      Gateway.Gateway.of({
        ...inner,
        create: (request, idempotencyKey) =>
          Effect.tap(inner.create(request, idempotencyKey), () =>
            Effect.suspend(() => {
              const after = desk.afterCreate
              desk.afterCreate = undefined
              return after ?? Effect.void
            })
          )
      })
    )
  ).pipe(
    Layer.provide(
      Gateway.layer({ requestsPerMinute: 1_000_000, maxConcurrentCreates: 16 }).pipe(
        Layer.provide(Shipping.Shipping.layer(Catalogue.make([sandbox, ...couriers])).pipe(Layer.provide(noHttp))),
        Layer.provide(Idempotency.layer().pipe(Layer.provide(IdempotencyStore.layerMemory))),
        Layer.provide(ClientWindow.layerStoreMemory())
      )
    )
  )
