/**
 * A store's courier accounts (`POST`, `GET /v1/shipping/accounts`, `DELETE /v1/shipping/accounts/{id}`;
 * docs/cod-loop.md): the credentials a store keeps at a courier so that its orders can be shipped and followed
 * without sending them on every call — the store's opt-in; the shipping API itself still takes credentials per call
 * and stores none.
 *
 * - A create checks the credentials as the shipping API does (the courier's fields, its tenant's base URL) and with
 *   the courier's own credential check where it has one: a refusal answers with the courier's words and stores
 *   nothing. A webhook secret is taken only for a courier that pushes, checked by its adapter's schema.
 * - Credentials and the webhook secret are sealed (`@tawsil/secrets`) before they are stored, bound to their store,
 *   courier and column, and opened only for a courier call (`open`) or a push's verification (`forHook`). They are
 *   never answered, logged or traced: an account shows its courier, label, fingerprint and dates.
 */

import { type Resealing, Secrets, SecretsError } from "@tawsil/secrets"
import { Gateway, type Shipping } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Redacted, Result, Schema } from "effect"
import * as CourierAccount from "./CourierAccount.ts"
import { CourierAccountStore } from "./CourierAccountStore.ts"
import * as ShipmentsError from "./ShipmentsError.ts"
import { TrackingStore } from "./TrackingStore.ts"

/** An account opened for one courier call: its credentials in clear, for this call only. */
export interface Opened {
  readonly account: CourierAccount.AccountRecord
  /** The call's `courier`, `credentials` and `options.baseUrl`, as the shipping gateway takes them. */
  readonly call: {
    readonly courier: string
    readonly credentials: Readonly<Record<string, string>> | undefined
    readonly options: { readonly baseUrl?: string }
  }
}

/** An account as the push receiver needs it. */
export interface HookAccount {
  readonly account: CourierAccount.AccountRecord
  /** Undefined when the account has no webhook secret. */
  readonly webhookSecret: Redacted.Redacted<string> | undefined
}

export class CourierAccounts extends Context.Service<
  CourierAccounts,
  {
    readonly create: (
      storeId: number,
      body: unknown
    ) => Effect.Effect<CourierAccount.View, ShipmentsError.ShipmentsError>
    readonly list: (storeId: number) => Effect.Effect<CourierAccount.List>
    readonly remove: (
      storeId: number,
      id: number
    ) => Effect.Effect<CourierAccount.Deleted, ShipmentsError.ShipmentsError>
    /** The account, its credentials opened for one courier call. */
    readonly open: (storeId: number, id: number) => Effect.Effect<Opened, ShipmentsError.ShipmentsError>
    /** Any store's account by id, its webhook secret opened; undefined when there is none. */
    readonly forHook: (id: number) => Effect.Effect<HookAccount | undefined, ShipmentsError.ShipmentsError>
  }
>()("@tawsil/shipments/CourierAccounts") {}

const refuse = (reason: ShipmentsError.ShipmentsErrorReason) => Effect.fail(ShipmentsError.fail(reason))

const unavailable = (error: SecretsError.SecretsError) =>
  ShipmentsError.fail(new ShipmentsError.SecretsUnavailable({ message: error.message }))

const notFound = (id: number) =>
  refuse(new ShipmentsError.AccountNotFound({ message: `Courier account ${id} not found` }))

/** Credentials as stored (sealed JSON) back to their fields. */
const CredentialsJson = Schema.fromJsonString(Schema.Record(Schema.String, Schema.String))

export const layer: Layer.Layer<
  CourierAccounts,
  never,
  CourierAccountStore | TrackingStore | Gateway.Gateway | Secrets.Secrets
> = Layer.effect(
  CourierAccounts,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* CourierAccountStore
    const tracking = yield* TrackingStore
    const gateway = yield* Gateway.Gateway
    const secrets = yield* Secrets.Secrets

    const pushes = (courier: string) => gateway.catalogue.resolve(courier)?.adapter.push !== undefined
    const viewOf = (account: CourierAccount.AccountRecord) => CourierAccount.view(account, pushes(account.courier))

    const findOrFail = Effect.fnUntraced(function* (storeId: number, id: number) {
      return (yield* store.find(storeId, id)) ?? (yield* notFound(id))
    })

    return CourierAccounts.of({
      create: method("CourierAccounts.create")(function* (storeId, body) {
        const parsed = CourierAccount.parseCreate(body)
        if (Result.isFailure(parsed)) {
          return yield* refuse(new ShipmentsError.InvalidShipmentsBody({ message: parsed.failure }))
        }
        const { courier, label, credentials = {}, webhook_secret, base_url } = parsed.success
        // Without a key nothing can be kept: refused before the courier is asked anything.
        if ((yield* secrets.ring) === undefined) {
          return yield* refuse(
            new ShipmentsError.SecretsUnavailable({
              message: new SecretsError.KeyMissing({ variable: SecretsError.KEY_VARIABLE }).message
            })
          )
        }
        const resolved = gateway.catalogue.resolve(courier)
        const call = {
          courier,
          credentials: Object.keys(credentials).length === 0 ? undefined : credentials,
          options: base_url === undefined ? {} : { baseUrl: base_url }
        }
        // The shipping API's own checks (courier, fields, tenant) and the courier's credential check where it has
        // one; a courier without a check has had its fields checked when the call was prepared.
        const checked = yield* gateway
          .checkCredentials(call)
          .pipe(
            Effect.catch((failure) =>
              failure._tag === "CourierError" && failure.reason._tag === "Unsupported"
                ? Effect.succeed<Shipping.CredentialsCheck>({ _tag: "Accepted" })
                : Effect.fail(ShipmentsError.courierFailed(failure))
            )
          )
        if (checked._tag === "Rejected") {
          return yield* refuse(
            new ShipmentsError.CredentialsRejected({
              message: `${resolved?.entry.key ?? courier} refused these credentials: ${checked.message}`
            })
          )
        }
        const key = resolved!.entry.key
        const push = resolved!.adapter.push
        let webhookSecret: Redacted.Redacted<string> | undefined
        if (webhook_secret !== undefined) {
          if (push === undefined) {
            return yield* refuse(
              new ShipmentsError.Unsupported({
                message: `${key} does not push tracking: send no webhook_secret (its parcels are polled)`
              })
            )
          }
          const decoded = Schema.decodeUnknownResult(push.secret)(webhook_secret)
          if (Result.isFailure(decoded)) {
            return yield* refuse(
              new ShipmentsError.InvalidShipmentsBody({
                message: `webhook_secret is not a ${key} webhook secret: ${decoded.failure.message}`
              })
            )
          }
          webhookSecret = decoded.success
        }
        const canonical = Redacted.make(CourierAccount.canonical(credentials))
        const sealedCredentials = yield* secrets
          .seal(canonical, CourierAccount.sealedAt(storeId, key, "credentials"))
          .pipe(Effect.mapError(unavailable))
        const fingerprint = yield* secrets.fingerprint(canonical).pipe(Effect.mapError(unavailable))
        const sealedSecret =
          webhookSecret === undefined
            ? null
            : yield* secrets
                .seal(webhookSecret, CourierAccount.sealedAt(storeId, key, "webhook_secret"))
                .pipe(Effect.mapError(unavailable))
        const account = yield* store.insert({
          storeId,
          courier: key,
          label,
          baseUrl: base_url ?? null,
          credentials: sealedCredentials,
          webhookSecret: sealedSecret,
          fingerprint
        })
        return viewOf(account)
      }),

      list: method("CourierAccounts.list")(function* (storeId) {
        return { items: (yield* store.list(storeId)).map(viewOf) }
      }),

      remove: method("CourierAccounts.remove")(function* (storeId, id) {
        yield* findOrFail(storeId, id)
        const following = yield* tracking.following(id)
        if (following > 0) {
          return yield* refuse(
            new ShipmentsError.AccountInUse({
              message: `Courier account ${id} carries ${following} parcel${following === 1 ? "" : "s"} still on their way: they are followed through it until they arrive or return`
            })
          )
        }
        if (!(yield* store.remove(storeId, id))) return yield* notFound(id)
        return { deleted: true as const, id }
      }),

      open: method("CourierAccounts.open")(function* (storeId, id) {
        const account = yield* findOrFail(storeId, id)
        const opened = yield* secrets
          .open(account.credentials, CourierAccount.sealedAt(storeId, account.courier, "credentials"))
          .pipe(Effect.mapError(unavailable))
        const credentials = yield* Schema.decodeUnknownEffect(CredentialsJson)(Redacted.value(opened)).pipe(
          Effect.orDie
        )
        return {
          account,
          call: {
            courier: account.courier,
            credentials: Object.keys(credentials).length === 0 ? undefined : credentials,
            options: account.baseUrl === null ? {} : { baseUrl: account.baseUrl }
          }
        }
      }),

      forHook: method("CourierAccounts.forHook")(function* (id) {
        const account = yield* store.findById(id)
        if (account === undefined) return undefined
        if (account.webhookSecret === null) return { account, webhookSecret: undefined }
        const webhookSecret = yield* secrets
          .open(account.webhookSecret, CourierAccount.sealedAt(account.storeId, account.courier, "webhook_secret"))
          .pipe(Effect.mapError(unavailable))
        return { account, webhookSecret }
      })
    })
  })
)

/**
 * The accounts' sealed columns, as a key rotation walks them (`Resealing.run` of `@tawsil/secrets`): each value is
 * opened with the associated data it was sealed with and sealed again under the current key, only where it is
 * still what was read.
 */
export const sealedColumns: ReadonlyArray<Resealing.Column<number, never, CourierAccountStore>> = (
  ["credentials", "webhook_secret"] as const
).map((column) => ({
  name: `courier_accounts.${column}`,
  page: ({ after, limit, currentPrefix }) =>
    Effect.flatMap(CourierAccountStore, (store) =>
      Effect.map(store.sealedPage(column, { after, limit, skip: currentPrefix }), (rows) =>
        rows.map((row) => ({
          id: row.id,
          sealed: row.sealed,
          associatedData: CourierAccount.sealedAt(row.storeId, row.courier, column)
        }))
      )
    ),
  replace: (stored, resealed) =>
    Effect.flatMap(CourierAccountStore, (store) => store.replaceSealed(column, stored.id, stored.sealed, resealed))
}))
