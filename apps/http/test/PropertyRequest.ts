/**
 * The request function the change-history properties drive a store with (`Changes.db.test.ts` and each recorded
 * entity's `*Writes.ts`): a GET, or a write with a fresh `Idempotency-Key`, over a `ConfigHarness` client or an
 * in-memory `store/InMemory` caller.
 */
import type { Effect } from "effect"

/** What the harness answers. */
export interface Answer {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
  readonly body: any
  readonly text: string
}

/** The harness's request function: a GET, or a write with a fresh `Idempotency-Key`. */
export type Request = (
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown
) => Effect.Effect<Answer>

/** `Request` over a client of `ConfigHarness` (or `store/InMemory`'s `Caller`, whose `get` and `write` are alike). */
export const requestOf =
  <E, R>(client: {
    readonly get: (path: string) => Effect.Effect<Answer, E, R>
    readonly write: (method: string, path: string, body?: unknown) => Effect.Effect<Answer, E, R>
  }) =>
  (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    method === "GET" ? client.get(path) : client.write(method, path, body)
