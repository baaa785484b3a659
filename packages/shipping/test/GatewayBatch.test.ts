import { assert, describe, it } from "@effect/vitest"
import { CourierAdapter, CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Effect, Layer, Result, Schema } from "effect"
import { PDFDocument } from "pdf-lib"
import * as ClientWindow from "../src/ClientWindow.ts"
import * as Gateway from "../src/Gateway.ts"
import { Catalogue, LabelSheet, Shipping } from "../src/index.ts"

const order = (reference: string, overrides: Partial<Record<string, unknown>> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference,
    recipient: { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
    deliveryType: "home",
    productList: "1x robe",
    codAmount: 4500,
    ...overrides
  })

/** A PDF of `pages` pages, each naming the parcel, as a courier renders a label. */
const pdfOf = (trackingNumber: string, pages: number) =>
  Effect.promise(() =>
    PDFDocument.create().then((document) => {
      for (let page = 0; page < pages; page++) document.addPage([288, 432]).drawText(`${trackingNumber} ${page + 1}`)
      return document.save()
    })
  )

/**
 * Two couriers of one test platform family: `bulkco` creates through a bulk operation, `oneco` has `create` only.
 * An order's `notes` decides: `refuse` is refused by the courier; `down` (bulk only) makes the whole bulk call
 * unreachable. Labels: `L<n>` is a PDF of n pages, `HTML` an HTML page, `BARE` a PDF without pages, `GONE` refused.
 */
const couriers = Effect.sync(() => {
  const counts = { bulkCalls: 0, bulkOrders: 0, creates: 0, inFlight: 0, maxInFlight: 0 }
  let next = 0
  const createOne = (parcel: Shipment.ParcelOrder) =>
    parcel.notes === "refuse"
      ? Effect.fail(new CourierError.Refused({ message: "commune not served" }))
      : Effect.succeed({ trackingNumber: `T-${++next}`, rawStatus: "created" })
  const label = (trackingNumber: string) => {
    if (trackingNumber === "GONE") return Effect.fail(new CourierError.Refused({ message: "no such parcel" }))
    // A header and a trailer only: it parses, but has no page tree.
    if (trackingNumber === "BARE") {
      return Effect.succeed({ contentType: "application/pdf", bytes: new TextEncoder().encode("%PDF-1.4\n%%EOF\n") })
    }
    if (trackingNumber === "HTML") {
      return Effect.succeed({ contentType: "text/html", bytes: new TextEncoder().encode("<html>label</html>") })
    }
    return Effect.map(pdfOf(trackingNumber, Number(trackingNumber.slice(1))), (bytes) => ({
      contentType: "application/pdf",
      bytes
    }))
  }
  const bulk = CourierAdapter.define({
    platform: "bulk",
    couriers: [{ key: "bulkco", name: "Bulk Co", aliases: [], endpoint: { origin: "https://api.bulk.dz" } }],
    statuses: { created: "pending_pickup" },
    operations: {
      create: (parcel) => Effect.tap(createOne(parcel), () => Effect.sync(() => counts.creates++)),
      createBatch: (orders) =>
        Effect.gen(function* () {
          counts.bulkCalls++
          counts.bulkOrders += orders.length
          if (orders.some((parcel) => parcel.notes === "down")) {
            return yield* new CourierError.Unreachable({ message: "no answer" })
          }
          return yield* Effect.forEach(orders, (parcel) => Effect.result(createOne(parcel)))
        }),
      label
    }
  })
  const one = CourierAdapter.define({
    platform: "one",
    couriers: [{ key: "oneco", name: "One Co", aliases: [], endpoint: { origin: "https://api.one.dz" } }],
    statuses: { created: "pending_pickup" },
    operations: {
      create: (parcel) =>
        Effect.gen(function* () {
          counts.creates++
          counts.inFlight++
          counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight)
          yield* Effect.yieldNow
          counts.inFlight--
          return yield* createOne(parcel)
        })
    }
  })
  const transport = Layer.succeed(
    Shipping.Transport,
    Shipping.Transport.of({ bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
  )
  const layer = Gateway.layer({ requestsPerMinute: 1000, maxConcurrentCreates: 4 }).pipe(
    Layer.provide(Shipping.Shipping.layer(Catalogue.make([bulk, one])).pipe(Layer.provide(transport))),
    Layer.provide(Idempotency.layer({ wait: "10 millis" }).pipe(Layer.provide(IdempotencyStore.layerMemory))),
    Layer.provide(ClientWindow.layerStoreMemory())
  )
  return { layer, counts }
})

const withGateway = <A, E>(
  body: (gateway: Gateway.Gateway["Service"], counts: Effect.Success<typeof couriers>["counts"]) => Effect.Effect<A, E>
) =>
  Effect.gen(function* () {
    const { layer, counts } = yield* couriers
    return yield* Effect.flatMap(Gateway.Gateway, (gateway) => body(gateway, counts)).pipe(Effect.provide(layer))
  })

/** 100 orders: every 10th refused by the courier, the 5th with a phone that is not a mobile. */
const hundred = Array.from({ length: 100 }, (_, index) =>
  order(`ref-${index}`, {
    ...(index % 10 === 9 ? { notes: "refuse" } : {}),
    ...(index === 4 ? { recipient: { fullName: "Amina B", phone: "021234567", wilayaCode: 16, communeName: "X" } } : {})
  })
)

const tagsOf = (results: ReadonlyArray<Gateway.BatchCreated>) =>
  results.map((result) =>
    Result.isSuccess(result)
      ? "created"
      : result.failure._tag === "CourierError"
        ? `${result.failure.reason._tag}`
        : result.failure._tag
  )

describe("Gateway batches", () => {
  describe("createBatch", () => {
    it.effect("creates 100 parcels in one bulk call, each refused order refused alone, in order", () =>
      withGateway((gateway, counts) =>
        Effect.gen(function* () {
          const results = yield* gateway.createBatch({ courier: "bulkco", orders: hundred })
          assert.strictEqual(results.length, 100)
          const tags = tagsOf(results)
          assert.strictEqual(tags[4], "NotAMobile")
          for (const index of [9, 19, 99]) assert.strictEqual(tags[index], "Refused")
          assert.strictEqual(tags.filter((tag) => tag === "created").length, 89)
          assert.deepStrictEqual(
            results.flatMap((result, index) => (Result.isSuccess(result) ? [[result.success.reference, index]] : [])),
            results.flatMap((result, index) => (Result.isSuccess(result) ? [[`ref-${index}`, index]] : []))
          )
          // One bulk call, without the order the host refused first.
          assert.deepStrictEqual([counts.bulkCalls, counts.bulkOrders, counts.creates], [1, 99, 0])
        })
      )
    )

    it.effect("a retry of the same batch creates nothing twice: made parcels replayed, refused orders sent again", () =>
      withGateway((gateway, counts) =>
        Effect.gen(function* () {
          const first = yield* gateway.createBatch({ courier: "bulkco", orders: hundred })
          const again = yield* gateway.createBatch({ courier: "bulkco", orders: hundred })
          assert.deepStrictEqual(tagsOf(again), tagsOf(first))
          for (const [index, result] of again.entries()) {
            const before = first[index]!
            if (Result.isSuccess(result) && Result.isSuccess(before)) {
              assert.strictEqual(result.success.trackingNumber, before.success.trackingNumber)
            }
          }
          // The second call sent only the ten the courier refused (their keys were freed): no parcel made twice.
          assert.deepStrictEqual([counts.bulkCalls, counts.bulkOrders], [2, 99 + 10])
        })
      )
    )

    it.effect("another order under a reference already used fails alone with KeyReused", () =>
      withGateway((gateway) =>
        Effect.gen(function* () {
          yield* gateway.createBatch({ courier: "bulkco", orders: [order("a"), order("b")] })
          const results = yield* gateway.createBatch({
            courier: "bulkco",
            orders: [order("a", { codAmount: 9000 }), order("c")]
          })
          assert.deepStrictEqual(tagsOf(results), ["KeyReused", "created"])
        })
      )
    )

    // Live: the retry waits (10 ms, `Idempotency.layer`'s `wait`) for the held keys before `InFlight`.
    it.live("an unreachable bulk call fails each order, and their keys stay held (the courier may have acted)", () =>
      withGateway((gateway, counts) =>
        Effect.gen(function* () {
          const orders = [order("x1"), order("x2", { notes: "down" })]
          const results = yield* gateway.createBatch({ courier: "bulkco", orders })
          assert.deepStrictEqual(tagsOf(results), ["Unreachable", "Unreachable"])
          const retried = yield* gateway.createBatch({ courier: "bulkco", orders })
          assert.deepStrictEqual(tagsOf(retried), ["InFlight", "InFlight"])
          assert.strictEqual(counts.bulkCalls, 1)
        })
      )
    )

    it.effect("a courier without a bulk create gets one create per order, a few at a time", () =>
      withGateway((gateway, counts) =>
        Effect.gen(function* () {
          const results = yield* gateway.createBatch({ courier: "oneco", orders: hundred.slice(0, 20) })
          assert.strictEqual(tagsOf(results).filter((tag) => tag === "created").length, 17)
          assert.strictEqual(counts.creates, 19)
          assert.isAtMost(counts.maxInFlight, 4)
          assert.isAbove(counts.maxInFlight, 1)
        })
      )
    )

    it.effect("what fails every order alike fails the call, and holds no key", () =>
      withGateway((gateway) =>
        Effect.gen(function* () {
          const unknown = yield* Effect.flip(gateway.createBatch({ courier: "nobody", orders: [order("k")] }))
          assert.strictEqual(unknown._tag, "UnknownCourier")
          const credentials = yield* Effect.flip(
            gateway.createBatch({ courier: "bulkco", credentials: { token: "t" }, orders: [order("k")] })
          )
          assert.strictEqual(credentials._tag, "InvalidCredentials")
          const results = yield* gateway.createBatch({ courier: "bulkco", orders: [order("k")] })
          assert.deepStrictEqual(tagsOf(results), ["created"])
        })
      )
    )
  })

  describe("labelBatch", () => {
    it.effect("merges the labels into one PDF in the order asked, and lists those left out", () =>
      withGateway((gateway) =>
        Effect.gen(function* () {
          const merged = yield* gateway.labelBatch({
            courier: "bulkco",
            trackingNumbers: ["L1", "GONE", "L3", "HTML", "L2"]
          })
          assert.deepStrictEqual(
            merged.labels.map(({ index, trackingNumber, pages }) => [index, trackingNumber, pages]),
            [
              [0, "L1", 1],
              [2, "L3", 3],
              [4, "L2", 2]
            ]
          )
          assert.deepStrictEqual(
            merged.errors.map(({ index, error }) => [index, error._tag === "CourierError" && error.reason._tag]),
            [
              [1, "Refused"],
              [3, "BadResponse"]
            ]
          )
          // Read back with the PDF library: 1 + 3 + 2 pages, at the labels' own size.
          assert.strictEqual(yield* LabelSheet.pageCount(merged.pdf!), 6)
          const document = yield* Effect.promise(() => PDFDocument.load(merged.pdf!))
          assert.deepStrictEqual(document.getPage(5).getSize(), { width: 288, height: 432 })
        })
      )
    )

    it.effect("no label at all: no PDF, every parcel listed; a courier without labels fails the call", () =>
      withGateway((gateway) =>
        Effect.gen(function* () {
          const none = yield* gateway.labelBatch({ courier: "bulkco", trackingNumbers: ["GONE", "HTML", "BARE"] })
          assert.isUndefined(none.pdf)
          assert.deepStrictEqual(
            none.errors.map(({ error }) => error._tag === "CourierError" && error.reason._tag),
            ["Refused", "BadResponse", "BadResponse"]
          )
          const unsupported = yield* Effect.flip(gateway.labelBatch({ courier: "oneco", trackingNumbers: ["L1"] }))
          assert.strictEqual(unsupported._tag === "CourierError" && unsupported.reason._tag, "Unsupported")
        })
      )
    )
  })
})
