/**
 * A store's account at a courier (docs/cod-loop.md, "Courier accounts and their secrets"): what a create sends, what
 * the API shows of it, and its fingerprint. The credentials and the webhook secret are write-only: they are sealed
 * before they are stored and never shown again; an account shows its courier, its label, a fingerprint of its
 * credentials and its dates.
 */
import { AlgiersTime, StoreText } from "@tawsil/domain"
import { type DateTime, type Result, Schema } from "effect"
import { decodeBody } from "./internal/body.ts"

const text = (minimum: number, maximum: number) =>
  Schema.String.check(Schema.isBetweenLength(minimum, maximum), StoreText.storable())

/** `POST /v1/shipping/accounts`. */
export const CreateBody = Schema.Struct({
  /** A courier key or alias of `GET /v1/couriers`. */
  courier: text(1, 100),
  /** The merchant's name for the account ("Yalidine Alger"). */
  label: text(1, 80),
  /** The fields the courier's catalogue entry names (`credentials`), as for every shipping call. */
  credentials: Schema.optionalKey(Schema.Record(text(1, 64), text(0, 512))),
  /** For couriers that push (`push` in `GET /v1/couriers`): the secret their dashboard shows for your webhook. */
  webhook_secret: Schema.optionalKey(text(1, 512)),
  /** Tenant platforms (Ecotrack): your tenant's `https://<tenant>.<domain>`. */
  base_url: Schema.optionalKey(text(1, 200))
}).annotate({ identifier: "CourierAccountCreate" })
export type CreateBody = typeof CreateBody.Type

export const parseCreate: (body: unknown) => Result.Result<CreateBody, string> = decodeBody(
  CreateBody,
  "{ courier, label, credentials, webhook_secret?, base_url? }"
)

/** An account as the API shows it. */
export const View = Schema.Struct({
  id: Schema.Int,
  /** The courier's key (an alias sent at create is read as its courier). */
  courier: Schema.String,
  label: Schema.String,
  base_url: Schema.NullOr(Schema.String),
  /**
   * Tells credentials apart without showing them: `<key id>:<12 hex>`, an HMAC of the credentials (fields sorted by
   * name) under the secret key of the moment (never in the database), so it cannot be checked against guesses.
   */
  fingerprint: Schema.String,
  /** Whether the courier pushes tracking, and where: set the URL and the secret in its dashboard. */
  push: Schema.Struct({
    supported: Schema.Boolean,
    webhook_secret_set: Schema.Boolean,
    /** The receiver's path on this API's public listener; null when the courier does not push. */
    url: Schema.NullOr(Schema.String)
  }),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "CourierAccount" })
export type View = typeof View.Type

export const List = Schema.Struct({ items: Schema.Array(View) }).annotate({ identifier: "CourierAccounts" })
export type List = typeof List.Type

export const Deleted = Schema.Struct({ deleted: Schema.Literal(true), id: Schema.Int }).annotate({
  identifier: "CourierAccountDeleted"
})
export type Deleted = typeof Deleted.Type

/** An account as stored: its secrets sealed. */
export interface AccountRecord {
  readonly id: number
  readonly storeId: number
  readonly courier: string
  readonly label: string
  readonly baseUrl: string | null
  /** The credentials' JSON, sealed (`@tawsil/secrets`). */
  readonly credentials: string
  /** The webhook secret, sealed; null when none was given. */
  readonly webhookSecret: string | null
  readonly fingerprint: string
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/** What `CourierAccountStore.insert` is given. */
export type NewAccount = Omit<AccountRecord, "id" | "createdAt" | "updatedAt">

/** The canonical JSON of credentials: fields sorted by name. */
export const canonical = (credentials: Readonly<Record<string, string>>): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.keys(credentials)
        .sort()
        .map((name) => [name, credentials[name]])
    )
  )

/** Where a sealed value of an account belongs: the associated data that binds it to its store, courier and column. */
export const sealedAt = (storeId: number, courier: string, column: "credentials" | "webhook_secret") =>
  `courier_accounts:${storeId}:${courier}:${column}`

/** The receiver's path for an account. */
export const hookPath = (id: number) => `/v1/hooks/couriers/${id}`

export const view = (account: AccountRecord, pushes: boolean): View => ({
  id: account.id,
  courier: account.courier,
  label: account.label,
  base_url: account.baseUrl,
  fingerprint: account.fingerprint,
  push: {
    supported: pushes,
    webhook_secret_set: account.webhookSecret !== null,
    url: pushes ? hookPath(account.id) : null
  },
  created_at: AlgiersTime.formatSql(account.createdAt),
  updated_at: AlgiersTime.formatSql(account.updatedAt)
})
