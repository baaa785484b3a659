/**
 * The caller's courier credentials blanked out of whatever a courier says back. A courier may echo a credential (a
 * debug page quoting the request URL, a validation message repeating a header): the core scrubs every answer before
 * the adapter's mapping reads, cuts or quotes it, and every failure reason before it leaves the operation. Adapters
 * need do nothing for it; they must only never build a message from the request itself.
 */
import { Effect, Redacted } from "effect"
import {
  BadResponse,
  type CourierErrorReason,
  CredentialsRejected,
  NotCancellable,
  Refused,
  Unreachable
} from "./CourierError.ts"
import type { CourierHttp } from "./CourierHttp.ts"

export const PLACEHOLDER = "<redacted>"

/** Every form a secret travels in: as sent in a header, URI-encoded, form-encoded, and escaped inside JSON. */
const formsOf = (secret: string): ReadonlyArray<string> => [
  ...new Set([
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1)
  ])
]

/** Blanks each of `secrets` (in each of its forms, longest first) out of a text. Empty secrets are ignored. */
export const scrubber = (secrets: ReadonlyArray<string>): ((text: string) => string) => {
  const forms = secrets
    .filter((secret) => secret !== "")
    .flatMap(formsOf)
    .sort((a, b) => b.length - a.length)
  if (forms.length === 0) return (text) => text
  return (text) => forms.reduce((out, form) => (out.includes(form) ? out.split(form).join(PLACEHOLDER) : out), text)
}

/**
 * The secrets of one call: the caller's credential fields as sent, and every `Redacted` value of the decoded
 * credentials (a schema may normalise a field before it is sent).
 */
export const secretsOf = (
  sent: Readonly<Record<string, string>> | undefined,
  decoded: unknown
): ReadonlyArray<string> => {
  const values = Object.values(sent ?? {})
  if (typeof decoded === "object" && decoded !== null) {
    for (const value of Object.values(decoded))
      if (Redacted.isRedacted(value)) values.push(String(Redacted.value(value)))
  }
  return [...new Set(values)]
}

/** The same reason with every text a courier could have written scrubbed. */
export const redactReason =
  (scrub: (text: string) => string) =>
  (reason: CourierErrorReason): CourierErrorReason => {
    switch (reason._tag) {
      case "Refused":
        return new Refused({
          message: scrub(reason.message),
          ...(reason.courierCode === undefined ? {} : { courierCode: scrub(reason.courierCode) }),
          ...(reason.created === undefined ? {} : { created: scrub(reason.created) })
        })
      case "CredentialsRejected":
        return new CredentialsRejected({ message: scrub(reason.message) })
      case "Unreachable":
        return new Unreachable({ message: scrub(reason.message) })
      case "BadResponse":
        return new BadResponse({ message: scrub(reason.message) })
      case "NotCancellable":
        return new NotCancellable({ message: scrub(reason.message) })
      case "BlockedEgress":
      case "CourierRateLimited":
      case "Unsupported":
        return reason
    }
  }

/** `http` with every answer's text and header values scrubbed before the adapter sees them (a redirect's target). */
export const scrubbing = (http: CourierHttp["Service"], scrub: (text: string) => string): CourierHttp["Service"] => ({
  request: (request) =>
    Effect.map(http.request(request), (response) => {
      const text = scrub(response.text)
      let headers = response.headers
      for (const [name, value] of Object.entries(response.headers)) {
        const scrubbed = scrub(value)
        if (scrubbed !== value) headers = { ...headers, [name]: scrubbed }
      }
      return text === response.text && headers === response.headers ? response : { ...response, text, headers }
    })
})
