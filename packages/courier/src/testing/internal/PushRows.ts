/**
 * The conformance kit's rows for an adapter's `push`: pure calls of `receive`, no fake. The adapter's suite gives the
 * courier's way of signing (its fake sender's), two secrets in the courier's form, and bodies the courier pushes with
 * the events each must read as; the kit signs them and checks what a receiver relies on:
 *
 * - each sample, signed with the secret, is read as the courier means it, every raw status in the adapter's tables;
 * - a request signed with another secret, or carrying no signature, is refused for its `signature`; so is a body
 *   changed after signing, where the scheme signs the body;
 * - a request outside a timestamped scheme's window, in the past or the future, is `stale`;
 * - a signed body that is not the courier's (the suite's, and a few every courier shares) is `malformed`;
 * - the courier's challenge is answered, where it has one;
 * - hostile requests (empty, NUL and control characters, invalid UTF-8, deep nesting, huge numbers, a megabyte,
 *   prototype keys, mangled signature headers, other methods) are refused, never thrown;
 * - the secret shows in no answer and no refusal.
 */
import { assert } from "@effect/vitest"
import { Effect, Formatter, Option, Redacted, Result, Schema } from "effect"
import type { Any } from "../../CourierAdapter.ts"
import type { PushAnswer, PushedEvent, PushRejected, PushRequest } from "../../Push.ts"

/** A body the courier pushes, and the events it must read as. */
export interface Sample {
  readonly name: string
  readonly body: string | Uint8Array
  readonly events: ReadonlyArray<PushedEvent>
  /** How many of its events the adapter cannot read and leaves out (`Events.unread`); none by default. */
  readonly unread?: number | undefined
}

export interface Options {
  /** A webhook secret in the courier's form, as the merchant copies it (`adapter.push.secret` decodes it). */
  readonly secret: string
  /** Another secret of the same form: a request signed with it must be refused. */
  readonly otherSecret: string
  /**
   * How the courier authenticates a body it pushes at `now` (epoch ms) with `secret`: the headers it adds, names
   * lower-cased. Take it from the fake's sender, so that the fake and the adapter are checked against each other.
   */
  readonly sign: (body: Uint8Array, secret: string, now: number) => Readonly<Record<string, string>>
  /** What the scheme proves: the body itself (a signature over it), or only the sender (a shared secret header). */
  readonly authenticates: "body" | "sender"
  /** A timestamped scheme's window, in seconds: a request signed further from `now` must be `stale`. */
  readonly toleranceSeconds?: number | undefined
  readonly samples: ReadonlyArray<Sample>
  /** Bodies the courier does not send (besides the kit's own): each, signed with the secret, must be `malformed`. */
  readonly malformed?: ReadonlyArray<string | Uint8Array> | undefined
  /** The courier's subscription challenge as it sends it (unsigned), and the answer it expects. */
  readonly challenge?:
    | {
        readonly request: PushRequest
        readonly answer: { readonly contentType: string; readonly body: string }
      }
    | undefined
}

/** The time every row signs and receives at: 2026-04-18 19:45:06 in Algiers. */
export const NOW = Date.UTC(2026, 3, 18, 18, 45, 6)

const bytesOf = (body: string | Uint8Array): Uint8Array =>
  typeof body === "string" ? new Uint8Array(Buffer.from(body, "utf8")) : body

const decodeSecret = (adapter: Any, secret: string) =>
  Schema.decodeUnknownOption(adapter.push!.secret)(secret).pipe(Option.getOrUndefined)

/** What is wrong with the push options; empty when they can prove the rows. */
export const problems = (adapter: Any, options: Options): ReadonlyArray<string> => {
  const found: Array<string> = []
  if (decodeSecret(adapter, options.secret) === undefined) found.push("push.secret is not a secret push.secret decodes")
  if (decodeSecret(adapter, options.otherSecret) === undefined) {
    found.push("push.otherSecret is not a secret push.secret decodes")
  }
  if (options.secret === options.otherSecret) found.push("push.otherSecret must differ from push.secret")
  if (options.samples.length === 0) found.push("push.samples is empty: give bodies the courier pushes")
  if (!options.samples.some((sample) => sample.events.length > 0)) {
    found.push("push.samples: at least one must report an event")
  }
  if (options.toleranceSeconds !== undefined && !(options.toleranceSeconds > 0)) {
    found.push("push.toleranceSeconds must be positive")
  }
  return found
}

type Outcome = Result.Result<PushAnswer, PushRejected> | { readonly threw: unknown }

const threw = (outcome: Outcome): outcome is { readonly threw: unknown } => "threw" in outcome

/** Runs `receive`, turning a throw into an outcome the rows can report. */
const receiver = (adapter: Any, options: Options) => {
  const secret = decodeSecret(adapter, options.secret) ?? Redacted.make(options.secret)
  const seen: Array<string> = []
  const receive = (request: PushRequest, now = NOW): Outcome => {
    let outcome: Outcome
    // A plugin's bug must show as a failed row naming the request, not as an exception out of the kit.
    try {
      outcome = adapter.push!.receive(request, secret, now)
    } catch (error) {
      outcome = { threw: error }
    }
    seen.push(Formatter.formatJson(threw(outcome) ? String(outcome.threw) : outcome))
    return outcome
  }
  return { receive, seen }
}

/** A POST as the courier sends it, signed with `secret` at `at` unless `signed` is false. */
const post = (
  options: Options,
  body: Uint8Array,
  at: { readonly secret?: string; readonly now?: number; readonly signed?: boolean } = {}
): PushRequest => ({
  method: "POST",
  query: {},
  headers: {
    "content-type": "application/json",
    ...(at.signed === false ? {} : options.sign(body, at.secret ?? options.secret, at.now ?? NOW))
  },
  body
})

const describe = (outcome: Outcome): string =>
  threw(outcome)
    ? `it threw ${String(outcome.threw)}`
    : Result.isSuccess(outcome)
      ? `it was accepted (${outcome.success._tag})`
      : `it was refused for its ${outcome.failure.reason}: ${outcome.failure.message}`

const assertRefused = (outcome: Outcome, reason: PushRejected["reason"] | undefined, what: string) => {
  const refused = !threw(outcome) && Result.isFailure(outcome)
  assert.isTrue(refused && (reason === undefined || outcome.failure.reason === reason), `${what}: ${describe(outcome)}`)
}

/** Events as plain data: an absent member and one set to `undefined` are the same. */
const plain = (events: ReadonlyArray<PushedEvent>) => JSON.parse(JSON.stringify(events)) as unknown

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$/

const isKnown = (adapter: Any, rawStatus: string) =>
  Object.hasOwn(adapter.statuses, rawStatus) ||
  (adapter.codStatuses !== undefined && Object.hasOwn(adapter.codStatuses, rawStatus))

/** Bodies no courier pushes: each must be refused (signed: `malformed`), never thrown. */
const foreignBodies: ReadonlyArray<readonly [string, Uint8Array]> = [
  ["a truncated object", bytesOf("{")],
  ["an unterminated string", bytesOf('"')],
  ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
  ["NUL bytes", new Uint8Array([0, 0, 0, 0])]
]

const hostileBodies: ReadonlyArray<readonly [string, Uint8Array]> = [
  ...foreignBodies,
  ["an empty body", new Uint8Array()],
  ["control characters", bytesOf(`{"type":"\u0001\u0002\u001b[31m\u007f","events":[{"\u0000":"\u0000"}]}`)],
  ["10 000 nested arrays", bytesOf(`${"[".repeat(10_000)}${"]".repeat(10_000)}`)],
  ["10 000 nested objects", bytesOf(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`)],
  [
    "huge numbers",
    bytesOf('{"type":1e999,"events":[{"event_id":1e400,"occurred_at":-1e999,"data":{"status":1e309}}]}')
  ],
  ["prototype keys", bytesOf('{"__proto__":{"events":[1]},"constructor":{"prototype":1},"data":{"__proto__":null}}')],
  ["a megabyte of letters", bytesOf("A".repeat(1 << 20))],
  ["a JSON string", bytesOf(JSON.stringify("eyJhIjoxfQ=="))],
  ["null", bytesOf("null")]
]

const manglings: ReadonlyArray<readonly [string, (value: string) => string]> = [
  ["empty", () => ""],
  ["10 000 characters", (value) => value.repeat(Math.ceil(10_000 / Math.max(1, value.length))).slice(0, 10_000)],
  ["a NUL", (value) => `${value}\u0000`],
  ["its first character changed", (value) => `${value.charCodeAt(0) === 65 ? "B" : "A"}${value.slice(1)}`],
  ["truncated", (value) => value.slice(0, Math.floor(value.length / 2))]
]

const check = (name: string, run: () => void) => ({
  id: "push" as const,
  name: `push: ${name}`,
  run: Effect.sync(run)
})

/** The push rows, as checks of the kit. */
export const checks = (adapter: Any, options: Options) => {
  const samples = options.samples.map((sample) => ({ ...sample, bytes: bytesOf(sample.body) }))
  const first = samples[0]!

  const read = () => {
    const { receive } = receiver(adapter, options)
    for (const sample of samples) {
      const outcome = receive(post(options, sample.bytes))
      if (threw(outcome) || Result.isFailure(outcome)) {
        return assert.fail(`sample "${sample.name}", signed with the secret: ${describe(outcome)}`)
      }
      const answer = outcome.success
      if (answer._tag !== "Events") return assert.fail(`sample "${sample.name}" was answered as a challenge`)
      assert.deepStrictEqual(plain(answer.events), plain(sample.events), `sample "${sample.name}" reads as expected`)
      assert.strictEqual(answer.unread, sample.unread ?? 0, `sample "${sample.name}": the events left unread`)
      for (const event of answer.events) {
        assert.isTrue(isKnown(adapter, event.rawStatus), `pushed status ${event.rawStatus} is in the adapter's tables`)
        assert.match(event.occurredAt, ISO_WITH_OFFSET, "occurredAt is ISO 8601 with an offset")
        assert.isFalse(Number.isNaN(Date.parse(event.occurredAt)), `occurredAt ${event.occurredAt} is a time`)
        const { trackingNumber, courierReference, reference } = event.parcel
        assert.isTrue(
          [trackingNumber, courierReference, reference].some((name) => name !== undefined && name !== ""),
          "an event names its parcel"
        )
      }
    }
  }

  const forged = () => {
    const { receive } = receiver(adapter, options)
    for (const sample of samples) {
      assertRefused(
        receive(post(options, sample.bytes, { secret: options.otherSecret })),
        "signature",
        `sample "${sample.name}" signed with another secret`
      )
      assertRefused(
        receive(post(options, sample.bytes, { signed: false })),
        "signature",
        `sample "${sample.name}" without its signature`
      )
      const headers = options.sign(sample.bytes, options.secret, NOW)
      for (const name of Object.keys(headers)) {
        const { [name]: _, ...without } = headers
        assertRefused(
          receive({ ...post(options, sample.bytes), headers: { "content-type": "application/json", ...without } }),
          "signature",
          `sample "${sample.name}" without its ${name} header`
        )
      }
    }
  }

  const tampered = () => {
    const { receive } = receiver(adapter, options)
    for (const sample of samples) {
      const request = post(options, sample.bytes)
      for (const [how, body] of [
        ["a space added", new Uint8Array([...sample.bytes, 0x20])],
        ["its first byte changed", new Uint8Array([sample.bytes[0]! ^ 0x01, ...sample.bytes.slice(1)])]
      ] as const) {
        assertRefused(receive({ ...request, body }), "signature", `sample "${sample.name}" with ${how} after signing`)
      }
    }
  }

  const window = (tolerance: number) => () => {
    const { receive } = receiver(adapter, options)
    const early = NOW - (tolerance + 60) * 1000
    const late = NOW + (tolerance + 60) * 1000
    assertRefused(receive(post(options, first.bytes, { now: early }), NOW), "stale", "a request signed too long ago")
    assertRefused(receive(post(options, first.bytes, { now: late }), NOW), "stale", "a request signed in the future")
    const inside = receive(post(options, first.bytes, { now: NOW - (tolerance - 5) * 1000 }), NOW)
    assert.isTrue(!threw(inside) && Result.isSuccess(inside), `a request inside the window: ${describe(inside)}`)
  }

  const malformed = () => {
    const { receive } = receiver(adapter, options)
    const bodies: ReadonlyArray<readonly [string, Uint8Array]> = [
      ...foreignBodies,
      ...(options.malformed ?? []).map((body, index) => [`malformed[${index}]`, bytesOf(body)] as const)
    ]
    for (const [name, body] of bodies) {
      assertRefused(receive(post(options, body)), "malformed", `${name}, signed with the secret`)
    }
  }

  const challenge = (expected: NonNullable<Options["challenge"]>) => () => {
    const { receive } = receiver(adapter, options)
    const outcome = receive(expected.request)
    if (threw(outcome) || Result.isFailure(outcome)) return assert.fail(`the challenge: ${describe(outcome)}`)
    assert.deepStrictEqual(outcome.success, { _tag: "Challenge", ...expected.answer }, "the challenge's answer")
  }

  const hostile = () => {
    const { receive } = receiver(adapter, options)
    for (const [name, body] of hostileBodies) {
      assertRefused(receive(post(options, body, { signed: false })), undefined, `${name}, unsigned`)
      assertRefused(receive(post(options, body)), undefined, `${name}, signed`)
    }
    const headers = options.sign(first.bytes, options.secret, NOW)
    for (const name of Object.keys(headers)) {
      for (const [how, mangle] of manglings) {
        const request = post(options, first.bytes)
        assertRefused(
          receive({ ...request, headers: { ...request.headers, [name]: mangle(headers[name]!) } }),
          undefined,
          `the ${name} header ${how}`
        )
      }
    }
    for (const method of ["PUT", "DELETE", "PATCH", ""]) {
      assertRefused(receive({ ...post(options, first.bytes), method }), undefined, `a ${method || "blank"} method`)
    }
    for (const query of [
      {},
      { subscribe: "", crc_token: "" },
      { subscribe: "", crc_token: "x".repeat(100_000) },
      { subscribe: "", crc_token: "a b\r\nSet-Cookie: x" },
      { subscribe: "", crc_token: "\u0000" },
      { challenge: "\u0000", hub: "x" }
    ]) {
      assertRefused(
        receive({ method: "GET", query, headers: {}, body: new Uint8Array() }),
        undefined,
        `GET ?${new URLSearchParams(query).toString().slice(0, 40)}`
      )
    }
  }

  const secretShown = () => {
    const all = receiver(adapter, options)
    const { receive, seen } = all
    for (const sample of samples) {
      receive(post(options, sample.bytes))
      receive(post(options, sample.bytes, { secret: options.otherSecret }))
      receive(post(options, new Uint8Array([...sample.bytes, 0x20])))
    }
    for (const [, body] of hostileBodies) receive(post(options, body))
    if (options.challenge !== undefined) receive(options.challenge.request)
    for (const text of seen) {
      assert.notInclude(text, options.secret, "the secret was shown")
      assert.notInclude(text, options.otherSecret, "a secret was shown")
    }
  }

  return [
    check("each body the courier pushes, signed with the secret, reads as the courier means it", read),
    check("a request signed with another secret, or without its signature, is refused (signature)", forged),
    ...(options.authenticates === "body"
      ? [check("a body changed after it was signed is refused (signature)", tampered)]
      : []),
    ...(options.toleranceSeconds === undefined
      ? []
      : [check("a request signed outside the scheme's window is refused (stale)", window(options.toleranceSeconds))]),
    check("a signed body that is not the courier's is refused (malformed)", malformed),
    ...(options.challenge === undefined
      ? []
      : [check("the courier's subscription challenge is answered", challenge(options.challenge))]),
    check("hostile requests are refused, never thrown", hostile),
    check("the secret shows in no answer and no refusal", secretShown)
  ]
}
