/**
 * The sandbox's test values, like a payment sandbox's test card numbers: a recipient phone (on create) or a tracking
 * number (on track and label) that makes the sandbox answer one courier outcome, so an integration can see each
 * answer the API gives without a courier account. Every other request the API accepts, the sandbox accepts: its
 * refusals and faults happen on these values only. The last three digits of each are the HTTP status the courier's
 * own API would answer. The table is documented as it is here (README, docs/sandbox.md).
 *
 * The sandbox takes no credentials, so "credentials rejected" is a test value too. A timeout is answered at once:
 * the core does not hand adapters the caller's deadline (`options.timeoutMs`), and an adapter that makes no HTTP
 * call runs under no timer, so the sandbox cannot wait for it to run out; it answers what the caller would get.
 */
import { CourierError } from "@tawsil/courier"
import { AlgerianMobile } from "@tawsil/domain"
import { Duration, Effect, Option } from "effect"

export type Outcome = "refused" | "credentials_rejected" | "unreachable" | "timeout" | "rate_limited" | "slow"

export interface TestValue {
  readonly outcome: Outcome
  /** The recipient phone that triggers it on create, in the national form (any accepted form works). */
  readonly phone: string
  /** The tracking number that triggers it on track and label (any case). */
  readonly trackingNumber: string
}

export const testValues: ReadonlyArray<TestValue> = [
  { outcome: "refused", phone: "0500000422", trackingNumber: "SBXTEST422" },
  { outcome: "credentials_rejected", phone: "0500000401", trackingNumber: "SBXTEST401" },
  { outcome: "unreachable", phone: "0500000502", trackingNumber: "SBXTEST502" },
  { outcome: "timeout", phone: "0500000504", trackingNumber: "SBXTEST504" },
  { outcome: "rate_limited", phone: "0500000429", trackingNumber: "SBXTEST429" },
  { outcome: "slow", phone: "0500000200", trackingNumber: "SBXTEST200" }
]

/** What a rate-limited answer asks the caller to wait. */
export const RETRY_AFTER_SECONDS = 30

/**
 * How long a slow answer takes: slower than any other sandbox answer, and within the shortest `options.timeoutMs` a
 * caller may send (1000), so whatever the caller's timeout, the answer arrives within it.
 */
export const SLOW_ANSWER = Duration.millis(800)

const byPhone = new Map(testValues.map((value) => [value.phone, value]))
const byTrackingNumber = new Map(testValues.map((value) => [value.trackingNumber, value]))

/** The test value a recipient phone is, if it is one, in whatever form the caller wrote it (`+213 500 …`). */
export const ofPhone = (phone: string): TestValue | undefined =>
  Option.match(AlgerianMobile.normalize(phone), { onNone: () => undefined, onSome: (mobile) => byPhone.get(mobile) })

/** The test value a tracking number is, if it is one. */
export const ofTrackingNumber = (trackingNumber: string): TestValue | undefined =>
  byTrackingNumber.get(trackingNumber.trim().toUpperCase())

/**
 * The courier's answer for a test value: its failure, or `answer` once the slow answer's time has passed. `given`
 * names the value as the caller sent it ("test phone 0500000422"); the messages end with it, so that whoever reads
 * the error knows the sandbox answered on purpose.
 */
export const respond = <A>(
  value: TestValue,
  given: string,
  answer: Effect.Effect<A, CourierError.CourierErrorReason>
): Effect.Effect<A, CourierError.CourierErrorReason> => {
  const said = (what: string) => `${what} (sandbox ${given})`
  switch (value.outcome) {
    case "refused":
      return Effect.fail(new CourierError.Refused({ message: said("the courier refused the request") }))
    case "credentials_rejected":
      return Effect.fail(
        new CourierError.CredentialsRejected({ message: said("the courier rejected the account's credentials") })
      )
    case "unreachable":
      return Effect.fail(new CourierError.Unreachable({ message: said("the courier could not be reached") }))
    case "timeout":
      return Effect.fail(
        new CourierError.Unreachable({ message: said("the courier did not answer within the caller's timeout") })
      )
    case "rate_limited":
      return Effect.fail(new CourierError.CourierRateLimited({ retryAfterSeconds: RETRY_AFTER_SECONDS }))
    case "slow":
      return Effect.andThen(Effect.sleep(SLOW_ANSWER), answer)
  }
}
