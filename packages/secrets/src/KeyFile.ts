/**
 * The key file of an install that configured no key (the embedded database's default): the ring written in a file
 * of the data directory, created at the first start. It is created whole and exclusively — written and fsynced under
 * a temporary name, then linked to its name, which fails if another process got there first — so two starts can
 * never make two keys, and no reader ever sees half a file. It is refused when other users may read it. A rotation
 * replaces it atomically (a temporary file renamed over it, the directory fsynced), so a crash leaves the old ring or
 * the new one, never neither.
 *
 *     # comment lines
 *     current <64 hex>
 *     previous <64 hex>        (any number: keys still read while a rotation re-seals)
 */
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Effect, type Redacted, Result, Schema } from "effect"
import * as KeyRing from "./KeyRing.ts"

/** The file's name in the data directory. */
export const FILE_NAME = "secret.key"

/** Why the key file cannot be used. Never holds a key. */
export class KeyFileError extends Schema.TaggedError<KeyFileError>()("KeyFileError", {
  path: Schema.String,
  /** `Exposed`: other users may read it; `Malformed`: not a key file; `Unusable`: it cannot be read or written. */
  reason: Schema.Literals(["Exposed", "Malformed", "Unusable"]),
  detail: Schema.String
}) {
  override get message() {
    return `the secret key file ${this.path} ${this.detail}`
  }
}

const HEADER = [
  "# Tawsil's secret keys: courier credentials and other kept secrets are sealed under the current key.",
  '# Keep this file private (mode 0600). Lose it and they cannot be opened again; docs/operations.md "Secret key".'
]

/** The file's text for a ring. */
export const render = (ring: KeyRing.KeyRing): string =>
  [
    ...HEADER,
    `current ${KeyRing.format(ring.current.bytes)}`,
    ...ring.previous.map((key) => `previous ${KeyRing.format(key.bytes)}`),
    ""
  ].join("\n")

/** The ring a file's text holds; the failure says what is wrong, never a key. */
export const parse = (text: string): Result.Result<KeyRing.KeyRing, string> => {
  let current: Redacted.Redacted<Uint8Array> | undefined
  const previous: Array<Redacted.Redacted<Uint8Array>> = []
  const lines = text.split("\n")
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#")) continue
    const match = /^(current|previous)\s+(\S+)$/.exec(line)
    const parsed = match === null ? undefined : KeyRing.parse(match[2]!)
    if (match === null || parsed === undefined || Result.isFailure(parsed)) {
      return Result.fail(`line ${index + 1} is not "current <key>" or "previous <key>" with a key of 64 hex characters`)
    }
    if (match[1] === "previous") previous.push(parsed.success)
    else if (current === undefined) current = parsed.success
    else return Result.fail(`line ${index + 1} names a second current key`)
  }
  if (current === undefined) return Result.fail("has no current key")
  return Result.mapError(KeyRing.make(current, previous), (expected) => `holds a bad key: expected ${expected}`)
}

const unusable = (path: string, doing: string, error: unknown) =>
  new KeyFileError({
    path,
    reason: "Unusable",
    detail: `cannot be ${doing}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`
  })

/** Makes a directory entry durable: the name of a file just linked or renamed survives a power cut. */
const syncDirectory = (directory: string) => {
  const fd = Fs.openSync(directory, "r")
  try {
    Fs.fsyncSync(fd)
  } finally {
    Fs.closeSync(fd)
  }
}

/** Writes `text` to a new file beside `path`, fsynced, mode 0600; returns its name. */
const writeTemporary = (path: string, text: string) => {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  const fd = Fs.openSync(temporary, "wx", 0o600)
  try {
    Fs.writeFileSync(fd, text)
    Fs.fsyncSync(fd)
  } finally {
    Fs.closeSync(fd)
  }
  return temporary
}

/**
 * Creates `path` holding `text` unless it exists: whole (written and fsynced first under a temporary name) and
 * exclusively (linked to its name, which fails if the name is taken). True when this call created it.
 */
export const createExclusive = (path: string, text: string): Effect.Effect<boolean, KeyFileError> =>
  Effect.try({
    try: () => {
      Fs.mkdirSync(Path.dirname(path), { recursive: true, mode: 0o700 })
      const temporary = writeTemporary(path, text)
      try {
        Fs.linkSync(temporary, path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
        throw error
      } finally {
        Fs.rmSync(temporary, { force: true })
      }
      syncDirectory(Path.dirname(path))
      return true
    },
    catch: (error) => unusable(path, "created", error)
  })

/** The ring in `path`, refused when the file is not a regular file of its own or other users may read it. */
export const read = (path: string): Effect.Effect<KeyRing.KeyRing, KeyFileError> =>
  Effect.gen(function* () {
    const text = yield* Effect.try({
      try: () => {
        // No symbolic link: the file checked is the file read.
        const fd = Fs.openSync(path, Fs.constants.O_RDONLY | Fs.constants.O_NOFOLLOW)
        try {
          const stat = Fs.fstatSync(fd)
          if (!stat.isFile()) return { refused: "is not a regular file" }
          if ((stat.mode & 0o077) !== 0) {
            const mode = (stat.mode & 0o777).toString(8).padStart(3, "0")
            return { refused: `may be read by other users (mode ${mode}): make it private with chmod 600 ${path}` }
          }
          return { text: Fs.readFileSync(fd, "utf8") }
        } finally {
          Fs.closeSync(fd)
        }
      },
      catch: (error) => unusable(path, "read", error)
    })
    if ("refused" in text) return yield* new KeyFileError({ path, reason: "Exposed", detail: text.refused })
    const ring = parse(text.text)
    if (Result.isFailure(ring)) return yield* new KeyFileError({ path, reason: "Malformed", detail: ring.failure })
    return ring.success
  })

/** The ring in `path`; a file holding one new key is created first when there is none (a first start). */
export const loadOrCreate = (path: string): Effect.Effect<KeyRing.KeyRing, KeyFileError> =>
  Effect.gen(function* () {
    const exists = yield* Effect.sync(() => Fs.existsSync(path))
    if (!exists) {
      const ring = Result.getOrThrow(KeyRing.make(KeyRing.generate()))
      // Another process may create it first: then its key is the one, read below.
      yield* createExclusive(path, render(ring))
    }
    return yield* read(path)
  })

/** Replaces the ring in `path` atomically: a crash leaves the old file or the new one, whole. */
export const replace = (path: string, ring: KeyRing.KeyRing): Effect.Effect<void, KeyFileError> =>
  Effect.try({
    try: () => {
      const temporary = writeTemporary(path, render(ring))
      try {
        Fs.renameSync(temporary, path)
      } catch (error) {
        Fs.rmSync(temporary, { force: true })
        throw error
      }
      syncDirectory(Path.dirname(path))
    },
    catch: (error) => unusable(path, "replaced", error)
  })

/** The key file of a data directory. */
export const pathIn = (dataDir: string) => Path.join(Path.resolve(dataDir), FILE_NAME)
