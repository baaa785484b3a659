/**
 * Couriers for the shipments' handler tests in memory: the shipping API's gateway as the app builds it (the courier
 * core over a catalogue, the egress-guarded transport with its loopback overrides, the bundled communes, the create's
 * idempotency) over the memory idempotency store, and a catalogue of the installed adapters (found as the app finds
 * them at start; a test points their origins at loopback fakes) and `pushco`, a courier defined here.
 *
 * `pushco` is a platform no adapter serves, written for the receiver's tests before the real push modules existed and
 * kept for what a test needs to choose or see: it pushes (a signed, timestamped JSON body, a challenge by GET),
 * separates creating a parcel from dispatching it, numbers its parcels in order (so a push can name one before it is
 * created), keeps them in this process with no HTTP (`parcels`) and counts its calls (`pushcoCalls`). Its push
 * scheme:
 *
 * - `GET ?challenge=<token>` (1 to 64 letters or digits) is answered `{"challenge":"<token>"}`;
 * - `POST` carries `X-Pushco-Timestamp` (Unix seconds, within 300 s of now, else stale) and `X-Pushco-Signature`, the
 *   hex HMAC-SHA256 of `<timestamp>.<body>` under the webhook secret (`pcsec_` and 32 hex characters);
 * - the body is `{"events":[{"id","tracking","status","at","reason"?}]}`; an event it cannot read is left out and
 *   counted, a body that is not that JSON is malformed.
 */
import { createHmac, randomBytes } from "node:crypto"
import { CourierAdapter, CourierError, Push } from "@tawsil/courier"
import { Egress } from "@tawsil/egress"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Communes } from "@tawsil/reference"
import { Catalogue, ClientWindow, CourierPacer, Discovery, Gateway, HttpTransport, Shipping } from "@tawsil/shipping"
import { Effect, Layer, Option, Redacted, Result, Schema } from "effect"

// --- pushco --------------------------------------------------------------------------------------------------------

/** A parcel as `pushco` keeps it. */
export interface PushcoParcel {
  readonly trackingNumber: string
  readonly reference: string | undefined
  readonly codAmount: number
  dispatched: boolean
  cancelled: boolean
}

/** Every parcel `pushco` created, by tracking number (all tests of a file share them: numbers never repeat). */
export const parcels = new Map<string, PushcoParcel>()

/** How many times each operation of `pushco` was called. */
export const pushcoCalls = { create: 0, cancel: 0, dispatch: 0, label: 0, checkCredentials: 0 }

/** `pushco` tokens that choose an outcome: refused credentials, an unreachable courier. */
export const REJECTED_TOKEN = "pushco-rejected"
export const DOWN_TOKEN = "pushco-down"

const PushcoCredentials = Schema.Struct({ token: Schema.RedactedFromValue(Schema.String) })

const tokenOf = (credentials: typeof PushcoCredentials.Type) => Redacted.value(credentials.token)

const outcome = (credentials: typeof PushcoCredentials.Type): Effect.Effect<void, CourierError.CourierErrorReason> => {
  const token = tokenOf(credentials)
  if (token === REJECTED_TOKEN) return Effect.fail(new CourierError.CredentialsRejected({ message: "token refused" }))
  if (token === DOWN_TOKEN) return Effect.fail(new CourierError.Unreachable({ message: "no answer from pushco" }))
  return Effect.void
}

const parcelOf = (trackingNumber: string) => {
  const parcel = parcels.get(trackingNumber)
  return parcel === undefined
    ? Effect.fail(new CourierError.Refused({ message: `unknown parcel ${trackingNumber}` }))
    : Effect.succeed(parcel)
}

/** A one-page PDF naming the parcel. */
export const labelOf = (trackingNumber: string) =>
  new Uint8Array(Buffer.from(`%PDF-1.4\n% pushco label ${trackingNumber}\n%%EOF\n`, "latin1"))

export const PUSH_SECRET = `pcsec_${"5e".repeat(16)}`

const SIGNATURE = "x-pushco-signature"
const TIMESTAMP = "x-pushco-timestamp"

/** The headers `pushco` signs a body with, at `at` (Unix seconds). */
export const pushcoHeaders = (body: Uint8Array | string, secret = PUSH_SECRET, at = Math.floor(Date.now() / 1000)) => ({
  "content-type": "application/json",
  [TIMESTAMP]: String(at),
  [SIGNATURE]: createHmac("sha256", secret).update(`${at}.`).update(body).digest("hex")
})

export interface PushcoEvent {
  readonly id?: string
  readonly tracking: string
  readonly status: string
  readonly at: string
  readonly reason?: string
}

/** A body `pushco` sends. */
export const pushcoBody = (events: ReadonlyArray<PushcoEvent>) => JSON.stringify({ events })

/** An event id as `pushco` makes them. */
export const eventId = () => `evt-${randomBytes(6).toString("hex")}`

const pushcoPush: Push.Push = {
  secret: Schema.RedactedFromValue(Schema.String.check(Schema.isPattern(/^pcsec_[0-9a-f]{32}$/))),
  receive: (request, secret, now) => {
    if (request.method === "GET") {
      const token = Push.parameter(request, "challenge")
      if (token === undefined || !/^[A-Za-z0-9]{1,64}$/.test(token)) {
        return Result.fail(Push.malformed("a challenge is a GET with challenge=<1 to 64 letters or digits>"))
      }
      return Result.succeed(Push.challenge("application/json", JSON.stringify({ challenge: token })))
    }
    if (request.method !== "POST") return Result.fail(Push.malformed("pushco pushes with POST"))
    const timestamp = Push.header(request, TIMESTAMP)
    const signature = Push.header(request, SIGNATURE)
    if (timestamp === undefined || signature === undefined) return Result.fail(Push.signature("unsigned request"))
    const presented = Push.hex(signature, 32)
    if (presented === undefined || !/^\d{1,12}$/.test(timestamp)) return Result.fail(Push.signature("bad signature"))
    const expected = Push.hmacSha256(Redacted.value(secret), `${timestamp}.`, request.body)
    if (!Push.sameBytes(expected, presented)) return Result.fail(Push.signature("the signature does not match"))
    if (Math.abs(now / 1000 - Number(timestamp)) > 300) return Result.fail(Push.stale("outside the 300 s window"))
    const body = Push.json(request.body)
    const events = Option.isSome(body) ? Push.member(body.value, "events") : undefined
    if (!Array.isArray(events)) return Result.fail(Push.malformed("the body is not pushco's { events } JSON"))
    const read = events.map((event): Push.PushedEvent | undefined => {
      const tracking = Push.idText(Push.member(event, "tracking"))
      const status = Push.idText(Push.member(event, "status"))
      const at = Push.member(event, "at")
      if (tracking === undefined || status === undefined || typeof at !== "string" || Number.isNaN(Date.parse(at))) {
        return undefined
      }
      return {
        ...Push.optional("eventId", Push.idText(Push.member(event, "id"))),
        parcel: { trackingNumber: tracking },
        rawStatus: status,
        occurredAt: at,
        ...Push.optional("reason", Push.firstText(event, ["reason"]))
      }
    })
    const known = read.filter((event) => event !== undefined)
    return Result.succeed(Push.events(known, read.length - known.length))
  }
}

let issued = 0

export const pushco = CourierAdapter.define<typeof PushcoCredentials.Type>({
  platform: "testpush",
  couriers: [
    { key: "pushco", name: "Push Co (test)", aliases: ["push_co"], endpoint: { origin: "https://api.pushco.dz" } }
  ],
  credentials: PushcoCredentials,
  statuses: {
    created: "created",
    ready: "pending_pickup",
    picked: "picked_up",
    transit: "in_transit",
    out: "out_for_delivery",
    failed: "failed_attempt",
    delivered: "delivered",
    returning: "returning",
    returned: "returned",
    cancelled: "cancelled"
  },
  codStatuses: { cash_collected: "collected", cash_remitted: "remitted" },
  operations: {
    create: (order, { credentials, dispatch }) =>
      Effect.gen(function* () {
        pushcoCalls.create++
        yield* outcome(credentials)
        const trackingNumber = `PC${String(++issued).padStart(8, "0")}`
        parcels.set(trackingNumber, {
          trackingNumber,
          reference: order.reference,
          codAmount: order.codAmount,
          dispatched: dispatch !== false,
          cancelled: false
        })
        return { trackingNumber, rawStatus: dispatch === false ? "created" : "ready" }
      }),
    dispatch: (trackingNumber, { credentials }) =>
      Effect.gen(function* () {
        pushcoCalls.dispatch++
        yield* outcome(credentials)
        const parcel = yield* parcelOf(trackingNumber)
        if (parcel.cancelled) return yield* new CourierError.Refused({ message: `${trackingNumber} was cancelled` })
        parcel.dispatched = true
        return { rawStatus: "ready" }
      }),
    cancel: (trackingNumber, { credentials }) =>
      Effect.gen(function* () {
        pushcoCalls.cancel++
        yield* outcome(credentials)
        const parcel = yield* parcelOf(trackingNumber)
        if (parcel.dispatched) {
          return yield* new CourierError.NotCancellable({ message: `${trackingNumber} was handed over already` })
        }
        parcel.cancelled = true
      }),
    label: (trackingNumber, { credentials }) =>
      Effect.gen(function* () {
        pushcoCalls.label++
        yield* outcome(credentials)
        yield* parcelOf(trackingNumber)
        return { contentType: "application/pdf", bytes: labelOf(trackingNumber) }
      }),
    checkCredentials: (_, { credentials }) =>
      Effect.suspend(() => {
        pushcoCalls.checkCredentials++
        return outcome(credentials)
      })
  },
  push: pushcoPush
})

// --- the gateway ---------------------------------------------------------------------------------------------------

/**
 * The shipping API's gateway over the installed couriers and `pushco`, with couriers' origins sent to loopback fakes
 * (`origins`, as `TAWSIL_COURIER_ORIGINS` does), the bundled communes and the create's idempotency in memory; courier
 * accounts paced by `pacer` (their declared limits unless told).
 */
export const gateway = (
  origins: Egress.Overrides = new Map(),
  pacer: Layer.Layer<CourierPacer.CourierPacer> = CourierPacer.layerMemory
): Layer.Layer<Gateway.Gateway> => {
  const limits = ClientWindow.layerStoreMemory()
  const core = Layer.unwrap(
    Effect.gen(function* () {
      const installed = yield* Effect.orDie(Discovery.discover(import.meta.url))
      const communes = yield* Communes.Communes
      return Shipping.Shipping.layer(Catalogue.make([...installed, pushco]), { communes })
    })
  ).pipe(
    Layer.provide(Communes.layerBundled),
    Layer.provide(HttpTransport.layer({ overrides: origins }).pipe(Layer.provide([Egress.Resolver.layer, pacer])))
  )
  return Gateway.layer({ requestsPerMinute: 100_000, maxConcurrentCreates: 16 }).pipe(
    Layer.provide(core),
    // A claim held by a create the courier never answered is met at once, not after the app's 2 s wait.
    Layer.provide(Idempotency.layer({ wait: "100 millis" }).pipe(Layer.provide(IdempotencyStore.layerMemory))),
    Layer.provide(limits)
  )
}
