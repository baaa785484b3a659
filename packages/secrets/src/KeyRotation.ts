/**
 * Rotating the key: a new current key, the old one kept as a previous key until every stored value is re-sealed
 * under the new one, then the old one retired. Where the keys come from settings (`TAWSIL_SECRET_KEY` and
 * `TAWSIL_SECRET_KEY_PREVIOUS`) the operator changes them and runs `resealAll`; where they are in a key file
 * (`KeyFile`), `rotateKeyFile` does every step, each leaving every value readable, so a crash at any point is
 * finished by running it again.
 */
import { Effect } from "effect"
import * as KeyFile from "./KeyFile.ts"
import * as KeyRing from "./KeyRing.ts"
import type * as Resealing from "./Resealing.ts"

/** What a full re-seal did: each pass's reports, and whether the last pass found nothing left to do. */
export interface Resealed {
  readonly passes: ReadonlyArray<ReadonlyArray<Resealing.Report>>
  /** The last pass re-sealed nothing and met no concurrent change: every readable value is under the current key. */
  readonly settled: boolean
  /** Values no key opens, by column and row (from the last pass). */
  readonly unreadable: ReadonlyArray<{ readonly column: string } & Resealing.Unreadable>
}

const MAX_PASSES = 3

/**
 * Runs `pass` (one walk over every place holding sealed values) until a pass has nothing left to re-seal — a write
 * that sealed under the old key just before the switch is caught by the next pass — at most three times.
 */
export const resealAll = <E, R>(pass: Effect.Effect<ReadonlyArray<Resealing.Report>, E, R>) =>
  Effect.gen(function* () {
    const passes: Array<ReadonlyArray<Resealing.Report>> = []
    for (;;) {
      const reports = yield* pass
      passes.push(reports)
      const settled = reports.every((report) => report.resealed === 0 && report.changedMeanwhile === 0)
      if (settled || passes.length === MAX_PASSES) {
        const unreadable = reports.flatMap((report) =>
          report.unreadable.map((value) => ({ column: report.column, ...value }))
        )
        return { passes, settled, unreadable } satisfies Resealed
      }
    }
  })

/** What `rotateKeyFile` did. */
export interface Rotated {
  /** The current key's id. */
  readonly keyId: string
  /** Whether this run made the new key, or finished a rotation a stopped run had begun. */
  readonly resumed: boolean
  /** The previous keys dropped from the file (none when `finished` is false). */
  readonly retired: ReadonlyArray<string>
  /** Every readable value is under the new key and the file holds it alone. */
  readonly finished: boolean
  readonly resealed: Resealed
}

/**
 * Rotates the ring kept in the key file `path`:
 *
 * 1. the file gets a new current key, the old one kept as previous (an atomic replace); a file that already holds
 *    previous keys is a rotation a stopped run began, finished here without a new key;
 * 2. `use` makes this process seal under the new key and still open with the old one;
 * 3. `reseal` walks every stored value until nothing is left under another key (`resealAll`);
 * 4. the file keeps the new key alone, and `use` says so — unless a value a previous key sealed could not be opened
 *    (a wrong associated data would be a bug of the walk): then the previous keys stay, and `finished` is false.
 *
 * After a crash at any step the file holds the old ring or the new one, and every value is under a key it names.
 */
export const rotateKeyFile = <E, R>(
  path: string,
  steps: {
    readonly use: (ring: KeyRing.KeyRing) => Effect.Effect<void>
    readonly reseal: Effect.Effect<ReadonlyArray<Resealing.Report>, E, R>
  }
): Effect.Effect<Rotated, KeyFile.KeyFileError | E, R> =>
  Effect.gen(function* () {
    const found = yield* KeyFile.read(path)
    const resumed = found.previous.length > 0
    let ring = found
    if (!resumed) {
      const next = yield* Effect.sync(() => KeyRing.key(KeyRing.generate()))
      if (next._tag === "Failure") return yield* Effect.die(new Error(next.failure))
      ring = KeyRing.rotate(found, next.success)
      yield* KeyFile.replace(path, ring)
    }
    yield* steps.use(ring)
    const resealed = yield* resealAll(steps.reseal)
    const previousIds = new Set(ring.previous.map((key) => key.id))
    const stranded = resealed.unreadable.some((value) => value.keyId !== undefined && previousIds.has(value.keyId))
    const finished = resealed.settled && !stranded
    if (finished) {
      const retired = KeyRing.retire(ring)
      yield* KeyFile.replace(path, retired)
      yield* steps.use(retired)
    }
    return {
      keyId: ring.current.id,
      resumed,
      retired: finished ? [...previousIds] : [],
      finished,
      resealed
    } satisfies Rotated
  })
