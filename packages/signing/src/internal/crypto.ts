/**
 * The primitives the signatures are made of, on `node:crypto`: SHA-256 and HMAC-SHA256 as lowercase hex or bytes,
 * and a constant-time comparison. A secret given as text is keyed in as the UTF-8 bytes of its text, exactly as
 * written; the Standard Webhooks signature passes the key's bytes.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"

export type Bytes = Uint8Array | string

/** Lowercase hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes). */
export const sha256Hex = (data: Bytes): string => createHash("sha256").update(data).digest("hex")

/** HMAC-SHA256 of the concatenation of `parts` under `secret` (text: its UTF-8 bytes; or the key's bytes). */
export const hmacSha256 = (secret: Bytes, ...parts: ReadonlyArray<Bytes>): Buffer => {
  const mac = createHmac("sha256", secret)
  for (const part of parts) mac.update(part)
  return mac.digest()
}

const HEX_64 = /^[0-9a-fA-F]{64}$/

/** The 32 bytes a 64-character hex text stands for (either case), or undefined when it is not one. */
export const digestBytes = (hex: string): Buffer | undefined => (HEX_64.test(hex) ? Buffer.from(hex, "hex") : undefined)

/** Whether two digests are equal, in time that depends only on their length. */
export const sameDigest = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)
