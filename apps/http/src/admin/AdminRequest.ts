/**
 * The operator's operations as data: what the admin CLI asks, whether it runs the operation itself or sends it to
 * the running server's admin listener. `execute` runs one with `Admin` (and `PromoAddon` for the store's add-on,
 * `SecretKeys` for the secret key's re-seal and rotation) and answers the JSON object the CLI prints, minted secrets
 * in clear (that is the point of minting them; a secret key never: only its id).
 */
import { Admin, AdminError, Usage } from "@tawsil/access"
import { Ids } from "@tawsil/domain"
import { PromoAddon, PromoStoreSql } from "@tawsil/promos"
import type { KeyRotation } from "@tawsil/secrets"
import { Effect, Layer, Schema } from "effect"
import type { SqlError } from "effect/sql"
import { SecretKeys } from "./SecretKeys.ts"

const StoreId = Schema.Int

export const AdminRequest = Schema.Union([
  Schema.Struct({ op: Schema.Literal("store.create"), input: Admin.CreateStoreInput }),
  Schema.Struct({ op: Schema.Literal("store.set-plan"), storeId: StoreId, plan: Schema.String }),
  Schema.Struct({
    op: Schema.Literal("key.create"),
    storeId: StoreId,
    type: Schema.String,
    name: Schema.optionalKey(Schema.String)
  }),
  Schema.Struct({ op: Schema.Literal("app-token.create"), storeId: StoreId, scopes: Schema.Array(Schema.String) }),
  Schema.Struct({ op: Schema.Literal("quota.set"), storeId: StoreId, input: Admin.QuotaInput }),
  Schema.Struct({ op: Schema.Literal("key.set-status"), keyId: Schema.String, status: Schema.String }),
  Schema.Struct({ op: Schema.Literal("key.set-pilot"), keyId: Schema.String, pilot: Schema.Boolean }),
  Schema.Struct({ op: Schema.Literal("store.addon"), storeId: StoreId, promoCodes: Schema.Boolean }),
  Schema.Struct({ op: Schema.Literal("secrets.reseal") }),
  Schema.Struct({ op: Schema.Literal("secrets.rotate") })
])
export type AdminRequest = typeof AdminRequest.Type

/** A result as JSON; our own values always encode, so a failure here is a defect. */
const encode = <S extends Schema.Top & { readonly EncodingServices: never }>(schema: S, value: S["Type"]) =>
  Schema.encodeEffect(schema)(value).pipe(
    Effect.map((encoded) => encoded as Record<string, unknown>),
    Effect.orDie
  )

/** A store's add-ons after `store addon`. */
export const StoreAddons = Schema.Struct({
  store_id: Schema.Int,
  addons: Schema.Struct({ promo_codes: Schema.Boolean })
})

/** The operator's services on PostgreSQL, needing `SqlClient` and where `Admin`'s announcements go. */
export const layerSql = Layer.mergeAll(Admin.layerSql, PromoAddon.layer.pipe(Layer.provide(PromoStoreSql.layer)))

const storeNotFound = (storeId: number) =>
  AdminError.fail(new AdminError.StoreNotFound({ message: `Store ${storeId} not found` }))

/** What a re-seal did, for the operator: totals over its passes, and the values no key opens. */
const resealReport = (resealed: KeyRotation.Resealed) => {
  const reports = resealed.passes.flat()
  return {
    columns: [...new Set(reports.map((report) => report.column))],
    resealed: reports.reduce((total, report) => total + report.resealed, 0),
    passes: resealed.passes.length,
    settled: resealed.settled,
    unreadable: resealed.unreadable.map(({ column, id, reason, keyId }) => ({
      column,
      id,
      reason,
      ...(keyId === undefined ? {} : { key_id: keyId })
    }))
  }
}

/** Runs the operation; the answer is its result encoded for JSON. */
export const execute = (
  request: AdminRequest
): Effect.Effect<
  Record<string, unknown>,
  AdminError.AdminError | SqlError.SqlError,
  Admin.Admin | PromoAddon.PromoAddon | SecretKeys
> =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    switch (request.op) {
      case "store.create":
        return yield* encode(Admin.CreatedStore, yield* admin.createStore(request.input))
      case "store.set-plan":
        return yield* encode(Admin.Store, yield* admin.setPlan(request.storeId, request.plan))
      case "key.create":
        return yield* encode(Admin.CreatedKey, yield* admin.createKey(request.storeId, request.type, request.name))
      case "app-token.create":
        return yield* encode(Admin.CreatedAppToken, yield* admin.createAppToken(request.storeId, request.scopes))
      case "quota.set":
        return yield* encode(Usage.Quotas, yield* admin.setQuota(request.storeId, request.input))
      case "key.set-status":
        return yield* encode(Admin.KeyState, yield* admin.setKeyStatus(request.keyId, request.status))
      case "key.set-pilot":
        return yield* encode(Admin.KeyState, yield* admin.setKeyPilot(request.keyId, request.pilot))
      case "store.addon": {
        const addon = yield* PromoAddon.PromoAddon
        const valid = Schema.is(Ids.StoreId)(request.storeId)
        if (!valid || !(yield* addon.set(Ids.StoreId.make(request.storeId), request.promoCodes))) {
          return yield* storeNotFound(request.storeId)
        }
        return yield* encode(StoreAddons, { store_id: request.storeId, addons: { promo_codes: request.promoCodes } })
      }
      case "secrets.reseal": {
        const keys = yield* SecretKeys
        return resealReport(yield* keys.reseal)
      }
      case "secrets.rotate": {
        const rotated = yield* (yield* SecretKeys).rotate
        return {
          key_id: rotated.keyId,
          resumed: rotated.resumed,
          finished: rotated.finished,
          retired_key_ids: rotated.retired,
          ...resealReport(rotated.resealed)
        }
      }
    }
  })
