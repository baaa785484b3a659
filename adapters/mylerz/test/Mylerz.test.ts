import { assert, describe, it } from "@effect/vitest"
import { type CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue } from "@tawsil/shipping"
import { Duration, Effect, Layer, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { adapter, Credentials, make, origin } from "../src/Mylerz.ts"
import { ACCOUNT, awbOf, MylerzFake, type Options, type RecordedRequest, SEEDED_PACKAGE } from "./fake/MylerzFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const OTHER = { username: "other@example.dz", password: "fake-mylerz-other-password-8e2a" }
const context = { credentials: Schema.decodeUnknownSync(Credentials)(ACCOUNT) }
const other = { credentials: Schema.decodeUnknownSync(Credentials)(OTHER) }
const wrong = { credentials: Schema.decodeUnknownSync(Credentials)({ ...ACCOUNT, password: "not-the-password" }) }

const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "+213 555 12 34 56",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000 logements",
      ...recipient
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

/** Each test gets a fresh adapter, so that no test sees another's kept token or cities. */
const operations = () =>
  make().operations as Required<
    Pick<
      typeof adapter.operations,
      "create" | "track" | "trackBatch" | "cancel" | "label" | "communes" | "checkCredentials"
    >
  >

const withFake = <A, E>(effect: Effect.Effect<A, E, MylerzFake | CourierHttp.CourierHttp>, options: Options = {}) =>
  Effect.provide(
    effect,
    Loopback.layer().pipe(Layer.provideMerge(MylerzFake.layer({ accounts: [ACCOUNT, OTHER], seed: true, ...options })))
  )

const paths = (requests: ReadonlyArray<RecordedRequest>) => requests.map(({ method, path }) => `${method} ${path}`)

const reasonOf = <A>(exit: Result.Result<A, CourierError.CourierErrorReason>) =>
  Result.isFailure(exit) ? exit.failure : undefined

describe("Mylerz", () => {
  describe("manifest", () => {
    it("declares the platform, its courier, the username and password, and what Mylerz documents", () => {
      assert.strictEqual(adapter.platform, "mylerz")
      assert.deepStrictEqual(
        adapter.couriers.map(({ key, endpoint }) => ({ key, endpoint })),
        [{ key: "mylerz", endpoint: { origin: "https://integration.algeria.mylerz.net" } }]
      )
      assert.isTrue(Result.isSuccess(Egress.parseOrigin(origin)))
      assert.deepStrictEqual(adapter.requiredCredentials, ["username", "password"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        createBatch: false,
        track: true,
        rates: false,
        label: true,
        cancel: true,
        dispatch: false,
        trackBatch: true,
        stopDesks: false,
        communes: true,
        checkCredentials: true,
        push: false
      })
      const entry = Catalogue.make([adapter]).resolve("mylerz")
      assert.strictEqual(entry?.entry.endpoint, origin)
    })

    it("refuses credentials with control characters or out of bounds, before any call", () => {
      for (const bad of [
        { username: "", password: "x" },
        { username: "a", password: "" },
        { username: "a\nb", password: "x" },
        { username: "a", password: "p\u0000" },
        { username: "a".repeat(201), password: "x" },
        { username: "a" }
      ]) {
        assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Credentials)(bad)), JSON.stringify(bad))
      }
    })
  })

  describe("the login token", () => {
    it.effect("logs in once per account and sends the token as a bearer header; the form carries the password", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          const created = yield* ops.create(order(), context)
          yield* ops.track(created.trackingNumber, context)
          yield* ops.label(created.trackingNumber, context)
          const othersView = yield* ops.trackBatch([SEEDED_PACKAGE], other)
          assert.strictEqual(othersView.size, 0, "another account does not see the package")
          assert.strictEqual(fake.logins(), 2, "one login for each account")
          assert.deepStrictEqual(paths(fake.requests), [
            "POST /token",
            "GET /api/packages/GetCityZoneList",
            "POST /api/Orders/AddOrders",
            "POST /api/packages/TrackPackages",
            "POST /api/packages/GetAWB",
            "POST /token",
            "POST /api/packages/TrackPackages"
          ])
          const [login, ...calls] = fake.requests
          assert.strictEqual(login?.headers["content-type"], "application/x-www-form-urlencoded")
          assert.deepStrictEqual(login?.body, { grant_type: "password", ...ACCOUNT })
          assert.isUndefined(login?.headers.authorization)
          for (const call of calls.filter((request) => request.path !== "/token")) {
            assert.match(call.headers.authorization ?? "", /^Bearer fake-mylerz-token-\d+-/, call.path)
            assert.notInclude(call.text, ACCOUNT.password, "the password goes to /token only")
            assert.notInclude(JSON.stringify(call.headers), ACCOUNT.password)
          }
        })
      )
    )

    it.effect("calls made at once for one account wait for one login; a failed login is not shared", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          const tracked = yield* Effect.all(
            Array.from({ length: 4 }, () => ops.track(SEEDED_PACKAGE, context)),
            { concurrency: "unbounded" }
          )
          assert.lengthOf(tracked, 4)
          assert.strictEqual(fake.logins(), 1)
          assert.strictEqual(paths(fake.requests).filter((path) => path === "POST /token").length, 1)
          const refused = yield* Effect.all(
            Array.from({ length: 2 }, () => Effect.result(ops.track(SEEDED_PACKAGE, wrong))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(
            refused.map((exit) => reasonOf(exit)?._tag),
            ["CredentialsRejected", "CredentialsRejected"]
          )
        })
      )
    )

    it.effect("a kept token refused (401) is dropped and the call sent once more with a new login", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          yield* ops.track(SEEDED_PACKAGE, context)
          fake.expireTokens()
          const before = fake.requests.length
          const events = yield* ops.track(SEEDED_PACKAGE, context)
          assert.deepStrictEqual(
            events.map((event) => event.rawStatus),
            ["Uploaded"]
          )
          assert.deepStrictEqual(paths(fake.requests.slice(before)), [
            "POST /api/packages/TrackPackages",
            "POST /token",
            "POST /api/packages/TrackPackages"
          ])
          assert.strictEqual(fake.logins(), 2)
        })
      )
    )

    it.effect("a token refused right after a login is not retried: one login, one call, CredentialsRejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          fake.misbehaveNext({ kind: "denyToken" }, "/api/packages/TrackPackages")
          const exit = yield* Effect.result(operations().track(SEEDED_PACKAGE, context))
          assert.strictEqual(reasonOf(exit)?._tag, "CredentialsRejected")
          assert.include(reasonOf(exit)?.message ?? "", "Authorization has been denied")
          assert.deepStrictEqual(paths(fake.requests), ["POST /token", "POST /api/packages/TrackPackages"])
        })
      )
    )

    it.effect("a wrong password is CredentialsRejected in Mylerz's words, and nothing is kept for it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          const refused = yield* Effect.result(ops.create(order(), wrong))
          assert.strictEqual(reasonOf(refused)?._tag, "CredentialsRejected")
          assert.include(reasonOf(refused)?.message ?? "", "The user name or password is incorrect.")
          const again = yield* Effect.result(ops.checkCredentials(undefined, wrong))
          assert.strictEqual(reasonOf(again)?._tag, "CredentialsRejected")
          assert.deepStrictEqual(paths(fake.requests), ["POST /token", "POST /token"], "each tried anew, no API call")
          yield* ops.checkCredentials(undefined, context)
          yield* ops.track(SEEDED_PACKAGE, context)
          assert.strictEqual(fake.logins(), 1, "the check's token serves the next call")
        })
      )
    )

    it.effect("a token is kept until expires_in less a minute, then a new login is made", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          yield* ops.track(SEEDED_PACKAGE, context)
          yield* TestClock.adjust(Duration.seconds(3600 - 61))
          yield* ops.track(SEEDED_PACKAGE, context)
          assert.strictEqual(fake.logins(), 1)
          yield* TestClock.adjust(Duration.seconds(2))
          yield* ops.track(SEEDED_PACKAGE, context)
          assert.strictEqual(fake.logins(), 2)
        }),
        { expiresIn: 3600 }
      )
    )

    it.effect("without expires_in a token is kept for an hour less a minute", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          yield* ops.track(SEEDED_PACKAGE, context)
          yield* TestClock.adjust(Duration.seconds(3540 - 1))
          yield* ops.track(SEEDED_PACKAGE, context)
          assert.strictEqual(fake.logins(), 1)
          yield* TestClock.adjust(Duration.seconds(2))
          yield* ops.track(SEEDED_PACKAGE, context)
          assert.strictEqual(fake.logins(), 2)
        }),
        { expiresIn: null }
      )
    )
  })

  describe("operations", () => {
    it.effect(
      "creates with the zone code, tracks one and many, labels, cancels; a picked package is not cancellable",
      () =>
        withFake(
          Effect.gen(function* () {
            const fake = yield* MylerzFake
            const ops = operations()
            const created = yield* ops.create(order({ notes: "appeler avant" }), context)
            assert.match(created.trackingNumber, /^\d{14}$/)
            assert.strictEqual(created.rawStatus, "Uploaded")
            assert.strictEqual(adapter.statuses[created.rawStatus], "created")
            const sent = fake.packages.get(created.trackingNumber)?.order
            assert.deepInclude(sent, {
              City: "Algiers",
              Neighborhood: "ALG-BEZ",
              District: "Bab Ezzouar",
              Mobile_No: "0555123456",
              Payment_Type: "COD",
              COD_Value: 4500,
              Country: "DZ",
              Special_Notes: "appeler avant",
              Reference: "CMD-7"
            })

            fake.setClock("2026-09-27T08:30:00")
            fake.addStatus(created.trackingNumber, "Picked")
            const events = yield* ops.track(created.trackingNumber, context)
            assert.deepStrictEqual(events[1], { rawStatus: "Picked", timestamp: "2026-09-27T08:30:00+01:00" })
            const batch = yield* ops.trackBatch(
              [created.trackingNumber, SEEDED_PACKAGE, "29999999999999", "../x"],
              context
            )
            assert.deepStrictEqual([...batch.keys()].sort(), [created.trackingNumber, SEEDED_PACKAGE].sort())
            assert.deepStrictEqual(
              fake.requests.at(-1)?.body,
              [created.trackingNumber, SEEDED_PACKAGE, "29999999999999"].map((Barcode) => ({ Barcode })),
              "one call, the number that is no barcode unsent"
            )

            const label = yield* ops.label(created.trackingNumber, context)
            assert.strictEqual(label.contentType, "application/pdf")
            assert.deepStrictEqual(Buffer.from(label.bytes), awbOf(created.trackingNumber))

            const picked = yield* Effect.result(ops.cancel(created.trackingNumber, context))
            assert.strictEqual(reasonOf(picked)?._tag, "NotCancellable")
            assert.include(reasonOf(picked)?.message ?? "", "can not be cancelled")
            yield* ops.cancel(SEEDED_PACKAGE, context)
          })
        )
    )

    it.effect("lists the wilaya's zones as communes; none where Mylerz lists no city; the list is kept a day", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          const algiers = yield* ops.communes(Schema.decodeUnknownSync(WilayaCode.WilayaCode)(16), context)
          assert.deepStrictEqual(
            algiers.map(({ name, id }) => [name, id]),
            [
              ["Bab Ezzouar", "ALG-BEZ"],
              ["Hydra", "ALG-HYD"],
              ["Bordj El Kiffan", "ALG-BEK"],
              ["Alger Centre", "ALG-ACE"]
            ]
          )
          assert.isTrue(algiers.every(({ home, stopdesk }) => home && !stopdesk))
          assert.deepStrictEqual(yield* ops.communes(Schema.decodeUnknownSync(WilayaCode.WilayaCode)(1), context), [])
          yield* ops.create(order({}, { wilayaCode: 31, communeName: "bir el djir" }), context)
          assert.strictEqual(
            paths(fake.requests).filter((path) => path.endsWith("GetCityZoneList")).length,
            1,
            "one read of the cities for all of it"
          )
        })
      )
    )

    it.effect("refuses what Mylerz cannot take before any call, and an unknown zone after the cities only", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          for (const [refused, words] of [
            [order({ deliveryType: "stopdesk", stopDeskId: "D1" }), "home delivery only"],
            [order({ isExchange: true }), "no exchange"]
          ] as const) {
            const exit = yield* Effect.result(ops.create(refused, context))
            assert.strictEqual(reasonOf(exit)?._tag, "Refused")
            assert.include(reasonOf(exit)?.message ?? "", words)
          }
          assert.deepStrictEqual(fake.requests, [])
          const unknown = yield* Effect.result(ops.create(order({}, { communeName: "Nowhere" }), context))
          assert.include(reasonOf(unknown)?.message ?? "", 'Mylerz knows no zone "Nowhere" in wilaya 16')
          const noCity = yield* Effect.result(ops.create(order({}, { wilayaCode: 1, communeName: "Adrar" }), context))
          assert.include(reasonOf(noCity)?.message ?? "", "Mylerz lists no city for wilaya 1")
          assert.deepStrictEqual(paths(fake.requests), ["POST /token", "GET /api/packages/GetCityZoneList"])
          const badNumber = yield* Effect.result(ops.track("../token", context))
          assert.strictEqual(reasonOf(badNumber)?._tag, "Refused")
        })
      )
    )

    it.effect("a 500 on the cities fails the create as Unreachable, and the next create reads them again", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* MylerzFake
          const ops = operations()
          fake.misbehaveNext({ kind: "status", status: 500 }, "/api/packages/GetCityZoneList")
          const exit = yield* Effect.result(ops.create(order(), context))
          assert.strictEqual(reasonOf(exit)?._tag, "Unreachable")
          yield* ops.create(order(), context)
          assert.strictEqual(paths(fake.requests).filter((path) => path.endsWith("GetCityZoneList")).length, 2)
        })
      )
    )
  })
})
