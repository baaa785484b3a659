/**
 * The keys secrets are sealed under: the current one, which seals, and previous ones still accepted for opening while
 * a rotation re-seals what they sealed. A key is 32 random bytes, held `Redacted` (it prints as `<redacted>` in a log,
 * an error or a trace), with a short public id that every sealed value carries, so that a reader knows which key
 * opens it. A key's text form is 64 hexadecimal characters (`openssl rand -hex 32`).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Redacted, Result } from "effect"

/** AES-256: 32 bytes. */
export const KEY_BYTES = 32

export interface Key {
  /**
   * 8 hexadecimal characters: the first 4 bytes of SHA-256 over a fixed label and the key. It names the key in every
   * value it sealed and in logs; 32 bits of a hash tell nothing usable about 256 bits of key.
   */
  readonly id: string
  readonly bytes: Redacted.Redacted<Uint8Array>
}

export interface KeyRing {
  /** Seals every new value. */
  readonly current: Key
  /** Still open the values they sealed (a rotation in progress); never seal. */
  readonly previous: ReadonlyArray<Key>
}

const ID_LABEL = "tawsil/secrets key id\n"

/** The public id of a key's bytes. */
export const idOf = (bytes: Uint8Array): string =>
  createHash("sha256").update(ID_LABEL).update(bytes).digest("hex").slice(0, 8)

/** A key from its 32 bytes; refused when the length is wrong or every byte is the same (a placeholder, not a key). */
export const key = (bytes: Redacted.Redacted<Uint8Array>): Result.Result<Key, string> => {
  const raw = Redacted.value(bytes)
  if (raw.length !== KEY_BYTES) return Result.fail(`a key of ${KEY_BYTES} bytes`)
  if (raw.every((byte) => byte === raw[0])) return Result.fail(`a random key (its ${KEY_BYTES} bytes are all equal)`)
  return Result.succeed({ id: idOf(raw), bytes })
}

const sameBytes = (a: Key, b: Key) => timingSafeEqual(Redacted.value(a.bytes), Redacted.value(b.bytes))

/**
 * The ring of `current` and `previous` keys. A previous key equal to the current one or to another previous one is
 * kept once; two different keys with the same id (a 1 in 4 billion chance) are refused, since a value could not say
 * which of them sealed it.
 */
export const make = (
  current: Redacted.Redacted<Uint8Array>,
  previous: ReadonlyArray<Redacted.Redacted<Uint8Array>> = []
): Result.Result<KeyRing, string> => {
  const first = key(current)
  if (Result.isFailure(first)) return Result.fail(first.failure)
  const kept: Array<Key> = []
  for (const bytes of previous) {
    const next = key(bytes)
    if (Result.isFailure(next)) return Result.fail(next.failure)
    const known = [first.success, ...kept].find((other) => other.id === next.success.id)
    if (known === undefined) kept.push(next.success)
    else if (!sameBytes(known, next.success))
      return Result.fail(`keys with distinct ids (two keys share id ${known.id})`)
  }
  return Result.succeed({ current: first.success, previous: kept })
}

/** The key of the ring with this id, current or previous. */
export const find = (ring: KeyRing, id: string): Key | undefined =>
  ring.current.id === id ? ring.current : ring.previous.find((key) => key.id === id)

/** The ring after a rotation to `next`: it seals under `next` and still opens what any key of `ring` sealed. */
export const rotate = (ring: KeyRing, next: Key): KeyRing => ({
  current: next,
  previous: [ring.current, ...ring.previous].filter((key) => key.id !== next.id)
})

/** The ring with only its current key: what is left once every value is re-sealed under it. */
export const retire = (ring: KeyRing): KeyRing => ({ current: ring.current, previous: [] })

/** 32 new random bytes. */
export const generate = (): Redacted.Redacted<Uint8Array> => Redacted.make(new Uint8Array(randomBytes(KEY_BYTES)))

const HEX_KEY = /^[0-9a-fA-F]{64}$/

/** A key's text form, 64 hexadecimal characters (either case); the failure says what was expected, never the text. */
export const parse = (text: string): Result.Result<Redacted.Redacted<Uint8Array>, string> =>
  HEX_KEY.test(text)
    ? Result.succeed(Redacted.make(new Uint8Array(Buffer.from(text, "hex"))))
    : Result.fail(`${KEY_BYTES * 2} hexadecimal characters (${KEY_BYTES} bytes)`)

/** A key's text form: 64 lowercase hexadecimal characters. */
export const format = (bytes: Redacted.Redacted<Uint8Array>): string =>
  Buffer.from(Redacted.value(bytes)).toString("hex")
