/**
 * Hostile requests to the receiver of courier push (`POST` and `GET /v1/hooks/couriers/{account_id}`), generated
 * with fast-check, and the rule each answer must keep: shared by the fuzz in memory (`store/CourierHooks.test.ts`,
 * full count) and over sockets on each database (`shipments/ShipmentsSql.db.test.ts`, which also counts the rows).
 *
 * A request goes to an account that pushes (`pushco`, the Yalidine engine, ZR Express, Maystro) or one that cannot
 * receive (a courier
 * that does not push, an id no account has, a path that is no id), with bytes that are anything: random bytes with
 * NUL and control characters, text that is not JSON, any JSON, nesting 50 000 deep, huge numbers, or the courier's
 * own shape with hostile values; its headers are signed right, signed with another secret, garbled, stale, missing,
 * or joined by junk. What was refused must answer a 4xx in the envelope, echo nothing of the request (each carries
 * its own marker in its body, headers and query) and record nothing (each names its own probe parcel); what was
 * accepted answers the courier's acknowledgement or its challenge, never a 5xx.
 */
import { createHmac } from "node:crypto"
import fc from "fast-check"
import { HUGE, nasty, rawText, serialise, unstorable } from "./StoreFuzzBodies.ts"

export const SEED = 20_261_206

/** The accounts a request may be sent to. */
export interface Targets {
  readonly pushco: { readonly id: number; readonly secret: string }
  readonly yalidine: { readonly id: number; readonly secret: string }
  /** ZR Express: a `whsec_` secret. */
  readonly zr: { readonly id: number; readonly secret: string }
  readonly maystro: { readonly id: number; readonly secret: string }
  /** An account of a courier that does not push. */
  readonly silent: number
}

/** One request, with what it must not leak or record. */
export interface Request {
  readonly method: "GET" | "POST"
  /** Path and query. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /** The account the request names, when it is one that receives. */
  readonly account: Pushing | undefined
  readonly accountId: number | undefined
  /** Text the answer must not hold unless it accepted the request. */
  readonly marker: string
  /** The tracking number the request's events name: nothing about it may be recorded unless it was accepted. */
  readonly probe: string
  /** Whether the body was signed with the account's own secret (fresh, for pushco). */
  readonly signedRight: boolean
}

type Pushing = "pushco" | "yalidine" | "zr" | "maystro"
type Target = Pushing | "silent" | "unknown" | "notAnId"

const pushing: ReadonlyArray<string> = ["pushco", "yalidine", "zr", "maystro"]

/** Where the probe and the marker go in a generated body (replaced once the request's index is known). */
const PROBE = "\u0002probe"
const MARKER = "\u0002marker"

/**
 * Text a courier may send that a database may not keep as is: NUL, lone surrogates, control characters, text over an
 * index's 2.7 kB, emoji and Arabic.
 */
const storable = fc.oneof(
  fc.constantFrom(...unstorable),
  fc.constantFrom("\u0007bell", "tab\there", "line\nbreak", "🇩🇿 colis", "طرد", "x".repeat(3000), " "),
  fc.string({ maxLength: 300 })
)

/** A field's value: usually what the courier sends, sometimes text to store, sometimes anything at all. */
const field = <A>(valid: fc.Arbitrary<A>) =>
  fc.oneof(
    { weight: 6, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 2, arbitrary: storable },
    { weight: 1, arbitrary: nasty }
  )

/** The probe, mostly: the parcel a readable event names. */
const probe = fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>(PROBE) }, { weight: 1, arbitrary: nasty })

/** A courier's words about an event: the marker, text to store, or anything. */
const reason = fc.oneof(fc.constant<unknown>(MARKER), storable, nasty)

/** Events in pushco's own shape, each field what pushco sends or hostile. */
const pushcoBody = fc.record(
  {
    events: fc.array(
      fc.record(
        {
          id: field(fc.uuid()),
          tracking: probe,
          status: field(
            fc.constantFrom("picked", "delivered", "returned", "cancelled", "cash_collected", "new_status")
          ),
          at: field(
            fc.constantFrom(
              "2026-12-06T10:00:00Z",
              "1969-12-31T23:59:59Z",
              "0001-01-01T00:00:00Z",
              "+275760-09-13T00:00:00Z"
            )
          ),
          reason
        },
        { requiredKeys: [] }
      ),
      { maxLength: 8 }
    )
  },
  { requiredKeys: [] }
)

/** Events in the Yalidine engine's shape, each field what it sends or hostile. */
const yalidineBody = fc.record(
  {
    type: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("parcel_status_updated", "parcel_payment_updated", "parcel_deleted") },
      { weight: 1, arbitrary: fc.oneof(fc.constant("parcel_created"), nasty) }
    ),
    events: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.array(
          fc.record(
            {
              event_id: field(
                fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 32, maxLength: 32 })
              ),
              occurred_at: field(fc.constantFrom("2026-12-06 10:00:00", "0000-01-01 00:00:00", "9999-12-31 23:59:59")),
              data: fc.oneof(
                {
                  weight: 6,
                  arbitrary: fc.record(
                    {
                      tracking: probe,
                      status: field(fc.constantFrom("Livré", "Ramassé", "ready", "payed", "Statut inconnu")),
                      reason
                    },
                    { requiredKeys: [] }
                  )
                },
                { weight: 1, arbitrary: nasty }
              )
            },
            { requiredKeys: [] }
          ),
          { maxLength: 8 }
        )
      },
      { weight: 1, arbitrary: nasty }
    )
  },
  { requiredKeys: [] }
)

/** An event in ZR Express's own shape (Svix's message), its fields what ZR sends or hostile. */
const zrBody = fc.record(
  {
    eventType: field(
      fc.constantFrom("parcel.state.updated", "parcel.state.situation.created", "parcel.isReturn.updated")
    ),
    occurredAt: field(fc.constantFrom("2026-12-06T10:00:00.000Z", "1969-12-31T23:59:59Z")),
    data: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            id: field(fc.uuid()),
            trackingNumber: probe,
            externalId: reason,
            isReturn: field(fc.boolean()),
            state: fc.oneof(
              fc.record({ name: field(fc.constantFrom("Delivered", "Returned", "OrderReceived")) }),
              nasty
            ),
            situation: fc.oneof(fc.record({ name: reason, description: reason }), nasty)
          },
          { requiredKeys: [] }
        )
      },
      { weight: 1, arbitrary: nasty }
    )
  },
  { requiredKeys: [] }
)

/** A Maystro order (or a list of them), its fields what Maystro sends or hostile. */
const maystroOrder = fc.record(
  {
    id: probe,
    display_id_order: field(fc.integer({ min: 1, max: 99_999 })),
    external_order_id: reason,
    status: field(fc.constantFrom(8, 41, "41", 52, 999)),
    updated_at: field(fc.constantFrom("2026-12-06 10:00:00", "0000-00-00 00:00:00"))
  },
  { requiredKeys: [] }
)

/** Maystro's body: JSON base64-encoded twice, as is or wrapped (or once, or three times). Encoded once filled. */
const maystroBody = fc.record({
  json: fc.oneof(maystroOrder, fc.array(maystroOrder, { maxLength: 4 }), nasty).map(serialise),
  wrapping: fc.constantFrom<"raw" | "json-string" | "data" | "payload">("raw", "json-string", "data", "payload"),
  times: fc.constantFrom(2, 2, 2, 1, 3)
})

/** The text Maystro sends for a JSON text. */
const maystroText = (json: string, wrapping: "raw" | "json-string" | "data" | "payload", times: number) => {
  let encoded = json
  for (let round = 0; round < times; round++) encoded = Buffer.from(encoded, "utf8").toString("base64")
  return wrapping === "raw"
    ? encoded
    : wrapping === "json-string"
      ? JSON.stringify(encoded)
      : JSON.stringify({ [wrapping]: encoded })
}

type Body =
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | { readonly kind: "text"; readonly text: string }
  | {
      readonly kind: "maystro"
      readonly json: string
      readonly wrapping: "raw" | "json-string" | "data" | "payload"
      readonly times: number
    }

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((bytes): Body => ({ kind: "bytes", bytes })) },
  { weight: 1, arbitrary: rawText.map((text): Body => ({ kind: "text", text })) },
  { weight: 1, arbitrary: fc.jsonValue().map((value): Body => ({ kind: "text", text: JSON.stringify(value) })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("[", '{"events":', '{"a":'), fc.constantFrom(64, 5_000, 50_000))
      .map(([open, depth]): Body => {
        const close = open === "[" ? "]" : "}"
        return { kind: "text", text: `${open.repeat(depth)}1${close.repeat(depth)}` }
      })
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...HUGE)
      .map(
        (huge): Body => ({ kind: "text", text: serialise({ events: [{ tracking: huge, status: huge, at: huge }] }) })
      )
  },
  { weight: 3, arbitrary: pushcoBody.map((value): Body => ({ kind: "text", text: serialise(value) })) },
  { weight: 3, arbitrary: yalidineBody.map((value): Body => ({ kind: "text", text: serialise(value) })) },
  { weight: 3, arbitrary: zrBody.map((value): Body => ({ kind: "text", text: serialise(value) })) },
  { weight: 3, arbitrary: maystroBody.map((parts): Body => ({ kind: "maystro", ...parts })) }
)

/** How a request is signed. */
type Signing = "right" | "otherSecret" | "garbled" | "missing" | "stale" | "hostileTimestamp"

/** A header value as HTTP can carry it (visible ASCII and spaces), holding the marker sometimes. */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 80 }),
  fc.constant(MARKER),
  fc.constantFrom("1e309", "-1", "99999999999999999999", "", "0x1f", "NaN")
)

const junkHeaders = fc.dictionary(
  fc.constantFrom(
    "x-pushco-signature",
    "x-yalidine-signature",
    "x-pushco-timestamp",
    "svix-id",
    "svix-timestamp",
    "svix-signature",
    "webhook-signature",
    "x-webhook-secret",
    "x-extra",
    "content-type"
  ),
  headerValue,
  { maxKeys: 3 }
)

const query = fc.oneof(
  fc.constant(""),
  fc.constant("?subscribe&crc_token=\u0002token"),
  fc.constant("?challenge=\u0002token"),
  fc
    .tuple(fc.constantFrom("crc_token", "challenge", "subscribe", "x"), headerValue)
    .map(([name, value]) => `?subscribe&${name}=${encodeURIComponent(value)}`)
)

export interface Shape {
  readonly method: "GET" | "POST"
  readonly target: Target
  readonly body: Body
  readonly signing: Signing
  readonly contentType: string | undefined
  readonly junk: Readonly<Record<string, string>>
  /** Junk headers replace the signed ones (else they are added beside them). */
  readonly junkFirst: boolean
  readonly query: string
  readonly token: string
}

export const shape: fc.Arbitrary<Shape> = fc.record({
  method: fc.oneof(
    { weight: 5, arbitrary: fc.constant("POST" as const) },
    { weight: 1, arbitrary: fc.constant("GET" as const) }
  ),
  target: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom<Target>("pushco", "yalidine", "zr", "maystro") },
    { weight: 1, arbitrary: fc.constantFrom<Target>("silent", "unknown", "notAnId") }
  ),
  body,
  signing: fc.constantFrom<Signing>(
    "right",
    "right",
    "right",
    "otherSecret",
    "garbled",
    "missing",
    "stale",
    "hostileTimestamp"
  ),
  // Whatever a courier sends its body as, the receiver reads the bytes: a media type is never refused.
  contentType: fc.option(
    fc.constantFrom(
      "application/json",
      "text/plain",
      "application/json; charset=utf-16",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/octet-stream",
      "*/*"
    ),
    { nil: undefined }
  ),
  junk: junkHeaders,
  junkFirst: fc.boolean(),
  query,
  token: fc.oneof(
    fc.string({ unit: fc.constantFrom(..."0123456789abcdefXYZ"), minLength: 1, maxLength: 64 }),
    headerValue
  )
})

const hmac = (secret: string | Buffer, ...parts: ReadonlyArray<string | Uint8Array>) => {
  const mac = createHmac("sha256", secret)
  for (const part of parts) mac.update(part)
  return mac.digest()
}

/** The request a shape is, for the `index`-th case of a run (its marker and probe), at `now` (epoch ms). */
export const materialise = (shape: Shape, targets: Targets, index: number, now: number): Request => {
  const marker = `ECHO${index}q${now % 1000}`
  const probe = `FZ${now}x${index}`
  const fill = (text: string) => text.replaceAll(PROBE, probe).replaceAll(MARKER, marker)
  const text =
    shape.body.kind === "bytes"
      ? undefined
      : shape.body.kind === "maystro"
        ? // Maystro's ids are in its body once decoded: filled before the encoding.
          maystroText(fill(shape.body.json), shape.body.wrapping, shape.body.times)
        : fill(shape.body.text)
  const bytes = shape.body.kind === "bytes" ? shape.body.bytes : new Uint8Array(Buffer.from(text!, "utf8"))
  const account = pushing.includes(shape.target) ? (shape.target as Pushing) : undefined
  const accountId =
    account !== undefined
      ? targets[account].id
      : shape.target === "silent"
        ? targets.silent
        : shape.target === "unknown"
          ? 2_000_000_000
          : undefined
  const secret = account === undefined ? "pcsec_00000000000000000000000000000000" : targets[account].secret
  const seconds = Math.floor(now / 1000)
  const signed: Record<string, string> = {}
  const signWith = (key: string, timestamp: string) => {
    switch (account) {
      case "yalidine":
        signed["x-yalidine-signature"] = hmac(key, bytes).toString("hex")
        break
      case "zr": {
        const id = `msg_${marker}`
        signed["svix-id"] = id
        signed["svix-timestamp"] = timestamp
        const raw = Buffer.from(key.replace(/^whsec_/, ""), "base64")
        signed["svix-signature"] = `v1,${hmac(raw, `${id}.${timestamp}.`, bytes).toString("base64")}`
        break
      }
      case "maystro":
        signed["x-webhook-secret"] = key
        break
      default:
        signed["x-pushco-timestamp"] = timestamp
        signed["x-pushco-signature"] = hmac(key, `${timestamp}.`, bytes).toString("hex")
    }
  }
  switch (shape.signing) {
    case "right":
      signWith(secret, String(seconds))
      break
    case "otherSecret":
      // A whsec_ secret of other bytes (the same length), another text for the others.
      signWith(account === "zr" ? `whsec_${Buffer.alloc(24, 7).toString("base64")}` : `${secret}x`, String(seconds))
      break
    case "garbled":
      signWith(secret, String(seconds))
      for (const name of Object.keys(signed)) {
        if (name.endsWith("signature") || name === "x-webhook-secret") {
          signed[name] = `${signed[name]!.slice(0, -2)}z~`
        }
      }
      break
    case "stale":
      signWith(secret, String(seconds - 3600))
      break
    case "hostileTimestamp":
      signWith(secret, fill(shape.junk["x-pushco-timestamp"] ?? shape.junk["svix-timestamp"] ?? "1e309"))
      break
    case "missing":
      break
  }
  const junk = Object.fromEntries(Object.entries(shape.junk).map(([name, value]) => [name, fill(value)]))
  const headers = {
    ...(shape.contentType === undefined ? {} : { "content-type": shape.contentType }),
    ...(shape.junkFirst ? junk : signed),
    ...(shape.junkFirst ? signed : junk)
  }
  const path =
    shape.target === "notAnId" ? `/v1/hooks/couriers/${encodeURIComponent(marker)}` : `/v1/hooks/couriers/${accountId}`
  const token = fill(shape.token)
  return {
    method: shape.method,
    url: `${path}${shape.query.replace("\u0002token", encodeURIComponent(token)).replaceAll(encodeURIComponent(MARKER), encodeURIComponent(marker))}`,
    headers,
    body: shape.method === "GET" ? new Uint8Array() : bytes,
    account,
    accountId,
    marker,
    probe,
    signedRight:
      account !== undefined &&
      // Yalidine and Maystro sign no time: a stale or odd timestamp is nothing to them.
      (shape.signing === "right" ||
        ((account === "yalidine" || account === "maystro") &&
          (shape.signing === "stale" || shape.signing === "hostileTimestamp"))) &&
      // Junk sent after the signature replaces it.
      (shape.junkFirst || !Object.keys(shape.junk).some((name) => Object.hasOwn(signed, name)))
  }
}

export interface Answered {
  readonly status: number
  readonly text: string
  readonly contentType: string | null
}

/** What is wrong with the answer to `request`, if anything (recorded rows are checked by the caller). */
export const problemOf = (request: Request, answer: Answered): string | undefined => {
  if (answer.status >= 500) return `${answer.status}: ${answer.text.slice(0, 200)}`
  if (answer.status >= 200 && answer.status < 300) {
    if (request.method === "POST") {
      const parsed = (() => {
        try {
          return JSON.parse(answer.text) as { received?: unknown; recorded?: unknown }
        } catch {
          return undefined
        }
      })()
      if (
        parsed === undefined ||
        Object.keys(parsed).join(",") !== "received,recorded" ||
        typeof parsed.received !== "number" ||
        typeof parsed.recorded !== "number" ||
        parsed.recorded > parsed.received
      ) {
        return `an acknowledgement that is not { received, recorded }: ${answer.text.slice(0, 200)}`
      }
      if (!request.signedRight) return `accepted without the right signature: ${answer.text}`
      return undefined
    }
    // A challenge: answered with its own token, in the courier's shape (ZR Express and Maystro send none).
    if (request.account !== "yalidine" && request.account !== "pushco") return `a GET answered ${answer.status}`
    const token = new URL(`http://x${request.url}`).searchParams.get(
      request.account === "yalidine" ? "crc_token" : "challenge"
    )
    const expected = JSON.stringify(request.account === "yalidine" ? { crc_token: token } : { challenge: token })
    return answer.text === expected ? undefined : `a challenge answered ${answer.text.slice(0, 200)}`
  }
  if (![400, 401, 404, 413].includes(answer.status)) return `unexpected ${answer.status}: ${answer.text}`
  if (answer.text.includes(request.marker)) return `echoed the request: ${answer.text.slice(0, 200)}`
  if (answer.text.includes(request.probe)) return `echoed the request's parcel: ${answer.text.slice(0, 200)}`
  return undefined
}
