/**
 * The confirmation a 100% discount needs (spec "100% discount flow"): a single-use token, valid 600 seconds, bound
 * to what the merchant approves — the store, the action (`promo.full_discount:new` or `…:<id>`) and the code's text.
 *
 * A token is `<nonce>.<expiry>.<mac>`: 16 random bytes, the Unix second it expires at, and an HMAC-SHA256 of the
 * three bound values, the nonce and the expiry under the installation's secret. Issuing one stores nothing — so a
 * refusal that carries it can roll its write back and still be a valid answer — and using one records its nonce in
 * the write's own transaction, so it is spent exactly when the write commits.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { Effect, Redacted } from "effect"

export const TTL_SECONDS = 600

export const CREATE_ACTION = "promo.full_discount:new"
export const updateAction = (id: number) => `promo.full_discount:${id}`

/** What the approval is for. */
export interface Subject {
  readonly storeId: number
  readonly action: string
  readonly code: string
}

export interface Issued {
  readonly token: string
  readonly expiresIn: number
}

/** A token that checks out: its nonce, to spend, and when it stops being valid. */
export interface Valid {
  readonly nonce: string
  readonly expiresAtSeconds: number
}

const macOf = (secret: Redacted.Redacted<string>, subject: Subject, nonce: string, expiresAt: number) =>
  createHmac("sha256", Redacted.value(secret))
    .update(JSON.stringify([subject.storeId, subject.action, subject.code, nonce, expiresAt]), "utf8")
    .digest("hex")

/** A new token for `subject`, valid `TTL_SECONDS` from `nowMillis`. */
export const issue = (secret: Redacted.Redacted<string>, subject: Subject, nowMillis: number): Effect.Effect<Issued> =>
  Effect.sync(() => {
    const nonce = randomBytes(16).toString("hex")
    const expiresAt = Math.floor(nowMillis / 1000) + TTL_SECONDS
    return { token: `${nonce}.${expiresAt}.${macOf(secret, subject, nonce, expiresAt)}`, expiresIn: TTL_SECONDS }
  })

const TOKEN = /^([0-9a-f]{32})\.([0-9]{1,12})\.([0-9a-f]{64})$/

/** The token's nonce when it was issued for `subject` and has not expired at `nowMillis` (whether used is the store's). */
export const verify = (
  secret: Redacted.Redacted<string>,
  token: string,
  subject: Subject,
  nowMillis: number
): Valid | undefined => {
  const match = TOKEN.exec(token)
  if (match === null) return undefined
  const [, nonce, expiry, mac] = match as unknown as [string, string, string, string]
  const expiresAtSeconds = Number(expiry)
  const expected = Buffer.from(macOf(secret, subject, nonce, expiresAtSeconds), "hex")
  if (!timingSafeEqual(expected, Buffer.from(mac, "hex"))) return undefined
  return nowMillis < expiresAtSeconds * 1000 ? { nonce, expiresAtSeconds } : undefined
}
