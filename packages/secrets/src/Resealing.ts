/**
 * Re-sealing what is stored under the ring's current key: the walk a key rotation makes over every place that keeps
 * sealed values. A place (`Column`: a table's column, say) says how to read its values a page at a time and how to
 * replace one only where it is unchanged; `run` opens each value sealed under another key and seals it again under
 * the current one (`Secrets.reseal`). It is safe to stop at any point and to run again: a value is replaced whole,
 * under the key that opens it, or not at all.
 */
import { Effect } from "effect"
import * as SecretBox from "./SecretBox.ts"
import { Secrets } from "./Secrets.ts"
import { KEY_VARIABLE, KeyMissing, SecretsError } from "./SecretsError.ts"

/** One stored value: its row's id, its sealed text, and the associated data it was sealed with. */
export interface Stored<Id> {
  readonly id: Id
  readonly sealed: string
  readonly associatedData: string
}

/** One place that keeps sealed values, as the walk reads and writes it. */
export interface Column<Id, E, R> {
  /** Where the values are, for the report (`courier_accounts.credentials`). */
  readonly name: string
  /**
   * Up to `limit` stored values after the row `after` (from the first when undefined), in one stable order. It may
   * leave out the values that start with `currentPrefix` (already under the current key: `SecretBox.prefix`).
   */
  readonly page: (options: {
    readonly after: Id | undefined
    readonly limit: number
    readonly currentPrefix: string
  }) => Effect.Effect<ReadonlyArray<Stored<Id>>, E, R>
  /** Writes `resealed` in the row only if it still holds `stored.sealed` (a write since wins); true when written. */
  readonly replace: (stored: Stored<Id>, resealed: string) => Effect.Effect<boolean, E, R>
}

/** What one walk over a column did. */
export interface Report {
  readonly column: string
  /** Values now under the current key that were under another. */
  readonly resealed: number
  /** Values changed by a write while they were being re-sealed (that write sealed under the current key). */
  readonly changedMeanwhile: number
  /** Values no key of the ring opens, by row: left as they are. */
  readonly unreadable: ReadonlyArray<Unreadable>
}

/** A stored value no key of the ring opens. */
export interface Unreadable {
  /** Its row's id. */
  readonly id: string
  /** `UnknownKey`, `Tampered` or `Malformed` (`SecretsError`'s reasons). */
  readonly reason: string
  /** The key it names, when it is a sealed value at all. */
  readonly keyId?: string | undefined
}

const PAGE = 100

/** One pass over `column`: every value under a key other than the current one re-sealed under the current one. */
export const run = <Id, E, R>(
  column: Column<Id, E, R>,
  options: { readonly pageSize?: number | undefined } = {}
): Effect.Effect<Report, E | SecretsError, R | Secrets> =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const ring = yield* secrets.ring
    if (ring === undefined) return yield* new SecretsError({ reason: new KeyMissing({ variable: KEY_VARIABLE }) })
    const currentPrefix = SecretBox.prefix(ring.current)
    const limit = options.pageSize ?? PAGE
    let after: Id | undefined
    let resealed = 0
    let changedMeanwhile = 0
    const unreadable: Array<Unreadable> = []
    for (;;) {
      const page = yield* column.page({ after, limit, currentPrefix })
      for (const stored of page) {
        // Under the current key already, the same text comes back.
        const outcome = yield* Effect.result(secrets.reseal(stored.sealed, stored.associatedData))
        if (outcome._tag === "Failure") {
          const keyId = SecretBox.keyIdOf(stored.sealed)
          unreadable.push({ id: String(stored.id), reason: outcome.failure.reason._tag, keyId })
          continue
        }
        if (outcome.success === stored.sealed) continue
        if (yield* column.replace(stored, outcome.success)) resealed++
        else changedMeanwhile++
      }
      if (page.length < limit) break
      after = page[page.length - 1]!.id
    }
    return { column: column.name, resealed, changedMeanwhile, unreadable }
  })
