/**
 * Where a store's courier accounts live: the port `CourierAccounts` works through, and its in-memory implementation.
 * The SQL implementation is `CourierAccountStoreSql`. The store keeps sealed values as given and never opens them;
 * every method but `findById` (the push receiver's, which knows no store yet) and the re-sealing walk is scoped by
 * store id.
 */
import { Clock, Context, DateTime, Effect, Layer } from "effect"
import type { AccountRecord, NewAccount } from "./CourierAccount.ts"

/** A sealed column of the accounts, as the key rotation's walk reads it. */
export type SealedColumn = "credentials" | "webhook_secret"

export interface SealedValue {
  readonly id: number
  readonly storeId: number
  readonly courier: string
  readonly sealed: string
}

export class CourierAccountStore extends Context.Service<
  CourierAccountStore,
  {
    readonly insert: (account: NewAccount) => Effect.Effect<AccountRecord>
    /** The store's accounts, oldest first. */
    readonly list: (storeId: number) => Effect.Effect<ReadonlyArray<AccountRecord>>
    readonly find: (storeId: number, id: number) => Effect.Effect<AccountRecord | undefined>
    /** Any store's account: the push receiver is addressed by the account alone. */
    readonly findById: (id: number) => Effect.Effect<AccountRecord | undefined>
    readonly remove: (storeId: number, id: number) => Effect.Effect<boolean>
    /** Up to `limit` values of a sealed column after account `after`, by id, leaving out those that start with `skip`. */
    readonly sealedPage: (
      column: SealedColumn,
      options: { readonly after: number | undefined; readonly limit: number; readonly skip: string }
    ) => Effect.Effect<ReadonlyArray<SealedValue>>
    /** Replaces a sealed value only where it is still `was`; true when it did. */
    readonly replaceSealed: (column: SealedColumn, id: number, was: string, resealed: string) => Effect.Effect<boolean>
  }
>()("@tawsil/shipments/CourierAccountStore") {}

const columnOf = (account: AccountRecord, column: SealedColumn) =>
  column === "credentials" ? account.credentials : account.webhookSecret

export const layerMemory: Layer.Layer<CourierAccountStore> = Layer.sync(CourierAccountStore, () => {
  const accounts = new Map<number, AccountRecord>()
  let last = 0
  const now = Effect.map(Clock.currentTimeMillis, DateTime.makeUnsafe)
  return CourierAccountStore.of({
    insert: (account) =>
      Effect.map(now, (at) => {
        const record: AccountRecord = { ...account, id: ++last, createdAt: at, updatedAt: at }
        accounts.set(record.id, record)
        return record
      }),
    list: (storeId) => Effect.sync(() => [...accounts.values()].filter((account) => account.storeId === storeId)),
    find: (storeId, id) =>
      Effect.sync(() => {
        const account = accounts.get(id)
        return account?.storeId === storeId ? account : undefined
      }),
    findById: (id) => Effect.sync(() => accounts.get(id)),
    remove: (storeId, id) => Effect.sync(() => accounts.get(id)?.storeId === storeId && accounts.delete(id)),
    sealedPage: (column, { after, limit, skip }) =>
      Effect.sync(() =>
        [...accounts.values()]
          .filter((account) => {
            const sealed = columnOf(account, column)
            return (after === undefined || account.id > after) && sealed !== null && !sealed.startsWith(skip)
          })
          .sort((a, b) => a.id - b.id)
          .slice(0, limit)
          .map((account) => ({
            id: account.id,
            storeId: account.storeId,
            courier: account.courier,
            sealed: columnOf(account, column)!
          }))
      ),
    replaceSealed: (column, id, was, resealed) =>
      Effect.sync(() => {
        const account = accounts.get(id)
        if (account === undefined || columnOf(account, column) !== was) return false
        accounts.set(
          id,
          column === "credentials" ? { ...account, credentials: resealed } : { ...account, webhookSecret: resealed }
        )
        return true
      })
  })
})
