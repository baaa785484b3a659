/**
 * The operator's side of access, used by the admin CLI and by tests to set stores up: create a store with its first
 * platform key, change its plan, mint keys (public keys are activated here, as support would) and installed-app
 * tokens, and override its limits. Inputs are checked with the schemas below; results are JSON-ready through the
 * result schemas, which turn the `Redacted` secrets into text only when encoded.
 */

import { randomBytes } from "node:crypto"
import { AlgiersTime, Ids, Plans } from "@tawsil/domain"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { mintKey, storesSql } from "./Access.ts"
import { AccessEvents } from "./AccessEvents.ts"
import * as AdminError from "./AdminError.ts"
import * as Credentials from "./Credentials.ts"
import { type KeyRecord, type KeyStatus, KeyStore, type StoreRecord } from "./KeyStore.ts"
import * as Keys from "./Keys.ts"
import * as Limits from "./Limits.ts"
import * as Scopes from "./Scopes.ts"
import * as Usage from "./Usage.ts"
import { UsageStore } from "./UsageStore.ts"

const Secret = Schema.RedactedFromValue(Schema.String)
const Language = Schema.Literals(["ar", "fr"])

/** "plan must be free, pro, unlimited or enterprise", from the plan names. */
const Plan = Plans.Plan.annotate({
  message: `plan must be ${Plans.PLANS.slice(0, -1).join(", ")} or ${Plans.PLANS[Plans.PLANS.length - 1]}`
})

export const CreateStoreInput = Schema.Struct({
  name: Schema.String.check(
    Schema.isTrimmed({ message: "name must not start or end with spaces" }),
    Schema.isBetweenLength(1, 255, { message: "name must be 1 to 255 characters" })
  ),
  plan: Schema.optionalKey(Plan),
  pilot: Schema.optionalKey(Schema.Boolean),
  language: Schema.optionalKey(Language.annotate({ message: "language must be ar or fr" }))
})
export type CreateStoreInput = typeof CreateStoreInput.Type

export const QuotaInput = Schema.Struct({
  /** A limit, -1 for unlimited, or null to fall back to the tier's. */
  requestsPerMinute: Schema.optionalKey(Schema.NullOr(Limits.LimitValue)),
  requestsPerMonth: Schema.optionalKey(Schema.NullOr(Limits.LimitValue))
})
export type QuotaInput = typeof QuotaInput.Type

export const Store = Schema.Struct({
  id: Ids.StoreId,
  name: Schema.String,
  slug: Schema.String,
  plan: Schema.String,
  pilot: Schema.Boolean,
  language: Language,
  created_at: Schema.String
})
export type Store = typeof Store.Type

export const CreatedStore = Schema.Struct({
  store: Store,
  platform_key: Schema.Struct({ key_id: Schema.String, bearer_token: Secret })
})
export type CreatedStore = typeof CreatedStore.Type

export const CreatedKey = Schema.Struct({
  key_id: Schema.String,
  type: Schema.Literals(["platform", "public"]),
  status: Schema.Literal("active"),
  bearer_token: Schema.NullOr(Secret),
  signing_secret: Schema.NullOr(Secret)
})
export type CreatedKey = typeof CreatedKey.Type

/** A key as the operator sees it after changing it. */
export const KeyState = Schema.Struct({
  key_id: Schema.String,
  store_id: Ids.StoreId,
  type: Schema.Literals(["platform", "public"]),
  status: Schema.Literals(["active", "suspended", "revoked"]),
  pilot: Schema.Boolean
})
export type KeyState = typeof KeyState.Type

export const CreatedAppToken = Schema.Struct({
  store_id: Ids.StoreId,
  scopes: Schema.Array(Schema.String),
  token: Secret
})
export type CreatedAppToken = typeof CreatedAppToken.Type

export class Admin extends Context.Service<
  Admin,
  {
    /** A store (slug derived from the name, unique) with its first platform key, pilot-enrolled unless told. */
    readonly createStore: (input: CreateStoreInput) => Effect.Effect<CreatedStore, AdminError.AdminError>
    readonly setPlan: (storeId: number, plan: string) => Effect.Effect<Store, AdminError.AdminError>
    /** An active key of `type` (public keys too), within the store's 3 keys. */
    readonly createKey: (
      storeId: number,
      type: string,
      name?: string | undefined
    ) => Effect.Effect<CreatedKey, AdminError.AdminError>
    readonly createAppToken: (
      storeId: number,
      scopes: ReadonlyArray<string>
    ) => Effect.Effect<CreatedAppToken, AdminError.AdminError>
    /** Overrides the store's per-minute and monthly request limits; returns its quotas. */
    readonly setQuota: (storeId: number, input: QuotaInput) => Effect.Effect<Usage.Quotas, AdminError.AdminError>
    /**
     * Activates (a public key waiting for support, a suspended key), suspends or revokes a key; a revoked key stays
     * revoked.
     */
    readonly setKeyStatus: (keyId: string, status: string) => Effect.Effect<KeyState, AdminError.AdminError>
    /** Enrols a key in the pilot, or takes it out (its calls then answer 403). */
    readonly setKeyPilot: (keyId: string, pilot: boolean) => Effect.Effect<KeyState, AdminError.AdminError>
  }
>()("@tawsil/access/Admin") {}

/**
 * A slug from a store name: Latin letters without their accents, digits and single hyphens, at most 50 characters;
 * a name with none of those (an Arabic name) gets `store-` and 6 random hex characters.
 */
export const slugify = (name: string): string => {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50)
    .replace(/-+$/, "")
  return slug === "" ? `store-${randomBytes(3).toString("hex")}` : slug
}

const toStore = (store: StoreRecord): Store => ({
  id: store.id,
  name: store.name,
  slug: store.slug,
  plan: store.plan,
  pilot: store.pilot,
  language: store.language,
  created_at: AlgiersTime.formatSql(store.createdAt)
})

/** Decodes an input, failing with the first issue's message. */
const decode = <S extends Schema.Decoder<unknown>>(schema: S, input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input).pipe(
    Effect.mapError((error) => AdminError.fail(new AdminError.InvalidAdminInput({ message: firstMessage(error) })))
  ) as Effect.Effect<S["Type"], AdminError.AdminError>

const firstMessage = (error: Schema.SchemaError): string => {
  const lines = error.message.split("\n")
  return lines.find((line) => line.trim() !== "" && !line.trim().startsWith("at "))?.trim() ?? "invalid input"
}

const StoreIdInput = Ids.StoreId
const KeyTypeInput = Schema.Literals(["platform", "public"]).annotate({ message: "type must be platform or public" })
const ScopesInput = Schema.Array(Scopes.Scope).check(
  Schema.isMinLength(1, { message: "scopes must name at least one scope" })
)

const storeNotFound = (storeId: number) =>
  AdminError.fail(new AdminError.StoreNotFound({ message: `Store ${storeId} not found` }))

const KeyStatusInput = Schema.Literals(["active", "suspended", "revoked"]).annotate({
  message: "status must be active, suspended or revoked"
})

const keyState = (key: KeyRecord): KeyState => ({
  key_id: key.keyId,
  store_id: key.storeId,
  type: key.type,
  status: key.status,
  pilot: key.pilot
})

/**
 * Every change is announced on `AccessEvents` once it is stored, so that running servers drop what they cached and
 * the next request sees it.
 */
export const layer: Layer.Layer<Admin, never, KeyStore | UsageStore | AccessEvents> = Layer.effect(
  Admin,
  Effect.gen(function* () {
    const keyStore = yield* KeyStore
    const usageStore = yield* UsageStore
    const events = yield* AccessEvents

    const changeKey = Effect.fnUntraced(function* (
      keyId: string,
      change: { readonly status?: KeyStatus | undefined; readonly pilot?: boolean | undefined }
    ) {
      const updated = yield* keyStore.updateKey(keyId, change)
      if (Option.isNone(updated)) {
        return yield* AdminError.fail(new AdminError.KeyNotFound({ message: `Key ${keyId} not found or revoked` }))
      }
      return keyState(updated.value)
    })

    const existing = Effect.fnUntraced(function* (storeId: number) {
      const id = yield* decode(StoreIdInput, storeId)
      const store = yield* keyStore.findStore(id)
      if (Option.isNone(store)) return yield* storeNotFound(storeId)
      return store.value
    })

    const tooMany = () => Effect.fail(AdminError.fail(new AdminError.TooManyKeys({ message: Keys.TOO_MANY_KEYS })))
    const gone = (storeId: number) => () => Effect.fail(storeNotFound(storeId))

    /** The operation, announced once it succeeded. */
    const announced =
      <Args extends ReadonlyArray<unknown>, A, E>(
        operation: (...args: Args) => Effect.Effect<A, E>
      ): ((...args: Args) => Effect.Effect<A, E>) =>
      (...args) =>
        Effect.tap(operation(...args), () => events.announce)

    const operations = {
      createStore: Effect.fn("Admin.createStore")(function* (raw) {
        const input = yield* decode(CreateStoreInput, raw)
        const pilot = input.pilot ?? true
        const minted = mintKey({
          type: "platform",
          name: Keys.DEFAULT_NAME,
          pilot,
          rateLimitTier: Limits.TIER,
          status: "active",
          createdVia: "dashboard"
        })
        const created = yield* keyStore.createStore(
          {
            name: input.name,
            slugBase: slugify(input.name),
            plan: input.plan ?? Limits.API_PLAN,
            pilot,
            language: input.language ?? "ar"
          },
          minted.key
        )
        return {
          store: toStore(created.store),
          platform_key: { key_id: created.key.keyId, bearer_token: minted.bearerToken! }
        }
      }),
      setPlan: Effect.fn("Admin.setPlan")(function* (storeId, raw) {
        const plan = yield* decode(Plan, raw)
        const id = yield* decode(StoreIdInput, storeId)
        const updated = yield* keyStore.setPlan(id, plan)
        if (Option.isNone(updated)) return yield* gone(storeId)()
        return toStore(updated.value)
      }),
      createKey: Effect.fn("Admin.createKey")(function* (storeId, rawType, name) {
        const type = yield* decode(KeyTypeInput, rawType)
        const store = yield* existing(storeId)
        const minted = mintKey({
          type,
          name: Keys.keyName(name),
          pilot: store.pilot,
          rateLimitTier: Limits.TIER,
          status: "active",
          createdVia: "dashboard"
        })
        yield* keyStore
          .insertKey(store.id, minted.key, Keys.MAX_ACTIVE_KEYS)
          .pipe(Effect.catchTags({ KeyLimitReached: tooMany, StoreNotFound: gone(storeId) }))
        return {
          key_id: minted.key.keyId,
          type,
          status: "active" as const,
          bearer_token: minted.bearerToken,
          signing_secret: minted.signingSecret
        }
      }),
      createAppToken: Effect.fn("Admin.createAppToken")(function* (storeId, rawScopes) {
        const scopes = [...new Set(yield* decode(ScopesInput, rawScopes))]
        const store = yield* existing(storeId)
        const token = Credentials.newAppToken()
        yield* keyStore
          .insertAppToken(store.id, Credentials.sha256(token), scopes)
          .pipe(Effect.catchTag("StoreNotFound", gone(storeId)))
        return { store_id: store.id, scopes, token }
      }),
      setQuota: Effect.fn("Admin.setQuota")(function* (storeId, raw) {
        const input = yield* decode(QuotaInput, raw)
        const store = yield* existing(storeId)
        const override = yield* usageStore.setOverride(store.id, input)
        const tier = Limits.tierLimits(Limits.TIER)
        return Usage.toQuotas(tier, override, Limits.effective(tier, override))
      }),
      setKeyStatus: Effect.fn("Admin.setKeyStatus")(function* (keyId, raw) {
        const status = yield* decode(KeyStatusInput, raw)
        return yield* changeKey(keyId, { status })
      }),
      setKeyPilot: Effect.fn("Admin.setKeyPilot")(function* (keyId: string, pilot: boolean) {
        return yield* changeKey(keyId, { pilot })
      })
    }
    return Admin.of({
      createStore: announced(operations.createStore),
      setPlan: announced(operations.setPlan),
      createKey: announced(operations.createKey),
      createAppToken: announced(operations.createAppToken),
      setQuota: announced(operations.setQuota),
      setKeyStatus: announced(operations.setKeyStatus),
      setKeyPilot: announced(operations.setKeyPilot)
    })
  })
)

/** `Admin` on PostgreSQL, needing `SqlClient` and where its announcements go. */
export const layerSql: Layer.Layer<Admin, never, SqlClient.SqlClient | AccessEvents> = layer.pipe(
  Layer.provide(storesSql)
)
