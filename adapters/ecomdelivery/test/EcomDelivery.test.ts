/**
 * The operations against the loopback fake, through the SDK's `LoopbackHttp`: what each sends (paths, methods,
 * headers, bodies), both create flows, and that the fake refuses what E-COM refuses, so that a wrong mapping fails
 * here rather than at the courier.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { Duration, Effect, Layer, Result, Schema } from "effect"
import {
  adapter,
  Credentials,
  createWith,
  DELETE_PATH,
  LIST_PATH,
  SHIP_ON_CREATE,
  SHIP_PATH
} from "../src/EcomDelivery.ts"
import * as Mapping from "../src/EcomDeliveryMapping.ts"
import {
  ACCOUNT,
  EcomDeliveryFake,
  LIST_PAGE_SIZE,
  type Misbehaviour,
  NO_DESK,
  tariff,
  UNSERVED
} from "./fake/EcomDeliveryFake.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiKey: ACCOUNT.key, apiToken: ACCOUNT.token }) }

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: {
      fullName: "Amina Benali",
      phone: "+213 555 12 34 56",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 2000 logements"
    },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const { create, dispatch, track, rates, cancel, trackBatch, checkCredentials } = adapter.operations as Required<
  Pick<
    typeof adapter.operations,
    "create" | "dispatch" | "track" | "rates" | "cancel" | "trackBatch" | "checkCredentials"
  >
>
const createOnly = createWith({ shipOnCreate: false })

/** Runs `effect` against a fresh fake on a random port, through the loopback `CourierHttp`. */
const withFake = <A, E>(
  effect: Effect.Effect<A, E, EcomDeliveryFake | CourierHttp.CourierHttp>,
  options: { readonly timeout?: Duration.Input } = {}
) => Effect.provide(effect, Loopback.layer(options).pipe(Layer.provideMerge(EcomDeliveryFake.layer())))

/** A raw request to the fake, as a mistaken adapter would send it. */
const raw = (request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({ ...request, headers: { Key: ACCOUNT.key, Token: ACCOUNT.token, ...request.headers } })
  )

const refusalOf = (response: CourierHttp.CourierResponse): string => {
  const reason = Mapping.errorOf(response)
  assert.strictEqual(reason._tag, "Refused", response.text)
  return reason.message
}

describe("EcomDelivery", () => {
  describe("manifest", () => {
    it("declares the platform, its courier (dzship's key, courier-dz's id as an alias), what it can do", () => {
      assert.strictEqual(adapter.platform, "ecomdelivery")
      assert.deepStrictEqual(adapter.couriers, [
        {
          key: "ecomdelivery",
          name: "E-COM Delivery",
          aliases: ["ecom_delivery"],
          endpoint: { origin: "https://ecom-dz.net" }
        }
      ])
      assert.deepStrictEqual(adapter.requiredCredentials, ["apiKey", "apiToken"])
      assert.deepStrictEqual(adapter.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: false,
        cancel: true,
        dispatch: true,
        trackBatch: true,
        createBatch: false,
        stopDesks: false,
        communes: false,
        checkCredentials: true,
        push: false
      })
      assert.deepStrictEqual(
        adapter.rateLimits?.map(({ limit, window }) => [limit, Duration.toMillis(window)]),
        [
          [40, 60_000],
          [1500, 3_600_000],
          [15000, 86_400_000]
        ]
      )
      assert.isTrue(SHIP_ON_CREATE)
      assert.strictEqual(SHIP_PATH, "/Api_v1/aExp%C3%A9dier")
    })

    it("refuses credentials that could be more than one header value", () => {
      for (const bad of [
        { apiKey: "short", apiToken: ACCOUNT.token },
        { apiKey: ACCOUNT.key, apiToken: "a b c d e f g h" }
      ]) {
        assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Credentials)(bad)), JSON.stringify(bad))
      }
    })
  })

  describe("create", () => {
    it.effect("posts the parcel with the Key and Token headers, then ships it with aExpédier", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const created = yield* create(order(), context)
          assert.strictEqual(created.rawStatus, "En Traitement")
          assert.strictEqual(fake.parcels.get(created.trackingNumber)?.avancement, "En Traitement")
          assert.deepStrictEqual(
            fake.requests.map(({ method, path }) => `${method} ${path}`),
            ["POST /Api_v1/Colis", "PUT /Api_v1/aExp%C3%A9dier"]
          )
          for (const request of fake.requests) {
            assert.strictEqual(request.headers.key, ACCOUNT.key)
            assert.strictEqual(request.headers.token, ACCOUNT.token)
            assert.strictEqual(request.headers.accept, "application/json")
            assert.isUndefined(request.headers.authorization)
          }
          assert.deepStrictEqual(fake.requests[1]?.body, { Colis: [{ Tracking: created.trackingNumber }] })
        })
      )
    )

    it.effect("without the ship step, leaves the parcel En Préparation and says so", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const created = yield* createOnly(order(), context)
          assert.strictEqual(created.rawStatus, "En Préparation")
          assert.lengthOf(fake.requests, 1)
        })
      )
    )

    it.effect("a failed aExpédier is a refusal naming the parcel made, whatever the failure", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          for (const misbehaviour of [
            { kind: "status", status: 503 } as const,
            { kind: "refuse", message: "Colis déjà expédié" } as const,
            { kind: "rateLimited", retryAfter: "9" } as const
          ]) {
            fake.misbehaveNext(misbehaviour, SHIP_PATH)
            const reason = yield* Effect.flip(create(order(), context))
            assert.strictEqual(reason._tag, "Refused", misbehaviour.kind)
            const made = [...fake.parcels.values()].at(-1)
            assert.strictEqual((reason as CourierError.Refused).created, made?.tracking)
            assert.strictEqual(made?.avancement, "En Préparation")
          }
        })
      )
    )

    it.effect("passes the courier's refusals on: commune, wilaya, desk, address", () =>
      withFake(
        Effect.gen(function* () {
          const refused: ReadonlyArray<readonly [Shipment.ParcelOrder, string]> = [
            [
              order({
                recipient: {
                  fullName: "A B",
                  phone: "0555123456",
                  wilayaCode: 16,
                  communeName: "Atlantis",
                  addressLine: "x"
                }
              }),
              "Commune non reconnue"
            ],
            [
              order({
                recipient: {
                  fullName: "A B",
                  phone: "0555123456",
                  wilayaCode: 33,
                  communeName: "Djanet",
                  addressLine: "x"
                }
              }),
              "Wilaya non desservie"
            ],
            [order({ deliveryType: "stopdesk" }), "CodeStopdesk obligatoire"],
            [order({ deliveryType: "stopdesk", stopDeskId: "31A" }), "CodeStopdesk non reconnu"],
            [
              order({ recipient: { fullName: "A B", phone: "0555123456", wilayaCode: 16, communeName: "Hydra" } }),
              "Adresse obligatoire"
            ]
          ]
          for (const [input, words] of refused) {
            const reason = yield* Effect.flip(create(input, context))
            assert.strictEqual(reason._tag, "Refused", words)
            assert.include(reason.message, words)
            assert.isUndefined((reason as CourierError.Refused).created, "nothing was made")
          }
          const desk = yield* create(order({ deliveryType: "stopdesk", stopDeskId: "16B" }), context)
          assert.strictEqual(desk.rawStatus, "En Traitement")
        })
      )
    )
  })

  describe("track", () => {
    it.effect("reads the parcel's Avancement and Situation, the remarks left out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          fake.setClock("02/05/2026 14:30:00")
          fake.setState(trackingNumber, { avancement: "Sortir en livraison", situation: "Appel Tel" })
          assert.deepStrictEqual(yield* track(trackingNumber, context), [
            { rawStatus: "Sortir en livraison", timestamp: "2026-05-02T14:30:00+01:00" }
          ])
          fake.setState(trackingNumber, { avancement: "Retour Fournisseur", situation: "Annuler x3" })
          assert.deepStrictEqual(
            (yield* track(trackingNumber, context)).map((event) => event.rawStatus),
            ["Retour Fournisseur", "Annuler x3"]
          )
          assert.strictEqual(fake.requests.at(-1)?.path, `/Api_v1/Colis/Tracking/${trackingNumber}`)
          assert.strictEqual(fake.requests.at(-1)?.method, "GET")
        })
      )
    )

    it.effect("refuses a tracking number E-COM does not know", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(track("EC424242", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "does not know this tracking number")
        })
      )
    )
  })

  describe("rates", () => {
    it.effect("prices the door and the desk from the tariff", () =>
      withFake(
        Effect.gen(function* () {
          const [home, desk, back] = tariff(31)
          const result = yield* rates(query({ toWilaya: 31, deliveryType: "home" }), context)
          assert.deepStrictEqual([result.deliveryFee, result.returnFee, result.total], [home, back, home])
          assert.deepStrictEqual(
            result.options.map((option) => [option.deliveryType, option.deliveryFee]),
            [
              ["home", home],
              ["stopdesk", desk]
            ]
          )
          const [wilaya] = NO_DESK
          assert.strictEqual(
            (yield* Effect.flip(rates(query({ toWilaya: wilaya, deliveryType: "stopdesk" }), context)))._tag,
            "Refused"
          )
          const [unserved] = UNSERVED
          assert.strictEqual(
            (yield* Effect.flip(rates(query({ toWilaya: unserved, deliveryType: "home" }), context)))._tag,
            "Refused"
          )
          const fake = yield* EcomDeliveryFake
          assert.deepStrictEqual(
            [...new Set(fake.requests.map(({ method, path }) => `${method} ${path}`))],
            ["GET /Api_v1/Tarification"]
          )
        })
      )
    )

    it.effect("refuses the express tier without a request", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(
            rates(query({ toWilaya: 31, deliveryType: "home", tier: "express" }), context)
          )
          assert.strictEqual(reason._tag, "Refused")
          assert.lengthOf((yield* EcomDeliveryFake).requests, 0)
        })
      )
    )
  })

  describe("dispatch", () => {
    it.effect("holds a parcel in preparation when asked, and ships it later with aExpédier", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const held = yield* create(order(), { ...context, dispatch: false })
          assert.strictEqual(held.rawStatus, "En Préparation")
          assert.strictEqual(adapter.statuses[held.rawStatus], "created")
          assert.deepStrictEqual(
            fake.requests.map(({ method, path }) => `${method} ${path}`),
            ["POST /Api_v1/Colis"],
            "no aExpédier"
          )
          const dispatched = yield* dispatch(held.trackingNumber, context)
          assert.deepStrictEqual(dispatched, { rawStatus: "En Traitement" })
          assert.deepStrictEqual(
            fake.requests.slice(1).map(({ method, path }) => `${method} ${path}`),
            [`GET /Api_v1/Colis/Tracking/${held.trackingNumber}`, `PUT ${SHIP_PATH}`]
          )
          assert.strictEqual(fake.parcels.get(held.trackingNumber)?.avancement, "En Traitement")
        })
      )
    )

    it.effect("answers where a parcel already shipped or collected is, sending no aExpédier; refuses the unknown", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          const before = fake.requests.length
          assert.deepStrictEqual(yield* dispatch(trackingNumber, context), { rawStatus: "En Traitement" })
          fake.setState(trackingNumber, { avancement: "Dispatcher" })
          assert.deepStrictEqual(yield* dispatch(trackingNumber, context), { rawStatus: "Dispatcher" })
          assert.isFalse(fake.requests.slice(before).some(({ method }) => method === "PUT"))
          fake.setState(trackingNumber, { avancement: "Téléporté" })
          assert.strictEqual((yield* Effect.flip(dispatch(trackingNumber, context)))._tag, "Refused")
          assert.strictEqual((yield* Effect.flip(dispatch("ECOM-NONE", context)))._tag, "Refused")
        })
      )
    )
  })

  describe("cancel", () => {
    it.effect("reads the parcel, then deletes it with PUT Supprimer; it is gone", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          const before = fake.requests.length
          yield* cancel(trackingNumber, context)
          assert.deepStrictEqual(
            fake.requests.slice(before).map(({ method, path }) => `${method} ${path}`),
            [`GET /Api_v1/Colis/Tracking/${trackingNumber}`, `PUT ${DELETE_PATH}`]
          )
          assert.deepStrictEqual(fake.requests.at(-1)?.body, { Colis: [{ Tracking: trackingNumber }] })
          assert.strictEqual(fake.requests.at(-1)?.headers.key, ACCOUNT.key)
          assert.isFalse(fake.parcels.has(trackingNumber))
          const again = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(again._tag, "Refused", "a deleted parcel is one E-COM no longer knows")
        })
      )
    )

    it.effect("a parcel still in preparation (created without aExpédier) is deleted too", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* createOnly(order(), context)
          yield* cancel(trackingNumber, context)
          assert.isFalse(fake.parcels.has(trackingNumber))
        })
      )
    )

    it.effect("a parcel E-COM has collected is NotCancellable, naming where it is; nothing is deleted", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          fake.setState(trackingNumber, { avancement: "Dispatcher" })
          const reason = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(reason._tag, "NotCancellable")
          assert.include(reason.message, '"Dispatcher"')
          assert.isTrue(fake.parcels.has(trackingNumber))
          assert.notInclude(
            fake.requests.map(({ path }) => path),
            DELETE_PATH,
            "the delete was not sent"
          )
        })
      )
    )

    it.effect("E-COM's own refusal of the delete is passed on in its words", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          fake.misbehaveNext({ kind: "refuse", message: "Suppression impossible pour ce compte" }, DELETE_PATH)
          const reason = yield* Effect.flip(cancel(trackingNumber, context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "Suppression impossible pour ce compte")
          assert.isTrue(fake.parcels.has(trackingNumber))
        })
      )
    )

    it.effect("an unknown tracking number is refused before any delete", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const reason = yield* Effect.flip(cancel("EC424242", context))
          assert.strictEqual(reason._tag, "Refused")
          assert.deepStrictEqual(
            fake.requests.map(({ method }) => method),
            ["GET"]
          )
        })
      )
    )
  })

  describe("trackBatch", () => {
    it.effect("tracks several parcels in one POST Colis/Liste; an unknown number is left out", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const first = yield* create(order(), context)
          const second = yield* create(order({ reference: "CMD-8" }), context)
          fake.setClock("02/05/2026 14:30:00")
          fake.setState(second.trackingNumber, { avancement: "Au Bureau", situation: "Ne Réponde pas #2" })
          const before = fake.requests.length
          const found = yield* trackBatch([first.trackingNumber, second.trackingNumber, "EC424242"], context)
          assert.deepStrictEqual([...found.keys()], [first.trackingNumber, second.trackingNumber])
          assert.deepStrictEqual(found.get(second.trackingNumber), [
            { rawStatus: "Au Bureau", timestamp: "2026-05-02T14:30:00+01:00" },
            { rawStatus: "Ne Réponde pas #2", timestamp: "2026-05-02T14:30:00+01:00" }
          ])
          assert.deepStrictEqual(
            found.get(first.trackingNumber)?.map((event) => event.rawStatus),
            yield* Effect.map(track(first.trackingNumber, context), (events) => events.map((event) => event.rawStatus))
          )
          const [request] = fake.requests.slice(before)
          assert.strictEqual(`${request?.method} ${request?.path}`, `POST ${LIST_PATH}`)
          assert.strictEqual(request?.headers.page, "1")
          assert.deepStrictEqual(request?.body, {
            Colis: [{ Tracking: first.trackingNumber }, { Tracking: second.trackingNumber }, { Tracking: "EC424242" }]
          })
        })
      )
    )

    it.effect("reads every page E-COM says there is, with the Page header", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const made: Array<string> = []
          for (let i = 0; i < LIST_PAGE_SIZE + 5; i++) {
            made.push((yield* createOnly(order({ reference: `CMD-${i}` }), context)).trackingNumber)
          }
          const before = fake.requests.length
          const found = yield* trackBatch(made, context)
          assert.deepStrictEqual([...found.keys()].sort(), [...made].sort())
          assert.deepStrictEqual(
            fake.requests.slice(before).map((request) => request.headers.page),
            ["1", "2"]
          )
        })
      )
    )

    it.effect("none asked: nothing is sent", () =>
      withFake(
        Effect.gen(function* () {
          assert.strictEqual((yield* trackBatch([], context)).size, 0)
          assert.lengthOf((yield* EcomDeliveryFake).requests, 0)
        })
      )
    )
  })

  describe("checkCredentials", () => {
    it.effect("asks E-COM's connection test (GET Test), creating nothing; refused credentials are rejected", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          yield* checkCredentials(undefined, context)
          assert.deepStrictEqual(
            fake.requests.map(({ method, path }) => `${method} ${path}`),
            ["GET /Api_v1/Test"]
          )
          assert.strictEqual(fake.parcels.size, 0)
          const wrong = Schema.decodeUnknownSync(Credentials)({ apiKey: ACCOUNT.key, apiToken: `${ACCOUNT.token}-old` })
          const reason = yield* Effect.flip(checkCredentials(undefined, { credentials: wrong }))
          assert.strictEqual(reason._tag, "CredentialsRejected")
          assert.include(reason.message, "Key ou Token invalide")
        })
      )
    )
  })

  describe("failures on the new operations", () => {
    const cases: ReadonlyArray<readonly [string, Misbehaviour, CourierError.CourierErrorReason["_tag"]]> = [
      ["a 429", { kind: "rateLimited", retryAfter: "17" }, "CourierRateLimited"],
      ["a 503", { kind: "status", status: 503 }, "Unreachable"],
      ["an HTML page", { kind: "html" }, "BadResponse"],
      ["a refusal", { kind: "refuse", message: "Compte suspendu" }, "Refused"]
    ]
    it.effect.each(cases)("%s → %s, on cancel, trackBatch and checkCredentials", ([, misbehaviour, tag]) =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          for (const call of [
            cancel(trackingNumber, context),
            trackBatch([trackingNumber], context),
            checkCredentials(undefined, context)
          ]) {
            fake.misbehaveNext(misbehaviour)
            const reason = yield* Effect.flip(call)
            assert.strictEqual(reason._tag, tag, reason.message)
            assert.notInclude(JSON.stringify(reason), ACCOUNT.token)
          }
          assert.isTrue(fake.parcels.has(trackingNumber), "no failed cancel deleted the parcel")
        })
      )
    )
  })

  describe("the fake refuses what E-COM refuses", () => {
    it.effect("credentials in any other header, or the key and token swapped", () =>
      withFake(
        Effect.gen(function* () {
          for (const headers of [
            { Key: "", Token: "", authorization: `Bearer ${ACCOUNT.token}` },
            { Key: ACCOUNT.token, Token: ACCOUNT.key },
            { Key: "", Token: "", "x-api-key": ACCOUNT.key, "x-api-token": ACCOUNT.token }
          ]) {
            const answer = yield* raw({ method: "GET", path: "/Api_v1/Tarification", headers })
            assert.strictEqual(
              Mapping.errorOf(answer)._tag,
              "CredentialsRejected",
              JSON.stringify(Object.keys(headers))
            )
          }
        })
      )
    )

    it.effect(
      "a misspelled field, a wilaya code padded or out of range, a phone in another form, flags as strings",
      () =>
        withFake(
          Effect.gen(function* () {
            const valid = Mapping.toColis(order())
            const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
              [{ ...valid, Telephone: "0555123456" }, "Champ inconnu"],
              [{ ...valid, Wilaya: "59" }, "Wilaya non reconnue"],
              [{ ...valid, Wilaya: "Alger" }, "Wilaya non reconnue"],
              [{ ...valid, Mobile_1: "+213555123456" }, "Mobile_1 invalide"],
              [{ ...valid, Stopdesk: "0" }, "Stopdesk doit être 0 ou 1"],
              [{ ...valid, Total: "45.5" }, "Total invalide"],
              [{ ...valid, NomComplet: " " }, "NomComplet obligatoire"]
            ]
            for (const [colis, words] of cases) {
              const answer = yield* raw({ method: "POST", path: "/Api_v1/Colis", json: { Colis: [colis] } })
              assert.include(refusalOf(answer), words)
            }
            const ok = yield* raw({ method: "POST", path: "/Api_v1/Colis", json: { Colis: [valid] } })
            assert.strictEqual(ok.status, 200, ok.text)
          })
        )
    )

    it.effect("a delete of a collected or unknown parcel, a list of more than 100", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcomDeliveryFake
          const { trackingNumber } = yield* create(order(), context)
          fake.setState(trackingNumber, { avancement: "Sortir en livraison" })
          const collected = yield* raw({
            method: "PUT",
            path: DELETE_PATH,
            json: { Colis: [{ Tracking: trackingNumber }] }
          })
          assert.include(refusalOf(collected), `le colis ${trackingNumber} est Sortir en livraison`)
          assert.isTrue(fake.parcels.has(trackingNumber))
          const unknown = yield* raw({ method: "PUT", path: DELETE_PATH, json: { Colis: [{ Tracking: "EC424242" }] } })
          assert.include(refusalOf(unknown), "Tracking introuvable")
          const many = Array.from({ length: 101 }, (_, i) => ({ Tracking: `EC${i}` }))
          const tooMany = yield* raw({ method: "POST", path: LIST_PATH, json: { Colis: many } })
          assert.include(refusalOf(tooMany), "Maximum 100 colis")
        })
      )
    )

    it.effect("the wrong method or an unknown path, read as an undocumented answer", () =>
      withFake(
        Effect.gen(function* () {
          for (const request of [
            { method: "POST", path: "/Api_v1/Tarification" },
            { method: "POST", path: "/Api_v1/aExp%C3%A9dier", json: { Colis: [] } },
            { method: "GET", path: "/Api_v1/Historique/Tracking/EC000001" }
          ] as const) {
            const answer = yield* raw(request)
            assert.strictEqual(Mapping.errorOf(answer)._tag, "BadResponse", `${request.method} ${request.path}`)
          }
        })
      )
    )
  })
})
