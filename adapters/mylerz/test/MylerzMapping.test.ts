import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus, type CourierHttp, Shipment } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/MylerzMapping.ts"
import * as Status from "../src/MylerzStatus.ts"
import type * as Wire from "../src/MylerzWire.ts"
import { CITIES } from "./fake/MylerzFake.ts"

const answer = (status: number, body: unknown): CourierHttp.CourierResponse => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return { status, headers: {}, text, bytes: new TextEncoder().encode(text) }
}
const envelope = (Value: unknown, error?: string) => ({
  Value,
  CoreValue: null,
  IsErrorState: error !== undefined,
  ErrorDescription: error ?? null,
  ErrorMetadata: null
})
const tagOf = <A>(result: Result.Result<A, { readonly _tag: string }>) =>
  Result.isFailure(result) ? result.failure._tag : "Success"
const messageOf = <A>(result: Result.Result<A, { readonly message: string }>) =>
  Result.isFailure(result) ? result.failure.message : ""

const cities: ReadonlyArray<Wire.City> = CITIES.map((city) => ({ ...city, Zones: [...city.Zones] }))

const order = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-9",
    recipient: { fullName: "Karim Haddad", phone: "0661234567", wilayaCode: 16, communeName: "Hydra", ...recipient },
    deliveryType: "home",
    productList: "1x montre",
    codAmount: 0,
    ...overrides
  })

describe("MylerzMapping", () => {
  it("reads the token and how long to keep it; a refused login is CredentialsRejected", () => {
    const cases: ReadonlyArray<readonly [CourierHttp.CourierResponse, string, number | undefined]> = [
      [answer(200, { access_token: "t1", token_type: "bearer", expires_in: 1209599 }), "Success", 1209539_000],
      [answer(200, { access_token: "t2", expires_in: null }), "Success", 3540_000],
      [answer(200, { access_token: "t3" }), "Success", 3540_000],
      [answer(200, { access_token: "t4", expires_in: 30 }), "Success", 0],
      [answer(200, { access_token: "" }), "BadResponse", undefined],
      [answer(200, "<html>login</html>"), "BadResponse", undefined],
      [
        answer(400, { error: "invalid_grant", error_description: "The user name or password is incorrect." }),
        "CredentialsRejected",
        undefined
      ],
      [answer(401, { error: "invalid_client" }), "CredentialsRejected", undefined],
      [answer(400, { Message: "The request is invalid." }), "BadResponse", undefined],
      [answer(503, { Message: "down" }), "Unreachable", undefined],
      [answer(429, {}), "CourierRateLimited", undefined]
    ]
    for (const [response, tag, keep] of cases) {
      const read = Mapping.fromToken(response)
      assert.strictEqual(tagOf(read), tag, response.text)
      if (Result.isSuccess(read)) assert.strictEqual(read.success.keepMillis, keep, response.text)
    }
    assert.include(
      messageOf(Mapping.fromToken(cases[6]![0])),
      "refused the username and password (HTTP 400: The user name or password is incorrect.)"
    )
  })

  it("finds a wilaya's city by its French or English name or its number, and a zone by name, never by guess", () => {
    assert.strictEqual(Mapping.cityOf(cities, 16)?.Code, "ALG", "Algiers is Alger")
    assert.strictEqual(Mapping.cityOf(cities, 31)?.Code, "ORN")
    assert.strictEqual(Mapping.cityOf([{ Code: "09", EnName: "Wilaya 9" }], 9)?.Code, "09")
    assert.strictEqual(Mapping.cityOf([{ Code: "DZ-35", EnName: null }], 35)?.Code, "DZ-35")
    assert.isUndefined(Mapping.cityOf(cities, 1))
    const algiers = Mapping.cityOf(cities, 16)
    for (const [name, code] of [
      ["Bab Ezzouar", "ALG-BEZ"],
      ["bab-ezzouar", "ALG-BEZ"],
      ["BORDJ EL KIFFAN", "ALG-BEK"],
      ["حيدرة", "ALG-HYD"]
    ] as const) {
      const found = Mapping.zoneOf(algiers, name, 16)
      assert.strictEqual(Result.isSuccess(found) ? found.success.zone.Code : undefined, code, name)
    }
    assert.include(messageOf(Mapping.zoneOf(algiers, "Bab Ezouar", 16)), 'knows no zone "Bab Ezouar"')
    const twice = {
      Code: "X",
      EnName: "X",
      Zones: [
        { Code: "A", EnName: "Kouba" },
        { Code: "B", EnName: "Kouba" }
      ]
    }
    assert.include(messageOf(Mapping.zoneOf(twice, "Kouba", 16)), "has 2 zones named")
    assert.include(messageOf(Mapping.zoneOf(undefined, "Kouba", 16)), "lists no city for wilaya 16")
    assert.deepStrictEqual(
      Mapping.toCommunes({
        Code: "C",
        Zones: [
          { Code: "Z", EnName: "  " },
          { Code: "Y", EnName: "Ouled  Fayet " }
        ]
      }),
      [{ name: "Ouled Fayet", id: "Y", home: true, stopdesk: false }]
    )
    assert.deepStrictEqual(Mapping.toCommunes(undefined), [])
  })

  it("builds the OrderDTO: prepaid when nothing is collected, a kilogram by default, the commune as the street", () => {
    const algiers = Mapping.cityOf(cities, 16)!
    const zone = { Code: "ALG-HYD", EnName: "Hydra" }
    const dto = Mapping.toOrder(order(), algiers, zone, "2026-09-27T10:00:00+01:00")
    assert.deepStrictEqual(dto, {
      PickupDueDate: "2026-09-27T10:00:00+01:00",
      Package_Serial: "CMD-9",
      Reference: "CMD-9",
      Description: "1x montre",
      Total_Weight: 1,
      Service_Type: "DTD",
      Service: "ND",
      Service_Category: "Delivery",
      Payment_Type: "PP",
      COD_Value: 0,
      Pieces: [{ PieceNo: 1, Weight: 1 }],
      Customer_Name: "Karim Haddad",
      Mobile_No: "0661234567",
      Street: "Hydra",
      Country: "DZ",
      City: "Algiers",
      Neighborhood: "ALG-HYD",
      District: "Hydra",
      Address_Category: "H",
      AllowToOpenPackage: false,
      ValueOfGoods: 0
    })
    const cod = Mapping.toOrder(
      order({ codAmount: 3900, declaredValue: 5000, weightKg: 2.5, hasOpenPackage: true }, { phone: "+213661234567" }),
      algiers,
      zone,
      "x"
    )
    assert.deepInclude(cod, {
      Payment_Type: "COD",
      COD_Value: 3900,
      ValueOfGoods: 5000,
      Total_Weight: 2.5,
      AllowToOpenPackage: true,
      Mobile_No: "0661234567"
    })
    assert.strictEqual(Mapping.checkOrder(order({ deliveryType: "stopdesk" }))._tag, "Failure")
    assert.strictEqual(Mapping.checkOrder(order())._tag, "Success")
  })

  it("reads AddOrders: the barcode, or Mylerz's refusal of the package or of the call", () => {
    const made = Mapping.fromCreated(
      answer(200, envelope({ PickupOrderCode: "PU-1", Packages: [{ BarCode: "20000000000001", Status: null }] }))
    )
    assert.deepStrictEqual(Result.getOrUndefined(made), {
      trackingNumber: "20000000000001",
      courierReference: "PU-1",
      rawStatus: Status.created
    })
    const refusedPackage = Mapping.fromCreated(
      answer(200, envelope({ PickupOrderCode: null, Packages: [{ BarCode: null, ErrorMessage: "Invalid zone" }] }))
    )
    assert.deepStrictEqual([tagOf(refusedPackage), messageOf(refusedPackage)], ["Refused", "Invalid zone"])
    const refusedCall = Mapping.fromCreated(answer(200, envelope(null, "Warehouse is not valid")))
    assert.deepStrictEqual([tagOf(refusedCall), messageOf(refusedCall)], ["Refused", "Warehouse is not valid"])
    assert.strictEqual(tagOf(Mapping.fromCreated(answer(200, envelope({ Packages: [] })))), "BadResponse")
    assert.strictEqual(
      tagOf(Mapping.fromCreated(answer(200, envelope({ Packages: [{ BarCode: "../x" }] })))),
      "BadResponse"
    )
    assert.strictEqual(
      tagOf(Mapping.fromCreated(answer(401, { Message: "Authorization has been denied for this request." }))),
      "CredentialsRejected"
    )
  })

  it("reads histories, cancels and labels", () => {
    const tracked = Mapping.fromTracked(
      answer(
        200,
        envelope([
          { Barcode: "1234567", TrackLog: [{ StatusEnName: " Picked ", ChangedDate: "2026-09-27T08:30:00.4370000" }] },
          { Barcode: "7654321", TrackLog: null }
        ])
      )
    )
    assert.deepStrictEqual(Result.isSuccess(tracked) ? [...tracked.success] : undefined, [
      ["1234567", [{ rawStatus: "Picked", timestamp: "2026-09-27T08:30:00+01:00" }]],
      ["7654321", []]
    ])
    const badTime = answer(
      200,
      envelope([{ Barcode: "1234567", TrackLog: [{ StatusEnName: "x", ChangedDate: "yesterday" }] }])
    )
    assert.strictEqual(tagOf(Mapping.fromTracked(badTime)), "BadResponse")
    assert.strictEqual(tagOf(Mapping.trackedOne(new Map(), "1234567")), "Refused")

    assert.strictEqual(
      tagOf(Mapping.fromCancelled(answer(200, envelope([{ Barcode: "1", IsChanged: true }])))),
      "Success"
    )
    for (const [words, tag] of [
      ["Package not found", "Refused"],
      ["", "Refused"],
      ["Package can not be cancelled after pickup", "NotCancellable"]
    ] as const) {
      const read = Mapping.fromCancelled(
        answer(200, envelope([{ Barcode: "1", IsChanged: false, ErrorMessage: words }]))
      )
      assert.strictEqual(tagOf(read), tag, words)
    }
    assert.strictEqual(tagOf(Mapping.fromCancelled(answer(200, envelope([])))), "BadResponse")

    const pdf = Buffer.from("%PDF-1.4\n%%EOF\n")
    const label = Mapping.fromAwb(answer(200, envelope(pdf.toString("base64"))))
    assert.deepStrictEqual(
      Result.map(label, ({ contentType, bytes }) => [contentType, Buffer.from(bytes)]),
      Result.succeed(["application/pdf", pdf])
    )
    assert.strictEqual(
      tagOf(Mapping.fromAwb(answer(200, envelope(Buffer.from("<html/>").toString("base64"))))),
      "BadResponse"
    )
    assert.strictEqual(tagOf(Mapping.fromAwb(answer(200, envelope("not base64 at all!")))), "BadResponse")
    assert.strictEqual(tagOf(Mapping.fromAwb(answer(200, envelope(null, "Package not found")))), "Refused")
    for (const [number, ok] of [
      ["20000000000001", true],
      ["123456", true],
      ["12345", false],
      ["ABC123456", false],
      ["../token", false]
    ] as const) {
      assert.strictEqual(Result.isSuccess(Mapping.barcodeOf(number)), ok, number)
    }
  })

  it("maps every status the integrations name to a canonical status, and the create's default among them", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
    }
    assert.strictEqual(Status.statuses[Status.created], "created")
    assert.strictEqual(Status.statuses["Delivered, Thank you :-)"], "delivered")
    assert.isUndefined(Status.statuses.Cancelled, "no source names Mylerz's cancelled status: left unknown")
  })
})
