/**
 * A courier's answer as recorded from the live platform (`npm run couriers:check -- --record`), and replayed by an
 * adapter's tests through its mapping: one exchange a file, the request's method, path and query, and the answer's
 * status, its few telling headers and its body. What is recorded is scrubbed first, so that a recording can be
 * committed and shared: the caller's credentials in every form they travel in (`Redaction`); any Algerian mobile
 * number or e-mail address wherever it appears; whole `customer`/`client` objects; in reference data (communes,
 * desks, fees) the values under the keys couriers name a customer's data with (names, phones, address, products,
 * notes); and in an answer about parcels everything but what tracking reads (ids, statuses and their times, places,
 * amounts), the statuses kept wherever they are.
 *
 * A test replays one answer through the mapping (`responseOf`), or a step's answers through the operation itself
 * (`replay`, a `CourierHttp` answering from them):
 *
 * ```ts
 * const exchange = Schema.decodeUnknownSync(Recorded.Exchange)(JSON.parse(file))
 * const events = Mapping.fromHistories(tracking, Recorded.responseOf(exchange))
 * const same = track(tracking, context).pipe(Effect.provideService(CourierHttp.CourierHttp, Recorded.replay([exchange])))
 * ```
 */
import { Effect, Option, Schema } from "effect"
import { BadResponse } from "./CourierError.ts"
import { CourierHttp, type CourierRequest, type CourierResponse } from "./CourierHttp.ts"
import * as Redaction from "./Redaction.ts"

/** One request and its answer, as a fixture file holds it. */
export const Exchange = Schema.Struct({
  /** The courier key and the check's step that made the request (`track yal-…`, `rates 16→31 home`). */
  courier: Schema.String,
  step: Schema.String,
  request: Schema.Struct({
    method: Schema.String,
    /** Relative to the courier's origin, or `https://host/…` for a document host. */
    path: Schema.String,
    query: Schema.Record(Schema.String, Schema.String)
  }),
  response: Schema.Struct({
    status: Schema.Number,
    headers: Schema.Record(Schema.String, Schema.String),
    /** The body: parsed when it is JSON, else its text (`base64` for bytes that are not text). */
    body: Schema.Union([
      Schema.Struct({ json: Schema.Unknown }),
      Schema.Struct({ text: Schema.String }),
      Schema.Struct({ base64: Schema.String })
    ])
  })
}).annotate({ identifier: "Recorded.Exchange" })
export type Exchange = typeof Exchange.Type

/** The answer as the adapter's mapping reads it (`CourierHttp.CourierResponse`). */
export const responseOf = (exchange: Exchange): CourierResponse => {
  const { body } = exchange.response
  const bytes =
    "base64" in body
      ? new Uint8Array(Buffer.from(body.base64, "base64"))
      : new TextEncoder().encode("json" in body ? JSON.stringify(body.json) : body.text)
  return {
    status: exchange.response.status,
    headers: exchange.response.headers,
    text: new TextDecoder().decode(bytes),
    bytes
  }
}

/**
 * A `CourierHttp` that answers an operation from recordings: each request gets the next recorded answer to the same
 * method and path (queries and bodies are not compared: credentials travel there, and were scrubbed), in the order
 * recorded. A request nothing was recorded for fails as a bad response naming it.
 */
export const replay = (exchanges: ReadonlyArray<Exchange>): CourierHttp["Service"] => {
  const left = [...exchanges]
  return CourierHttp.of({
    request: (request) =>
      Effect.suspend(() => {
        const path = request.host === undefined ? request.path : `https://${request.host}${request.path}`
        const index = left.findIndex(
          (exchange) => exchange.request.method === request.method && exchange.request.path === path
        )
        if (index === -1) {
          return Effect.fail(new BadResponse({ message: `nothing was recorded for ${request.method} ${path}` }))
        }
        const [exchange] = left.splice(index, 1)
        return Effect.succeed(responseOf(exchange!))
      })
  })
}

/** The answer headers kept: what mappings read (the body's type, a wait, quotas left); never cookies or the like. */
const KEPT = /^(content-type|retry-after|location|x-[a-z-]*(quota|ratelimit|rate-limit)[a-z-]*)$/i

/**
 * Keys (compared without case, `_` or `-`) whose value is about a customer: names, phones, addresses, what they
 * ordered, what the merchant noted. A courier's reference data (communes, desks, wilayas, fees) is named `name`/`nom`
 * and is kept; only these, and whole customer objects, are blanked there.
 */
const PERSONAL =
  /client|customer|recipient|receiver|destinataire|phone|mobile|^tel|email|adress|address|street|firstname|lastname|familyname|fullname|prenom|^nom.+|remarque|remark|^notes?$|comment|produit|product|exchangename/

/** Keys whose whole object is about a customer: every string and number in it is blanked. */
const CUSTOMER = /^(customer|client|recipient|receiver|destinataire|contact|sender|expediteur)$/

/**
 * In an answer about parcels (tracking, the credential check), only the values under these keys are kept: what
 * tracking reads (ids, numbers, statuses and their times, places, amounts, paging) — everything else, a customer's
 * datum under whatever name a courier gives it, is blanked. Statuses are kept wherever they are (`keep`).
 */
const PARCEL_KEPT =
  /^id$|id$|^id|tracking|status|statut|state|etat|event|date|time|at$|created|updated|code|wilaya|commune|station|cent(er|re)|hub|fee|price|prix|tarif|amount|montant|^cod|paye|paid|payment|type|success|^ok$|message|error|page|total|count|^has|^is|livr|situation|reason|motif|step|activity|level|workflow|desk|delivery|zone|region|city|ville|district|currency|weight|poids|reference|^ref$|encaiss|recouvr|return|retour/

const fold = (key: string) => key.toLowerCase().replace(/[_-]/g, "")

/**
 * An Algerian mobile number however it is written (`0555 12 34 56`, `+213555123456`, `213-555-123-456`), standing
 * apart: digits inside an identifier (`ECS0551234567X`) are the identifier's.
 */
const MOBILE = /(?<![A-Za-z0-9])(?:\+?213[\s.-]?|0)[567](?:[\s.-]?\d){8}(?!\d)/g
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g

/** What a blanked value becomes: the same type, nothing of the customer. */
export const SCRUBBED = "scrubbed"
const SCRUBBED_PHONE = "0500000000"
const SCRUBBED_EMAIL = "someone@example.invalid"

const isPhoneKey = (key: string) => /phone|^tel|mobile|number\d/.test(key)

const blank = (key: string, value: unknown): unknown => {
  if (typeof value === "string") return value === "" ? value : isPhoneKey(key) ? SCRUBBED_PHONE : SCRUBBED
  if (typeof value === "number") return isPhoneKey(key) ? 500000000 : 0
  if (Array.isArray(value)) return value.map((item) => blank(key, item))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, blank(fold(name), item)]))
  }
  return value
}

/** A text with its mobile numbers and e-mail addresses blanked, and the secrets. */
const scrubText = (text: string, secrets: (text: string) => string) =>
  secrets(text).replace(MOBILE, SCRUBBED_PHONE).replace(EMAIL, SCRUBBED_EMAIL)

/**
 * How an answer is scrubbed: `reference` data (communes, desks, fees) keeps every value but those under a customer's
 * keys; an answer about `parcels` keeps only what tracking reads (`PARCEL_KEPT`) and the statuses in `keep`.
 */
export type Kind = "reference" | "parcels"

/** A JSON value with every personal datum and secret blanked (see the module's description). */
export const scrubJson = (
  value: unknown,
  options: {
    readonly secrets: (text: string) => string
    readonly kind: Kind
    /** Values kept wherever they are: the adapter's raw statuses, and those the answers carried. */
    readonly keep?: ReadonlySet<string> | undefined
  },
  key = ""
): unknown => {
  const { secrets, kind, keep } = options
  if (typeof value === "string" && keep?.has(value)) return value
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, options, key))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => {
        const folded = fold(name)
        if (CUSTOMER.test(folded) && typeof item === "object" && item !== null) return [name, blank(folded, item)]
        return [name, scrubJson(item, options, folded)]
      })
    )
  }
  const leaf = kind === "parcels" ? key !== "" && !PARCEL_KEPT.test(key) : PERSONAL.test(key)
  if (leaf) return blank(key, value)
  return typeof value === "string" ? scrubText(value, secrets) : value
}

const Json = Schema.fromJsonString(Schema.Unknown)

/** Whether bytes are text: valid UTF-8 without the control characters of binary data (NUL, and the like). */
const isText = (bytes: Uint8Array) => {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes)
  if (text.includes("\uFFFD")) return false
  for (const char of text) {
    const code = char.charCodeAt(0)
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return false
  }
  return true
}

/**
 * One exchange as a fixture: the request's method, path and query (never its headers or body, where credentials
 * travel), the answer's status, kept headers and body, everything scrubbed of `secrets` (the call's credentials, as
 * `Redaction.secretsOf` lists them) and of customers' data.
 */
export const record = (input: {
  readonly courier: string
  readonly step: string
  readonly request: CourierRequest
  readonly response: CourierResponse
  readonly secrets: ReadonlyArray<string>
  readonly kind: Kind
  /** Values kept wherever they are: the adapter's raw statuses, and those the answers carried. */
  readonly keep?: ReadonlySet<string> | undefined
}): Exchange => {
  const secrets = Redaction.scrubber(input.secrets)
  const text = (value: string) => scrubText(value, secrets)
  const { request, response } = input
  const headers = Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => KEPT.test(name))
      .map(([name, value]) => [name.toLowerCase(), text(value)])
  )
  const parsed =
    /json/i.test(response.headers["content-type"] ?? "") || /^\s*[[{]/.test(response.text)
      ? Schema.decodeUnknownOption(Json)(response.text)
      : Option.none()
  const body: Exchange["response"]["body"] = !isText(response.bytes)
    ? { base64: Buffer.from(response.bytes).toString("base64") }
    : Option.isSome(parsed)
      ? { json: scrubJson(parsed.value, { secrets, kind: input.kind, keep: input.keep }) }
      : { text: text(response.text) }
  return {
    courier: input.courier,
    step: text(input.step),
    request: {
      method: request.method,
      path: request.host === undefined ? text(request.path) : `https://${request.host}${text(request.path)}`,
      query: Object.fromEntries(Object.entries(request.query ?? {}).map(([name, value]) => [name, text(value)]))
    },
    response: { status: response.status, headers, body }
  }
}
