import { assert, describe, it } from "@effect/vitest"
import { CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ElogistiaMapping.ts"
import type * as Wire from "../src/ElogistiaWire.ts"

const order = (input: unknown) => Schema.decodeUnknownSync(Shipment.ParcelOrder)(input)
const query = (input: unknown) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

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

const KEY = "k3y-0123456789abcdef"

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

/** Orders and the `insertCommande/` fields each must become, reviewed by hand against research §1.8 and §1.10. */
const createPairs: ReadonlyArray<readonly [string, Shipment.ParcelOrder, Wire.InsertCommande]> = [
  [
    "a home delivery with every optional field",
    order({
      reference: "CMD-1042",
      recipient: {
        fullName: " Amina Benali ",
        phone: "+213 555 12 34 56",
        phoneAlt: "0661234567",
        wilayaCode: 9,
        communeName: "Boufarik",
        addressLine: "Cité 2000 logements, bât. 12"
      },
      deliveryType: "home",
      productList: "2x robe | 1x foulard",
      codAmount: 4500,
      weightKg: 1.5,
      declaredValue: 4000,
      freeShipping: true,
      hasOpenPackage: true,
      notes: "Appeler avant 18h"
    }),
    {
      name: "Amina Benali",
      firstname: "",
      phone: "0555123456",
      address: "Cité 2000 logements, bât. 12",
      commune: "Boufarik",
      wilaya: "9",
      modeDeLivraison: "1",
      price: "4500",
      stop_desk: "1",
      product: "2x robe / 1x foulard",
      IdCommande: "CMD-1042",
      remarque: "Appeler avant 18h",
      poids: "1.5"
    }
  ],
  [
    "a stop-desk exchange without address: stop_desk 2, mode 4, the commune as the address",
    order({
      recipient: { fullName: "Karim Haddad", phone: "0771234567", wilayaCode: 31, communeName: "Bir El Djir" },
      deliveryType: "stopdesk",
      stopDeskId: "3104",
      productList: "1x montre",
      codAmount: 0,
      isExchange: true,
      notes: "  "
    }),
    {
      name: "Karim Haddad",
      firstname: "",
      phone: "0771234567",
      address: "Bir El Djir",
      commune: "Bir El Djir",
      wilaya: "31",
      modeDeLivraison: "4",
      price: "0",
      stop_desk: "2",
      product: "1x montre"
    }
  ],
  [
    "a home delivery without address: none sent, the courier refuses it",
    order({
      recipient: { fullName: "Sara", phone: "0555000111", wilayaCode: 16, communeName: "Hydra", addressLine: " " },
      deliveryType: "home",
      productList: "1x sac",
      codAmount: 2500
    }),
    {
      name: "Sara",
      firstname: "",
      phone: "0555000111",
      commune: "Hydra",
      wilaya: "16",
      modeDeLivraison: "1",
      price: "2500",
      stop_desk: "1",
      product: "1x sac"
    }
  ]
]

/** Answers no operation can read, and the reason each means, whatever the operation. */
const errorPairs: ReadonlyArray<
  readonly [string, CourierHttp.CourierResponse, CourierError.CourierErrorReason["_tag"], string]
> = [
  [
    "a refusal on 200",
    response(200, { Message: "Cette commune n'existe pas" }),
    "Refused",
    "Cette commune n'existe pas"
  ],
  ["a refusal on 400", response(400, { success: false, message: "Champ manquant" }), "Refused", "Champ manquant"],
  ["a refusal on 422, as error", response(422, { error: "Wilaya invalide" }), "Refused", "Wilaya invalide"],
  [
    "the key refused in words on 200",
    response(200, { Message: "Clé API invalide" }),
    "CredentialsRejected",
    "Clé API invalide"
  ],
  [
    "an English refusal of the key",
    response(400, { message: "Invalid API key" }),
    "CredentialsRejected",
    "Invalid API key"
  ],
  ["a 401", response(401, { success: false, Message: "Clé API invalide" }), "CredentialsRejected", "HTTP 401"],
  ["a 403 without words", response(403, ""), "CredentialsRejected", "HTTP 403"],
  ["a 500", response(500, "<b>Fatal error</b>", { "content-type": "text/html" }), "Unreachable", "HTTP 500"],
  [
    "a 302",
    response(302, "", { location: `https://api.elogistia.com/login/?apiKey=${KEY}` }),
    "BadResponse",
    "redirect"
  ],
  [
    "an HTML page on 200",
    response(200, "<html>Maintenance</html>", { "content-type": "text/html" }),
    "BadResponse",
    "not JSON"
  ],
  ["a 404", response(404, { Message: "Page introuvable" }), "BadResponse", "HTTP 404"],
  [
    "success: true without a tracking number",
    response(200, { success: true, Message: "OK" }),
    "BadResponse",
    "does not document"
  ],
  ["a 429", response(429, { Message: "Trop de requêtes" }, { "retry-after": "12" }), "CourierRateLimited", "12"]
]

describe("ElogistiaMapping", () => {
  describe("toInsertCommande", () => {
    it.each(createPairs)("%s", (_name, input, fields) => {
      assert.deepStrictEqual(Mapping.toInsertCommande(input), fields)
    })

    it("sends every field as a query string value, leaving absent ones out", () => {
      const fields = Mapping.toInsertCommande(createPairs[1]![1])
      assert.deepStrictEqual(Mapping.query(fields), { ...fields })
      assert.isFalse("IdCommande" in Mapping.query(fields))
    })
  })

  describe("fromInserted", () => {
    it("reads the tracking number from success, and reports the status a new parcel has", () => {
      const created = Mapping.fromInserted(
        response(200, { success: " L-214DMUF ", "Frais de livraison": 1000, Poids: 20, "Frais poids en plus": 750 })
      )
      assert.deepStrictEqual(created, Result.succeed({ trackingNumber: "L-214DMUF", rawStatus: "À expédiée" }))
    })

    it.each([
      ["an empty tracking number", { success: "  " }],
      ["a bare list", [{ success: "L-1" }]]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromInserted(response(200, body)))._tag, "BadResponse")
    })
  })

  describe("fromTracking", () => {
    const rows = (...entries: ReadonlyArray<Record<string, unknown>>) =>
      response(200, { body: entries, itemCount: entries.length })

    it("reads the history newest first as sent, skips log lines and other parcels, in the table's spelling", () => {
      const answer = rows(
        { Statut: "livrée & réglée", Date: "2026-04-21 14:02:33", Tracking: "L-1", logID: "9" },
        { Statut: "En transit", Date: "2026-04-20T08:05:12Z", Tracking: "L-1" },
        { Statut: "", logtext: " Réception commande ", Date: "2026-04-19 10:00:00", Tracking: "L-1" },
        { Statut: "Livré", Date: "2026-04-19 09:00:00", Tracking: "L-10" },
        { Statut: "Ramassée", Date: "19/04/2026 09:12", Tracking: null },
        { Statut: "Colis téléporté", Date: "2026-04-18 19:45", Tracking: "L-1" }
      )
      assert.deepStrictEqual(
        Mapping.fromTracking("L-1", answer),
        Result.succeed([
          { rawStatus: "Livrée & réglée", timestamp: "2026-04-21T14:02:33+01:00" },
          { rawStatus: "En transit", timestamp: "2026-04-20T09:05:12+01:00" },
          { rawStatus: "Ramassée", timestamp: "2026-04-19T09:12:00+01:00" },
          { rawStatus: "Colis téléporté", timestamp: "2026-04-18T19:45:00+01:00" }
        ])
      )
    })

    it.each([
      ["an empty body", rows()],
      ["rows of another parcel only", rows({ Statut: "Livré", Date: "2026-04-19 09:00:00", Tracking: "L-10" })],
      ["the courier's words", response(200, { Message: "Tracking introuvable" })]
    ])("refuses an unknown tracking number: %s", (_name, answer) => {
      assert.strictEqual(failure(Mapping.fromTracking("L-1", answer))._tag, "Refused")
    })

    it.each([
      ["a row without a date", rows({ Statut: "Livré", Tracking: "L-1" })],
      ["a date in another format", rows({ Statut: "Livré", Date: "avril 2026", Tracking: "L-1" })],
      ["a body that is not a list", response(200, { body: { Statut: "Livré" } })]
    ])("answers BadResponse for %s", (_name, answer) => {
      assert.strictEqual(failure(Mapping.fromTracking("L-1", answer))._tag, "BadResponse")
    })
  })

  describe("algiersTimestamp", () => {
    it.each([
      ["2023-04-17 12:19:43", "2023-04-17T12:19:43+01:00"],
      ["2023-04-17T12:19", "2023-04-17T12:19:00+01:00"],
      ["17/04/2023 12:19:43", "2023-04-17T12:19:43+01:00"],
      ["2023-04-17T11:19:43Z", "2023-04-17T12:19:43+01:00"],
      ["2023-12-31T23:30:00.000Z", "2024-01-01T00:30:00+01:00"]
    ])("%s → %s", (raw, expected) => {
      assert.strictEqual(Mapping.algiersTimestamp(raw), expected)
    })

    it.each(["", "2023-04-17", "2023-13-01 10:00:00", "17/04/23 10:00", "hier"])("refuses %j", (raw) => {
      assert.isUndefined(Mapping.algiersTimestamp(raw))
    })
  })

  describe("fromShippingCost", () => {
    const list = response(200, {
      body: [
        { wilayaID: "16", wilayaLabel: "Alger", home: 400, stopdesk: 250 },
        { wilayaID: "38", wilayaLabel: "Tissemsilt", home: "720", stopdesk: 0 },
        { wilayaID: 31, home: "720.00", stopdesk: null }
      ],
      itemCount: 3
    })

    it.each([
      [
        "home in Algiers",
        16,
        "home",
        400,
        [
          ["home", 400],
          ["stopdesk", 250]
        ]
      ],
      [
        "a desk in Algiers",
        16,
        "stopdesk",
        250,
        [
          ["home", 400],
          ["stopdesk", 250]
        ]
      ],
      ["home where the desk is 0", 38, "home", 720, [["home", 720]]],
      ["home where the desk is null", 31, "home", 720, [["home", 720]]]
    ] as const)("prices %s", (_name, toWilaya, deliveryType, fee, options) => {
      const rates = Result.getOrThrow(Mapping.fromShippingCost(query({ toWilaya, deliveryType }), list))
      assert.deepStrictEqual(
        [rates.deliveryType, rates.tier, rates.deliveryFee, rates.returnFee, rates.codFee, rates.total, rates.currency],
        [deliveryType, "economic", fee, 0, 0, fee, "DZD"]
      )
      assert.deepStrictEqual(
        rates.options.map((option): ReadonlyArray<unknown> => [option.deliveryType, option.deliveryFee]),
        options.map((option): ReadonlyArray<unknown> => [...option])
      )
    })

    it("reads the bare list one integration shows", () => {
      const bare = response(200, [{ wilayaLabel: "Oran", wilayaID: "31", home: 600, stopdesk: 500 }])
      assert.strictEqual(
        Result.getOrThrow(Mapping.fromShippingCost(query({ toWilaya: 31, deliveryType: "stopdesk" }), bare)).total,
        500
      )
    })

    it("refuses a wilaya not in the list and a desk where there is none; express before any call", () => {
      assert.include(
        failure(Mapping.fromShippingCost(query({ toWilaya: 33, deliveryType: "home" }), list)).message,
        "wilaya 33"
      )
      assert.include(
        failure(Mapping.fromShippingCost(query({ toWilaya: 38, deliveryType: "stopdesk" }), list)).message,
        "no stop-desk"
      )
      assert.strictEqual(
        failure(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "express" })))._tag,
        "Refused"
      )
    })

    it.each([
      ["a negative amount", [{ wilayaID: "16", home: -400 }]],
      ["a fractional amount", [{ wilayaID: "16", home: "400.5" }]],
      ["a wilaya code out of range", [{ wilayaID: "70", home: 400 }]],
      ["a row without a price", [{ wilayaID: "16" }]]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(
        failure(Mapping.fromShippingCost(query({ toWilaya: 16, deliveryType: "home" }), response(200, body)))._tag,
        "BadResponse"
      )
    })
  })

  describe("fromLabel", () => {
    it("takes the PDF as it comes, and reads anything else as what it means", () => {
      const pdf = response(200, "%PDF-1.4\n%%EOF\n", { "content-type": "application/pdf" })
      assert.deepStrictEqual(
        Result.map(Mapping.fromLabel(pdf), (label) => label.contentType),
        Result.succeed("application/pdf")
      )
      assert.strictEqual(failure(Mapping.fromLabel(response(200, { Message: "Commande introuvable" })))._tag, "Refused")
      assert.strictEqual(
        failure(Mapping.fromLabel(response(200, "GIF89a", { "content-type": "image/gif" })))._tag,
        "BadResponse"
      )
    })
  })

  describe("errorOf", () => {
    it.each(errorPairs)("%s", (name, answer, tag, says) => {
      for (const reason of [
        Mapping.errorOf(answer),
        failure(Mapping.fromInserted(answer)),
        failure(Mapping.fromTracking("L-1", answer)),
        failure(Mapping.fromShippingCost(query({ toWilaya: 16, deliveryType: "home" }), answer)),
        failure(Mapping.fromLabel(answer))
      ]) {
        assert.strictEqual(reason._tag, tag, name)
        assert.include(
          reason._tag === "CourierRateLimited" ? String(reason.retryAfterSeconds) : reason.message,
          says,
          name
        )
      }
    })

    it.each([
      [
        "a URL quoted in a refusal",
        response(400, {
          Message: `Requête invalide : https://api.elogistia.com/insertCommande/?name=A&apiKey=${KEY}&x=1`
        })
      ],
      ["a key= parameter quoted on 200", response(200, { Message: `Paramètre key=${KEY} refusé` })],
      [
        "a URL quoted in a refusal, already redacted by the host",
        response(400, { Message: "Requête invalide : /getTracking/?apiKey=<redacted>" })
      ],
      [
        "a redirect carrying the key",
        response(302, `<a href="https://api.elogistia.com/login/?apiKey=${KEY}">`, {
          location: `https://api.elogistia.com/login/?apiKey=${KEY}`
        })
      ],
      [
        "a crash page quoting the URL",
        response(500, `Fatal error handling /insertCommande/?apiKey=${KEY}`, { "content-type": "text/html" })
      ]
    ])("never quotes a key value, even before the host's redaction: %s", (_name, answer) => {
      const reason = Mapping.errorOf(answer)
      assert.notInclude(JSON.stringify(reason), KEY)
      assert.notInclude(reason.message, "<redacted><redacted>")
      if (reason._tag === "Refused") assert.match(reason.message, /(api)?key=<redacted>/i)
    })

    it("says a quoted URL's 'invalide' is about the request, not the key", () => {
      assert.strictEqual(
        Mapping.errorOf(response(400, { Message: `Requête invalide : /x/?apiKey=${KEY}` }))._tag,
        "Refused"
      )
    })
  })

  describe("batch tracking (getManyTracking/)", () => {
    // The collection's sample as a public integration quotes it verbatim: a bare list, the history oldest first.
    const sample = [
      {
        tracking: "L-372BNH",
        count: 4,
        validation: "68",
        historique: [
          { logtext: "Ramasser", Statut: "Ramassée", Date: "2023-04-17 12:19:43", Tentative: "0" },
          { logtext: " Réception commande ", Statut: "", Date: "2023-04-17 13:01:35", Tentative: "0" },
          {
            logtext: "Dispatché au livreur",
            Statut: "En cours livraison",
            Date: "2023-04-17 14:44:58",
            Tentative: "0"
          },
          { logtext: "Refus client", Statut: "Retour", Date: "2023-04-17 17:15:18", Tentative: "1" }
        ]
      }
    ]

    it("reads the sample: every status row an event, log lines left out, in the table's spelling", () => {
      const read = Result.getOrThrow(Mapping.fromManyTracking(["L-372BNH"], response(200, sample)))
      assert.deepStrictEqual(
        [...read],
        [
          [
            "L-372BNH",
            [
              { rawStatus: "Ramassée", timestamp: "2023-04-17T12:19:43+01:00" },
              { rawStatus: "En cours livraison", timestamp: "2023-04-17T14:44:58+01:00" },
              { rawStatus: "Retour", timestamp: "2023-04-17T17:15:18+01:00" }
            ]
          ]
        ]
      )
    })

    it("leaves out numbers it has no history for and entries not asked for; reads the { body } envelope too", () => {
      const answer = {
        body: [
          {
            tracking: "L-AAAAAA",
            historique: [{ logtext: "x", Statut: "LIVREE ET REGLEE", Date: "2024-01-02 10:00:00" }]
          },
          { tracking: "L-BBBBBB", historique: [] },
          { tracking: "L-CCCCCC", historique: null },
          {
            tracking: "L-DDDDDD",
            historique: [{ logtext: " Réception commande ", Statut: "", Date: "2024-01-02 09:00:00" }]
          },
          { tracking: "L-NOTASK", historique: [{ logtext: "x", Statut: "Livrée", Date: "2024-01-02 10:00:00" }] }
        ]
      }
      const read = Result.getOrThrow(
        Mapping.fromManyTracking(["L-AAAAAA", "L-BBBBBB", "L-CCCCCC", "L-DDDDDD", "L-EEEEEE"], response(200, answer))
      )
      assert.deepStrictEqual(
        [...read],
        [
          ["L-AAAAAA", [{ rawStatus: "Livrée & réglée", timestamp: "2024-01-02T10:00:00+01:00" }]],
          ["L-DDDDDD", []]
        ]
      )
      assert.strictEqual(Mapping.fromManyTracking(["L-X"], response(200, [])).pipe(Result.getOrThrow).size, 0)
    })

    it.each<readonly [string, unknown, CourierError.CourierErrorReason["_tag"]]>([
      [
        "a time it does not document",
        [{ tracking: "L-1", historique: [{ Statut: "Livrée", Date: "hier" }] }],
        "BadResponse"
      ],
      ["a row without a date", [{ tracking: "L-1", historique: [{ Statut: "Livrée" }] }], "BadResponse"],
      ["an entry without a tracking number", [{ historique: [] }], "BadResponse"],
      ["the key refused in words", { Message: "Clé API invalide" }, "CredentialsRejected"],
      ["a refusal", { Message: "Paramètre tracking manquant" }, "Refused"]
    ])("reads %s as what it means", (_name, body, tag) => {
      assert.strictEqual(failure(Mapping.fromManyTracking(["L-1"], response(200, body)))._tag, tag)
    })

    it("sends the numbers once each, comma-separated; refuses more than 100, a blank one or one with a comma", () => {
      assert.deepStrictEqual(Result.getOrThrow(Mapping.checkBatch(["L-1", " L-2 ", "L-1"])), ["L-1", "L-2"])
      assert.deepStrictEqual(Mapping.batchQuery(["L-1", "L-2"]), { tracking: "L-1,L-2" })
      const hundred = Array.from({ length: 100 }, (_, i) => `L-${i}`)
      assert.lengthOf(Result.getOrThrow(Mapping.checkBatch([...hundred, "L-0"])), 100)
      for (const wrong of [[...hundred, "L-100"], ["L-1", " "], ["L-1,L-2"]]) {
        assert.strictEqual(failure(Mapping.checkBatch(wrong))._tag, "Refused", JSON.stringify(wrong.slice(-1)))
      }
    })
  })

  describe("cancel (deleteOrder/)", () => {
    it.each([
      ["the collection's string", JSON.stringify("la commande a été supprimée avec succès")],
      ["the same without accents or case", JSON.stringify("LA COMMANDE A ETE SUPPRIMEE AVEC SUCCES")],
      ["the action endpoints' shape", { success: true, Message: "Commande supprimée" }]
    ])("reads %s as done", (_name, body) => {
      assert.isTrue(Result.isSuccess(Mapping.fromDeleted(response(200, body))))
    })

    it.each<readonly [string, CourierHttp.CourierResponse, CourierError.CourierErrorReason["_tag"]]>([
      ["a refusal in words", response(200, { Message: "Commande introuvable" }), "Refused"],
      ["another bare string", response(200, JSON.stringify("Erreur")), "Refused"],
      [
        "the success words on an error status",
        response(422, JSON.stringify("la commande a été supprimée avec succès")),
        "Refused"
      ],
      ["a 401", response(401, { Message: "Clé API invalide" }), "CredentialsRejected"],
      ["a 500", response(500, "boom"), "Unreachable"]
    ])("reads %s as a failure", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromDeleted(answer))._tag, tag)
    })

    const refused = new CourierError.Refused({ message: "the courier said: Impossible de supprimer cette commande" })
    const at = (rawStatus: string, timestamp = "2026-04-20T10:00:00+01:00") => ({ rawStatus, timestamp })

    it.each<readonly [string, ReadonlyArray<ReturnType<typeof at>>, CourierError.CourierErrorReason["_tag"]]>([
      ["picked up", [at("À expédiée", "2026-04-20T09:00:00+01:00"), at("Ramassée")], "NotCancellable"],
      [
        "in transit, newest first as getTracking/ sends it",
        [at("En transit"), at("À expédiée", "2026-04-19T09:00:00+01:00")],
        "NotCancellable"
      ],
      ["delivered", [at("Livrée & réglée")], "NotCancellable"],
      ["returning", [at("Retour en transit")], "NotCancellable"],
      ["waiting for pickup", [at("À expédiée")], "Refused"],
      ["to be picked up", [at("À ramasser")], "Refused"],
      ["suspended (before or after pickup: unknown)", [at("Suspendue")], "Refused"],
      ["already cancelled", [at("Annulée")], "Refused"],
      ["a label the table does not know", [at("À remettre")], "Refused"],
      ["no status yet", [], "Refused"]
    ])("a refusal of a parcel %s is %s", (_name, events, tag) => {
      const reason = Mapping.whyNotCancelled(refused, Result.succeed(events))
      assert.strictEqual(reason._tag, tag)
      assert.include(reason.message, "Impossible de supprimer cette commande")
    })

    it("keeps the refusal when the history cannot be read, and any other failure as it is", () => {
      const unknown = new CourierError.Refused({ message: "trackingNumber: unknown" })
      assert.strictEqual(Mapping.whyNotCancelled(refused, Result.fail(unknown)), refused)
      const rejected = new CourierError.CredentialsRejected({ message: "the courier refused the API key" })
      assert.strictEqual(Mapping.whyNotCancelled(rejected, Result.succeed([at("Ramassée")])), rejected)
    })
  })

  describe("desks and communes", () => {
    // The plugin's field names; "Code wilaya" as a string or a number.
    const agencies = {
      body: [
        {
          "Nom du bureau": " Agence Bab Ezzouar ",
          Commune: "Bab Ezzouar",
          "Code wilaya": "16",
          Adresse: "Cité 5 juillet"
        },
        { "Nom du bureau": "Agence Hydra", Commune: "HYDRA", "Code wilaya": 16 },
        { "Nom du bureau": "Agence Oran", Commune: "Oran", "Code wilaya": "31", Adresse: null },
        { "Nom du bureau": "Agence Timimoun", Commune: "Timimoun", "Code wilaya": "59" },
        { "Nom du bureau": "", Commune: "Kouba", "Code wilaya": "16" }
      ],
      itemCount: 5
    }

    it("keeps a wilaya's desks, the office's name as its id, and leaves out the others and nameless rows", () => {
      const rows = Result.getOrThrow(Mapping.fromAgencies(response(200, agencies)))
      assert.deepStrictEqual(Mapping.desksOf(wilaya(16), rows), [
        {
          id: "Agence Bab Ezzouar",
          name: "Agence Bab Ezzouar",
          wilayaCode: wilaya(16),
          communeName: "Bab Ezzouar",
          address: "Cité 5 juillet"
        },
        { id: "Agence Hydra", name: "Agence Hydra", wilayaCode: wilaya(16), communeName: "HYDRA" }
      ])
      assert.deepStrictEqual(Mapping.desksOf(wilaya(31), rows), [
        { id: "Agence Oran", name: "Agence Oran", wilayaCode: wilaya(31), communeName: "Oran" }
      ])
      assert.deepStrictEqual(Mapping.desksOf(wilaya(1), rows), [])
      assert.deepStrictEqual(Mapping.agenciesQuery, { type: "2" })
    })

    it("reads a wilaya's communes, served at home, with a desk where one is (names folded)", () => {
      const desks = Mapping.desksOf(wilaya(16), Result.getOrThrow(Mapping.fromAgencies(response(200, agencies))))
      const municipalities = {
        body: [
          { Id: "554", name: "Hydra", wilaya: "16" },
          { Id: 555, name: "Bab Ezzouar", wilaya: 16 },
          { name: "Kouba ", wilaya: "16" },
          { Id: "900", name: "Oran", wilaya: "31" }
        ],
        itemCount: 4
      }
      assert.deepStrictEqual(
        Result.getOrThrow(Mapping.fromMunicipalities(wilaya(16), response(200, municipalities), desks)),
        [
          { name: "Hydra", id: "554", home: true, stopdesk: true },
          { name: "Bab Ezzouar", id: "555", home: true, stopdesk: true },
          { name: "Kouba", home: true, stopdesk: false }
        ]
      )
      assert.deepStrictEqual(Mapping.municipalitiesQuery(wilaya(9)), { wilaya: "9" })
    })

    it.each<readonly [string, CourierHttp.CourierResponse, CourierError.CourierErrorReason["_tag"]]>([
      ["rows of another shape", response(200, { body: [{ id: 1, nom: "Agence" }] }), "BadResponse"],
      ["the key refused in words", response(200, { Message: "Clé API invalide" }), "CredentialsRejected"],
      ["a 401", response(401, { Message: "Unauthorized" }), "CredentialsRejected"]
    ])("reads %s as what it means, for desks and communes alike", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromAgencies(answer))._tag, tag)
      assert.strictEqual(failure(Mapping.fromMunicipalities(wilaya(16), answer, []))._tag, tag)
    })
  })

  describe("checkCredentials (getWilayas/)", () => {
    it("takes any list as the key working, and reads a refusal as what it means", () => {
      assert.isTrue(
        Result.isSuccess(Mapping.fromWilayas(response(200, { body: [{ Id: "1", wilaya: "Adrar" }], itemCount: 1 })))
      )
      assert.strictEqual(
        failure(Mapping.fromWilayas(response(401, { Message: "Unauthorized" })))._tag,
        "CredentialsRejected"
      )
      assert.strictEqual(
        failure(Mapping.fromWilayas(response(200, { Message: "Clé API invalide" })))._tag,
        "CredentialsRejected"
      )
      assert.strictEqual(failure(Mapping.fromWilayas(response(200, "<html>maintenance</html>")))._tag, "BadResponse")
    })
  })
})
