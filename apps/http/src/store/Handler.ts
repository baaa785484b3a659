/**
 * What every store handler does with a domain call: answer its value as `{ data, meta }`, or its error as the wire
 * failure its reason maps to; and who is calling, in the shapes the domain services take.
 */

import { Caller } from "@tawsil/api/store/Endpoint"
import type * as Reasons from "@tawsil/api/store/Reasons"
import { Ids } from "@tawsil/domain"
import { Effect } from "effect"
import { RequestId } from "../Edge.ts"
import * as Errors from "./Errors.ts"

/** The answer `{ data, meta }` of this request. */
export const ok = <A>(data: A) => Effect.map(RequestId, (requestId) => ({ data, meta: Errors.metaOf(requestId) }))

/** A domain call answered: its value as `data`, its error's reason as the failure `reasons` map it to. */
export const answer = <A, E extends { readonly reason: R }, R extends Reasons.Reason, O, Env>(
  effect: Effect.Effect<A, E, Env>,
  reasons: Reasons.Mapping<R, O>
): Effect.Effect<{ readonly data: A; readonly meta: Errors.Meta }, Reasons.FailureOf<E["reason"], O>, Env> =>
  Effect.flatMap(RequestId, (requestId) =>
    effect.pipe(
      Effect.mapError((error) => reasons.answer(error.reason as never, requestId) as never),
      Effect.map((data) => ({ data, meta: Errors.metaOf(requestId) }))
    )
  )

/** The caller's store. */
export const store = Effect.map(Caller, (caller) => Ids.StoreId.make(caller.store.id))

/** Who writes, as the configuration services record it: the store, the key's id, whether it is a dashboard key. */
export const writer = Effect.map(Caller, (caller) => ({
  storeId: Ids.StoreId.make(caller.store.id),
  keyId: caller.keyId,
  dashboardKey: caller.dashboardKey
}))

/** Who reads or undoes changes: the store, the key's id and its scopes. */
export const actor = Effect.map(Caller, (caller) => ({
  storeId: Ids.StoreId.make(caller.store.id),
  keyId: caller.keyId,
  scopes: caller.scopes
}))
