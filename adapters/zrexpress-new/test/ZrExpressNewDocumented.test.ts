/**
 * Issue 34: what the new ZR Express platform's own documentation says it answers, replayed through the mapping and
 * the adapter, where the adapter used to disagree with it. The documentation is ZR's OpenAPI document
 * (`https://api.zrexpress.app/swagger/public-v1/swagger.json`, as an integrator's generated reference reprints it
 * verbatim: `CreateParcelEndpoint`, `GetParcelStateHistorySupplierEndpoint` answering `ParcelStateHistoryDto`s,
 * `GenerateIndividualLabelsPdfEndpoint`), and the live default workflow's states as an integrator's audit of the
 * production API captured them. None of it was checked against the live platform.
 */
import { assert, describe, it } from "@effect/vitest"
import { CourierHttp, Shipment } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Effect, Layer, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/ZrExpressNew.ts"
import * as Mapping from "../src/ZrExpressNewMapping.ts"
import * as Status from "../src/ZrExpressNewStatus.ts"
import {
  ACCOUNT,
  DEFAULT_WORKFLOW,
  DISCOUNTED_HOME_16,
  LABEL_HOST,
  LABEL_SIGNATURE,
  ZrExpressNewFake
} from "./fake/ZrExpressNewFake.ts"
import { parcel, response } from "./fixtures/responses.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)(ACCOUNT) }
const FRENCH_TENANT = { tenantId: "3c9d2e1f-4a5b-4c6d-8e7f-901234567abc", apiKey: "fake-zr-api-key-default-workflow" }
const frenchContext = { credentials: Schema.decodeUnknownSync(Credentials)(FRENCH_TENANT) }
const { create, track, rates, label } = adapter.operations as Required<typeof adapter.operations>

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-34",
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const withFake = <A, E>(
  effect: Effect.Effect<A, E, ZrExpressNewFake | CourierHttp.CourierHttp>,
  options: Parameters<typeof ZrExpressNewFake.layer>[0] = {}
) => Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(ZrExpressNewFake.layer(options))))

/** A workflow state object as the OpenAPI's `ParcelStateHistoryDto` carries it. */
const state = (name: string, description: string) => ({
  id: "7d3f2a10-5b6c-4e8d-9f01-23456789abcd",
  name,
  description,
  isBlocking: false,
  isLocked: false,
  visibleFor: 0,
  editableBy: 0,
  color: "#388e3c"
})

describe("the new ZR Express platform, as its documentation answers", () => {
  it.live("creates a parcel: every ordered product carries the required stockType (none)", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ZrExpressNewFake
        const created = yield* create(order(), context)
        const sent = fake.byTracking(created.trackingNumber)!.body.orderedProducts as ReadonlyArray<{
          stockType?: string
        }>
        assert.deepStrictEqual(
          sent.map((product) => product.stockType),
          ["none"]
        )
      })
    )
  )

  it("ZR's refusal of a product without stockType reads as a refusal naming the product list", () => {
    // The validation answer ASP.NET gives (problem details) in ZR's words, "StockType is required.".
    const reason = Mapping.errorOf(
      response(400, {
        type: "https://tools.ietf.org/html/rfc9110",
        title: "One or more validation errors occurred.",
        status: 400,
        errors: { "orderedProducts[0].stockType": ["StockType is required."] }
      })
    )
    assert.strictEqual(reason._tag, "Refused")
    assert.include(reason.message, "order.productList: StockType is required.")
  })

  it("reads a state history in ZR's own schema (ParcelStateHistoryDto): newState and createdAt", () => {
    const history = response(200, [
      {
        id: "0b7e1f52-77a1-4c1f-9e55-3f1a2b3c4d5e",
        createdAt: "2026-04-19T08:05:12.1234567Z",
        previousState: state("vers_wilaya", "Vers wilaya"),
        newState: state("en_livraison", "En livraison"),
        modifiedBy: { id: "9f0a1b2c-3d4e-4f50-8a61-7b8c9d0e1f23", fullName: "Hub Alger" },
        location: null,
        comment: null,
        situations: []
      },
      {
        id: "1c8f2063-88b2-4d2a-8f66-4a2b3c4d5e6f",
        createdAt: "2026-04-18T18:45:06.1000000Z",
        previousState: null,
        newState: state("pret_a_expedier", "Prêt à expédier"),
        modifiedBy: null,
        location: null,
        comment: null,
        situations: []
      }
    ])
    const read = Result.getOrThrow(Mapping.fromParcel(response(200, parcel)))
    const events = Result.getOrThrow(Mapping.fromStateHistory(read, history))
    assert.deepStrictEqual(events, [
      { rawStatus: "pret_a_expedier", timestamp: "2026-04-18T19:45:06+01:00" },
      { rawStatus: "en_livraison", timestamp: "2026-04-19T09:05:12+01:00" }
    ])
  })

  it("maps the live default workflow's French states, which every real parcel goes through", () => {
    const timeline = (...names: ReadonlyArray<string>) =>
      Tracking.timeline(
        "16-JUKYSI-ZR",
        Status.statuses,
        names.map((rawStatus, index) => ({ rawStatus, timestamp: `2026-04-1${index}T10:00:00+01:00` })),
        Status.codStatuses
      ).result
    for (const [names, status] of [
      [["commande_recue", "pret_a_expedier"], "pending_pickup"],
      [["pret_a_expedier", "dispatch", "vers_wilaya"], "in_transit"],
      [["vers_wilaya", "en_livraison"], "out_for_delivery"],
      [["en_livraison", "livre"], "delivered"],
      [["livre", "encaisse"], "delivered"],
      [["en_livraison", "retour_sous_traitant", "attente_recuperation_fournisseur"], "returning"],
      [["attente_recuperation_fournisseur", "recupere_par_fournisseur"], "returned"],
      [["commande_recue", "colis_annule"], "cancelled"]
    ] as const) {
      assert.strictEqual(timeline(...names).status, status, names.join(" → "))
    }
    assert.strictEqual(timeline("livre", "encaisse").cod, "collected")
    for (const name of DEFAULT_WORKFLOW) assert.property(Status.statuses, name)
  })

  it.live("tracks a parcel of the default workflow end to end: created ready, moved, delivered", () =>
    withFake(
      Effect.gen(function* () {
        const fake = yield* ZrExpressNewFake
        // A tenant of its own: the adapter keeps each tenant's ReadyToDispatch state id for hours.
        const created = yield* create(order(), frenchContext)
        for (const name of ["dispatch", "vers_wilaya", "en_livraison", "livre"])
          fake.addState(created.trackingNumber, name)
        const { result } = Tracking.timeline(
          created.trackingNumber,
          Status.statuses,
          yield* track(created.trackingNumber, frenchContext),
          Status.codStatuses
        )
        assert.strictEqual(result.status, "delivered")
        assert.deepStrictEqual(
          result.events.map((event) => event.rawStatus),
          ["commande_recue", "pret_a_expedier", "dispatch", "vers_wilaya", "en_livraison", "livre"]
        )
      }),
      { states: DEFAULT_WORKFLOW, accounts: [FRENCH_TENANT] }
    )
  )

  it.live("prices at the documented discountedPrice where the account has one", () =>
    withFake(
      Effect.gen(function* () {
        const quote = yield* rates(
          Schema.decodeUnknownSync(Shipment.RatesQuery)({ toWilaya: 16, deliveryType: "home" }),
          context
        )
        assert.strictEqual(quote.deliveryFee, DISCOUNTED_HOME_16)
        assert.strictEqual(quote.total, DISCOUNTED_HOME_16)
      })
    )
  )

  describe("the documented PDF label (GenerateIndividualLabelsPdfEndpoint)", () => {
    // The OpenAPI's `POST parcels/labels/individual/pdf { trackingNumbers }`, answering `parcelLabelFiles` (each a
    // `trackingNumber` and a `fileUrl`) and `failedTrackingNumbers`: the shape every integrator found reads, its
    // `fileUrl` a pre-signed (SAS) link to the PDF on Azure Blob Storage (research §1.4).
    const link = `https://${LABEL_HOST}/labels/16-JUKYSI-ZR.pdf?sv=2024-08-04&sr=b&sp=r&sig=${LABEL_SIGNATURE}`

    it("reads the file named for the parcel as a bare GET of its link on the storage host", () => {
      const answer = response(200, {
        parcelLabelFiles: [
          { trackingNumber: "16-OTHER1-ZR", fileUrl: "https://elsewhere.blob.core.windows.net/labels/x.pdf?sig=a" },
          { trackingNumber: "16-JUKYSI-ZR", fileUrl: link }
        ],
        failedTrackingNumbers: []
      })
      const request = Result.getOrThrow(Mapping.fromLabelFiles("16-JUKYSI-ZR", answer))
      assert.deepStrictEqual(request, {
        method: "GET",
        host: LABEL_HOST,
        path: "/labels/16-JUKYSI-ZR.pdf",
        query: { sv: "2024-08-04", sr: "b", sp: "r", sig: LABEL_SIGNATURE }
      })
      assert.isTrue(CourierHttp.declaresDocumentHost(adapter.couriers[0]!.documents, request.host!))
    })

    it("a number ZR lists as failed, or no file, is no label; a link that is not plain https is a bad answer", () => {
      const failed = Mapping.fromLabelFiles(
        "16-JUKYSI-ZR",
        response(200, { parcelLabelFiles: [], failedTrackingNumbers: ["16-JUKYSI-ZR"] })
      )
      assert.isTrue(Result.isFailure(failed) && failed.failure._tag === "Refused")
      const plain = Mapping.fromLabelFiles(
        "16-JUKYSI-ZR",
        response(200, { parcelLabelFiles: [{ trackingNumber: "16-JUKYSI-ZR", fileUrl: "http://host.example/x.pdf" }] })
      )
      assert.isTrue(Result.isFailure(plain) && plain.failure._tag === "BadResponse")
    })

    it("a file that is not a PDF (Azure's XML error for an expired signature) is a bad answer, never a label", () => {
      const expired = Mapping.fromLabelFile(
        response(403, "<Error><Code>AuthenticationFailed</Code></Error>", { "content-type": "application/xml" })
      )
      assert.isTrue(Result.isFailure(expired) && expired.failure._tag === "BadResponse")
    })

    it.live("prints a created parcel's label: the PDF from its link, sent neither the key nor the tenant", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const created = yield* create(order(), context)
          const printed = yield* label(created.trackingNumber, context)
          assert.strictEqual(printed.contentType, "application/pdf")
          assert.include(new TextDecoder().decode(printed.bytes), created.trackingNumber)
          const file = fake.requests.at(-1)!
          assert.strictEqual(file.path, `/labels/${created.trackingNumber}.pdf`)
          assert.strictEqual(file.query.sig, LABEL_SIGNATURE)
          assert.notProperty(file.headers, "x-api-key")
          assert.notProperty(file.headers, "x-tenant")
        })
      )
    )

    it.live("an unknown number is refused as no label, nothing fetched", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* ZrExpressNewFake
          const error = yield* Effect.flip(label("16-NOSUCH-ZR", context))
          assert.strictEqual(error._tag, "Refused")
          assert.notInclude(
            fake.requests.map((request) => request.path),
            "/labels/16-NOSUCH-ZR.pdf"
          )
        })
      )
    )
  })
})
