import { StoreApi } from "@tawsil/api/store/Api"
import { entityFailure, reasons } from "@tawsil/api/store/changes/Api"
import { Changes } from "@tawsil/changes"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../../Edge.ts"
import type * as Errors from "../Errors.ts"
import { actor, answer, ok, store } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "changes",
  Effect.fnUntraced(function* (handlers) {
    const changes = yield* Changes.Changes
    return handlers
      .handle(
        "listChanges",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(changes.list(yield* store, query), reasons)
        })
      )
      .handle(
        "getChange",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(changes.get(yield* actor, params.id), reasons)
        })
      )
      .handle(
        "undoChange",
        Effect.fnUntraced(function* ({ params }) {
          const requestId = yield* RequestId
          const undone = yield* changes.undo(yield* actor, params.id).pipe(
            // The engine's refusals, or the entity's own (answered as its write would be).
            Effect.catch((error) => {
              const failure =
                error._tag === "ChangeError"
                  ? (reasons.answer(error.reason as never, requestId) as Errors.Failure)
                  : entityFailure(error, requestId)
              // No undo answers 405 or 413: the declared failures are the write's, the engine's and the entities'.
              return failure === undefined
                ? Effect.die(error)
                : Effect.fail(failure as Exclude<Errors.Failure, Errors.MethodNotAllowed | Errors.PayloadTooLarge>)
            })
          )
          return yield* ok(undone)
        })
      )
  })
)
