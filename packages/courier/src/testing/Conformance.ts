/**
 * The courier conformance kit: one @effect/vitest suite every adapter runs against its own loopback fake courier,
 * through the real core (`Shipping`, `HttpTransport` with loopback overrides, a resolver that resolves nothing, the
 * adapter's rate limits counted in memory).
 * It proves what the catalogue promises about an adapter: its declared capabilities work and the others are
 * refused without a request; every request stays on the courier's origin; its status table covers the statuses
 * the courier sends, and anything else becomes `unknown`; courier failures become the right reasons; and the
 * caller's credentials appear in no log, span, error or response. Every check runs under the process egress guard
 * (`ProcessEgress`): an adapter that opens a connection or looks up a name around `CourierHttp`, on any path a check
 * exercises, fails that check. Adapters without HTTP run it with no fake.
 *
 * Like typescript-eslint's RuleTester, the kit also checks the suite it is given (a fake-backed adapter must show
 * how it handles a timeout, a 5xx, a bad body, a 429 and a rejected credential) and refuses a thin one at once.
 */
import { assert, describe, it } from "@effect/vitest"
import type { WilayaCode } from "@tawsil/domain"
import { Egress, ProcessEgress } from "@tawsil/egress"
import { Cause, Clock, Context, Effect, Exit, Layer, Option, Result, Schema, type Scope } from "effect"
import { RateLimiter } from "effect/persistence"
import * as Catalogue from "../Catalogue.ts"
import type { Any, Capability, CourierManifest } from "../CourierAdapter.ts"
import type { CourierErrorReason } from "../CourierError.ts"
import { CourierHttp, type CourierRequest } from "../CourierHttp.ts"
import * as HttpTransport from "../HttpTransport.ts"
import { ParcelOrder, RatesQuery } from "../Shipment.ts"
import { type CourierCall, Shipping, type ShippingError, Transport } from "../Shipping.ts"
import * as Tracking from "../Tracking.ts"
import * as Observers from "./internal/Observers.ts"

/** A request as the fake courier received it; `path` without the query string. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
}

/** The adapter's loopback fake courier, as the kit needs it. */
export interface Fake {
  /** Where it listens: `http://127.0.0.1:<port>`. */
  readonly origin: string
  /** Every request it has received, oldest first. */
  readonly requests: () => ReadonlyArray<RecordedRequest>
}

/** One way the courier can fail, and the reason the caller must get. */
export interface Failure<F extends Fake = Fake> {
  /** What goes wrong, as the test output names it ("HTTP 500"). */
  readonly name: string
  /** The operation to run; the first declared one (create, track, rates) when omitted. */
  readonly operation?: Capability
  /** Makes the fake misbehave on the next request. */
  readonly arrange?: (fake: F) => void
  /** Sent instead of `credentials.valid` (a token the fake does not know); must contain the canary too. */
  readonly credentials?: Readonly<Record<string, string>>
  /** The caller's `options.timeoutMs`: the failure must arrive within it (plus a second for the machine). */
  readonly timeoutMs?: number
  readonly order?: ParcelOrder
  readonly trackingNumber?: string
  readonly ratesQuery?: RatesQuery
  /** The expected `CourierError` reason. */
  readonly reason: CourierErrorReason["_tag"]
  /** For `CourierRateLimited`: the expected `retryAfterSeconds`. */
  readonly retryAfterSeconds?: number
}

export interface Options<F extends Fake = Fake> {
  readonly adapter: Any
  /** Starts the fake on a random loopback port, for the scope. Omit it for an adapter that makes no HTTP calls. */
  readonly fake?: Effect.Effect<F, never, Scope.Scope>
  /**
   * Makes the fake report `rawStatus` as the parcel's next tracking event, so the status table is checked end to
   * end: through the adapter's `track` and the core. Optional; without it only the table is checked.
   */
  readonly addStatus?: (fake: F, trackingNumber: string, rawStatus: string) => void
  /**
   * Credentials the fake accepts, and the canary: a unique string that appears in them (and in every
   * `Failure.credentials`) and must appear nowhere else. Omit for an adapter that takes no credentials.
   */
  readonly credentials?: { readonly valid: Readonly<Record<string, string>>; readonly canary: string }
  readonly fixtures: {
    /** Every raw status the courier is known to send (from the adapter's fixtures): each must map. */
    readonly rawStatuses: ReadonlyArray<string>
    /** The order to create; {@link order} by default. */
    readonly order?: ParcelOrder
    /** A parcel the fake knows; by default the one `create` just made. */
    readonly trackingNumber?: string
    /** The rates to ask for; {@link ratesQuery} by default. */
    readonly ratesQuery?: RatesQuery
    /** Sent as `options.fromWilaya` on every call, for couriers that need the wilaya parcels ship from. */
    readonly fromWilaya?: WilayaCode.WilayaCode
  }
  readonly failures?: ReadonlyArray<Failure<F>>
}

export interface Check {
  readonly id: "capabilities" | "egress" | "statuses" | "errors" | "secrets"
  readonly name: string
  readonly run: Effect.Effect<void, unknown>
}

/** A home delivery to Algiers every courier should accept. */
export const order: ParcelOrder = Schema.decodeUnknownSync(ParcelOrder)({
  reference: "conformance-1",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 2000 logements"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
})

/** Algiers to Oran, home delivery. */
export const ratesQuery: RatesQuery = Schema.decodeUnknownSync(RatesQuery)({
  fromWilaya: 16,
  toWilaya: 31,
  deliveryType: "home",
  codAmount: 4500
})

const capabilityOrder: ReadonlyArray<Capability> = ["create", "track", "rates", "label"]

const firstDeclared = (adapter: Any): Capability =>
  capabilityOrder.find((capability) => adapter.capabilities[capability]) ?? "create"

/** The canary of an adapter that takes no credentials: sent anyway, it must not come back. */
const defaultCanary = "tawsil-canary-3f9c1e7a5b"

/** The slack a timed-out call gets beyond its timeout before the kit calls it a hang. */
const TIMEOUT_SLACK_MS = 1000

/** What is wrong with the suite itself; empty when it can prove conformance. */
export const problems = <F extends Fake>(options: Options<F>): ReadonlyArray<string> => {
  const { adapter, credentials, failures = [], fixtures } = options
  const found: Array<string> = []
  const declared = capabilityOrder.filter((capability) => adapter.capabilities[capability])
  const hasCanary = (values: Readonly<Record<string, string>>) =>
    credentials !== undefined && Object.values(values).some((value) => value.includes(credentials.canary))
  if (declared.length === 0) found.push("the adapter declares no operation")
  if (fixtures.rawStatuses.length === 0)
    found.push("fixtures.rawStatuses is empty: list the statuses the courier sends")
  if (options.addStatus !== undefined && (options.fake === undefined || !adapter.capabilities.track)) {
    found.push("addStatus needs a fake and a track operation")
  }
  if (adapter.capabilities.track && !adapter.capabilities.create && fixtures.trackingNumber === undefined) {
    found.push("fixtures.trackingNumber is needed to track: the adapter cannot create a parcel")
  }
  if (adapter.credentials !== undefined && credentials === undefined) {
    found.push("the adapter takes credentials: give credentials.valid and a canary")
  }
  if (adapter.credentials === undefined && credentials !== undefined) {
    found.push("the adapter takes no credentials: omit credentials")
  }
  if (credentials !== undefined) {
    if (credentials.canary.length < 12) found.push("the canary is too short to be unique (12 characters at least)")
    if (!hasCanary(credentials.valid)) found.push("credentials.valid must contain the canary")
  }
  for (const failure of failures) {
    const where = `failure "${failure.name}"`
    if (failure.operation !== undefined && !adapter.capabilities[failure.operation]) {
      found.push(`${where}: the adapter does not declare ${failure.operation}`)
    }
    if (failure.arrange !== undefined && options.fake === undefined)
      found.push(`${where} arranges a fake, but none is given`)
    if (failure.credentials !== undefined && !hasCanary(failure.credentials)) {
      found.push(`${where}: its credentials must contain the canary too`)
    }
    if (failure.retryAfterSeconds !== undefined && failure.reason !== "CourierRateLimited") {
      found.push(`${where}: retryAfterSeconds is only for CourierRateLimited`)
    }
  }
  if (options.fake !== undefined) {
    const covers = (what: string, test: (failure: Failure<F>) => boolean) => {
      if (!failures.some(test)) found.push(`no failure shows ${what}`)
    }
    covers(
      "a hanging courier cut off by timeoutMs (→ Unreachable)",
      (f) => f.timeoutMs !== undefined && f.reason === "Unreachable"
    )
    covers(
      "a courier that fails (5xx or reset → Unreachable)",
      (f) => f.timeoutMs === undefined && f.reason === "Unreachable"
    )
    covers("an unreadable answer (→ BadResponse)", (f) => f.reason === "BadResponse")
    covers("a 429 (→ CourierRateLimited with retryAfterSeconds)", (f) => f.retryAfterSeconds !== undefined)
    if (adapter.credentials !== undefined) {
      covers("credentials the courier refuses (→ CredentialsRejected)", (f) => f.reason === "CredentialsRejected")
    }
  }
  return found
}

// --- The harness: the real core, pointed at the fake ------------------------------------------------------------

interface Harness<F extends Fake> {
  readonly shipping: Shipping["Service"]
  readonly courier: CourierManifest
  readonly fake: F | undefined
  /** What the adapter asked `CourierHttp` to send. */
  readonly sent: ReadonlyArray<CourierRequest>
  /** Every HTTP request the process started meanwhile, wherever it went. */
  readonly outgoing: ReadonlyArray<Observers.Outgoing>
  /** Connections the trap (every other origin of the adapter) received. */
  readonly trapped: () => number
  /** The shared part of a call to this courier. */
  readonly call: (credentials: Readonly<Record<string, string>> | undefined, timeoutMs?: number) => CourierCall
}

const overrideKey = (courier: CourierManifest) =>
  "origin" in courier.endpoint ? courier.endpoint.origin : `https://*.${courier.endpoint.tenantDomain}`

/**
 * The core for `courier`: its origin (or its tenant domain) is overridden to the fake; every other origin the
 * adapter declares goes to the trap, and any other host does not resolve, so a request there is `BlockedEgress`.
 */
const harness = <F extends Fake>(options: Options<F>, courier: CourierManifest) =>
  Effect.gen(function* () {
    const fake = options.fake === undefined ? undefined : yield* options.fake
    const trap = yield* Observers.trap
    const targets = new Map(options.adapter.couriers.map((other) => [overrideKey(other), trap.origin]))
    if (fake !== undefined) targets.set(overrideKey(courier), fake.origin)
    const overrides = Egress.parseOverrides([...targets].map(([key, target]) => `${key}=${target}`).join(","))
    if (Result.isFailure(overrides)) return yield* Effect.die(overrides.failure)
    const sent: Array<CourierRequest> = []
    const recording = Layer.effect(
      Transport,
      Effect.map(Transport, (inner) =>
        Transport.of({
          bind: (binding) => {
            const http = inner.bind(binding)
            return CourierHttp.of({
              request: (request) =>
                Effect.suspend(() => {
                  sent.push(request)
                  return http.request(request)
                })
            })
          }
        })
      )
    ).pipe(
      Layer.provide(HttpTransport.layer({ overrides: overrides.success })),
      // A store of its own per harness: the adapter's declared rate limits are enforced as in production, and no
      // check spends another's budget.
      Layer.provide([Egress.Resolver.layerTest({}), RateLimiter.layerStoreMemory])
    )
    const core = Shipping.layer(Catalogue.make([options.adapter])).pipe(Layer.provide(recording))
    const shipping = Context.get(yield* Layer.build(core), Shipping)
    const { seen } = yield* Observers.outgoing
    const baseUrl =
      "tenantDomain" in courier.endpoint ? { baseUrl: `https://conformance.${courier.endpoint.tenantDomain}` } : {}
    const { fromWilaya } = options.fixtures
    const harness: Harness<F> = {
      shipping,
      courier,
      fake,
      sent,
      outgoing: seen,
      trapped: trap.connections,
      call: (credentials, timeoutMs) => ({
        courier: courier.key,
        ...(credentials === undefined ? {} : { credentials }),
        options: {
          ...baseUrl,
          ...(fromWilaya === undefined ? {} : { fromWilaya }),
          ...(timeoutMs === undefined ? {} : { timeoutMs })
        }
      })
    }
    return harness
  })

interface Inputs {
  readonly credentials: Readonly<Record<string, string>> | undefined
  readonly timeoutMs?: number | undefined
  readonly order: ParcelOrder
  readonly trackingNumber: string
  readonly ratesQuery: RatesQuery
}

const runOperation = <F extends Fake>(
  h: Harness<F>,
  operation: Capability,
  inputs: Inputs
): Effect.Effect<unknown, ShippingError> => {
  const call = h.call(inputs.credentials, inputs.timeoutMs)
  switch (operation) {
    case "create":
      return h.shipping.create({ ...call, order: inputs.order })
    case "track":
      return h.shipping.track({ ...call, trackingNumber: inputs.trackingNumber })
    case "rates":
      return h.shipping.rates({ ...call, query: inputs.ratesQuery })
    case "label":
      return h.shipping.label({ ...call, trackingNumber: inputs.trackingNumber })
  }
}

/** Every declared operation, as a caller would chain them: create, track what was created, price a route. */
const runDeclared = <F extends Fake>(options: Options<F>, h: Harness<F>) =>
  Effect.gen(function* () {
    const { adapter, fixtures } = options
    const credentials = options.credentials?.valid
    const created = adapter.capabilities.create
      ? yield* h.shipping.create({ ...h.call(credentials), order: fixtures.order ?? order })
      : undefined
    const trackingNumber = fixtures.trackingNumber ?? created?.trackingNumber ?? ""
    const tracked = adapter.capabilities.track
      ? yield* h.shipping.track({ ...h.call(credentials), trackingNumber })
      : undefined
    const rated = adapter.capabilities.rates
      ? yield* h.shipping.rates({ ...h.call(credentials), query: fixtures.ratesQuery ?? ratesQuery })
      : undefined
    const labelled = adapter.capabilities.label
      ? yield* h.shipping.label({ ...h.call(credentials), trackingNumber })
      : undefined
    return { created, trackingNumber, tracked, rated, labelled }
  })

/** One failure case, run: the fake is told to misbehave just before the call (after any parcel it needs). */
const runFailure = <F extends Fake>(options: Options<F>, h: Harness<F>, failure: Failure<F>) =>
  Effect.gen(function* () {
    const operation = failure.operation ?? firstDeclared(options.adapter)
    const credentials = options.credentials?.valid
    const trackingNumber =
      failure.trackingNumber ??
      options.fixtures.trackingNumber ??
      (operation === "track"
        ? (yield* h.shipping.create({ ...h.call(credentials), order: options.fixtures.order ?? order })).trackingNumber
        : "")
    if (failure.arrange !== undefined && h.fake !== undefined) failure.arrange(h.fake)
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(
      runOperation(h, operation, {
        credentials: failure.credentials ?? credentials,
        timeoutMs: failure.timeoutMs,
        order: failure.order ?? options.fixtures.order ?? order,
        trackingNumber,
        ratesQuery: failure.ratesQuery ?? options.fixtures.ratesQuery ?? ratesQuery
      })
    )
    return { operation, exit, elapsed: (yield* Clock.currentTimeMillis) - start }
  })

const isRelative = (path: string) => path.startsWith("/") && !path.startsWith("//")

/** The typed error a call failed with, if it failed with one. */
const errorOf = <E>(exit: Exit.Exit<unknown, E>): E | undefined =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined

// --- The checks -------------------------------------------------------------------------------------------------

const capabilities = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const { adapter } = options
    const h = yield* harness(options, adapter.couriers[0]!)
    const { created, trackingNumber, tracked, rated, labelled } = yield* runDeclared(options, h)
    if (created !== undefined) {
      assert.isNotEmpty(created.trackingNumber, "create answers a tracking number")
      assert.notStrictEqual(created.status, "unknown", "the raw status create answers is in the status table")
    }
    if (tracked !== undefined) {
      assert.strictEqual(tracked.trackingNumber, trackingNumber)
      for (const event of tracked.events) {
        assert.notStrictEqual(event.status, "unknown", `tracking reported ${event.rawStatus}, which is not mapped`)
      }
    }
    if (rated !== undefined) {
      const query = options.fixtures.ratesQuery ?? ratesQuery
      assert.strictEqual(rated.deliveryType, query.deliveryType)
      assert.strictEqual(rated.total, rated.deliveryFee + rated.codFee, "total = deliveryFee + codFee")
      assert.isNotEmpty(rated.options, "rates lists the options it quoted")
    }
    if (labelled !== undefined) {
      assert.isNotEmpty(labelled.contentType, "a label says its content type")
      assert.isAbove(labelled.bytes.length, 0, "a label has content")
    }
    for (const operation of capabilityOrder.filter((capability) => !adapter.capabilities[capability])) {
      const before = { sent: h.sent.length, received: h.fake?.requests().length ?? 0, outgoing: h.outgoing.length }
      const exit = yield* Effect.exit(
        runOperation(h, operation, {
          credentials: options.credentials?.valid,
          order: options.fixtures.order ?? order,
          trackingNumber: options.fixtures.trackingNumber ?? "T1",
          ratesQuery: options.fixtures.ratesQuery ?? ratesQuery
        })
      )
      const error = errorOf(exit)
      assert.strictEqual(
        error?._tag === "CourierError" ? error.reason._tag : error?._tag,
        "Unsupported",
        `${operation} is not declared: the core refuses it`
      )
      assert.deepStrictEqual(
        { sent: h.sent.length, received: h.fake?.requests().length ?? 0, outgoing: h.outgoing.length },
        before,
        `an undeclared ${operation} sends nothing`
      )
    }
  }).pipe(Effect.scoped)

const egress = <F extends Fake>(options: Options<F>) =>
  Effect.forEach(
    options.adapter.couriers,
    (courier) =>
      Effect.gen(function* () {
        const h = yield* harness(options, courier)
        yield* runDeclared(options, h).pipe(
          Effect.mapError((error) => new Error(`${courier.key}: ${error.message}`, { cause: error }))
        )
        const where = `courier ${courier.key}`
        for (const request of h.sent) {
          assert.isTrue(isRelative(request.path), `${where}: ${request.path} is not relative to the origin`)
        }
        assert.strictEqual(h.trapped(), 0, `${where}: nothing reaches another origin`)
        if (h.fake === undefined) {
          assert.deepStrictEqual(h.sent, [], `${where}: an adapter without a fake sends nothing`)
          assert.deepStrictEqual(h.outgoing, [], `${where}: an adapter without a fake opens no HTTP request`)
          return
        }
        const received = h.fake.requests()
        assert.isNotEmpty(h.sent, `${where}: the adapter sends its requests through CourierHttp`)
        assert.deepStrictEqual(
          received.map(({ method, path }) => `${method} ${path}`),
          h.sent.map(({ method, path }) => `${method} ${new URL(path, "http://x").pathname}`),
          `${where}: the fake received exactly what the adapter sent through CourierHttp`
        )
        for (const request of received) {
          assert.isTrue(isRelative(request.path), `${where}: the fake received a request for ${request.path}`)
        }
        assert.deepStrictEqual(
          h.outgoing.map(({ origin }) => origin),
          h.sent.map(() => h.fake!.origin),
          `${where}: every HTTP request the process made went to this courier's origin (its loopback stand-in)`
        )
      }).pipe(Effect.scoped),
    { discard: true }
  )

/** A raw status no courier sends. */
const stranger = "tawsil_conformance_unmapped"

const statuses = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const table = options.adapter.statuses
    const cash = options.adapter.codStatuses
    // A raw status the adapter lists only as cash moves nothing: it is known, and reads as the movement before it.
    const cashOnly = (raw: string) => !Object.hasOwn(table, raw) && cash !== undefined && Object.hasOwn(cash, raw)
    const at = "2026-01-01T08:00:00+01:00"
    for (const rawStatus of options.fixtures.rawStatuses) {
      const { result, unmapped } = Tracking.timeline("T1", table, [{ rawStatus, timestamp: at }], cash)
      if (cashOnly(rawStatus)) assert.deepStrictEqual(unmapped, [], `raw status ${rawStatus} is in the cash table`)
      else assert.notStrictEqual(result.status, "unknown", `raw status ${rawStatus} is in the status table`)
    }
    const mapped = Object.keys(table)
    const strangers = [
      stranger,
      "constructor",
      "__proto__",
      "toString",
      ...mapped.map((raw) => raw.toUpperCase()),
      ...mapped.map((raw) => ` ${raw}`)
    ].filter((raw) => !Object.hasOwn(table, raw))
    const { result, unmapped } = Tracking.timeline(
      "T1",
      table,
      strangers.map((rawStatus) => ({ rawStatus, timestamp: at }))
    )
    for (const event of result.events) {
      assert.strictEqual(event.status, "unknown", `raw status ${JSON.stringify(event.rawStatus)} is not guessed`)
    }
    assert.deepStrictEqual([...unmapped].sort(), [...new Set(strangers)].sort(), "every unmapped status is reported")

    const { addStatus } = options
    if (addStatus === undefined) return
    // End to end: the fake reports every status, and one nobody mapped; the adapter passes them on unchanged.
    const lines: Array<string> = []
    yield* Effect.gen(function* () {
      const h = yield* harness(options, options.adapter.couriers[0]!)
      const credentials = options.credentials?.valid
      const trackingNumber =
        options.fixtures.trackingNumber ??
        (yield* h.shipping.create({ ...h.call(credentials), order: options.fixtures.order ?? order })).trackingNumber
      for (const rawStatus of [...options.fixtures.rawStatuses, stranger]) addStatus(h.fake!, trackingNumber, rawStatus)
      const track = h.shipping.track({ ...h.call(credentials), trackingNumber })
      const reported = new Map((yield* track).events.map((event) => [event.rawStatus, event.status]))
      for (const rawStatus of options.fixtures.rawStatuses) {
        assert.isTrue(reported.has(rawStatus), `tracking passes ${rawStatus} on as the courier sent it`)
        if (!cashOnly(rawStatus)) assert.notStrictEqual(reported.get(rawStatus), "unknown", `${rawStatus} is mapped`)
      }
      assert.strictEqual(reported.get(stranger), "unknown", "a status nobody mapped is unknown, never guessed")
      yield* track
    }).pipe(Observers.capturing(lines), Effect.scoped)
    assert.lengthOf(
      lines.filter((line) => line.includes("unmapped courier status") && line.includes(stranger)),
      1,
      "an unmapped status is logged once"
    )
  })

const failureCheck = <F extends Fake>(options: Options<F>, failure: Failure<F>) =>
  Effect.gen(function* () {
    const h = yield* harness(options, options.adapter.couriers[0]!)
    const { operation, exit, elapsed } = yield* runFailure(options, h, failure)
    if (Exit.isSuccess(exit)) return assert.fail(`${operation} succeeded despite ${failure.name}`)
    const courierError = errorOf(exit)
    assert.strictEqual(
      courierError?._tag,
      "CourierError",
      `${operation} fails with a CourierError: ${Cause.pretty(exit.cause)}`
    )
    if (courierError?._tag !== "CourierError") return
    assert.strictEqual(courierError.operation, operation)
    assert.strictEqual(courierError.reason._tag, failure.reason, courierError.message)
    if (failure.retryAfterSeconds !== undefined && courierError.reason._tag === "CourierRateLimited") {
      assert.strictEqual(courierError.reason.retryAfterSeconds, failure.retryAfterSeconds, "retryAfterSeconds")
    }
    if (failure.timeoutMs !== undefined) {
      assert.isBelow(
        elapsed,
        failure.timeoutMs + TIMEOUT_SLACK_MS,
        `the caller's ${failure.timeoutMs} ms bound the call`
      )
    }
  }).pipe(Effect.scoped)

const secrets = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const canary = options.credentials?.canary ?? defaultCanary
    const seen: Array<string> = []
    const see = (exit: Exit.Exit<unknown, unknown>) => {
      if (Exit.isSuccess(exit)) seen.push(...Observers.renderings(exit.value))
      else {
        seen.push(Cause.pretty(exit.cause))
        for (const reason of exit.cause.reasons) {
          seen.push(
            ...Observers.renderings(
              reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : reason
            )
          )
        }
      }
    }
    const h = yield* harness(options, options.adapter.couriers[0]!)
    // Every operation's own outcome is seen, not only the run's: a result that quotes a credential and a later step
    // that fails must not hide each other.
    const observe = <A, E>(effect: Effect.Effect<A, E>) => Effect.onExit(effect, (exit) => Effect.sync(() => see(exit)))
    const observed: Harness<F> = {
      ...h,
      shipping: {
        ...h.shipping,
        create: (call) => observe(h.shipping.create(call)),
        track: (call) => observe(h.shipping.track(call)),
        rates: (call) => observe(h.shipping.rates(call)),
        label: (call) => observe(h.shipping.label(call))
      }
    }
    yield* Effect.gen(function* () {
      yield* Effect.exit(runDeclared(options, observed))
      // Each failure on a fresh courier, as its own check runs it: a misbehaviour the courier's rate limits kept
      // from being sent must not carry over to the next case.
      for (const failure of options.failures ?? []) {
        const run = Effect.flatMap(harness(options, h.courier), (fresh) => runFailure(options, fresh, failure))
        see((yield* Effect.scoped(run)).exit)
      }
      // Credentials the core must refuse before any call: they must not be quoted back.
      const valid = options.credentials?.valid
      const probes: ReadonlyArray<Readonly<Record<string, string>>> =
        valid === undefined
          ? [{ token: canary }]
          : [
              { ...valid, unexpected: canary },
              ...Object.keys(valid).flatMap((field) => [
                { ...valid, [field]: canary.repeat(Math.ceil(2048 / canary.length)) },
                { ...valid, [field]: `${canary}\n` }
              ])
            ]
      for (const credentials of probes) {
        const operation = firstDeclared(options.adapter)
        see(
          yield* Effect.exit(
            runOperation(h, operation, {
              credentials,
              order: options.fixtures.order ?? order,
              trackingNumber: options.fixtures.trackingNumber ?? "T1",
              ratesQuery: options.fixtures.ratesQuery ?? ratesQuery
            })
          )
        )
      }
    }).pipe(Observers.capturing(seen))
    const forms = [canary, encodeURIComponent(canary)]
    for (const text of seen) {
      for (const form of forms) assert.notInclude(text, form, "a credential was shown")
    }
  }).pipe(Effect.scoped)

/**
 * Runs one check under the process egress guard (installed for the check unless the process already has it), and
 * fails it when anything the check exercised tried to open a connection or look up a name around `CourierHttp`,
 * whatever the check itself concluded: an escape the adapter takes only now and then is caught on the path it takes.
 */
const guarded = (run: Effect.Effect<void, unknown>): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const owned = !ProcessEgress.isInstalled()
        if (owned) ProcessEgress.install()
        return owned
      }),
      (owned) => Effect.sync(() => owned && ProcessEgress.uninstall())
    )
    const before = ProcessEgress.refused()
    const exit = yield* Effect.exit(run)
    const refused = ProcessEgress.attempts().slice(before)
    if (refused.length > 0) {
      assert.fail(
        `the adapter went around CourierHttp: the egress guard refused ${[...new Set(refused.map(ProcessEgress.describe))].join(", ")}`
      )
    }
    return yield* exit
  }).pipe(Effect.scoped)

/**
 * The checks, as data: {@link suite} registers each as a test; a test of the kit can run one and expect it to fail.
 * Run them with live services (`it.live`): they use real sockets and real timeouts. Throws when {@link problems}
 * finds the suite too thin.
 */
export const checks = <F extends Fake>(options: Options<F>): ReadonlyArray<Check> => {
  const found = problems(options)
  if (found.length > 0) throw new Error(`conformance suite for ${options.adapter.platform}: ${found.join("; ")}`)
  const all: ReadonlyArray<Check> = [
    {
      id: "capabilities",
      name: "each declared capability works through the core; the others are refused as Unsupported, sending nothing",
      run: capabilities(options)
    },
    {
      id: "egress",
      name: "every courier's requests are relative paths on its own origin, and nothing else leaves the process",
      run: egress(options)
    },
    {
      id: "statuses",
      name: "every raw status in the fixtures maps; anything else becomes unknown, logged once",
      run: statuses(options)
    },
    ...(options.failures ?? []).map(
      (failure): Check => ({
        id: "errors",
        name: `${failure.operation ?? firstDeclared(options.adapter)}: ${failure.name} → ${failure.reason}`,
        run: failureCheck(options, failure)
      })
    ),
    {
      id: "secrets",
      name: "credentials appear in no log, span, error or response, on success or failure",
      run: secrets(options)
    }
  ]
  return all.map((check) => ({ ...check, run: guarded(check.run) }))
}

/** Registers the conformance suite for an adapter: `describe(name)` with one live test per check. */
export const suite = <F extends Fake>(name: string, options: Options<F>): void => {
  describe(name, () => {
    for (const check of checks(options)) it.live(check.name, () => check.run)
  })
}
