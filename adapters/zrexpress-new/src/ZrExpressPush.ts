/**
 * What the new ZR Express platform pushes to a merchant's webhook endpoint, read as the SDK's `Push` (research:
 * peer-landscape §3, five receivers in public code). ZR delivers through Svix, whose signature is the Standard
 * Webhooks scheme:
 *
 * ```
 * svix-id:        the message id (the same on every attempt: the host's key against a repeat)
 * svix-timestamp: unix seconds of this attempt
 * svix-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">[ v1,<…>]   (several while a secret rotates)
 * ```
 *
 * keyed by the base64 that follows `whsec_` in the endpoint's secret. The `webhook-*` names of the unbranded scheme
 * are read when the `svix-*` ones are absent. A request signed more than {@link TOLERANCE_SECONDS} from the host's
 * clock, either way, is `stale` (a replay, or a clock far off) — checked after the signature, so only an authentic
 * request is called stale.
 *
 * The body is one event: `{ eventType, occurredAt, data: { id, externalId, trackingNumber, state: { id, name } … } }`.
 * Receivers read its fields in several spellings (`type`; `newStateName`, `stateName`, `currentState.stateName`;
 * `parcelId`, `tracking`), so all of them are read. `parcel.state.updated`, `parcel.state.situation.created` (a
 * sub-status: call attempts and the like, kept as the reason) and `parcel.isReturn.updated` each report the state the
 * parcel is in, when the body names one; the state name goes through the status table, spelled as tracking spells
 * it. A body naming no state, or another event type, reports nothing; an event without a parcel or a readable
 * `occurredAt` is left out and counted (`unread`): the attempt's timestamp is not the event's time, and a retried
 * old state stamped now could pass a newer one.
 */
import { Push } from "@tawsil/courier"
import { Option, Redacted, Result, Schema } from "effect"
import * as Mapping from "./ZrExpressNewMapping.ts"
import * as Status from "./ZrExpressNewStatus.ts"

/** How far from the host's clock a request's timestamp may be, in seconds (Svix's and Standard Webhooks' five minutes). */
export const TOLERANCE_SECONDS = 300

const SECRET_PREFIX = "whsec_"

/** The key bytes of a `whsec_` secret: the base64 after the prefix, strictly decoded. */
export const keyOf = (secret: string): Buffer | undefined =>
  secret.startsWith(SECRET_PREFIX) ? Push.base64(secret.slice(SECRET_PREFIX.length)) : undefined

/**
 * The endpoint's signing secret as ZR's API (`webhooks/endpoints/{id}/secret`) or dashboard gives it: `whsec_` and
 * the base64 of a key of 16 to 128 bytes (Svix's are 24 to 64).
 */
export const Secret = Schema.RedactedFromValue(
  Schema.String.check(
    Schema.makeFilter((text: string) => {
      const key = keyOf(text)
      return key !== undefined && key.length >= 16 && key.length <= 128
        ? undefined
        : "Expected a ZR Express webhook secret: whsec_ and the base64 of a 16 to 128-byte key"
    })
  )
)

const EVENT_TYPES: ReadonlySet<string> = new Set([
  "parcel.state.updated",
  "parcel.state.situation.created",
  "parcel.isReturn.updated"
])

/** A header of the Svix scheme, or of the unbranded Standard Webhooks scheme when the Svix one is absent. */
const schemeHeader = (request: Push.PushRequest, name: "id" | "timestamp" | "signature") =>
  Push.header(request, `svix-${name}`) ?? Push.header(request, `webhook-${name}`)

/** The request's id and timestamp when one of its `v1` signatures is the body's under the secret. */
const verify = (
  request: Push.PushRequest,
  secret: Redacted.Redacted<string>
): Result.Result<{ readonly id: string; readonly timestamp: number }, Push.PushRejected> => {
  const id = schemeHeader(request, "id")?.trim()
  const stamp = schemeHeader(request, "timestamp")?.trim()
  const list = schemeHeader(request, "signature")?.trim()
  if (id === undefined || id === "" || stamp === undefined || stamp === "" || list === undefined || list === "") {
    return Result.fail(Push.signature("the request lacks svix-id, svix-timestamp or svix-signature"))
  }
  if (Push.idText(id, 255) !== id || id.includes(".")) {
    return Result.fail(Push.signature("svix-id is not a message id"))
  }
  if (!/^\d{1,12}$/.test(stamp)) return Result.fail(Push.signature("svix-timestamp is not unix seconds"))
  const key = keyOf(Redacted.value(secret))
  if (key === undefined) return Result.fail(Push.signature("the account's webhook secret is not a whsec_ secret"))
  const expected = Push.hmacSha256(key, `${id}.${stamp}.`, request.body)
  // Every entry is compared, so the time taken does not tell which one matched; other versions are skipped.
  let matched = false
  for (const entry of list.split(" ")) {
    const comma = entry.indexOf(",")
    if (comma === -1 || entry.slice(0, comma) !== "v1") continue
    const presented = Push.base64(entry.slice(comma + 1))
    if (presented !== undefined && Push.sameBytes(expected, presented)) matched = true
  }
  return matched
    ? Result.succeed({ id, timestamp: Number(stamp) })
    : Result.fail(Push.signature("no v1 signature of svix-signature matches the body under the secret"))
}

/** The first state name the body's data holds, in any of the spellings receivers read. */
const stateNameOf = (data: unknown): string | undefined => {
  const state = Push.member(data, "state")
  const current = Push.member(data, "currentState")
  return (
    (typeof state === "string" ? Push.idText(state) : Push.firstId(state, ["name", "stateName"])) ??
    Push.firstId(data, ["newStateName", "stateName"]) ??
    Push.firstId(current, ["stateName", "name"])
  )
}

/** A situation's words: its name and description, as far as the body gives them. */
const situationOf = (data: unknown): string | undefined => {
  const situation = Push.member(data, "situation")
  const name = Push.firstText(situation, ["name", "slug"]) ?? Push.firstText(data, ["situationName"])
  const description = Push.firstText(situation, ["description"]) ?? Push.firstText(data, ["situationDescription"])
  const words = [name, description].filter((text) => text !== undefined)
  return words.length === 0 ? undefined : words.join(": ")
}

export const receive = (
  request: Push.PushRequest,
  secret: Redacted.Redacted<string>,
  now: number
): Result.Result<Push.PushAnswer, Push.PushRejected> => {
  if (request.method !== "POST") return Result.fail(Push.malformed("ZR Express pushes with POST"))
  const verified = verify(request, secret)
  if (Result.isFailure(verified)) return Result.fail(verified.failure)
  const { id, timestamp } = verified.success
  if (Math.abs(now / 1000 - timestamp) > TOLERANCE_SECONDS) {
    return Result.fail(Push.stale(`svix-timestamp is more than ${TOLERANCE_SECONDS} seconds from this clock`))
  }
  const body = Push.json(request.body)
  const event = Option.getOrUndefined(body)
  const type = [Push.member(event, "eventType"), Push.member(event, "type")].find((name) => typeof name === "string")
  const data = Push.member(event, "data")
  if (!Push.isRecord(event) || typeof type !== "string" || !Push.isRecord(data)) {
    return Result.fail(Push.malformed("the body is not ZR Express's { eventType, occurredAt, data } JSON"))
  }
  const state = stateNameOf(data)
  if (!EVENT_TYPES.has(type) || state === undefined) return Result.succeed(Push.events([]))
  const parcel = {
    ...Push.optional("trackingNumber", Push.firstId(data, ["trackingNumber", "tracking"])),
    ...Push.optional("courierReference", Push.firstId(data, ["id", "parcelId"])),
    ...Push.optional("reference", Push.firstId(data, ["externalId"]))
  }
  const when = Push.member(event, "occurredAt") ?? Push.member(data, "occurredAt")
  const occurredAt = typeof when === "string" ? Mapping.algiersTimestamp(when) : undefined
  if (!Push.namesParcel(parcel) || occurredAt === undefined) return Result.succeed(Push.events([], 1))
  const reason = type === "parcel.state.situation.created" ? situationOf(data) : undefined
  return Result.succeed(
    Push.events([
      {
        eventId: id,
        parcel,
        rawStatus: Status.spellingOf(state),
        occurredAt,
        ...Push.optional("reason", reason)
      }
    ])
  )
}

export const push: Push.Push = { secret: Secret, receive }
