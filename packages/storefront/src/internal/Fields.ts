/**
 * The field schemas of the store configuration's bodies (at the end), each failing with one message whatever is
 * wrong, relative to the field (`BodyFields.decode` prefixes its path), and the few readers the home pages' outer
 * bodies still use. Text is `StoreText` (a NUL character or a lone surrogate is refused like any malformed value)
 * and trimmed; numbers are whole and bounded, so `1e308` and `1e309` are refused like a word.
 */
import { BodyFields, StoreText } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Effect, Option, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"

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

/** A whole number from `minimum` to `maximum`, or `message`. */
export const integer = (value: unknown, minimum: number, maximum: number, message: string) =>
  decode(Schema.Int.check(Schema.isBetween({ minimum, maximum })), value, message)

/** A JSON boolean, or `message` (a configuration switch is never guessed from a string). */
export const boolean = (value: unknown, message: string): Effect.Effect<boolean, string> =>
  typeof value === "boolean" ? Effect.succeed(value) : Effect.fail(message)

/**
 * A path of a file already on the store's CDN (`stores/12/logo.png`): letters, digits, `.`, `_`, `-` and `/`, no
 * leading `/`, no empty or `..` segment, at most 500 characters. The CDN base is prepended by whoever shows it.
 */
const PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))(?!.*\/\/)[A-Za-z0-9_][A-Za-z0-9._/-]{0,499}$/

export const isPath = (text: string): boolean => PATH.test(text) && !text.endsWith("/")

/**
 * An `https` link to a public web page, at most 500 characters: the address rules of `@tawsil/egress`
 * (`Egress.parsePublicLink`: a domain name, never an IP address in any notation or a local name, no credentials,
 * the default port).
 */
export const isHttpsUrl = (text: string): boolean =>
  text.length <= 500 && StoreText.isStorable(text) && Result.isSuccess(Egress.parsePublicLink(text))

/**
 * Where a storefront button or banner leads: a path of the storefront — one `/`, then letters, digits and
 * `/ - _ . ? = & # %`, never a second `/` first (`//host` is another site to a browser) — or a public `https` link
 * (`isHttpsUrl`); at most 500 characters.
 */
const STOREFRONT_PATH = /^\/(?!\/)[A-Za-z0-9/_.?=&#%-]{0,499}$/

/** A colour as `#rgb` or `#rrggbb`, any case, kept as `#rrggbb` in lower case. */
export const colorOf = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined
  const match = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.exec(value.trim())
  if (match === null) return undefined
  const hex = match[1]!.toLowerCase()
  return hex.length === 3 ? `#${[...hex].map((digit) => digit + digit).join("")}` : `#${hex}`
}

// ---------------------------------------------------------------------------------------------------------------
// Field schemas: the same rules as schemas of a body, each failing with one message whatever is wrong (relative to
// the field: `BodyFields.decode` prefixes its path).

const refusedWith = (message: string) => (value: string | undefined) =>
  value === undefined ? Effect.fail(new SchemaIssue.InvalidValue({ message })) : Effect.succeed(value)

/** A string `read` reads (`undefined`: refused). */
export const ReadString = (read: (text: string) => string | undefined, message: string) =>
  Schema.String.pipe(
    Schema.decodeTo(
      Schema.String,
      SchemaTransformation.transformEffect({
        decode: (text) => refusedWith(message)(read(text)),
        encode: Effect.succeed
      })
    ),
    BodyFields.oneMessage(message)
  )

/** A string `read` reads, or null; a string `isNone` says is none is null too. */
export const readNullableString = (
  read: (text: string) => string | undefined,
  isNone: (text: string) => boolean,
  message: string
) =>
  Schema.NullOr(Schema.String).pipe(
    Schema.decodeTo(
      Schema.NullOr(Schema.String),
      SchemaTransformation.transformEffect({
        decode: (value) => (value === null || isNone(value) ? Effect.succeed(null) : refusedWith(message)(read(value))),
        encode: Effect.succeed
      })
    ),
    BodyFields.oneMessage(message)
  )

/** `value` trimmed when it is 1 to `max` characters PostgreSQL keeps as sent, else `undefined`. */
export const trimmedOf = (max: number) => (value: string) => {
  if (!StoreText.isStorable(value)) return undefined
  const trimmed = value.trim()
  return trimmed !== "" && codePoints(trimmed) <= max ? trimmed : undefined
}
export const isBlank = (text: string) => text.trim() === ""
export const isEmpty = (text: string) => text === ""

/** `text` as a schema: trimmed text of 1 to `max` characters. */
export const Text = (max: number, message: string) => ReadString(trimmedOf(max), message)

/** `optionalText` as a schema: null and a blank string are none. */
export const OptionalText = (max: number, message: string) => readNullableString(trimmedOf(max), isBlank, message)

/** `optionalPath` as a schema. */
export const OptionalPath = (message: string) =>
  readNullableString((text) => (isPath(text.trim()) ? text.trim() : undefined), isEmpty, message)

/** An `https` link to a public web page (`isHttpsUrl`), or null; an empty string is none. */
export const OptionalHttpsUrl = (message: string) =>
  readNullableString((text) => (isHttpsUrl(text.trim()) ? text.trim() : undefined), isEmpty, message)

/** `optionalInteger` as a schema. */
export const OptionalInteger = (minimum: number, maximum: number, message: string) =>
  Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum, maximum }))).pipe(BodyFields.oneMessage(message))

/** `oneOf` as a schema. */
export const OneOf = <const C extends string | number>(choices: ReadonlyArray<C>, message: string) =>
  Schema.Literals(choices).pipe(BodyFields.oneMessage(message))

/** A group of fields sent key by key (`contact`): each optional; anything but an object is `message`. */
export const Group = <F extends Schema.Struct.Fields>(fields: F, message: string) =>
  Schema.Struct(fields).annotate({ message })

/** `optionalLink` as a schema: a storefront path or a public `https` link, or null; an empty string is none. */
export const OptionalLink = (message: string) =>
  readNullableString(
    (text) => {
      const link = text.trim()
      return STOREFRONT_PATH.test(link) || isHttpsUrl(link) ? link : undefined
    },
    isEmpty,
    message
  )
