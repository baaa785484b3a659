/**
 * How long a courier's 429 asks to wait: its `Retry-After` header in delta-seconds (RFC 9110 §10.2.3), the form
 * every courier seen so far sends. The HTTP-date form is not read (it needs the courier's clock, and a mapping is a
 * pure function): such an answer, like one without the header, waits the default. A courier with its own signal
 * (Yalidine's quota headers) reads `given` first and falls back on its own rule.
 */
import { header } from "./CourierHttp.ts"

/** What a 429 without a readable `Retry-After` asks, in seconds. */
export const DEFAULT_SECONDS = 60

/** `Retry-After` in whole seconds (at least 1), or `undefined` when it is absent, an HTTP date or not a number. */
export const given = (headers: Readonly<Record<string, string>>): number | undefined => {
  const value = header(headers, "retry-after")?.trim()
  return value !== undefined && /^\d{1,6}$/.test(value) ? Math.max(1, Number(value)) : undefined
}

/** `Retry-After` in whole seconds (at least 1), else `fallback` ({@link DEFAULT_SECONDS} unless given). */
export const seconds = (headers: Readonly<Record<string, string>>, fallback: number = DEFAULT_SECONDS): number =>
  given(headers) ?? fallback
