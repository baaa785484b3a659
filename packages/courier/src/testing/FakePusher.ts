/**
 * What every fake courier that pushes shares, so that its sender holds only its courier's scheme: delivering one
 * request (the courier's method, headers and exact body bytes) to a receiver's loopback URL, again on the courier's
 * retry schedule until the receiver answers what the courier counts as received, and a record of every attempt —
 * what was sent, what came back — for a test to read. The schedule is the sender's to give: a courier's documented
 * one (hours apart) or a test's (milliseconds); the waits are `Effect.sleep`, so `TestClock` drives them too.
 *
 * A courier's sender (`test/fake/<Courier>Pusher.ts`) builds and signs the bodies, and adds what its courier does
 * besides (a subscription challenge, disabling the webhook after the last failure). `receiver` is the other end, for
 * an adapter's tests: a loopback receiver that reads each request with the adapter's `push`.
 */
import { type Duration, Effect, type Redacted, Result, type Scope } from "effect"
import type * as Push from "../Push.ts"
import * as LoopbackHttp from "./LoopbackHttp.ts"

/** One request as the courier sends it. */
export interface Outgoing {
  readonly url: string
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** One try and what the receiver did with it. */
export interface Attempt {
  /** Epoch milliseconds (the wall clock, as the courier's). */
  readonly at: number
  /** The headers this attempt carried (a courier that signs each attempt at its time sends new ones each time). */
  readonly headers: Readonly<Record<string, string>>
  /** The status the receiver answered; absent when it did not answer (a timeout, a reset). */
  readonly status?: number | undefined
  /** What it answered, as text. */
  readonly answer?: string | undefined
  /** Why there was no answer. */
  readonly error?: string | undefined
}

/** One request delivered (or given up on): what was sent, every attempt, and whether the receiver took it. */
export interface Delivery {
  readonly sent: Outgoing
  readonly attempts: ReadonlyArray<Attempt>
  readonly delivered: boolean
}

export interface Options {
  /** The waits before the second, third, … attempt; after the last, the delivery is given up. */
  readonly retryDelays: ReadonlyArray<Duration.Input>
  /** What the courier counts as received (Yalidine: 200 only; Svix: any 2xx). */
  readonly accepted: (status: number) => boolean
  /** How long the courier waits for an answer. */
  readonly timeout: Duration.Input
  /** The wall clock attempts are stamped with; `Date.now` by default. */
  readonly now?: (() => number) | undefined
}

export interface FakePusher {
  /** Every delivery, oldest first, kept up to date as attempts happen. */
  readonly deliveries: ReadonlyArray<Delivery>
  /**
   * Delivers one request: tries, waits and tries again on the schedule; ends delivered or given up. `sign`, when
   * given, makes each attempt's headers from its time (a courier that signs every attempt anew), added to the
   * request's own.
   */
  readonly deliver: (
    outgoing: Outgoing,
    sign?: ((at: number) => Readonly<Record<string, string>>) | undefined
  ) => Effect.Effect<Delivery>
  /** Sends one request once, unrecorded (a challenge): the receiver's status and answer, or why there was none. */
  readonly once: (outgoing: Outgoing) => Effect.Effect<Attempt>
}

export const make = (options: Options): FakePusher => {
  const now = options.now ?? Date.now
  const deliveries: Array<Delivery> = []

  const attempt = (
    outgoing: Outgoing,
    sign?: ((at: number) => Readonly<Record<string, string>>) | undefined
  ): Effect.Effect<Attempt> =>
    Effect.suspend(() => {
      const at = now()
      const headers = sign === undefined ? outgoing.headers : { ...outgoing.headers, ...sign(at) }
      return LoopbackHttp.post(
        outgoing.url,
        { method: outgoing.method, headers, body: outgoing.body },
        options.timeout
      ).pipe(
        Effect.map((response): Attempt => ({ at, headers, status: response.status, answer: response.text })),
        Effect.catch((error) => Effect.succeed<Attempt>({ at, headers, error: error.message }))
      )
    })

  const once = (outgoing: Outgoing) => attempt(outgoing)

  const deliver = (outgoing: Outgoing, sign?: ((at: number) => Readonly<Record<string, string>>) | undefined) =>
    Effect.gen(function* () {
      const attempts: Array<Attempt> = []
      const record = { sent: outgoing, attempts, delivered: false }
      deliveries.push(record)
      for (let index = 0; index <= options.retryDelays.length; index++) {
        if (index > 0) yield* Effect.sleep(options.retryDelays[index - 1]!)
        const tried = yield* attempt(outgoing, sign)
        attempts.push(tried)
        if (tried.status !== undefined && options.accepted(tried.status)) {
          record.delivered = true
          break
        }
      }
      return record as Delivery
    })

  return { deliveries, deliver, once }
}

/** The status a receiver answers a refusal with, by its reason. */
const refusalStatus: Readonly<Record<Push.PushRejected["reason"], number>> = {
  signature: 401,
  stale: 401,
  malformed: 400
}

/**
 * A loopback receiver for the scope that reads every request with an adapter's `push` and the account's `secret`, at
 * the wall clock: a challenge is answered 200 as the adapter says, events 200 `{ "received": <count> }`, a refusal
 * 401 (signature, stale) or 400 (malformed) with its reason. What a host's receiver does, with no storage behind it:
 * for an adapter's tests against its fake's sender, over real HTTP. `answers` lists what each request was read as.
 */
export const receiver = (
  push: Push.Push,
  secret: Redacted.Redacted<string>,
  options: { readonly now?: (() => number) | undefined } = {}
): Effect.Effect<
  {
    readonly url: string
    readonly received: ReadonlyArray<LoopbackHttp.Received>
    readonly answers: ReadonlyArray<Result.Result<Push.PushAnswer, Push.PushRejected>>
  },
  never,
  Scope.Scope
> => {
  const now = options.now ?? Date.now
  const answers: Array<Result.Result<Push.PushAnswer, Push.PushRejected>> = []
  return Effect.map(
    LoopbackHttp.serve((request) => {
      const read = push.receive(request, secret, now())
      answers.push(read)
      if (Result.isFailure(read)) {
        return {
          status: refusalStatus[read.failure.reason],
          contentType: "application/json",
          body: JSON.stringify({ error: read.failure.reason })
        }
      }
      const answer = read.success
      return answer._tag === "Challenge"
        ? { status: 200, contentType: answer.contentType, body: answer.body }
        : { status: 200, contentType: "application/json", body: JSON.stringify({ received: answer.events.length }) }
    }),
    (served) => ({ ...served, answers })
  )
}
