import * as Http from "node:http"
import type * as Net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Redacted, Result, Schema } from "effect"
import * as CourierAdapter from "../src/CourierAdapter.ts"
import * as CourierError from "../src/CourierError.ts"
import { CourierHttp, type CourierRequest, type CourierResponse, documentRequest } from "../src/CourierHttp.ts"
import * as Push from "../src/Push.ts"
import { Conformance } from "../src/testing/index.ts"

// Parcelo, a courier small enough to read in one go: `POST /v1/parcels` (`hold: true` keeps it undispatched),
// `POST /v1/parcels/:tracking/dispatch`, `DELETE /v1/parcels/:tracking` (while held), `GET
// /v1/parcels/:tracking/events`, a bearer token, no rates; it pushes events signed with an HMAC over a timestamp and
// the body, and checks a receiver with a `?challenge=` GET. Its adapter takes quirks, each breaking one promise the
// kit must catch.

const CANARY = "canary-parcelo-8d2f6b1e94"

type Misbehaviour = "hang" | "fail" | "html" | "throttle"

interface ParceloFake extends Conformance.Fake {
  readonly misbehaveNext: (misbehaviour: Misbehaviour) => void
  readonly addStatus: (tracking: string, status: string) => void
}

const json = (response: Http.ServerResponse, status: number, body: unknown, headers: Http.OutgoingHttpHeaders = {}) =>
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))

/** The loopback Parcelo: accepts `token` only, and misbehaves on demand. */
const startFake = (token: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly fake: ParceloFake; readonly server: Http.Server }>((resume) => {
      const requests: Array<Conformance.RecordedRequest> = []
      const queue: Array<Misbehaviour> = []
      const parcels = new Map<string, Array<{ readonly status: string; readonly at: string }>>()
      let issued = 0
      let minute = 0
      // One event a minute, so the core keeps them in the order the fake reports them.
      const event = (status: string) => ({ status, at: `2026-01-05T08:${String(minute++).padStart(2, "0")}:00+01:00` })
      const server = Http.createServer((request, response) => {
        request.resume()
        request.on("end", () => {
          const path = new URL(request.url ?? "/", "http://fake").pathname
          requests.push({ method: request.method ?? "", path })
          switch (queue.shift()) {
            case "hang":
              return
            case "fail":
              return json(response, 503, { error: "maintenance" })
            case "html":
              return response.writeHead(200, { "content-type": "text/html" }).end("<h1>Maintenance</h1>")
            case "throttle":
              return json(response, 429, { error: "slow down" }, { "retry-after": "9" })
          }
          if (request.headers.authorization !== `Bearer ${token}`) return json(response, 401, { error: "bad token" })
          if (request.method === "POST" && path === "/v1/parcels") {
            const tracking = `PRC${++issued}`
            const status =
              new URL(request.url ?? "/", "http://fake").searchParams.get("hold") === "1" ? "registered" : "ready"
            parcels.set(tracking, [event(status)])
            return json(response, 201, { tracking, status })
          }
          const [, tracking = "", action] = /^\/v1\/parcels\/([A-Z0-9]+)(?:\/(events|dispatch))?$/.exec(path) ?? []
          const events = parcels.get(tracking)
          if (events === undefined) return json(response, 404, { error: "not found" })
          const held = events.at(-1)?.status === "registered"
          if (request.method === "GET" && action === "events") return json(response, 200, { events })
          if (request.method === "POST" && action === "dispatch") {
            if (!held) return json(response, 409, { error: "already dispatched" })
            events.push(event("ready"))
            return json(response, 200, { status: "ready" })
          }
          if (request.method === "DELETE" && action === undefined) {
            if (!held) return json(response, 409, { error: "past the point it can be deleted" })
            parcels.delete(tracking)
            return json(response, 200, { deleted: true })
          }
          return json(response, 404, { error: "not found" })
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            server,
            fake: {
              origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`,
              requests,
              misbehaveNext: (misbehaviour) => queue.push(misbehaviour),
              addStatus: (tracking, status) => parcels.get(tracking)?.push(event(status))
            }
          })
        )
      )
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ fake }) => fake))

interface Quirks {
  /** Quotes the token in the message of a refused credential. */
  readonly leaksInError?: boolean
  /** Builds the tracking number it returns from the token. */
  readonly leaksInResult?: boolean
  /** Logs the token at debug level. */
  readonly logsToken?: boolean
  /** Puts the token on the current span. */
  readonly tracesToken?: boolean
  /** Makes one more request of its own, around `CourierHttp`. */
  readonly bypassesHttp?: boolean
  /** Maps a 5xx to BadResponse. */
  readonly misreads5xx?: boolean
  /** Reads a document its manifest does not declare the host of. */
  readonly readsUndeclaredDocument?: boolean
  /**
   * Tracks in batches, a read a number; `whole` fails the batch when one number is unknown (as Ecotrack's batch read
   * answers), `apart` leaves that number out.
   */
  readonly batch?: "whole" | "apart"
  readonly statuses?: Readonly<Record<string, "created" | "delivered">>
  /** Reports a status it does not know as the last one it knows. */
  readonly guessesStatuses?: boolean
  /** Creates every parcel dispatched, whatever it is asked. */
  readonly ignoresHold?: boolean
  /** Reads a pushed body without checking its signature. */
  readonly trustsPushes?: boolean
  /** Accepts a push signed at any time. */
  readonly ignoresPushWindow?: boolean
  /** Parses a pushed body with `JSON.parse`, which throws on what is not JSON. */
  readonly throwsOnPush?: boolean
  /** Names the secret it expected when a signature does not match. */
  readonly quotesPushSecret?: boolean
  /** Reads a pushed status's note as the status. */
  readonly misreadsPushes?: boolean
}

const Credentials = Schema.Struct({
  token: Schema.RedactedFromValue(
    Schema.String.check(Schema.isBetweenLength(12, 200), Schema.isPattern(/^[\x21-\x7e]+$/))
  )
})
const Created = Schema.fromJsonString(Schema.Struct({ tracking: Schema.String, status: Schema.String }))
const Events = Schema.fromJsonString(
  Schema.Struct({ events: Schema.Array(Schema.Struct({ status: Schema.String, at: Schema.String })) })
)

/** A request nobody should make: an adapter talking to the network itself. */
const smuggled = Effect.callback<void>((resume) => {
  Http.get("http://127.0.0.1:1/exfiltrate", (response) => {
    response.resume()
    resume(Effect.void)
  }).on("error", () => resume(Effect.void))
})

const parcelo = (quirks: Quirks = {}) => {
  const reasonOf = (response: CourierResponse, token: string): CourierError.CourierErrorReason => {
    if (response.status === 401) {
      return new CourierError.CredentialsRejected({
        message: quirks.leaksInError ? `the token ${token} was refused` : "the courier refused the token"
      })
    }
    if (response.status === 429) {
      return new CourierError.CourierRateLimited({ retryAfterSeconds: Number(response.headers["retry-after"] ?? 60) })
    }
    if (response.status >= 500 && !quirks.misreads5xx) {
      return new CourierError.Unreachable({ message: `the courier answered HTTP ${response.status}` })
    }
    if (response.status === 404) return new CourierError.Refused({ message: "the courier does not know this parcel" })
    return new CourierError.BadResponse({ message: `the courier answered HTTP ${response.status}` })
  }

  const call = <A>(
    credentials: typeof Credentials.Type,
    request: CourierRequest,
    schema: Schema.Decoder<A>
  ): Effect.Effect<A, CourierError.CourierErrorReason, CourierHttp> =>
    Effect.gen(function* () {
      const token = Redacted.value(credentials.token)
      if (quirks.logsToken) yield* Effect.logDebug(`calling Parcelo as ${token}`)
      if (quirks.tracesToken) yield* Effect.annotateCurrentSpan("parcelo.token", token)
      if (quirks.bypassesHttp) yield* smuggled
      const http = yield* CourierHttp
      if (quirks.readsUndeclaredDocument) {
        yield* http.request(documentRequest("https://files.parcelo.test/receipt.pdf")!)
      }
      const response = yield* http.request({ ...request, headers: { authorization: `Bearer ${token}` } })
      if (response.status < 200 || response.status >= 300) return yield* Effect.fail(reasonOf(response, token))
      return yield* Schema.decodeUnknownEffect(schema)(response.text).pipe(
        Effect.mapError(() => new CourierError.BadResponse({ message: "the courier answered something unreadable" }))
      )
    }).pipe(Effect.withSpan("Parcelo.call"))

  const statuses = quirks.statuses ?? { registered: "created", ready: "pending_pickup", delivered: "delivered" }
  const guess = (status: string) => (quirks.guessesStatuses && !Object.hasOwn(statuses, status) ? "delivered" : status)

  return CourierAdapter.define<typeof Credentials.Type>({
    platform: "parcelo",
    couriers: [{ key: "parcelo", name: "Parcelo", aliases: [], endpoint: { origin: "https://api.parcelo.test" } }],
    credentials: Credentials,
    statuses,
    push: parceloPush(quirks),
    operations: {
      create: (order, { credentials, dispatch }) =>
        Effect.map(
          call(
            credentials,
            {
              method: "POST",
              path: "/v1/parcels",
              ...(dispatch === false && !quirks.ignoresHold ? { query: { hold: "1" } } : {}),
              json: { name: order.recipient.fullName, cod: order.codAmount }
            },
            Created
          ),
          ({ tracking, status }) => ({
            trackingNumber: quirks.leaksInResult ? `${tracking}-${Redacted.value(credentials.token)}` : tracking,
            rawStatus: status
          })
        ),
      track: (trackingNumber, { credentials }) =>
        Effect.map(
          call(
            credentials,
            { method: "GET", path: `/v1/parcels/${encodeURIComponent(trackingNumber)}/events` },
            Events
          ),
          ({ events }) => events.map(({ status, at }) => ({ rawStatus: guess(status), timestamp: at }))
        ),
      dispatch: (trackingNumber, { credentials }) =>
        call(
          credentials,
          { method: "POST", path: `/v1/parcels/${encodeURIComponent(trackingNumber)}/dispatch` },
          Schema.fromJsonString(Schema.Struct({ status: Schema.String }))
        ).pipe(Effect.map(({ status }) => ({ rawStatus: status }))),
      cancel: (trackingNumber, { credentials }) =>
        call(
          credentials,
          { method: "DELETE", path: `/v1/parcels/${encodeURIComponent(trackingNumber)}` },
          Schema.fromJsonString(Schema.Struct({ deleted: Schema.Literal(true) }))
        ).pipe(Effect.asVoid),
      ...(quirks.batch === undefined
        ? {}
        : {
            trackBatch: (numbers, { credentials }) =>
              Effect.map(
                Effect.forEach(numbers, (trackingNumber) =>
                  call(
                    credentials,
                    { method: "GET", path: `/v1/parcels/${encodeURIComponent(trackingNumber)}/events` },
                    Events
                  ).pipe(
                    Effect.map(({ events }) => [trackingNumber, events] as const),
                    Effect.catchIf(
                      (reason) => quirks.batch === "apart" && reason._tag === "Refused",
                      () => Effect.succeed(undefined)
                    )
                  )
                ),
                (read) =>
                  new Map(
                    read.flatMap((entry) =>
                      entry === undefined
                        ? []
                        : [[entry[0], entry[1].map(({ status, at }) => ({ rawStatus: status, timestamp: at }))]]
                    )
                  )
              )
          })
    }
  })
}

// --- Parcelo's push ----------------------------------------------------------------------------------------------

const PushSecret = Schema.RedactedFromValue(Schema.String.check(Schema.isPattern(/^psk_[0-9a-f]{32}$/)))
const PUSH_SECRET = "psk_6f1d0c3b9a8e7d6c5b4a39281706f5e4"
const OTHER_PUSH_SECRET = "psk_00112233445566778899aabbccddeeff"
const PushedBody = Schema.Struct({
  events: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      tracking: Schema.String,
      status: Schema.String,
      at: Schema.String,
      note: Schema.optionalKey(Schema.String)
    })
  )
})

/** How Parcelo signs a push: `x-parcelo-timestamp` (unix seconds) and the hex HMAC of `<timestamp>.<body>`. */
const parceloSign = (body: Uint8Array, secret: string, now: number): Record<string, string> => {
  const timestamp = String(Math.floor(now / 1000))
  return {
    "x-parcelo-timestamp": timestamp,
    "x-parcelo-signature": Push.hmacSha256(secret, `${timestamp}.`, body).toString("hex")
  }
}

const parceloPush = (quirks: Quirks): Push.Push => ({
  secret: PushSecret,
  receive: (request, secret, now) => {
    if (request.method === "GET") {
      const token = Push.parameter(request, "challenge")
      return token !== undefined && /^[A-Za-z0-9]{1,64}$/.test(token)
        ? Result.succeed(Push.challenge("text/plain", token))
        : Result.fail(Push.malformed("a challenge needs a token of letters and digits"))
    }
    if (request.method !== "POST") return Result.fail(Push.malformed("Parcelo pushes with POST"))
    const timestamp = Push.header(request, "x-parcelo-timestamp") ?? ""
    const presented = Push.hex(Push.header(request, "x-parcelo-signature") ?? "", 32)
    if (!quirks.trustsPushes) {
      if (!/^\d{1,12}$/.test(timestamp) || presented === undefined) {
        return Result.fail(Push.signature("the request is not signed"))
      }
      const expected = Push.hmacSha256(Redacted.value(secret), `${timestamp}.`, request.body)
      if (!Push.sameBytes(expected, presented)) {
        return Result.fail(
          Push.signature(
            quirks.quotesPushSecret
              ? `the signature was not made with ${Redacted.value(secret)}`
              : "the signature does not match"
          )
        )
      }
      if (!quirks.ignoresPushWindow && Math.abs(now / 1000 - Number(timestamp)) > 300) {
        return Result.fail(Push.stale("the request was signed more than 5 minutes from now"))
      }
    }
    const parsed = quirks.throwsOnPush
      ? Option.some(JSON.parse(Buffer.from(request.body).toString()))
      : Push.json(request.body)
    const body = Option.flatMap(parsed, Schema.decodeUnknownOption(PushedBody))
    if (Option.isNone(body)) return Result.fail(Push.malformed("the body is not Parcelo's"))
    return Result.succeed(
      Push.events(
        body.value.events.map((event) => ({
          eventId: event.id,
          parcel: { trackingNumber: event.tracking },
          rawStatus: quirks.misreadsPushes ? (event.note ?? event.status) : event.status,
          occurredAt: event.at
        }))
      )
    )
  }
})

const deliveredPush = JSON.stringify({
  events: [
    { id: "evt_1", tracking: "PRC1", status: "ready", at: "2026-04-18T18:00:00+01:00" },
    {
      id: "evt_2",
      tracking: "PRC1",
      status: "delivered",
      at: "2026-04-18T19:40:00+01:00",
      note: "remis en main propre"
    }
  ]
})

const pushOptions: Conformance.PushOptions = {
  secret: PUSH_SECRET,
  otherSecret: OTHER_PUSH_SECRET,
  sign: parceloSign,
  authenticates: "body",
  toleranceSeconds: 300,
  samples: [
    {
      name: "ready, then delivered",
      body: deliveredPush,
      events: [
        {
          eventId: "evt_1",
          parcel: { trackingNumber: "PRC1" },
          rawStatus: "ready",
          occurredAt: "2026-04-18T18:00:00+01:00"
        },
        {
          eventId: "evt_2",
          parcel: { trackingNumber: "PRC1" },
          rawStatus: "delivered",
          occurredAt: "2026-04-18T19:40:00+01:00"
        }
      ]
    },
    { name: "no event", body: JSON.stringify({ events: [] }), events: [] }
  ],
  malformed: [JSON.stringify({ events: [{ id: 1 }] }), "[]"],
  challenge: {
    request: { method: "GET", query: { challenge: "Zx81" }, headers: {}, body: new Uint8Array() },
    answer: { contentType: "text/plain", body: "Zx81" }
  }
}

const failures: ReadonlyArray<Conformance.Failure<ParceloFake>> = [
  { name: "no answer", arrange: (fake) => fake.misbehaveNext("hang"), timeoutMs: 300, reason: "Unreachable" },
  { name: "HTTP 503", arrange: (fake) => fake.misbehaveNext("fail"), reason: "Unreachable" },
  { name: "an HTML page", operation: "track", arrange: (fake) => fake.misbehaveNext("html"), reason: "BadResponse" },
  {
    name: "429",
    arrange: (fake) => fake.misbehaveNext("throttle"),
    reason: "CourierRateLimited",
    retryAfterSeconds: 9
  },
  { name: "a token it does not know", credentials: { token: `${CANARY}-old` }, reason: "CredentialsRejected" },
  { name: "an unknown parcel", operation: "track", trackingNumber: "PRC404", reason: "Refused" }
]

const optionsFor = (adapter: CourierAdapter.Any): Conformance.Options<ParceloFake> => ({
  adapter,
  fake: startFake(CANARY),
  addStatus: (fake, trackingNumber, rawStatus) => fake.addStatus(trackingNumber, rawStatus),
  credentials: { valid: { token: CANARY }, canary: CANARY },
  fixtures: { rawStatuses: ["registered", "ready", "delivered"] },
  failures,
  push: pushOptions
})

Conformance.suite("Conformance (a conforming adapter)", optionsFor(parcelo()))

/** Runs the checks of kind `id` (named `name`) and expects them to fail with a message matching `pattern`. */
const fails = (options: Conformance.Options<ParceloFake>, id: Conformance.Check["id"], pattern: RegExp, name = "") =>
  Effect.gen(function* () {
    const selected = Conformance.checks(options).filter((check) => check.id === id && check.name.includes(name))
    assert.isNotEmpty(selected)
    const exit = yield* Effect.exit(Effect.forEach(selected, (check) => check.run, { discard: true }))
    assert.isTrue(Exit.isFailure(exit), `the ${id} check passed a broken adapter`)
    if (Exit.isFailure(exit)) assert.match(Cause.pretty(exit.cause), pattern)
  })

describe("Conformance", () => {
  it.live("passes an adapter that quotes its credential in an error message: the core blanks it out", () =>
    Effect.gen(function* () {
      const [check] = Conformance.checks(optionsFor(parcelo({ leaksInError: true }))).filter(
        (check) => check.id === "secrets"
      )
      yield* check!.run
    })
  )

  it.live("fails an adapter that puts its credential in a result", () =>
    fails(optionsFor(parcelo({ leaksInResult: true })), "secrets", /a credential was shown/)
  )

  it.live("fails an adapter that logs its credential, even at debug level", () =>
    fails(optionsFor(parcelo({ logsToken: true })), "secrets", /a credential was shown/)
  )

  it.live("fails an adapter that puts its credential on a span", () =>
    fails(optionsFor(parcelo({ tracesToken: true })), "secrets", /a credential was shown/)
  )

  it.live("fails an adapter that sends a request around CourierHttp", () =>
    // The egress guard refuses the connection before the check's own comparison of requests runs.
    fails(optionsFor(parcelo({ bypassesHttp: true })), "egress", /went around CourierHttp: the egress guard refused/)
  )

  it.live(
    "fails an adapter that reads a document on a host its manifest does not declare, as the host refuses it",
    () =>
      fails(
        optionsFor(parcelo({ readsUndeclaredDocument: true })),
        "capabilities",
        /files\.parcelo\.test is not a document host of parcelo/
      )
  )

  it.live("fails an adapter whose batch track loses the known parcels to one unknown number", () =>
    Effect.gen(function* () {
      yield* fails(optionsFor(parcelo({ batch: "whole" })), "capabilities", /PRC404, which the courier does not know/)
      const [check] = Conformance.checks(optionsFor(parcelo({ batch: "apart" }))).filter(
        (check) => check.id === "capabilities"
      )
      yield* check!.run
    })
  )

  it.live("fails an adapter whose status table misses a status the courier sends", () =>
    Effect.gen(function* () {
      const options = optionsFor(parcelo({ statuses: { delivered: "delivered" } }))
      yield* fails(options, "statuses", /raw status registered is in the status table/)
      yield* fails(options, "capabilities", /the raw status create answers is in the status table/)
    })
  )

  it.live("fails an adapter that guesses a status it does not know", () =>
    fails(
      optionsFor(parcelo({ guessesStatuses: true })),
      "statuses",
      /a status nobody mapped is unknown, never guessed/
    )
  )

  it.live("fails an adapter that maps a courier failure to the wrong reason", () =>
    fails(
      optionsFor(parcelo({ misreads5xx: true })),
      "errors",
      /expected 'BadResponse' to equal 'Unreachable'/,
      "HTTP 503"
    )
  )

  it.live("fails an adapter that creates a parcel dispatched when asked to hold it", () =>
    fails(
      optionsFor(parcelo({ ignoresHold: true })),
      "dispatch",
      /an undispatched parcel's raw status \(ready\) maps to created/
    )
  )

  it.live("fails an adapter that reads pushes without checking their signature", () =>
    Effect.gen(function* () {
      const options = optionsFor(parcelo({ trustsPushes: true }))
      yield* fails(options, "push", /signed with another secret: it was accepted/, "another secret")
      yield* fails(options, "push", /changed after signing|after signing: it was accepted/, "changed after")
    })
  )

  it.live("fails an adapter that accepts a push signed at any time", () =>
    fails(optionsFor(parcelo({ ignoresPushWindow: true })), "push", /signed too long ago: it was accepted/, "window")
  )

  it.live("fails an adapter that throws on a pushed body it cannot read", () =>
    Effect.gen(function* () {
      const options = optionsFor(parcelo({ throwsOnPush: true }))
      yield* fails(options, "push", /a truncated object, signed with the secret: it threw/, "not the courier's")
      yield* fails(options, "push", /it threw/, "never thrown")
    })
  )

  it.live("fails an adapter whose refusal of a push names the secret", () =>
    fails(optionsFor(parcelo({ quotesPushSecret: true })), "push", /a secret was shown|the secret was shown/, "shows")
  )

  it.live("fails an adapter that misreads what its courier pushes", () =>
    fails(optionsFor(parcelo({ misreadsPushes: true })), "push", /sample "ready, then delivered" reads as expected/)
  )

  it("refuses a suite too thin to prove conformance", () => {
    const options = optionsFor(parcelo())
    assert.throws(() => Conformance.checks({ ...options, failures: [] }), /no failure shows a 429/)
    assert.throws(
      () => Conformance.checks({ ...options, credentials: { valid: { token: "a-token-without-it" }, canary: CANARY } }),
      /credentials.valid must contain the canary/
    )
    assert.throws(
      () => Conformance.checks({ ...options, fixtures: { rawStatuses: [] } }),
      /fixtures.rawStatuses is empty/
    )
    const { push: _, ...withoutPush } = options
    assert.throws(() => Conformance.checks(withoutPush), /the adapter reads pushes: give push/)
    assert.throws(
      () => Conformance.checks({ ...options, push: { ...pushOptions, otherSecret: "not-a-parcelo-secret" } }),
      /push.otherSecret is not a secret push.secret decodes/
    )
    assert.throws(
      () => Conformance.checks({ ...options, push: { ...pushOptions, samples: [] } }),
      /push.samples is empty/
    )
  })
})
