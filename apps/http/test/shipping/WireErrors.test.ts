/**
 * The shipping API's one table of wire codes (`@tawsil/api/shipping/Errors`): every code is made in the class of its
 * status (with `Retry-After` where it says when), answers the code and message it was given, and reads back as an
 * item of a batch; the gateway's failures reach their codes by name or by an override, as `Reasons.ts` lists them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Errors from "@tawsil/api/shipping/Errors"
import * as Reasons from "@tawsil/api/shipping/Reasons"
import { CourierError } from "@tawsil/courier"
import * as ShippingErrors from "../../src/shipping/Errors.ts"

/** The status each wire class is declared with (its OpenAPI response). */
const statusOf = (failure: Errors.Failure): number =>
  failure instanceof Errors.InvalidInput
    ? 400
    : failure instanceof Errors.NotFound
      ? 404
      : failure instanceof Errors.Conflict || failure instanceof Errors.InFlight
        ? 409
        : failure instanceof Errors.Unprocessable
          ? 422
          : failure instanceof Errors.RateLimited
            ? 429
            : failure instanceof Errors.CourierFailed
              ? 502
              : 503

describe("the shipping API's wire codes", () => {
  it("makes every code in the class of its status, with its code and message, readable as an item", () => {
    for (const [code, [status, meaning]] of Object.entries(Errors.codes) as Array<[Errors.Code, [number, string]]>) {
      const failure = Errors.make(code, "a message", { retryAfterSeconds: 7 }) as Errors.Failure
      assert.strictEqual(statusOf(failure), status, code)
      assert.deepStrictEqual(Errors.itemOf(failure), { code, message: "a message" }, code)
      const unworded = Errors.make(code, undefined, { retryAfterSeconds: 7 }) as Errors.Failure
      assert.strictEqual(Errors.itemOf(unworded).message, meaning, "the default message")
    }
  })

  it("says when to retry with Retry-After for the codes that say it, in the message for a cancel's 409", () => {
    for (const code of ["rate_limited", "overloaded", "unavailable", "idempotency_in_flight"] as const) {
      const failure = Errors.make(code, "wait", { retryAfterSeconds: 3 })
      assert.strictEqual((failure as { retryAfterSeconds?: number }).retryAfterSeconds, 3, code)
    }
    assert.instanceOf(Errors.make("idempotency_in_flight", "wait"), Errors.Conflict)
    assert.throws(() => Errors.make("rate_limited", "wait"), /needs retryAfterSeconds/)
    assert.instanceOf(Reasons.cancelInFlight(5), Errors.Conflict)
    assert.strictEqual(
      Reasons.cancelInFlight(5).error.message,
      "a cancel with this Idempotency-Key is still in flight; retry in 5 s"
    )
  })

  it("answers a failure by the code of its name unless an override sends it elsewhere", () => {
    const codes = ShippingErrors.gateway.codes
    assert.strictEqual(codes.UnknownCourier, "unknown_courier")
    assert.strictEqual(codes.CommuneNotServed, "commune_not_served")
    assert.strictEqual(codes.Overloaded, "overloaded")
    assert.strictEqual(codes.NotAMobile, "invalid_phone")
    assert.strictEqual(codes.ClientRateLimited, "rate_limited")
    assert.strictEqual(Reasons.courier.codes.CredentialsRejected, "credentials_rejected")
    assert.strictEqual(Reasons.courier.codes.Refused, "courier_refused")
    assert.strictEqual(Reasons.courier.codes.NotCancellable, "not_cancellable")
  })

  it("answers a courier's failure with its reason's code and the call's words, Retry-After where it says when", () => {
    const failure = (reason: CourierError.CourierErrorReason) =>
      ShippingErrors.fromGateway(new CourierError.CourierError({ courier: "memco", operation: "rates", reason }))
    const limited = failure(new CourierError.CourierRateLimited({ retryAfterSeconds: 42 }))
    assert.instanceOf(limited, Errors.RateLimited)
    assert.strictEqual((limited as Errors.RateLimited).retryAfterSeconds, 42)
    const refused = failure(new CourierError.Refused({ message: "no" }))
    assert.deepStrictEqual((refused as Errors.Unprocessable).error, {
      code: "courier_refused",
      message: "memco rates: no"
    })
    assert.deepStrictEqual(Errors.itemOf(failure(new CourierError.Unreachable({ message: "gone" }))), {
      code: "courier_unreachable",
      message: "memco rates: gone"
    })
  })
})
