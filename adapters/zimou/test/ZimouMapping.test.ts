/**
 * The Zimou mapping, table-driven: order → create body, and every kind of answer → a result or the reason it means.
 * The answers are reviewed by hand against the research notes (couriers.md §1.7; uften's fixtures for the package
 * resource, `{ error: 1, message }` on 201 and the keyed status answer) and Laravel's documented defaults.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierError, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ZimouMapping.ts"

type Reason = CourierError.CourierErrorReason

const response = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = { "content-type": "application/json" }
) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return { status, headers, text, bytes: new TextEncoder().encode(text) }
}

const failure = <A>(result: Result.Result<A, Reason>): Reason => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, Reason>).failure
}

/** An order; a recipient member given as `undefined` is left out. */
const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-7",
    recipient: Object.fromEntries(
      Object.entries({
        fullName: "Amina Benali",
        phone: "+213 555 12 34 56",
        wilayaCode: 16,
        communeName: "Bab Ezzouar",
        addressLine: "Cité 2000 logements",
        ...recipient
      }).filter(([, value]) => value !== undefined)
    ),
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

/** The body every home order to Bab Ezzouar shares. */
const base = {
  type: "ecommerce",
  name: "2x robe",
  client_first_name: "Amina",
  client_last_name: "Benali",
  client_phone: "0555123456",
  address: "Cité 2000 logements",
  wilaya: 16,
  commune: "Bab Ezzouar",
  order_id: "CMD-7",
  price: 4500,
  free_delivery: false,
  delivery_type: "Express",
  can_be_opened: false
}

/** uften's package resource fixture, as Zimou answers it inside `data`. */
const resource = (overrides: Record<string, unknown> = {}) => ({
  id: 1234,
  order_id: "MY-ORD-001",
  tracking_code: "ZM-ABC123",
  delivery_company_tracking_code: "YALI-99999",
  tracking_partner_company: "Yalidine",
  name: "Smartphone",
  status_id: 1,
  status_name: "EN PREPARATION",
  price: 85000.0,
  delivery_price: 450.0,
  commune: { id: 1, name: "Alger Centre", wilaya_id: 16 },
  delivery_type: "Express",
  created_at: "2024-11-01T10:00:00Z",
  updated_at: "2024-11-01T10:00:00Z",
  ...overrides
})

describe("ZimouMapping", () => {
  describe("serviceOf", () => {
    it.each([
      ["home", undefined, "Express"],
      ["home", "express", "Express"],
      ["home", "economic", "Flexible"],
      ["stopdesk", undefined, "Point relais"],
      ["stopdesk", "express", "Point relais"],
      ["stopdesk", "economic", "Point relais"]
    ] as const)("%s, tier %s → %s", (deliveryType, tier, service) => {
      assert.strictEqual(Mapping.serviceOf(deliveryType, tier), service)
    })
  })

  describe("splitName", () => {
    it.each([
      ["Amina Benali", "Amina", "Benali"],
      ["  Mohamed  el Amine   Amrani ", "Mohamed", "el Amine Amrani"],
      ["Amina", "Amina", "Amina"]
    ])("%s → %s / %s", (fullName, first, last) => {
      assert.deepStrictEqual(Mapping.splitName(fullName), { first, last })
    })
  })

  describe("toCreatePackage", () => {
    const pairs: ReadonlyArray<readonly [string, Shipment.ParcelOrder, Record<string, unknown>]> = [
      ["a home order without a tier: Express, the phone in its national form", order(), base],
      ["a home order, express", order({ tier: "express" }), base],
      ["a home order, economic: Flexible", order({ tier: "economic" }), { ...base, delivery_type: "Flexible" }],
      [
        "a desk order: Point relais to the office, the commune as the address",
        order(
          { deliveryType: "stopdesk", stopDeskId: "101", tier: "economic" },
          { addressLine: undefined, communeName: "Bab Ezzouar" }
        ),
        { ...base, address: "Bab Ezzouar", delivery_type: "Point relais", office_id: 101 }
      ],
      [
        "every optional field",
        order(
          {
            freeShipping: true,
            isExchange: true,
            hasOpenPackage: true,
            weightKg: 2.5,
            declaredValue: 9000,
            notes: "Appeler avant"
          },
          { phoneAlt: "0661 23 45 67" }
        ),
        {
          ...base,
          client_phone2: "0661234567",
          free_delivery: true,
          returned_product: "2x robe",
          weight: 2.5,
          can_be_opened: true,
          observation: "Appeler avant"
        }
      ],
      [
        "a home order without an address leaves it out, for Zimou to refuse; blank notes and reference are left out",
        order({ notes: "  ", reference: "" }, { addressLine: undefined }),
        Object.fromEntries(Object.entries(base).filter(([key]) => key !== "address" && key !== "order_id"))
      ],
      ["a stop-desk id on a home order is not sent", order({ stopDeskId: "101" }), base]
    ]
    it.each(pairs)("%s", (_name, input, body) => {
      assert.deepStrictEqual<unknown>(Mapping.toCreatePackage(input), Result.succeed(body))
    })

    it.each([
      ["without an office", order({ deliveryType: "stopdesk" }), "needs the id of the office"],
      ["with an office id that is not a number", order({ deliveryType: "stopdesk", stopDeskId: "16A" }), "numbers"]
    ])("refuses a desk order %s, naming order.stopDeskId", (_name, input, says) => {
      const reason = failure(Mapping.toCreatePackage(input))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "order.stopDeskId")
      assert.include(reason.message, says)
    })
  })

  it("asks for the status and the label of exactly one parcel", () => {
    assert.deepStrictEqual(Mapping.statusQuery("ZM-1"), { "packages[]": "ZM-1" })
    assert.deepStrictEqual(Mapping.labelBody("ZM-1"), { packages: ["ZM-1"] })
  })

  describe("fromCreated", () => {
    it.each([
      [
        "routed: Zimou's code, the status id, the partner's code",
        response(201, { error: 0, order_id: "MY-ORD-001", message: "Package created successfully", data: resource() }),
        { trackingNumber: "ZM-ABC123", rawStatus: "1", courierReference: "YALI-99999" }
      ],
      [
        "not routed yet: no courierReference",
        response(201, {
          error: 0,
          data: resource({ delivery_company_tracking_code: null, tracking_partner_company: null })
        }),
        { trackingNumber: "ZM-ABC123", rawStatus: "1" }
      ],
      [
        "a blank partner code and ids as strings",
        response(201, { data: resource({ delivery_company_tracking_code: " ", status_id: "2", id: "1234" }) }),
        { trackingNumber: "ZM-ABC123", rawStatus: "2" }
      ]
    ])("%s", (_name, answer, created) => {
      assert.deepStrictEqual(Mapping.fromCreated(answer), Result.succeed(created))
    })

    it.each([
      ["error 1 on HTTP 201", response(201, { error: 1, order_id: "", message: "Merci de mettre le nom du client" })],
      ["error 1 on HTTP 422", response(422, { error: "1", message: "Point relais introuvable" })]
    ])("refuses %s in Zimou's words", (_name, answer) => {
      const reason = failure(Mapping.fromCreated(answer))
      assert.strictEqual(reason._tag, "Refused")
      assert.strictEqual(reason.message, JSON.parse(answer.text).message)
    })

    it("refuses Laravel's validation errors under Tawsil's field names", () => {
      const reason = failure(
        Mapping.fromCreated(
          response(422, {
            message: "The office id field is required.",
            errors: { office_id: ["The office id field is required."], commune: ["Commune introuvable."] }
          })
        )
      )
      assert.strictEqual(reason._tag, "Refused")
      assert.strictEqual(
        reason.message,
        "order.stopDeskId: The office id field is required.; order.recipient.communeName: Commune introuvable."
      )
    })

    it.each([
      ["a success without data", response(201, { error: 0, message: "ok" }), "BadResponse"],
      ["a package without a tracking code", response(201, { data: resource({ tracking_code: "" }) }), "BadResponse"],
      ["a status id that is not a number", response(201, { data: resource({ status_id: "x" }) }), "BadResponse"],
      ["a bare message on 200", response(200, { message: "ok" }), "BadResponse"],
      ["the token refused", response(401, { message: "Unauthenticated." }), "CredentialsRejected"],
      ["a 403", response(403, { message: "This action is unauthorized." }), "CredentialsRejected"],
      ["a 404", response(404, { message: "The route api/v3/packages could not be found." }), "BadResponse"],
      ["a 429", response(429, { message: "Too Many Attempts." }, { "retry-after": "23" }), "CourierRateLimited"],
      ["a 500", response(500, { message: "Server Error" }), "Unreachable"],
      ["a redirect", response(302, "", { location: "https://zimou.express/login" }), "BadResponse"],
      ["an HTML page", response(200, "<html>maintenance</html>", { "content-type": "text/html" }), "BadResponse"]
    ])("%s → %s", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromCreated(answer))._tag, tag)
    })

    it("quotes Zimou's words on a refused token and reads Retry-After", () => {
      assert.include(
        failure(Mapping.fromCreated(response(401, { message: "Unauthenticated." }))).message,
        "Unauthenticated."
      )
      const limited = failure(
        Mapping.fromCreated(response(429, { message: "Too Many Attempts." }, { "retry-after": "23" }))
      )
      assert.strictEqual(limited._tag === "CourierRateLimited" ? limited.retryAfterSeconds : undefined, 23)
    })
  })

  describe("fromStatuses", () => {
    const entry = (overrides: Record<string, unknown> = {}) => ({
      order_id: "MY-ORD-001",
      status_id: 7,
      status_name: "SORTIE EN LIVRAISON",
      tracking_partner_company: "DHD",
      updated_at: "2026-04-20T13:02:33.000000Z",
      ...overrides
    })

    it.each([
      ["keyed by code (uften's fixture)", { "ZM-ABC123": entry() }, "7", "2026-04-20T14:02:33+01:00"],
      ["under data", { data: { "ZM-ABC123": entry({ status_id: "8" }) } }, "8", "2026-04-20T14:02:33+01:00"],
      [
        "Algiers wall-clock time, without updated_at",
        { "ZM-ABC123": entry({ updated_at: null, created_at: "2026-04-18 19:45:06" }) },
        "7",
        "2026-04-18T19:45:06+01:00"
      ],
      [
        "an id nobody mapped, passed on as sent",
        { "ZM-ABC123": entry({ status_id: 117 }) },
        "117",
        "2026-04-20T14:02:33+01:00"
      ]
    ])("%s", (_name, body, rawStatus, timestamp) => {
      assert.deepStrictEqual(
        Mapping.fromStatuses("ZM-ABC123", response(200, body)),
        Result.succeed([{ rawStatus, timestamp }])
      )
    })

    it.each([
      ["PHP's empty answer", []],
      ["an empty object", {}],
      ["another parcel only", { "ZM-OTHER": entry() }],
      ["a longer code", { "ZM-ABC1234": entry() }],
      ["a null entry", { "ZM-ABC123": null }]
    ])("refuses %s: the parcel is unknown", (_name, body) => {
      const reason = failure(Mapping.fromStatuses("ZM-ABC123", response(200, body)))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "trackingNumber")
    })

    it.each([
      ["no status id", { "ZM-ABC123": entry({ status_id: undefined }) }],
      ["no time at all", { "ZM-ABC123": entry({ updated_at: undefined }) }],
      ["a time in another format", { "ZM-ABC123": entry({ updated_at: "20/04/2026 14:02" }) }],
      ["an impossible day", { "ZM-ABC123": entry({ updated_at: "2026-02-30 10:00:00" }) }],
      ["not an object", "ZM-ABC123"]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromStatuses("ZM-ABC123", response(200, body)))._tag, "BadResponse")
    })
  })

  describe("fromPrices", () => {
    const row = (overrides: Record<string, unknown> = {}) => ({
      wilaya_id: 31,
      wilaya_name: "Oran",
      express_price: "750.00",
      flexible_price: "600.00",
      point_relais_price: 500,
      return_price: "200.00",
      ...overrides
    })
    const options = [
      { deliveryType: "home", tier: "express", deliveryFee: 750, returnFee: 200 },
      { deliveryType: "home", tier: "economic", deliveryFee: 600, returnFee: 200 },
      { deliveryType: "stopdesk", deliveryFee: 500, returnFee: 200 }
    ]

    it.each([
      ["home, no tier: Express", { deliveryType: "home" }, { deliveryType: "home", tier: "express", deliveryFee: 750 }],
      [
        "home, economic: Flexible",
        { deliveryType: "home", tier: "economic" },
        { deliveryType: "home", tier: "economic", deliveryFee: 600 }
      ],
      [
        "stopdesk: Point relais, no tier",
        { deliveryType: "stopdesk", tier: "express" },
        { deliveryType: "stopdesk", deliveryFee: 500 }
      ]
    ])("%s", (_name, asked, expected) => {
      const result = Mapping.fromPrices(
        query({ toWilaya: 31, ...asked }),
        response(200, { data: [row({ wilaya_id: 16 }), row()] })
      )
      assert.isTrue(Result.isSuccess(result))
      const rates = (result as Result.Success<Shipment.RatesResult, Reason>).success
      assert.deepStrictEqual(JSON.parse(JSON.stringify(rates)), {
        ...expected,
        returnFee: 200,
        codFee: 0,
        total: expected.deliveryFee,
        currency: "DZD",
        options
      })
    })

    it("reads a bare list, ids as strings, and a missing return price as 0", () => {
      const result = Mapping.fromPrices(
        query({ toWilaya: 31, deliveryType: "home" }),
        response(200, [
          row({ wilaya_id: "31", return_price: undefined, flexible_price: null, point_relais_price: null })
        ])
      )
      assert.isTrue(Result.isSuccess(result))
      const rates = (result as Result.Success<Shipment.RatesResult, Reason>).success
      assert.strictEqual(rates.returnFee, 0)
      assert.lengthOf(rates.options, 1)
    })

    it.each([
      ["a wilaya not in the prices", { toWilaya: 50, deliveryType: "home" }, "wilaya 50"],
      ["a service not sold there", { toWilaya: 31, deliveryType: "home", tier: "economic" }, "no Flexible delivery"]
    ])("refuses %s", (_name, asked, says) => {
      const reason = failure(Mapping.fromPrices(query(asked), response(200, { data: [row({ flexible_price: null })] })))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, says)
    })

    it.each([
      ["a price with centimes", { data: [row({ express_price: "750.50" })] }],
      ["a negative price", { data: [row({ express_price: -1 })] }],
      ["no rows key", { prices: [] }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(
        failure(Mapping.fromPrices(query({ toWilaya: 31, deliveryType: "home" }), response(200, body)))._tag,
        "BadResponse"
      )
    })
  })

  describe("fromLabel", () => {
    it("answers the PDF itself", () => {
      const pdf = response(200, "%PDF-1.4\n% ZM-1\n%%EOF\n", { "content-type": "application/pdf" })
      assert.deepStrictEqual(
        Mapping.fromLabel(pdf),
        Result.succeed({ contentType: "application/pdf", bytes: pdf.bytes })
      )
    })

    it.each([
      [
        "an unknown code (422, error 1)",
        response(422, { error: 1, message: "Aucun colis trouvé pour ces codes" }),
        "Refused"
      ],
      ["a refusal inside HTTP 200", response(200, { error: 1, message: "Colis annulé" }), "Refused"],
      ["JSON that is no label", response(200, { data: "JVBERi0=" }), "BadResponse"],
      ["an empty body", response(200, ""), "BadResponse"],
      ["a redirect", response(302, "", { location: "https://zimou.express/packages/1/print" }), "BadResponse"],
      ["the token refused", response(401, { message: "Unauthenticated." }), "CredentialsRejected"]
    ])("%s → %s", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromLabel(answer))._tag, tag)
    })
  })

  describe("batch tracking", () => {
    const entry = (overrides: Record<string, unknown> = {}) => ({
      status_id: 7,
      status_name: "SORTIE EN LIVRAISON",
      updated_at: "2026-04-20T13:02:33.000000Z",
      ...overrides
    })

    it("asks each code once, under its index, and refuses more than 100 or a blank one before any call", () => {
      assert.deepStrictEqual(
        Result.map(Mapping.checkBatch(["ZM-1", "ZM-2", "ZM-1"]), Mapping.batchQuery),
        Result.succeed({ "packages[0]": "ZM-1", "packages[1]": "ZM-2" })
      )
      assert.deepStrictEqual(Mapping.checkBatch([]), Result.succeed([]))
      const tooMany = failure(Mapping.checkBatch(Array.from({ length: 101 }, (_, i) => `ZM-${i}`)))
      assert.strictEqual(tooMany._tag, "Refused")
      assert.include(tooMany.message, "at most 100")
      assert.isTrue(Result.isSuccess(Mapping.checkBatch(Array.from({ length: 100 }, (_, i) => `ZM-${i}`))))
      assert.include(failure(Mapping.checkBatch(["ZM-1", " "])).message, "blank")
    })

    it.each([
      [
        "keyed by code, an unknown one left out",
        { "ZM-1": entry(), "ZM-3": entry({ status_id: 2 }) },
        [
          ["ZM-1", [{ rawStatus: "7", timestamp: "2026-04-20T14:02:33+01:00" }]],
          ["ZM-3", [{ rawStatus: "2", timestamp: "2026-04-20T14:02:33+01:00" }]]
        ]
      ],
      [
        "under data, with a code nobody asked for",
        { data: { "ZM-2": entry({ status_id: "8" }), "ZM-9": entry() } },
        [["ZM-2", [{ rawStatus: "8", timestamp: "2026-04-20T14:02:33+01:00" }]]]
      ],
      ["PHP's empty answer: none known", [], []],
      ["a null entry: not known", { "ZM-1": null }, []]
    ])("%s", (_name, body, expected) => {
      const result = Mapping.fromBatchStatuses(["ZM-1", "ZM-2", "ZM-3"], response(200, body))
      assert.deepStrictEqual(
        Result.map(result, (found): ReadonlyArray<unknown> => [...found.entries()]),
        Result.succeed(expected as ReadonlyArray<unknown>)
      )
    })

    it.each([
      ["an asked entry without a status id", { "ZM-1": entry({ status_id: undefined }) }, "BadResponse"],
      ["an asked entry without a time", { "ZM-1": entry({ updated_at: null }) }, "BadResponse"],
      ["not an object", "ZM-1", "BadResponse"],
      ["a validation refusal", { message: "x", errors: { packages: ["The packages field is required."] } }, "Refused"]
    ])("%s → %s", (_name, body, tag) => {
      const status = tag === "Refused" ? 422 : 200
      assert.strictEqual(failure(Mapping.fromBatchStatuses(["ZM-1"], response(status, body)))._tag, tag)
    })
  })

  describe("cancel", () => {
    it("deletes one parcel by its code", () => {
      assert.deepStrictEqual(Mapping.bulkDeleteBody("ZM-000001"), { tracking_codes: ["ZM-000001"] })
    })

    it.each([
      ["success true", response(200, { success: true, message: "1 colis supprimé(s)" })],
      ["Zimou's error 0", response(200, { error: 0, message: "Colis supprimé" })],
      ["words alone (courier-dz's success ?? true)", response(200, { message: "Colis supprimé" })],
      ["HTTP 204 without a body", response(204, "")]
    ])("%s → done", (_name, answer) => {
      assert.deepStrictEqual(Mapping.fromDeleted(answer), Result.void)
    })

    it.each([
      [
        "error 1 on 422, in Zimou's words",
        response(422, { error: 1, message: "Le colis ZM-1 ne peut plus être supprimé" }),
        "Refused",
        "Le colis ZM-1 ne peut plus être supprimé"
      ],
      [
        "error 1 inside a 200",
        response(200, { error: 1, message: "Colis introuvable" }),
        "Refused",
        "Colis introuvable"
      ],
      ["success false", response(200, { success: false, message: "Suppression impossible" }), "Refused", "impossible"],
      [
        "Laravel's validation, fields renamed",
        response(422, { message: "x", errors: { "tracking_codes.0": ["The selected code is invalid."] } }),
        "Refused",
        "trackingNumber: The selected code is invalid."
      ],
      ["JSON of another shape", response(200, { deleted: [1] }), "BadResponse", "does not document"],
      ["a 404 (the route missing)", response(404, { message: "Not Found" }), "BadResponse", "does not document"],
      ["the token refused", response(401, { message: "Unauthenticated." }), "CredentialsRejected", "HTTP 401"]
    ])("%s → %s", (_name, answer, tag, words) => {
      const reason = failure(Mapping.fromDeleted(answer))
      assert.strictEqual(reason._tag, tag)
      assert.include(reason.message, words)
    })

    const refused = { _tag: "Refused", message: "Le colis ne peut plus être supprimé" } as unknown as Reason
    const at = (rawStatus: string) => Result.succeed([{ rawStatus, timestamp: "2026-04-20T14:02:33+01:00" }])

    it.each([
      ["3 EXPEDIE (picked up)", "3"],
      ["4 in transit", "4"],
      ["7 out for delivery", "7"],
      ["8 delivered", "8"],
      ["20 returned", "20"]
    ])("a refusal of a parcel at %s is NotCancellable, in Zimou's words", (_name, rawStatus) => {
      const reason = Mapping.whyNotCancelled(refused, at(rawStatus))
      assert.strictEqual(reason._tag, "NotCancellable")
      assert.include(reason.message, "Le colis ne peut plus être supprimé")
      assert.include(reason.message, `status ${rawStatus}`)
    })

    it.each([
      ["1 created", at("1")],
      ["2 ready for pickup", at("2")],
      ["10 ALERT (on hold)", at("10")],
      ["31 cancelled already", at("31")],
      ["117, which no table maps", at("117")],
      ["a status that could not be read", Result.fail(refused)],
      ["no event", Result.succeed([])]
    ])("a refusal of a parcel at %s stays Refused", (_name, status) => {
      assert.strictEqual(Mapping.whyNotCancelled(refused, status as never), refused)
    })

    it("a reason that is no refusal stays what it was", () => {
      const unreachable = { _tag: "Unreachable", message: "HTTP 503" } as unknown as Reason
      assert.strictEqual(Mapping.whyNotCancelled(unreachable, at("3")), unreachable)
    })
  })

  describe("communes and desks", () => {
    const communes = response(200, {
      data: [
        { id: 1602, name: "Bab Ezzouar", wilaya_id: 16, zip_code: "16042" },
        { id: 1605, name: "Hydra", wilaya_id: "16", zip_code: null },
        { id: "1606", name: "Kouba", wilaya_id: 16 },
        { id: 3102, name: "Bir El Djir", wilaya_id: 31, zip_code: "31003" },
        { id: 9999, name: "", wilaya_id: 16 },
        { id: 9998, name: "Sans wilaya" }
      ]
    })
    const offices = response(200, [
      {
        id: 101,
        name: "Yalidine Bab Ezzouar",
        delivery_price: 250,
        partner_company_name: "Yalidine",
        address: "Cité 2068 logements",
        commune_id: 1602
      },
      { id: "102", name: null, partner_company_name: "Yalidine", address: null, commune_id: "1605" },
      { id: 103, name: "  ", commune_id: 1606 },
      { id: 311, name: "Maystro Bir El Djir", partner_company_name: "Maystro", commune_id: 3102 },
      { id: 400, name: "Sans commune", commune_id: null }
    ])
    const listed = {
      communes: Result.getOrThrow(Mapping.fromCommunes(communes)),
      offices: Result.getOrThrow(Mapping.fromOffices(offices))
    }

    it("reads the rows of Zimou's shape, under data or bare, and leaves the others out", () => {
      assert.deepStrictEqual(
        listed.communes.map(({ id, name }) => [id, name]),
        [
          [1602, "Bab Ezzouar"],
          [1605, "Hydra"],
          [1606, "Kouba"],
          [3102, "Bir El Djir"]
        ]
      )
      assert.deepStrictEqual(
        listed.offices.map(({ id }) => id),
        [101, 102, 103, 311]
      )
    })

    it("places each office in its commune's wilaya, its id what a desk order sends, named by itself or its partner", () => {
      assert.deepStrictEqual(Mapping.desksIn(wilaya(16), listed.communes, listed.offices), [
        {
          id: "101",
          name: "Yalidine Bab Ezzouar",
          wilayaCode: wilaya(16),
          communeName: "Bab Ezzouar",
          address: "Cité 2068 logements"
        },
        { id: "102", name: "Yalidine Hydra", wilayaCode: wilaya(16), communeName: "Hydra" },
        { id: "103", name: "Zimou Kouba", wilayaCode: wilaya(16), communeName: "Kouba" }
      ])
      assert.deepStrictEqual(
        Mapping.desksIn(wilaya(31), listed.communes, listed.offices).map(({ id, communeName }) => [id, communeName]),
        [["311", "Bir El Djir"]]
      )
      assert.deepStrictEqual(Mapping.desksIn(wilaya(19), listed.communes, listed.offices), [])
    })

    it("lists a wilaya's communes in Zimou's spelling with their ids, all at home, a desk where an office is", () => {
      assert.deepStrictEqual(Mapping.communesIn(wilaya(31), listed.communes, listed.offices), [
        { name: "Bir El Djir", id: "3102", home: true, stopdesk: true }
      ])
      const kouba = Mapping.communesIn(wilaya(16), listed.communes, [listed.offices[0]!])
      assert.deepStrictEqual(
        kouba.map(({ name, stopdesk }) => [name, stopdesk]),
        [
          ["Bab Ezzouar", true],
          ["Hydra", false],
          ["Kouba", false]
        ]
      )
      assert.deepStrictEqual(Mapping.communesIn(wilaya(19), listed.communes, listed.offices), [])
    })

    it.each([
      ["an empty list", response(200, { data: [] }), []],
      ["PHP's empty list, bare", response(200, []), []]
    ])("%s is no commune", (_name, answer, expected) => {
      assert.deepStrictEqual(Mapping.fromCommunes(answer), Result.succeed(expected))
    })

    it.each([
      ["rows none of which is a commune", response(200, { data: [{ nom: "Hydra" }] }), "BadResponse"],
      ["no list", response(200, { data: { 1602: "Bab Ezzouar" } }), "BadResponse"],
      ["an HTML page", response(200, "<html>maintenance</html>", { "content-type": "text/html" }), "BadResponse"],
      ["the token refused", response(401, { message: "Unauthenticated." }), "CredentialsRejected"],
      ["HTTP 500", response(500, { message: "Server Error" }), "Unreachable"]
    ])("%s → %s", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromCommunes(answer))._tag, tag)
      assert.strictEqual(failure(Mapping.fromOffices(answer))._tag, tag)
    })
  })

  describe("fromUser", () => {
    it.each([
      ["the account under data", response(200, { data: { id: 41, name: "Boutique" } })],
      ["Laravel's user, bare", response(200, { id: "41", email: "boutique@example.dz" })]
    ])("%s: the token works", (_name, answer) => {
      assert.deepStrictEqual(Mapping.fromUser(answer), Result.void)
    })

    it.each([
      ["Unauthenticated.", response(401, { message: "Unauthenticated." }), "CredentialsRejected"],
      ["a 403", response(403, { message: "This action is unauthorized." }), "CredentialsRejected"],
      ["JSON that is no account", response(200, { ok: true }), "BadResponse"],
      ["a redirect to the login page", response(302, "", { location: "https://zimou.express/login" }), "BadResponse"]
    ])("%s → %s", (_name, answer, tag) => {
      const reason = failure(Mapping.fromUser(answer))
      assert.strictEqual(reason._tag, tag)
      if (tag === "CredentialsRejected") assert.include(reason.message, "the API token")
    })
  })
})
