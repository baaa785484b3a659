import { Access } from "@tawsil/access"
import { StoreApi } from "@tawsil/api/store/Api"
import { reasons } from "@tawsil/api/store/access/Api"
import { Caller, RequestBody } from "@tawsil/api/store/Endpoint"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, ok, store } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "access",
  Effect.fnUntraced(function* (handlers) {
    const access = yield* Access.Access
    return handlers
      .handle(
        "whoami",
        Effect.fnUntraced(function* () {
          const caller = yield* Caller
          if (caller.kind === "public_key") {
            return yield* Effect.die(new Error("whoami runs behind Gate, which never lets a public key through"))
          }
          return yield* ok({
            auth: caller.kind,
            key:
              caller.kind === "platform_key"
                ? {
                    key_id: caller.keyId,
                    type: caller.keyType,
                    name: caller.name,
                    rate_limit_tier: caller.rateLimitTier
                  }
                : null,
            store: { id: caller.store.id, name: caller.store.name, slug: caller.store.slug },
            plan: caller.store.plan,
            pilot: caller.pilot,
            scopes: caller.scopes
          })
        })
      )
      .handle(
        "listKeys",
        Effect.fnUntraced(function* () {
          return yield* answer(access.listKeys(yield* store), reasons)
        })
      )
      .handleRaw(
        "createKey",
        Effect.fnUntraced(function* () {
          return yield* answer(access.createKey(yield* Caller, yield* RequestBody), reasons)
        })
      )
      .handle(
        "revokeKey",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(access.revokeKey(yield* store, params.key_id), reasons)
        })
      )
      .handle(
        "usage",
        Effect.fnUntraced(function* () {
          return yield* answer(access.usage(yield* store), reasons)
        })
      )
      .handle(
        "usageHistory",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(access.usageHistory(yield* store, query), reasons)
        })
      )
      .handle(
        "quotas",
        Effect.fnUntraced(function* () {
          return yield* answer(access.quotas(yield* store), reasons)
        })
      )
  })
)
