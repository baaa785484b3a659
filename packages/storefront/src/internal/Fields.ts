/**
 * How the store configuration's bodies are read, field by field: each reader decodes one value (with `Schema` where
 * a schema says it) and fails with the message that names the field and its rule, the first failure answering.
 * Text is `StoreText` (a NUL character or a lone surrogate is refused like any malformed value) and trimmed;
 * numbers are whole and bounded, so `1e308` and `1e309` are refused like a word.
 */
import { BodyFields, StoreText } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Effect, Option, Result, Schema } from "effect"

/** JSON text of `value` with every object's keys sorted: equal for equal values, whatever order keys came in. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, inner: unknown) =>
    typeof inner === "object" && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner
  )

/** Whether two JSON values are equal. */
export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b)

/** A JSON object's fields (`BodyFields`), or `message`. */
export const object = (value: unknown, message: string): Effect.Effect<BodyFields.BodyFields, string> =>
  Option.match(BodyFields.fieldsOf(value), { onNone: () => Effect.fail(message), onSome: Effect.succeed })

/** `value` decoded by `schema`, or `message`. */
export const decode = <A>(schema: Schema.Decoder<A>, value: unknown, message: string): Effect.Effect<A, string> =>
  Option.match(Schema.decodeUnknownOption(schema)(value), {
    onNone: () => Effect.fail(message),
    onSome: (decoded) => Effect.succeed(decoded)
  })

const codePoints = (text: string) => Array.from(text).length

/** Trimmed text of 1 to `max` characters (code points) PostgreSQL keeps as sent, or `message`. */
export const text = (value: unknown, max: number, message: string): Effect.Effect<string, string> => {
  if (typeof value !== "string" || !StoreText.isStorable(value)) return Effect.fail(message)
  const trimmed = value.trim()
  return trimmed !== "" && codePoints(trimmed) <= max ? Effect.succeed(trimmed) : Effect.fail(message)
}

/** `text`, where null and an empty (or blank) string mean none. */
export const optionalText = (value: unknown, max: number, message: string): Effect.Effect<string | null, string> =>
  value === null || (typeof value === "string" && value.trim() === "")
    ? Effect.succeed(null)
    : text(value, max, message)

/** A whole number from `minimum` to `maximum`, or `message`. */
export const integer = (value: unknown, minimum: number, maximum: number, message: string) =>
  decode(Schema.Int.check(Schema.isBetween({ minimum, maximum })), value, message)

/** `integer`, where null means none. */
export const optionalInteger = (value: unknown, minimum: number, maximum: number, message: string) =>
  value === null ? Effect.succeed(null) : integer(value, minimum, maximum, message)

/** One of `choices`, exactly, or `message`. */
export const oneOf = <const C extends string | number>(
  value: unknown,
  choices: ReadonlyArray<C>,
  message: string
): Effect.Effect<C, string> => (choices.includes(value as C) ? Effect.succeed(value as C) : Effect.fail(message))

/** A JSON boolean, or `message` (a configuration switch is never guessed from a string). */
export const boolean = (value: unknown, message: string): Effect.Effect<boolean, string> =>
  typeof value === "boolean" ? Effect.succeed(value) : Effect.fail(message)

/**
 * A path of a file already on the store's CDN (`stores/12/logo.png`): letters, digits, `.`, `_`, `-` and `/`, no
 * leading `/`, no empty or `..` segment, at most 500 characters. The CDN base is prepended by whoever shows it.
 */
const PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))(?!.*\/\/)[A-Za-z0-9_][A-Za-z0-9._/-]{0,499}$/

export const isPath = (text: string): boolean => PATH.test(text) && !text.endsWith("/")

/** `isPath`, where null and an empty string mean none. */
export const optionalPath = (value: unknown, message: string): Effect.Effect<string | null, string> =>
  value === null || value === ""
    ? Effect.succeed(null)
    : typeof value === "string" && isPath(value.trim())
      ? Effect.succeed(value.trim())
      : Effect.fail(message)

/**
 * An `https` link to a public web page, at most 500 characters: the address rules of `@tawsil/egress`
 * (`Egress.parsePublicLink`: a domain name, never an IP address in any notation or a local name, no credentials,
 * the default port).
 */
export const isHttpsUrl = (text: string): boolean =>
  text.length <= 500 && StoreText.isStorable(text) && Result.isSuccess(Egress.parsePublicLink(text))

/** `isHttpsUrl`, where null and an empty string mean none. */
export const optionalHttpsUrl = (value: unknown, message: string): Effect.Effect<string | null, string> =>
  value === null || value === ""
    ? Effect.succeed(null)
    : typeof value === "string" && isHttpsUrl(value.trim())
      ? Effect.succeed(value.trim())
      : Effect.fail(message)

/**
 * Where a storefront button or banner leads: a path of the storefront — one `/`, then letters, digits and
 * `/ - _ . ? = & # %`, never a second `/` first (`//host` is another site to a browser) — or a public `https` link
 * (`isHttpsUrl`); at most 500 characters.
 */
const STOREFRONT_PATH = /^\/(?!\/)[A-Za-z0-9/_.?=&#%-]{0,499}$/

export const optionalLink = (value: unknown, message: string): Effect.Effect<string | null, string> => {
  if (value === null || value === "") return Effect.succeed(null)
  if (typeof value !== "string") return Effect.fail(message)
  const link = value.trim()
  return STOREFRONT_PATH.test(link) || isHttpsUrl(link) ? Effect.succeed(link) : Effect.fail(message)
}

/** A colour as `#rgb` or `#rrggbb`, any case, kept as `#rrggbb` in lower case. */
export const colorOf = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined
  const match = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.exec(value.trim())
  if (match === null) return undefined
  const hex = match[1]!.toLowerCase()
  return hex.length === 3 ? `#${[...hex].map((digit) => digit + digit).join("")}` : `#${hex}`
}
