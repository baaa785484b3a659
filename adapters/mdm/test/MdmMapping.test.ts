/**
 * The pure mapping, table-driven. The answers are written by hand from the research notes (couriers.md §1.8) and
 * the two public integrations' readings of them (courier-dz's MdmAdapter, the WooCommerce Bordereau Generator).
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/MdmMapping.ts"
import type * as Wire from "../src/MdmWire.ts"

const response = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = { "content-type": "application/json" }
): CourierHttp.CourierResponse => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return { status, headers, text, bytes: new TextEncoder().encode(text) }
}

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
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

const algiers: ReadonlyArray<Mapping.City> = [
  { id: "DZA161601", name: "Alger Centre" },
  { id: "DZA161628", name: "Bab Ezzouar" },
  { id: "DZA161631", name: "Bordj El Kiffan" },
  { id: "DZA161647", name: "Aïn Bénian" }
]

describe("MdmMapping", () => {
  describe("toCreateOrder", () => {
    const base: Wire.CreateOrder = {
      totalPrice: 4500,
      client: { firstName: "Amina", lastName: "Benali", phone: "0555123456" },
      destination: { cityId: "DZA161628", streetAddress: "Cité 2000 logements" },
      products: [{ name: "2x robe", quantity: 1, price: 4500 }],
      freeShipping: false,
      fragile: false,
      openable: false,
      isStopDesk: false,
      confirmed: true
    }
    it.each<readonly [string, Shipment.ParcelOrder, Wire.CreateOrder]>([
      ["a home order, the phone in its national form, the name in two parts", order(), base],
      [
        "every optional field MDM has",
        order(
          { freeShipping: true, hasOpenPackage: true, weightKg: 1.2, notes: "Appeler avant", declaredValue: 9000 },
          { phoneAlt: "0661 00 00 01", fullName: "Walid Ben Seddik" }
        ),
        {
          ...base,
          client: { firstName: "Walid", lastName: "Ben Seddik", phone: "0555123456", phone2: "0661000001" },
          freeShipping: true,
          openable: true,
          weight: 2,
          notes: "Appeler avant"
        }
      ],
      [
        "a stop desk without an address: the commune name stands in, with the office id",
        order({ deliveryType: "stopdesk", stopDeskId: "OFC-ALG-01" }, { addressLine: undefined }),
        {
          ...base,
          destination: { cityId: "DZA161628", streetAddress: "Bab Ezzouar" },
          isStopDesk: true,
          stopDeskId: "OFC-ALG-01"
        }
      ],
      [
        "a home order without an address: an empty street, for MDM to refuse",
        order({ notes: "  " }, { addressLine: undefined }),
        { ...base, destination: { cityId: "DZA161628", streetAddress: "" } }
      ],
      [
        "a one-word name fills both parts",
        order({}, { fullName: "Amina" }),
        { ...base, client: { ...base.client, lastName: "Amina" } }
      ]
    ])("%s", (_name, input, body) => {
      assert.deepStrictEqual(Mapping.toCreateOrder(input, "DZA161628"), body)
    })
  })

  describe("checkOrder", () => {
    it.each<readonly [string, Shipment.ParcelOrder, string | undefined]>([
      ["a home order", order(), undefined],
      ["a stop desk with its office", order({ deliveryType: "stopdesk", stopDeskId: "OFC-ALG-01" }), undefined],
      ["an exchange", order({ isExchange: true }), "order.isExchange"],
      ["a stop desk without an office", order({ deliveryType: "stopdesk" }), "order.stopDeskId"]
    ])("%s", (_name, input, refused) => {
      const checked = Mapping.checkOrder(input)
      if (refused === undefined) assert.isTrue(Result.isSuccess(checked))
      else {
        const reason = failure(checked)
        assert.strictEqual(reason._tag, "Refused")
        assert.include(reason.message, refused)
      }
    })
  })

  describe("cities", () => {
    it("asks one wilaya's cities by MDM's state id, on one page", () => {
      assert.strictEqual(Mapping.stateId(9), "DZA09")
      assert.deepStrictEqual(Mapping.citiesQuery(16), { "countryId[]": "DZA", "stateId[]": "DZA16", perPage: "2000" })
    })

    it.each<readonly [string, string | undefined]>([
      ["Bab Ezzouar", "DZA161628"],
      ["  BAB-EZZOUAR ", "DZA161628"],
      ["bordj el-kiffan", "DZA161631"],
      ["Ain Benian", "DZA161647"],
      ["AÏN  BÉNIAN", "DZA161647"],
      ["Bordj", undefined],
      ["Bordj El Kiffane", undefined],
      ["Oran", undefined]
    ])("%j → %s", (name, id) => {
      const found = Mapping.cityIdOf(algiers, name, 16)
      if (id !== undefined) assert.deepStrictEqual(found, Result.succeed(id))
      else {
        const reason = failure(found)
        assert.strictEqual(reason._tag, "Refused")
        assert.include(
          reason.message,
          `order.recipient.communeName: MDM Express knows no commune ${JSON.stringify(name)}`
        )
        assert.include(reason.message, "wilaya 16")
      }
    })

    it("refuses a name two cities share, rather than pick one", () => {
      const twins = [...algiers, { id: "DZA161699", name: "Bab Ezzouar" }]
      assert.include(failure(Mapping.cityIdOf(twins, "bab ezzouar", 16)).message, "2 communes")
    })

    it("reads MDM's { list } page or a bare list, numeric ids as text, and refuses anything else", () => {
      const list = [{ id: "DZA161628", name: "Bab Ezzouar", nameAr: "باب الزوار", stateId: "DZA16" }]
      for (const body of [{ list, total: 1 }, list]) {
        assert.deepStrictEqual(
          Mapping.fromCities(response(200, body)),
          Result.succeed([{ id: "DZA161628", name: "Bab Ezzouar" }])
        )
      }
      assert.deepStrictEqual(
        Mapping.fromCities(response(200, { list: [{ id: 1628, name: "Bab Ezzouar" }] })),
        Result.succeed([{ id: "1628", name: "Bab Ezzouar" }])
      )
      for (const body of [
        { data: [] },
        [{ name: "Hydra" }],
        [{ id: "", name: "Hydra" }],
        [{ id: 1.5, name: "Hydra" }]
      ]) {
        assert.strictEqual(failure(Mapping.fromCities(response(200, body)))._tag, "BadResponse", JSON.stringify(body))
      }
    })
  })

  describe("offices, communes and the credentials check", () => {
    const sixteen = Schema.decodeUnknownSync(WilayaCode.WilayaCode)(16)
    const office = (id: unknown, cityCode: unknown, extra: Record<string, unknown> = {}) => ({
      id,
      name: `Bureau ${String(cityCode)}`,
      address: { cityCode, cityName: "x", streetAddress: " 12, rue   Didouche " },
      ...extra
    })

    it("asks every office on one page", () => {
      assert.deepStrictEqual(Mapping.officesQuery, { countryId: "DZA", perPage: "2000" })
    })

    it("reads MDM's { list } page or a bare list, and refuses anything else", () => {
      const list = [office("OFC-1", "DZA161628")]
      for (const body of [{ list, total: 1 }, list]) {
        assert.deepStrictEqual(
          Result.getOrThrow(Mapping.fromOffices(response(200, body))).map((entry) => entry.id),
          ["OFC-1"]
        )
      }
      for (const body of [{ data: [] }, [{ name: "Bureau" }], [{ id: "OFC-1", name: "" }], [{ id: 1.5, name: "B" }]]) {
        assert.strictEqual(failure(Mapping.fromOffices(response(200, body)))._tag, "BadResponse", JSON.stringify(body))
      }
    })

    it("toStopDesks keeps the offices in the wilaya's cities, named by MDM's city, street and phone when given", () => {
      const offices = Result.getOrThrow(
        Mapping.fromOffices(
          response(200, {
            list: [
              office("OFC-ALG-01", "DZA161628", { phone: "0550 00 11 22" }),
              office(77, "DZA161601", { address: { cityCode: "DZA161601" } }),
              office("OFC-ORN-01", "DZA313103"),
              office("OFC-NOWHERE", null),
              { id: "OFC-BARE", name: "Bureau" }
            ]
          })
        )
      )
      assert.deepStrictEqual(Mapping.toStopDesks(sixteen, algiers, offices), [
        {
          id: "OFC-ALG-01",
          name: "Bureau DZA161628",
          wilayaCode: sixteen,
          communeName: "Bab Ezzouar",
          address: "12, rue Didouche",
          phone: "0550 00 11 22"
        },
        { id: "77", name: "Bureau DZA161601", wilayaCode: sixteen, communeName: "Alger Centre" }
      ])
      assert.deepStrictEqual(Mapping.toStopDesks(sixteen, [], offices), [])
    })

    it("toCommunes: every city MDM lists, with its id, at home; a desk where an office is", () => {
      const offices = [office("OFC-ALG-01", "DZA161628"), office("OFC-ORN-01", "DZA313103"), office("X", null)]
      assert.deepStrictEqual(
        Mapping.toCommunes(algiers, Result.getOrThrow(Mapping.fromOffices(response(200, offices)))),
        [
          { name: "Alger Centre", id: "DZA161601", home: true, stopdesk: false },
          { name: "Bab Ezzouar", id: "DZA161628", home: true, stopdesk: true },
          { name: "Bordj El Kiffan", id: "DZA161631", home: true, stopdesk: false },
          { name: "Aïn Bénian", id: "DZA161647", home: true, stopdesk: false }
        ]
      )
    })

    it("fromCountries: a list answered means the key works; anything else is undocumented", () => {
      for (const body of [{ list: [{ id: "DZA" }], total: 1 }, [{ id: "DZA" }], { list: [] }]) {
        assert.isTrue(Result.isSuccess(Mapping.fromCountries(response(200, body))), JSON.stringify(body))
      }
      assert.strictEqual(failure(Mapping.fromCountries(response(200, { ok: true })))._tag, "BadResponse")
    })

    it.each<readonly [string, CourierHttp.CourierResponse, string]>([
      [
        "a refused key",
        response(401, { status: 401, error: { code: "AUTH.INVALID_API_KEY", message: "Invalid API key" } }),
        "CredentialsRejected"
      ],
      ["a refusal", response(400, { error: { code: "STORES.SUSPENDED", message: "Store suspended" } }), "Refused"],
      ["a 429", response(429, { message: "Too Many Requests" }), "CourierRateLimited"],
      ["a 503", response(503, "down", { "content-type": "text/plain" }), "Unreachable"],
      ["an HTML page", response(200, "<html></html>", { "content-type": "text/html" }), "BadResponse"]
    ])("%s, on the offices and the countries", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromOffices(answer))._tag, tag)
      assert.strictEqual(failure(Mapping.fromCountries(answer))._tag, tag)
    })
  })

  describe("trackingIdOf", () => {
    it("takes MDM's tracking id as it is, and refuses anything that could name another path", () => {
      assert.deepStrictEqual(Mapping.trackingIdOf("ORD-000001"), Result.succeed("ORD-000001"))
      for (const bad of ["", "../orders", "ORD-1/status-history", "ORD 1", "ORD-1?x=1", "-ORD", "x".repeat(65)]) {
        assert.strictEqual(failure(Mapping.trackingIdOf(bad))._tag, "Refused", JSON.stringify(bad))
      }
    })
  })

  describe("fromCreated", () => {
    it.each<readonly [string, unknown, { trackingNumber: string; rawStatus: string }]>([
      [
        "the order with its status",
        { trackingId: "ORD-000001", status: "confirmed", totalPrice: 4500 },
        { trackingNumber: "ORD-000001", rawStatus: "confirmed" }
      ],
      [
        "no status: MDM's first one",
        { trackingId: "ORD-000002" },
        { trackingNumber: "ORD-000002", rawStatus: "pending" }
      ]
    ])("%s", (_name, body, created) => {
      assert.deepStrictEqual(Mapping.fromCreated(response(201, body)), Result.succeed(created))
    })

    it.each([
      ["no tracking id", { status: "pending" }],
      ["a tracking id that is a path", { trackingId: "ORD-1/x" }],
      ["a numeric id", { trackingId: 12 }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(response(201, body)))._tag, "BadResponse")
    })
  })

  describe("fromHistory", () => {
    it.each<readonly [string, unknown, ReadonlyArray<{ rawStatus: string; timestamp: string }>]>([
      [
        "{ statusHistory }, UTC times in Algiers time",
        {
          trackingId: "ORD-000001",
          statusHistory: [
            { status: "pending", date: "2026-04-18T18:45:06.000Z" },
            { status: "confirmed", date: "2026-04-18T18:50:00.000Z" },
            { status: "shipped", date: "2026-04-19T08:12:40.123Z" },
            { status: "delivered", date: "2026-04-20T13:02:33+01:00" }
          ]
        },
        [
          { rawStatus: "pending", timestamp: "2026-04-18T19:45:06+01:00" },
          { rawStatus: "confirmed", timestamp: "2026-04-18T19:50:00+01:00" },
          { rawStatus: "shipped", timestamp: "2026-04-19T09:12:40+01:00" },
          { rawStatus: "delivered", timestamp: "2026-04-20T13:02:33+01:00" }
        ]
      ],
      [
        "a bare list; an undocumented status passed on as it is",
        [
          { status: "returned", date: "2026-04-22 10:00:00" },
          { status: "postponed", date: "2026-04-23T09:00:00Z" }
        ],
        [
          { rawStatus: "returned", timestamp: "2026-04-22T10:00:00+01:00" },
          { rawStatus: "postponed", timestamp: "2026-04-23T10:00:00+01:00" }
        ]
      ],
      ["an empty history", { statusHistory: [] }, []]
    ])("%s", (_name, body, events) => {
      assert.deepStrictEqual(Mapping.fromHistory(response(200, body)), Result.succeed(events))
    })

    it.each([
      ["a time in another format", [{ status: "pending", date: "18/04/2026 19:45" }]],
      ["no time", [{ status: "pending" }]],
      ["an empty status", [{ status: "", date: "2026-04-18T18:45:06Z" }]],
      ["not a list", { status: "pending" }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromHistory(response(200, body)))._tag, "BadResponse")
    })

    it("refuses an unknown order under Tawsil's field name", () => {
      const reason = failure(
        Mapping.fromHistory(
          response(404, { status: 404, error: { code: "ORDERS.NOT_FOUND", message: "Order ORD-9 not found" } })
        )
      )
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "trackingNumber: MDM Express has no such order (Order ORD-9 not found)")
    })
  })

  describe("the order", () => {
    const held = (body: unknown) => Result.getOrThrow(Mapping.fromOrder(response(200, body)))

    it("names the parcel MDM made for it, and refuses a label before there is one", () => {
      const confirmed = held({
        trackingId: "ORD-000001",
        status: "confirmed",
        relatives: [
          { type: "invoice", data: { trackingId: "INV-1" } },
          { type: "parcel", data: { trackingId: "PCL-000001" } }
        ]
      })
      assert.deepStrictEqual(Mapping.parcelOf(confirmed), Result.succeed("PCL-000001"))
      for (const body of [
        { trackingId: "ORD-000002", status: "pending" },
        { trackingId: "ORD-000002", status: "pending", relatives: [] },
        { trackingId: "ORD-000002", status: "pending", relatives: [{ type: "parcel", data: { trackingId: "../x" } }] }
      ]) {
        const reason = failure(Mapping.parcelOf(held(body)))
        assert.strictEqual(reason._tag, "Refused")
        assert.include(reason.message, "no parcel for this order yet")
      }
    })

    it("stands for an empty history with its status, at its last change", () => {
      assert.deepStrictEqual(
        Mapping.currentEvent(held({ trackingId: "ORD-1", status: "pending", createdAt: "2026-04-18T18:45:06.000Z" })),
        Result.succeed([{ rawStatus: "pending", timestamp: "2026-04-18T19:45:06+01:00" }])
      )
      assert.deepStrictEqual(
        Mapping.currentEvent(
          held({
            trackingId: "ORD-1",
            status: "shipped",
            createdAt: "2026-04-18T18:45:06Z",
            updatedAt: "2026-04-19T07:00:00Z"
          })
        ),
        Result.succeed([{ rawStatus: "shipped", timestamp: "2026-04-19T08:00:00+01:00" }])
      )
      assert.strictEqual(
        failure(Mapping.currentEvent(held({ trackingId: "ORD-1", status: "pending" })))._tag,
        "BadResponse"
      )
    })
  })

  describe("labels", () => {
    it("asks the slip of the parcel, and reads the printed file's id", () => {
      assert.deepStrictEqual(Mapping.slipRequest("PCL-000001"), { parcelIds: ["PCL-000001"] })
      assert.deepStrictEqual(Mapping.fromSlip(response(201, { fileId: "FIL-000001" })), Result.succeed("FIL-000001"))
      assert.strictEqual(failure(Mapping.fromSlip(response(201, { fileId: "../../x" })))._tag, "BadResponse")
      assert.strictEqual(
        failure(Mapping.fromSlip(response(500, { message: "Cannot read properties of undefined" })))._tag,
        "Unreachable"
      )
    })

    it("takes the printed file as the label when it is a PDF, and refuses anything else", () => {
      const label = Mapping.fromLabelFile(response(200, "%PDF-1.4\n%%EOF\n", { "content-type": "application/pdf" }))
      assert.isTrue(Result.isSuccess(label) && label.success.contentType === "application/pdf")
      for (const [answer, reason] of [
        [response(200, { ok: true }), "BadResponse"],
        [response(200, { error: { code: "FILES.EXPIRED", message: "File expired" } }), "Refused"],
        [response(200, "%PDF", { "content-type": "application/pdf" }), "BadResponse"],
        [response(404, { status: 404, error: { code: "FILES.NOT_FOUND", message: "File not found" } }), "Refused"],
        [response(500, "oops", { "content-type": "text/plain" }), "Unreachable"]
      ] as const) {
        assert.strictEqual(failure(Mapping.fromLabelFile(answer))._tag, reason, answer.text)
      }
    })
  })

  describe("errorOf", () => {
    it.each<readonly [string, CourierHttp.CourierResponse, string, ReadonlyArray<string>, string | undefined]>([
      [
        "MDM's { error } on 400, its code kept",
        response(400, {
          status: 400,
          error: { code: "VALIDATION_ERROR", message: "client.phone must be a valid phone number" }
        }),
        "Refused",
        ["client.phone must be a valid phone number"],
        "VALIDATION_ERROR"
      ],
      [
        "a bare { message } list on 422",
        response(422, {
          message: ["totalPrice must be a positive integer", "products should not be empty"],
          error: "Unprocessable Entity",
          statusCode: 422
        }),
        "Refused",
        ["totalPrice must be a positive integer; products should not be empty"],
        undefined
      ],
      [
        "a refusal inside a 409",
        response(409, { error: { message: "Order already exists" } }),
        "Refused",
        ["Order already exists"],
        undefined
      ],
      [
        "a refused key, in MDM's words",
        response(401, { status: 401, error: { code: "AUTH.INVALID_API_KEY", message: "Invalid API key" } }),
        "CredentialsRejected",
        ["the API key (HTTP 401: Invalid API key)"],
        undefined
      ],
      [
        "a forbidden store",
        response(403, { message: "Forbidden resource" }),
        "CredentialsRejected",
        ["HTTP 403: Forbidden resource"],
        undefined
      ],
      [
        "a 429 with Retry-After",
        response(429, { message: "Too Many Requests" }, { "content-type": "application/json", "retry-after": "12" }),
        "CourierRateLimited",
        [],
        undefined
      ],
      [
        "a 502",
        response(502, "<html>Bad gateway</html>", { "content-type": "text/html" }),
        "Unreachable",
        ["HTTP 502"],
        undefined
      ],
      [
        "a redirect",
        response(302, "", { location: "https://example.com/login" }),
        "BadResponse",
        ["redirect"],
        undefined
      ],
      [
        "an HTML page on 200",
        response(200, "<!doctype html><p>Maintenance</p>", { "content-type": "text/html" }),
        "BadResponse",
        ["not JSON"],
        undefined
      ],
      [
        "an empty error message",
        response(400, { error: { message: "  " } }),
        "BadResponse",
        ["does not document"],
        undefined
      ],
      [
        "a 404 of an unknown route",
        response(404, "Not Found", { "content-type": "text/plain" }),
        "BadResponse",
        ["not JSON"],
        undefined
      ],
      [
        "an undocumented 418",
        response(418, { message: "I'm a teapot" }),
        "BadResponse",
        ["does not document"],
        undefined
      ]
    ])("%s", (_name, answer, tag, says, code) => {
      const reason = Mapping.errorOf(answer)
      assert.strictEqual(reason._tag, tag, reason.message)
      for (const part of says) assert.include(reason.message, part)
      if (reason._tag === "Refused") assert.strictEqual(reason.courierCode, code)
      if (reason._tag === "CourierRateLimited") assert.strictEqual(reason.retryAfterSeconds, 12)
    })
  })
})
