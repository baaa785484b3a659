/**
 * How the failures of a shipping call are answered on the wire, as the store's `Reasons.ts` answers its modules': a
 * reason whose snake-case name is a wire code answers that code (`UnknownCourier` → `unknown_courier`); every other
 * is listed as an override (`NotAMobile: "invalid_phone"`). The compiler refuses a union with a reason that reaches
 * no code; `ErrorMapping.test.ts` walks the gateway's and the courier's unions.
 *
 * What an answer carries beside its code is read from the reason by name: its message, `fields` (credentials that do
 * not fit), `field` (the request path at fault: `{ [field]: message }`), `suggestions`, `retryAfterSeconds` (sent as
 * `Retry-After`). The few answers worded otherwise are listed beside their code (`gateway.answers`).
 *
 * The gateway's own union lives in the shipping host (`@tawsil/shipping`), which this package does not install: its
 * overrides are here (`gateway`), and the host's server maps the union through them (`of(Gateway.GatewayError,
 * Reasons.gateway)`).
 */
import { CourierError } from "@tawsil/courier"
import * as Errors from "./Errors.ts"

/** `UnknownCourier` → `unknown_courier`. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S
type Snake<S extends string> = SnakeCase<S> extends `_${infer Rest}` ? Rest : SnakeCase<S>

const snake = (name: string) =>
  name.replace(/[A-Z]/g, (letter, at: number) => `${at === 0 ? "" : "_"}${letter}`).toLowerCase()

/** The tags of a reason union that do not answer the code of their own name: each needs an override. */
type Unnamed<Tag extends string> = Tag extends unknown ? (Snake<Tag> extends Errors.Code ? never : Tag) : never

/** The overrides of a union: every reason not named after a code, and any other sent elsewhere. */
export type Overrides<Tag extends string> = { readonly [T in Unnamed<Tag>]: Errors.Code } & {
  readonly [T in Tag]?: Errors.Code
}

export type CodeOf<Tag extends string, O> = Tag extends keyof O
  ? O[Tag] & Errors.Code
  : Snake<Tag> extends Errors.Code
    ? Snake<Tag>
    : never

/** A failure of a shipping call: a tagged error with a message (some carry more, read by name). */
export interface Reason {
  readonly _tag: string
  readonly message: string
}

/** What an answer says instead of the reason's own words: its message, and the request path it names. */
export interface Wording {
  readonly message?: string
  /** The request path at fault, and what `fields` says of it. */
  readonly field?: readonly [path: string, message: string]
}

/** How one union of reasons is answered. */
export interface Mapping<R extends Reason, O> {
  /** The code each reason answers: derived by name, or overridden. */
  readonly codes: { readonly [T in R["_tag"]]: CodeOf<T, O> }
  /**
   * A reason as its wire failure. `field` names the request path the answer points at where the reason does not
   * (an unknown commune: `communeName` on a resolve); `message` words it otherwise (a courier's failure: the call's).
   */
  readonly answer: <E extends R>(
    reason: E,
    options?: { readonly field?: string | undefined; readonly message?: string | undefined }
  ) => FailureOf<E, O>
}

/** The wire failures reasons `R` can become, by the overrides `O`. */
export type FailureOf<R extends Reason, O> = R extends Reason ? Errors.FailureOfCode<CodeOf<R["_tag"], O>> : never

/** What a reason carries beside its message, under the wire's names. */
const detailsOf = (reason: Reason, field: string | undefined): Errors.Details => {
  const carried = reason as unknown as Record<string, unknown>
  const path = typeof carried.field === "string" ? carried.field : field
  return {
    ...(typeof carried.fields === "object" && carried.fields !== null
      ? { fields: carried.fields as Record<string, string> }
      : path === undefined
        ? {}
        : { fields: { [path]: reason.message } }),
    ...(Array.isArray(carried.suggestions) ? { suggestions: carried.suggestions } : {}),
    ...(typeof carried.retryAfterSeconds === "number" ? { retryAfterSeconds: carried.retryAfterSeconds } : {})
  }
}

export interface Rules<Tag extends string> {
  /** The code of each reason not named after one (and of any other sent elsewhere). */
  readonly overrides: Overrides<Tag>
  /** The request path each reason is about, where its answer names it in `fields`. */
  readonly fields?: { readonly [T in Tag]?: string }
  /** The answers worded otherwise than the reason. */
  readonly answers?: { readonly [T in Tag]?: (reason: Reason) => Wording }
  /** The reasons whose answer is another union's (a courier's failure: its reason's). */
  readonly nested?: { readonly [T in Tag]?: (reason: Reason) => Errors.Failure }
}

/**
 * How a union of reasons is answered: by name where a reason is named after a wire code, else by the override listed.
 * `union` is the union's schema (`Gateway.GatewayError`).
 */
export const of = <R extends Reason, const O extends Overrides<R["_tag"]>>(
  union: { readonly Type: R; readonly members: ReadonlyArray<unknown> },
  rules: Rules<R["_tag"]> & { readonly overrides: O }
): Mapping<R, O> => {
  const table: Record<string, Errors.Code> = {}
  for (const member of union.members) {
    const tag = (member as { readonly identifier: string }).identifier
    const code = (rules.overrides as Record<string, Errors.Code | undefined>)[tag] ?? snake(tag)
    if (!Object.hasOwn(Errors.codes, code)) throw new Error(`${tag} is named after no wire code and has no override`)
    table[tag] = code as Errors.Code
  }
  const fields = (rules.fields ?? {}) as Record<string, string | undefined>
  const answers = (rules.answers ?? {}) as Record<string, ((reason: Reason) => Wording) | undefined>
  const nested = (rules.nested ?? {}) as Record<string, ((reason: Reason) => Errors.Failure) | undefined>
  return {
    codes: table as Mapping<R, O>["codes"],
    answer: (reason, options) => {
      const inner = nested[reason._tag]
      if (inner !== undefined) return inner(reason) as never
      const details = detailsOf(reason, options?.field ?? fields[reason._tag])
      const worded = answers[reason._tag]?.(reason)
      return Errors.make(table[reason._tag]!, worded?.message ?? options?.message ?? reason.message, {
        ...details,
        ...(worded?.field === undefined ? {} : { fields: { [worded.field[0]]: worded.field[1] } })
      }) as never
    }
  }
}

/**
 * A courier's failure (`CourierError`), by its reason; the message is the failure's (`<courier> <operation>:
 * <reason>`), except for an address the egress rules refuse, which names no courier call.
 */
export const courier = of(CourierError.CourierErrorReason, {
  overrides: {
    Refused: "courier_refused",
    CourierRateLimited: "rate_limited",
    Unreachable: "courier_unreachable",
    BadResponse: "courier_error"
  }
})

/** A courier's failure as its wire answer: its reason's code, the failure's message. */
export const courierFailure = (error: CourierError.CourierError) =>
  courier.answer(error.reason, error.reason._tag === "BlockedEgress" ? {} : { message: error.message })

/**
 * The wire failures a gateway failure `E` can become. A courier's `NotCancellable` is left out: only a cancel meets
 * it, and the cancel's answers name `Conflict` themselves.
 */
export type GatewayFailureOf<E extends Reason> = E extends { readonly _tag: "CourierError" }
  ? FailureOf<Exclude<CourierError.CourierErrorReason, CourierError.NotCancellable>, CourierOverrides>
  : FailureOf<E, typeof gateway.overrides>

type CourierOverrides = typeof courier extends Mapping<CourierError.CourierErrorReason, infer O> ? O : never

/**
 * The gateway's failures (`Gateway.GatewayError` of `@tawsil/shipping`): the overrides of the reasons not named after
 * their code, the field an unknown commune names on a create, and the idempotency answers, which say what the key
 * was used for rather than quote it.
 */
export const gateway = {
  overrides: {
    NotAMobile: "invalid_phone",
    ClientRateLimited: "rate_limited",
    InvalidKey: "invalid_input",
    KeyReused: "idempotency_key_reuse",
    InFlight: "idempotency_in_flight",
    // Refined by the courier's reason (`nested`); the code of none.
    CourierError: "courier_error"
  },
  fields: {
    UnknownCommune: "order.recipient.communeName",
    CommuneNotServed: "order.recipient.communeName"
  },
  answers: {
    InvalidKey: (reason: Reason) => ({
      message: "Request validation failed",
      field: [
        "headers.idempotency-key",
        `${(reason as unknown as { readonly reason: string }).reason}: expected 1-64 of A-Z a-z 0-9 _ - : .`
      ] as const
    }),
    KeyReused: () => ({ message: "this Idempotency-Key was used for another request" }),
    InFlight: () => ({ message: "a create with this Idempotency-Key is still in flight" })
  },
  nested: {
    CourierError: (reason: Reason) => courierFailure(reason as CourierError.CourierError)
  }
} as const

/**
 * A cancel's `InFlight`: a 409 `idempotency_in_flight` without `Retry-After` (the cancel's one 409 shape), saying
 * when to retry in its message.
 */
export const cancelInFlight = (retryAfterSeconds: number) =>
  new Errors.Conflict({
    error: {
      code: "idempotency_in_flight",
      message: `a cancel with this Idempotency-Key is still in flight; retry in ${retryAfterSeconds} s`
    }
  })
