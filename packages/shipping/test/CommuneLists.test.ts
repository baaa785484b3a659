/**
 * Couriers' commune lists kept by the host (`CommuneLists`, decision 0035): read once, served for an hour, served
 * while read again in the background until a day old, never past it; a store that fails leaves the lists to this
 * process; and, through the core, a create that goes on in the reference spelling when the list cannot be read, with
 * the credentials of the call in neither the kept list's key nor its value.
 */
import { assert, describe, it } from "@effect/vitest"
import { define } from "@tawsil/courier/CourierAdapter"
import { Unreachable } from "@tawsil/courier/CourierError"
import { CourierHttp } from "@tawsil/courier/CourierHttp"
import { ParcelOrder } from "@tawsil/courier/Shipment"
import { Communes } from "@tawsil/reference"
import { Duration, Effect, Layer, Redacted, Schema } from "effect"
import { Persistence } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as Catalogue from "../src/Catalogue.ts"
import * as CommuneLists from "../src/CommuneLists.ts"
import { Shipping, Transport } from "../src/Shipping.ts"

const babEzzouar = [{ name: "BAB EZZOUAR", home: true, stopdesk: true }]
const key = { courier: "listing", wilayaCode: 16 }

/** A list read that counts itself, and fails while `failing` is set. */
const reader = () => {
  const state = { reads: 0, failing: false, list: babEzzouar }
  const read = Effect.suspend(() => {
    state.reads++
    return state.failing
      ? Effect.fail(new Unreachable({ message: "the list did not come" }))
      : Effect.succeed(state.list)
  })
  return { state, read }
}

/** A store in this process that records every write (key and JSON value). */
const recordingStore = Effect.gen(function* () {
  const backing = yield* Persistence.BackingPersistence
  const store = yield* backing.make(CommuneLists.STORE_ID)
  const written: Array<string> = []
  const recording: Persistence.BackingPersistenceStore = {
    ...store,
    set: (id, value, ttl) =>
      Effect.andThen(
        Effect.sync(() => written.push(`${id} ${JSON.stringify(value)}`)),
        store.set(id, value, ttl)
      )
  }
  return { store: recording, written }
}).pipe(Effect.provide(Persistence.layerBackingMemory))

/** Runs until the background fibers forked so far have had their turn. */
const settle = Effect.yieldNow.pipe(Effect.repeat({ times: 20 }))

describe("CommuneLists", () => {
  it.effect(
    "reads a list once, serves it for an hour, then while reading it again in the background, never past a day",
    () =>
      Effect.gen(function* () {
        const lists = yield* CommuneLists.makeMemory
        const { state, read } = reader()
        assert.deepStrictEqual(yield* lists.get(key, read), babEzzouar)
        assert.deepStrictEqual(yield* lists.get(key, read), babEzzouar)
        assert.strictEqual(state.reads, 1, "a kept list is not read again within the hour")

        // Past the hour: the kept list answers at once, and a read in the background replaces it.
        yield* TestClock.adjust(Duration.minutes(61))
        state.list = [{ name: "Bab Ezzouar", home: true, stopdesk: false }]
        assert.deepStrictEqual(yield* lists.get(key, read), babEzzouar, "the kept list, while it is read again")
        yield* settle
        assert.strictEqual(state.reads, 2)
        assert.deepStrictEqual(yield* lists.get(key, read), state.list, "the list read in the background")
        assert.strictEqual(state.reads, 2)

        // A background read that fails leaves the kept list, until it is a day old.
        yield* TestClock.adjust(Duration.minutes(61))
        state.failing = true
        assert.deepStrictEqual(yield* lists.get(key, read), state.list)
        yield* settle
        assert.strictEqual(state.reads, 3)
        yield* TestClock.adjust(Duration.hours(23))
        const failed = yield* Effect.flip(lists.get(key, read))
        assert.strictEqual(failed._tag, "Unreachable", "past a day the kept list is not served; the read's failure is")
        state.failing = false
        assert.deepStrictEqual(yield* lists.get(key, read), state.list)
        assert.strictEqual(state.reads, 5)
      })
  )

  it.effect("serves a fresh list from this process: the shared store is asked again only once it is an hour old", () =>
    Effect.gen(function* () {
      const backing = yield* Persistence.BackingPersistence.pipe(Effect.provide(Persistence.layerBackingMemory))
      const shared = yield* backing.make(CommuneLists.STORE_ID)
      let asked = 0
      const counting: Persistence.BackingPersistenceStore = {
        ...shared,
        get: (id) =>
          Effect.andThen(
            Effect.sync(() => asked++),
            shared.get(id)
          )
      }
      // Another instance read the list and kept it in the shared store.
      const other = CommuneLists.make(shared, shared, yield* Effect.scope)
      const { read } = reader()
      yield* other.get(key, read)
      const lists = CommuneLists.make(counting, counting, yield* Effect.scope)
      const { state, read: never } = reader()
      for (let call = 0; call < 5; call++) assert.deepStrictEqual(yield* lists.get(key, never), babEzzouar)
      assert.deepStrictEqual([asked, state.reads], [1, 0], "one look in the shared store, no read of the courier")
      yield* TestClock.adjust(Duration.minutes(61))
      yield* lists.get(key, never)
      assert.strictEqual(asked, 2, "an hour on, the shared store is asked again")
    }).pipe(Effect.scoped)
  )

  it.effect("keeps a list per courier, tenant origin and wilaya", () =>
    Effect.gen(function* () {
      const lists = yield* CommuneLists.makeMemory
      const { state, read } = reader()
      yield* lists.get({ courier: "ecotrack_tenant", origin: "https://a.ecotrack.dz", wilayaCode: 16 }, read)
      yield* lists.get({ courier: "ecotrack_tenant", origin: "https://b.ecotrack.dz", wilayaCode: 16 }, read)
      yield* lists.get({ courier: "ecotrack_tenant", origin: "https://a.ecotrack.dz", wilayaCode: 31 }, read)
      yield* lists.get({ courier: "dhd", wilayaCode: 16 }, read)
      yield* lists.get({ courier: "ecotrack_tenant", origin: "https://a.ecotrack.dz", wilayaCode: 16 }, read)
      assert.strictEqual(state.reads, 4)
      assert.strictEqual(
        CommuneLists.keyOf({ courier: "ecotrack_tenant", origin: "https://a.ecotrack.dz", wilayaCode: 16 }),
        "ecotrack_tenant|https://a.ecotrack.dz|16"
      )
    })
  )

  it.effect("keeps lists in this process when its store fails, and says so in the log", () =>
    Effect.gen(function* () {
      const broken: Persistence.BackingPersistenceStore = {
        get: () => Effect.fail(new Persistence.PersistenceError({ message: "connection refused" })),
        getMany: () => Effect.fail(new Persistence.PersistenceError({ message: "connection refused" })),
        set: () => Effect.fail(new Persistence.PersistenceError({ message: "connection refused" })),
        setMany: () => Effect.fail(new Persistence.PersistenceError({ message: "connection refused" })),
        remove: () => Effect.fail(new Persistence.PersistenceError({ message: "connection refused" })),
        clear: Effect.fail(new Persistence.PersistenceError({ message: "connection refused" }))
      }
      const { store, written } = yield* recordingStore
      const lists = CommuneLists.make(broken, store, yield* Effect.scope)
      const { state, read } = reader()
      assert.deepStrictEqual(yield* lists.get(key, read), babEzzouar)
      assert.deepStrictEqual(yield* lists.get(key, read), babEzzouar)
      assert.strictEqual(state.reads, 1, "the fallback kept it")
      assert.lengthOf(written, 1)
    })
  )
})

// --- through the core ----------------------------------------------------------------------------------------------

const CANARY = "canary-5d2c8e1f-communes"
const Credentials = Schema.Struct({ token: Schema.RedactedFromValue(Schema.String) })

const order = (communeName: string) =>
  Schema.decodeUnknownSync(ParcelOrder)({
    recipient: { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName },
    deliveryType: "home",
    productList: "1x robe",
    codAmount: 4500
  })

/** A courier whose commune list fails while `failing` is set, or never answers while `hanging` is. */
const courier = (list: { reads: number; failing: boolean; hanging: boolean }, sent: Array<string>) =>
  define<typeof Credentials.Type>({
    platform: "listing",
    couriers: [{ key: "listing", name: "Listing", aliases: [], endpoint: { origin: "https://api.listing.dz" } }],
    credentials: Credentials,
    statuses: { created: "created" },
    operations: {
      create: (parcel, { credentials }) =>
        Effect.sync(() => {
          sent.push(parcel.recipient.communeName)
          return {
            trackingNumber: `L-${sent.length}-${Redacted.value(credentials.token).length}`,
            rawStatus: "created"
          }
        }),
      communes: (_wilaya, { credentials }) =>
        Effect.suspend(() => {
          list.reads++
          if (list.hanging) return Effect.never
          // A failure that quotes the token: the core blanks it before the answer's warning says it.
          return list.failing
            ? Effect.fail(new Unreachable({ message: `503 for ${Redacted.value(credentials.token)}` }))
            : Effect.succeed([{ name: "BAB EZZOUAR", id: "16-7", home: true, stopdesk: true }])
        })
    }
  })

const noHttp = Layer.succeed(
  Transport,
  Transport.of({ bind: () => CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
)

describe("the core with kept commune lists", () => {
  it.live(
    "creates in the reference spelling with a warning when the list fails or hangs, and keeps no credential",
    () =>
      Effect.gen(function* () {
        const list = { reads: 0, failing: true, hanging: false }
        const sent: Array<string> = []
        const { store, written } = yield* recordingStore
        const communeLists = CommuneLists.make(store, store, yield* Effect.scope)
        const communes = Communes.make(yield* Communes.loadBundled)
        const shipping = yield* Shipping.pipe(
          Effect.provide(
            Shipping.layer(Catalogue.make([courier(list, sent)]), { communes, communeLists }).pipe(
              Layer.provide(noHttp)
            )
          )
        )
        const call = { courier: "listing", credentials: { token: CANARY } }

        const failed = yield* shipping.create({ ...call, order: order("bab ezouar") })
        assert.deepStrictEqual(sent, ["Bab Ezzouar"], "the create went on, in the reference spelling")
        assert.strictEqual(failed.commune?.sent, "Bab Ezzouar")
        assert.include(failed.commune?.warning, "commune list could not be read")
        assert.include(failed.commune?.warning, "listing communes:")
        assert.notInclude(JSON.stringify(failed), CANARY)

        // A list that never answers gets a third of the caller's timeout; the create still has the rest.
        list.failing = false
        list.hanging = true
        const hung = yield* shipping.create({ ...call, options: { timeoutMs: 1500 }, order: order("Bab Ezzouar") })
        assert.include(hung.commune?.warning, "did not come within 500 ms")
        assert.strictEqual(sent.length, 2)

        list.hanging = false
        const listed = yield* shipping.create({ ...call, order: order("Bab Ezzouar") })
        assert.deepStrictEqual(listed.commune, { requested: "Bab Ezzouar", sent: "BAB EZZOUAR", corrected: true })
        const again = yield* shipping.create({ ...call, order: order("Bab Ezzouar") })
        assert.strictEqual(again.commune?.sent, "BAB EZZOUAR")
        assert.strictEqual(list.reads, 3, "the second create used the kept list")

        assert.lengthOf(written, 1)
        assert.match(written[0]!, /^listing\|\|16 /)
        assert.notInclude(written.join("\n"), CANARY, "no credential in a kept list's key or value")
        assert.notInclude(written.join("\n"), "token")
      }).pipe(Effect.scoped),
    { timeout: 10_000 }
  )
})
