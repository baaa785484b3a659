/**
 * A courier whose push scheme is written here, for the suites of the receiver and the applier: a hex HMAC-SHA256 of
 * the body in `x-test-signature`, a JSON body of events, a `GET ?challenge=` answered with its token; `pusher` pushes
 * that way, `relay` does not push. `post` builds a request as the courier sends it.
 */
import { Push } from "@tawsil/courier"
import { DateTime, Option, Redacted, Result, Schema } from "effect"
import * as TestCouriers from "./TestCouriers.ts"

export const scheme: Push.Push = {
  secret: Schema.RedactedFromValue(Schema.String.check(Schema.isMinLength(8))),
  receive: (request, secret) => {
    if (request.method === "GET") {
      const token = Push.parameter(request, "challenge")
      return token === undefined || token === ""
        ? Result.fail(Push.malformed("a challenge names its token"))
        : Result.succeed(Push.challenge("text/plain", token))
    }
    const given = Push.hex(Push.header(request, "x-test-signature") ?? "", 32)
    if (given === undefined || !Push.sameBytes(given, Push.hmacSha256(Redacted.value(secret), request.body))) {
      return Result.fail(Push.signature("x-test-signature is not the body's HMAC under the account's secret"))
    }
    const body = Push.json(request.body)
    const events = Option.isSome(body) ? Push.member(body.value, "events") : undefined
    if (!Array.isArray(events)) return Result.fail(Push.malformed("the body is not a list of events"))
    return Result.succeed(
      Push.events(
        events.map((event) => ({
          eventId: Push.idText(Push.member(event, "id")),
          parcel: {
            trackingNumber: Push.idText(Push.member(event, "tracking")),
            reference: Push.idText(Push.member(event, "reference"))
          },
          rawStatus: String(Push.member(event, "status")),
          occurredAt: String(Push.member(event, "at")),
          reason: Push.firstText(event, ["reason"])
        }))
      )
    )
  }
}

export const pusher = TestCouriers.courier({ key: "pusher", push: scheme })
export const relay = TestCouriers.courier({ key: "relay" })

export const SECRET = "s3cret-of-the-hook"

export interface Sent {
  readonly id?: string
  readonly tracking?: string
  readonly reference?: string
  readonly status: string
  readonly at: number
  readonly reason?: string
}

/** A POST as the courier sends it, signed with `secret` (unsigned when null). */
export const post = (events: ReadonlyArray<Sent>, secret: string | null = SECRET): Push.PushRequest => {
  const body = new TextEncoder().encode(
    JSON.stringify({
      events: events.map((event) => ({ ...event, at: DateTime.formatIso(DateTime.makeUnsafe(event.at)) }))
    })
  )
  return {
    method: "POST",
    query: {},
    headers: secret === null ? {} : { "x-test-signature": Push.hmacSha256(secret, body).toString("hex") },
    body
  }
}
