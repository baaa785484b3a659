/**
 * How a domain module's reasons are answered on the store's wire: a reason whose snake-case name is a wire code
 * answers that code (`AddonInactive` → `addon_inactive`); every other reason is listed as an override beside the
 * endpoints that answer it (`Reasons.of(PromoError.PromoErrorReason, { PromoNotFound: "not_found" })`). The compiler
 * refuses a reason that reaches no code; `ErrorMapping.test.ts` walks every reason union the packages export.
 */
import * as Errors from "./Errors.ts"

/** `AddonInactive` → `addon_inactive`. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S
type Snake<S extends string> = SnakeCase<S> extends `_${infer Rest}` ? Rest : SnakeCase<S>

const snake = (name: string) =>
  name.replace(/[A-Z]/g, (letter, at: number) => `${at === 0 ? "" : "_"}${letter}`).toLowerCase()

/** The tags of a reason union that do not answer the code of their own name: each needs an override. */
type Unnamed<Tag extends string> = Tag extends unknown ? (Snake<Tag> extends Errors.Code ? never : Tag) : never

/** The overrides a module lists: every reason not named after a code, and any other it chooses to send elsewhere. */
export type Overrides<Tag extends string> = { readonly [T in Unnamed<Tag>]: Errors.Code } & {
  readonly [T in Tag]?: Errors.Code
}

export type CodeOf<Tag extends string, O> = Tag extends keyof O
  ? O[Tag] & Errors.Code
  : Snake<Tag> extends Errors.Code
    ? Snake<Tag>
    : never

/** A reason of a domain module: a tagged error with a message (some carry more: `retryAfterSeconds`, a token…). */
export interface Reason {
  readonly _tag: string
  readonly message: string
}

/** How one domain module's reasons are answered. */
export interface Mapping<R extends Reason, O> {
  /** The code each reason answers (the whole table: derived by name, or overridden). */
  readonly codes: { readonly [T in R["_tag"]]: CodeOf<T, O> }
  /** The wire classes those codes belong to: what the endpoints answering the module declare. */
  readonly classes: ReadonlyArray<Errors.FailureClass>
  /** A reason as the failure of this request; `details` adds what the reason carries beside its message. */
  readonly answer: <Tag extends R["_tag"]>(
    reason: Extract<R, { readonly _tag: Tag }>,
    requestId: string
  ) => Errors.FailureOfCode<CodeOf<Tag, O>>
}

/** What a reason carries beside its message, under the wire's names. */
const detailsOf = (reason: Reason): Errors.Details => {
  const fields = reason as unknown as Record<string, unknown>
  if (typeof fields.retryAfterSeconds === "number") return { retry_after: fields.retryAfterSeconds }
  if (typeof fields.confirmToken === "string") {
    return {
      confirm_token: fields.confirmToken,
      confirm_token_expires_in: fields.expiresIn as number,
      action: fields.action as string,
      will_change: fields.willChange as NonNullable<Errors.Details["will_change"]>
    }
  }
  return {}
}

/**
 * How a domain module's reasons are answered: by name where a reason is named after a wire code, else by the
 * override listed. `union` is the module's exported reason union (`PromoError.PromoErrorReason`).
 */
export const of = <R extends Reason, const O extends Overrides<R["_tag"]>>(
  union: { readonly Type: R; readonly members: ReadonlyArray<unknown> },
  overrides: O
): Mapping<R, O> => {
  const table: Record<string, Errors.Code> = {}
  for (const member of union.members) {
    const tag = (member as { readonly identifier: string }).identifier
    const code = (overrides as Record<string, Errors.Code | undefined>)[tag] ?? snake(tag)
    if (!Object.hasOwn(Errors.codes, code)) throw new Error(`${tag} is named after no wire code and has no override`)
    table[tag] = code as Errors.Code
  }
  return {
    codes: table as Mapping<R, O>["codes"],
    classes: [...new Set(Object.values(table).map(Errors.classOf))],
    answer: (reason, requestId) =>
      Errors.make(table[reason._tag]!, requestId, reason.message, detailsOf(reason)) as never
  }
}

/** Any module's reasons, where the module is only known at run time (an entity's refusal of an undo). */
// biome-ignore lint/suspicious/noExplicitAny: the reason and override types vary by module
export type Any = Mapping<any, any>

/** The wire failures these reasons can become, by a module's overrides `O`. */
export type FailureOf<R extends Reason, O> = Errors.FailureOfCode<CodeOf<R["_tag"], O>>
