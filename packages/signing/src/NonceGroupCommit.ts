/**
 * Group commit of nonces: the calls that arrive within a few milliseconds (`window`, or until `maxSize` are waiting)
 * have their nonces recorded by one `record` of them all — one statement for the SQL store — and each call is
 * answered by its own entry of the result. A signed call then waits for its group's statement, not for a round trip
 * of its own, and the database takes one statement for many calls.
 *
 * The single-use rule is unchanged: a nonce is fresh only if `record` says it was newly recorded; of the calls of one
 * group sharing a key and nonce, only the first is recorded and the others are refused as replays, whatever `record`
 * answers (so `record` never sees one twice). When `record` fails or dies, every call of the group fails with it: a
 * call is never let through on a nonce that was not recorded.
 *
 * Built on effect's `RequestResolver` (`setDelay` for the window, `batchN` for the size): each call is an
 * `Effect.request`, so its fiber just waits for its entry to be completed.
 */
import { Duration, Effect, Exit, Request, RequestResolver } from "effect"
import * as Nonce from "./Nonce.ts"

/** A nonce to record for a key; `nonce` is normalised (`Nonce.normalize`). */
export interface Entry {
  readonly keyId: string
  readonly nonce: string
}

/**
 * Records distinct entries at once, and says of each, in order, whether it was newly recorded (false: already used
 * within its lifetime).
 */
export type RecordAll = (entries: ReadonlyArray<Entry>) => Effect.Effect<ReadonlyArray<boolean>>

export interface Options {
  /** How long a group collects calls after its first; default 2 ms. */
  readonly window?: Duration.Input | undefined
  /** The most calls of one group (it is recorded at once when full); default 500. */
  readonly maxSize?: number | undefined
}

interface Consume extends Request.Request<boolean> {
  readonly keyId: string
  readonly nonce: string
}
const Consume = Request.of<Consume>()

/** `consume` (as `NonceStore`'s) over `recordAll`, in groups. */
export const make = (
  recordAll: RecordAll,
  options: Options = {}
): ((keyId: string, nonce: string) => Effect.Effect<boolean>) => {
  const resolver = RequestResolver.make<Consume>((entries) =>
    Effect.suspend(() => {
      const firsts = new Map<string, Request.Entry<Consume>>()
      for (const entry of entries) {
        const id = `${entry.request.keyId} ${entry.request.nonce}`
        if (firsts.has(id)) entry.completeUnsafe(Exit.succeed(false))
        else firsts.set(id, entry)
      }
      const group = Array.from(firsts.values())
      return Effect.map(
        recordAll(group.map(({ request }) => ({ keyId: request.keyId, nonce: request.nonce }))),
        (fresh) => {
          for (let index = 0; index < group.length; index++) {
            group[index]!.completeUnsafe(Exit.succeed(fresh[index] === true))
          }
        }
      )
    })
  ).pipe(RequestResolver.setDelay(options.window ?? Duration.millis(2)), RequestResolver.batchN(options.maxSize ?? 500))
  return (keyId, nonce) => Effect.request(Consume({ keyId, nonce: Nonce.normalize(nonce) }), resolver)
}
