/**
 * What idempotency knows of a request and its answer: the key, whose keys they are, what the request was, the claim
 * that holds a key and the answer kept for it. The port (`IdempotencyStore`) keeps these and the rules
 * (`Idempotency`, which re-exports them) decide with them; they sit apart so neither module imports the other's.
 */
import { Data, Schema } from "effect"

export const IdempotencyKey = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_\-:.]{1,64}$/, {
    message: "Expected an idempotency key, 1 to 64 characters among A-Z a-z 0-9 _ - : ."
  })
).pipe(Schema.brand("IdempotencyKey"))
export type IdempotencyKey = typeof IdempotencyKey.Type

const Sha256Hex = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/))

/** Whose keys these are: a keyed hash of the parts that identify the caller. */
export const Scope = Sha256Hex.pipe(Schema.brand("IdempotencyScope"))
export type Scope = typeof Scope.Type

/** What the request was: a keyed hash of its method, path and canonical body. */
export const Fingerprint = Sha256Hex.pipe(Schema.brand("RequestFingerprint"))
export type Fingerprint = typeof Fingerprint.Type

/** A request as idempotency sees it. */
export interface Request {
  readonly scope: Scope
  readonly key: IdempotencyKey
  readonly fingerprint: Fingerprint
}

/** An answer as it was sent, replayed byte for byte. */
export class StoredResponse extends Schema.Class<StoredResponse>("@tawsil/idempotency/StoredResponse")({
  status: Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 })),
  headers: Schema.Record(Schema.String, Schema.String),
  body: Schema.String
}) {}

/** The key is ours: do the work, then `complete` with the answer or `release`. */
export class Claimed extends Data.TaggedClass("Claimed")<Request & { readonly token: string }> {}
