/**
 * A store's courier accounts through `CourierAccounts`, on memory, the embedded database and (with `DATABASE_URL`) the
 * real server: credentials checked by the courier and sealed before they are stored (a canary never appears in what
 * is stored or answered), write-only, opened for one courier call; webhook secrets for couriers that push; an account
 * still carrying parcels kept; the sealed columns re-sealed by a key rotation.
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import { Push } from "@tawsil/courier"
import type { Ids } from "@tawsil/domain"
import { KeyRing, Resealing, SecretBox, type Secrets } from "@tawsil/secrets"
import { Duration, Effect, Redacted, Ref, Result, Schema } from "effect"
import * as CourierAccount from "../src/CourierAccount.ts"
import { CourierAccountStore } from "../src/CourierAccountStore.ts"
import { CourierAccounts, sealedColumns } from "../src/CourierAccounts.ts"
import * as ShipmentsError from "../src/ShipmentsError.ts"
import { TrackingStore } from "../src/TrackingStore.ts"
import * as Backends from "./Backends.ts"
import * as TestCouriers from "./TestCouriers.ts"

/** A courier that pushes: its secret is a `whsec_` one. */
const hooked = TestCouriers.courier({
  key: "hooked",
  push: {
    secret: Schema.RedactedFromValue(Schema.String.check(Schema.isPattern(/^whsec_[A-Za-z0-9]{8,}$/))),
    receive: () => Result.succeed(Push.events([]))
  }
})
const relay = TestCouriers.courier({ key: "relay" })
const couriers = [relay, hooked]

const CANARY = "tok-CANARY-5f2e9a"
const SECRET = "whsec_CANARYsecret42"

const reasonOf = <A, R>(effect: Effect.Effect<A, ShipmentsError.ShipmentsError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

/** A credentials JSON's fingerprint under the backend's current key, as `SecretBox.fingerprint` documents it. */
const fingerprint = (json: string) =>
  Effect.flatMap(Backends.Keys, (keys) =>
    Effect.map(Ref.get(keys), (ring) => SecretBox.fingerprint(ring!, Redacted.make(json)))
  )

type Services =
  | CourierAccounts
  | CourierAccountStore
  | TrackingStore
  | Backends.Fixture
  | Backends.Keys
  | Secrets.Secrets

const suite = (it: Vitest.MethodsNonLive<Services>) => {
  const newStore = Effect.flatMap(Backends.Fixture, (fixture) => fixture.store)
  const stored = (storeId: Ids.StoreId) =>
    Effect.flatMap(Backends.Fixture, (fixture) => fixture.storedAccounts(storeId))

  it.effect("seals the credentials: what is stored and what is answered never holds them in clear", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const storeId = yield* newStore
      const view = yield* accounts.create(storeId, {
        courier: "relay",
        label: "Relay Alger",
        credentials: { token: CANARY }
      })
      assert.deepStrictEqual(
        { ...view, created_at: "", updated_at: "" },
        {
          id: view.id,
          courier: "relay",
          label: "Relay Alger",
          base_url: null,
          fingerprint: yield* fingerprint(`{"token":"${CANARY}"}`),
          push: { supported: false, webhook_secret_set: false, url: null },
          created_at: "",
          updated_at: ""
        }
      )
      assert.match(view.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const dump = yield* stored(storeId)
      assert.include(dump, "tws1.")
      assert.notInclude(dump, CANARY)
      assert.notInclude(dump, "CANARY")
      const listed = yield* accounts.list(storeId)
      assert.deepStrictEqual(listed, { items: [view] })
      assert.notInclude(JSON.stringify(listed), "CANARY")
      // Opened for a courier call, and only then.
      const opened = yield* accounts.open(storeId, view.id)
      assert.deepStrictEqual(opened.call, { courier: "relay", credentials: { token: CANARY }, options: {} })
    })
  )

  it.effect("binds a sealed value to its store: copied into another store's account, it does not open", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const store = yield* CourierAccountStore
      const mine = yield* newStore
      const theirs = yield* newStore
      const source = yield* accounts.create(mine, { courier: "relay", label: "R", credentials: { token: CANARY } })
      const target = yield* accounts.create(theirs, { courier: "relay", label: "R", credentials: { token: "theirs" } })
      const sealed = (yield* store.find(mine, source.id))!.credentials
      const was = (yield* store.find(theirs, target.id))!.credentials
      assert.isTrue(yield* store.replaceSealed("credentials", target.id, was, sealed))
      const refused = yield* reasonOf(accounts.open(theirs, target.id))
      assert.strictEqual(refused._tag, "SecretsUnavailable")
      assert.notInclude(refused.message, CANARY)
      // Put back, so that a later rotation finds every value readable.
      assert.isTrue(yield* store.replaceSealed("credentials", target.id, sealed, was))
      assert.deepStrictEqual((yield* accounts.open(theirs, target.id)).call.credentials, { token: "theirs" })
    })
  )

  it.effect("fingerprints credentials by their fields, whatever their order; takes an alias as its courier", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const storeId = yield* newStore
      const sandbox = yield* accounts.create(storeId, { courier: "test", label: "Essais" })
      assert.deepStrictEqual(
        [sandbox.courier, sandbox.fingerprint, sandbox.push.supported],
        ["sandbox", yield* fingerprint("{}"), false]
      )
      assert.strictEqual((yield* accounts.open(storeId, sandbox.id)).call.credentials, undefined)
      // The credentials' canonical form: fields sorted by name, so the order they were sent in does not matter.
      assert.strictEqual(CourierAccount.canonical({ b: "2", a: "1" }), CourierAccount.canonical({ a: "1", b: "2" }))
      assert.notStrictEqual(
        yield* fingerprint(CourierAccount.canonical({ a: "1" })),
        yield* fingerprint(CourierAccount.canonical({ a: "2" }))
      )
    })
  )

  it.effect("stores nothing when the courier refuses the credentials, fails, or the body breaks a rule", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const storeId = yield* newStore
      assert.deepStrictEqual(
        yield* reasonOf(accounts.create(storeId, { courier: "relay", label: "R", credentials: { token: "rejected" } })),
        new ShipmentsError.CredentialsRejected({
          message: "relay refused these credentials: relay does not know this token"
        })
      )
      const down = yield* reasonOf(
        accounts.create(storeId, { courier: "relay", label: "R", credentials: { token: "down" } })
      )
      assert.strictEqual(down._tag, "CourierFailed")
      if (down._tag === "CourierFailed") assert.strictEqual(down.failure._tag, "CourierError")
      const unknown = yield* reasonOf(accounts.create(storeId, { courier: "nowhere", label: "R" }))
      assert.deepStrictEqual(
        [unknown._tag, unknown._tag === "CourierFailed" ? unknown.failure._tag : undefined],
        ["CourierFailed", "UnknownCourier"]
      )
      const missing = yield* reasonOf(accounts.create(storeId, { courier: "relay", label: "R" }))
      assert.deepStrictEqual(
        [missing._tag, missing._tag === "CourierFailed" ? missing.failure._tag : undefined],
        ["CourierFailed", "InvalidCredentials"]
      )
      for (const [body, field] of [
        [{ courier: "relay", credentials: { token: "t" } }, "label"],
        [{ courier: "relay", label: "", credentials: { token: "t" } }, "label"],
        [{ courier: "relay", label: "R", credentials: { token: 3 } }, "credentials.token"],
        [{ courier: "relay", label: "R\u0000", credentials: { token: "t" } }, "label"],
        [{ courier: "relay", label: "R", credentials: { token: "t" }, admin: true }, "admin"]
      ] as const) {
        const refused = yield* reasonOf(accounts.create(storeId, body))
        assert.strictEqual(refused._tag, "InvalidShipmentsBody")
        assert.include(refused.message, `${field}: `, JSON.stringify(body))
      }
      assert.deepStrictEqual(yield* accounts.list(storeId), { items: [] })
      assert.notInclude(yield* stored(storeId), "tws1.")
    })
  )

  it.effect("takes a webhook secret only for a courier that pushes, in the courier's form, sealed", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const storeId = yield* newStore
      const refused = yield* reasonOf(
        accounts.create(storeId, { courier: "relay", label: "R", credentials: { token: "t" }, webhook_secret: SECRET })
      )
      assert.deepStrictEqual(
        [refused._tag, refused.message],
        ["Unsupported", "relay does not push tracking: send no webhook_secret (its parcels are polled)"]
      )
      const malformed = yield* reasonOf(
        accounts.create(storeId, { courier: "hooked", label: "H", credentials: { token: "t" }, webhook_secret: "nope" })
      )
      assert.strictEqual(malformed._tag, "InvalidShipmentsBody")
      assert.match(malformed.message, /^webhook_secret is not a hooked webhook secret: /)
      assert.notInclude(malformed.message, "nope")

      const view = yield* accounts.create(storeId, {
        courier: "hooked",
        label: "H",
        credentials: { token: CANARY },
        webhook_secret: SECRET
      })
      assert.deepStrictEqual(view.push, {
        supported: true,
        webhook_secret_set: true,
        url: `/v1/hooks/couriers/${view.id}`
      })
      const dump = yield* stored(storeId)
      assert.notInclude(dump, "CANARY")
      const hook = (yield* accounts.forHook(view.id))!
      assert.strictEqual(hook.account.id, view.id)
      assert.strictEqual(Redacted.value(hook.webhookSecret!), SECRET)
      // Without a secret, a pushing courier's account is kept and says so.
      const bare = yield* accounts.create(storeId, { courier: "hooked", label: "H2", credentials: { token: "t" } })
      assert.deepStrictEqual(bare.push, {
        supported: true,
        webhook_secret_set: false,
        url: `/v1/hooks/couriers/${bare.id}`
      })
      assert.isUndefined((yield* accounts.forHook(bare.id))!.webhookSecret)
      assert.isUndefined(yield* accounts.forHook(2_000_000_000))
    })
  )

  it.effect("answers SecretsUnavailable naming TAWSIL_SECRET_KEY when no key is configured, storing nothing", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const keys = yield* Backends.Keys
      const storeId = yield* newStore
      const kept = yield* accounts.create(storeId, { courier: "relay", label: "R", credentials: { token: "t" } })
      const ring = yield* Ref.get(keys)
      yield* Ref.set(keys, undefined)
      const refused = yield* reasonOf(
        accounts.create(storeId, { courier: "relay", label: "R2", credentials: { token: "t" } })
      )
      const unopened = yield* reasonOf(accounts.open(storeId, kept.id))
      yield* Ref.set(keys, ring)
      assert.strictEqual(refused._tag, "SecretsUnavailable")
      assert.include(refused.message, "TAWSIL_SECRET_KEY")
      assert.strictEqual(unopened._tag, "SecretsUnavailable")
      assert.deepStrictEqual(
        (yield* accounts.list(storeId)).items.map((item) => item.id),
        [kept.id]
      )
    })
  )

  it.effect("removes an account of the store, but not one still carrying parcels", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const tracking = yield* TrackingStore
      const fixture = yield* Backends.Fixture
      const storeId = yield* newStore
      const other = yield* newStore
      const view = yield* accounts.create(storeId, { courier: "relay", label: "R", credentials: { token: "t" } })
      const order = yield* fixture.order(storeId)
      yield* tracking.schedule(
        { orderId: order.id, storeId, accountId: view.id, trackingNumber: "RELAY-X", status: "in_transit" },
        Duration.hours(2)
      )
      const inUse = yield* reasonOf(accounts.remove(storeId, view.id))
      assert.deepStrictEqual(
        [inUse._tag, inUse.message],
        [
          "AccountInUse",
          `Courier account ${view.id} carries 1 parcel still on their way: they are followed through it until they arrive or return`
        ]
      )
      assert.strictEqual((yield* reasonOf(accounts.remove(other, view.id)))._tag, "AccountNotFound")
      assert.strictEqual((yield* reasonOf(accounts.open(other, view.id)))._tag, "AccountNotFound")
      yield* tracking.finish(order.id)
      assert.deepStrictEqual(yield* accounts.remove(storeId, view.id), { deleted: true, id: view.id })
      assert.deepStrictEqual(yield* accounts.list(storeId), { items: [] })
      assert.deepStrictEqual(
        yield* reasonOf(accounts.remove(storeId, view.id)),
        yield* reasonOf(accounts.open(storeId, view.id))
      )
    })
  )

  it.effect("re-seals every sealed column under a new key (sealedColumns), and both still open after", () =>
    Effect.gen(function* () {
      const accounts = yield* CourierAccounts
      const keys = yield* Backends.Keys
      const storeId = yield* newStore
      const view = yield* accounts.create(storeId, {
        courier: "hooked",
        label: "H",
        credentials: { token: CANARY },
        webhook_secret: SECRET
      })
      const old = (yield* Ref.get(keys))!
      const next = Result.getOrThrow(KeyRing.key(KeyRing.generate()))
      yield* Ref.set(keys, KeyRing.rotate(old, next))
      const reports = yield* Effect.forEach(sealedColumns, (column) => Resealing.run(column, { pageSize: 2 }))
      assert.deepStrictEqual(
        reports.map((report) => report.column),
        ["courier_accounts.credentials", "courier_accounts.webhook_secret"]
      )
      for (const report of reports) {
        assert.isAtLeast(report.resealed, 1)
        assert.deepStrictEqual(report.unreadable, [])
      }
      const dump = yield* stored(storeId)
      assert.notInclude(dump, SecretBox.prefix(old.current))
      assert.include(dump, SecretBox.prefix(next))
      // The old key retired: what it sealed was all re-sealed, so everything still opens.
      yield* Ref.set(keys, KeyRing.retire(KeyRing.rotate(old, next)))
      assert.deepStrictEqual((yield* accounts.open(storeId, view.id)).call.credentials, { token: CANARY })
      assert.strictEqual(Redacted.value((yield* accounts.forHook(view.id))!.webhookSecret!), SECRET)
      // A second walk finds nothing left to do.
      for (const column of sealedColumns) assert.strictEqual((yield* Resealing.run(column)).resealed, 0)
    })
  )
}

describe("CourierAccounts", () => {
  layer(Backends.memory(couriers))("memory", (it) => suite(it))

  for (const backend of Backends.backends) {
    layer(Backends.sql(backend, couriers), { excludeTestServices: true, timeout: "120 seconds" })(
      `sql (${backend.name})`,
      (it) => suite(it)
    )
  }
})
