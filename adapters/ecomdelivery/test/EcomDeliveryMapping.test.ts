/**
 * The pure mapping, table by table: orders → `Colis` parcels, answers → results, answers → reasons. Every expected
 * value was written by hand from E-COM's API page and the research notes (couriers.md §1.8, §1.10), not captured.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/EcomDeliveryMapping.ts"
import type { Colis } from "../src/EcomDeliveryWire.ts"

const response = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = { "content-type": "application/json" }
): CourierHttp.CourierResponse => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return { status, headers, text, bytes: new TextEncoder().encode(text) }
}

const order = (input: unknown) => Schema.decodeUnknownSync(Shipment.ParcelOrder)(input)
const query = (input: unknown) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>): CourierError.CourierErrorReason => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

const quota = {
  Consommer_1min: 1,
  Consommer_1h: 1,
  Consommer_24h: 1,
  Limite_1min: 40,
  Limite_1h: 1500,
  Limite_24h: 15000
}

/** A parcel row as E-COM's page shows one. */
const row = (tracking: string, avancement: string, situation: string | null, at = "01/01/2025 10:10:10") => ({
  Date_Création_D: " 01/01/2025 08:00:00",
  Tracking: tracking,
  ID_Externe: "AA96S",
  label: `SiteWeb/SYSTEM2025_WEB/FR/Fournisseur_A/Page.awp?P1=${tracking}&P2=f6d5a3ff-a207-4e93-b5b7-26a8554df6f2`,
  Stopdesk: 1,
  IDWilaya: 31,
  Echange: 0,
  Total: 9600,
  NomComplet: "Mohamed",
  Mobile_1: "0770707070",
  Adresse: "39 Rue Bahi Amar Es-Senia",
  Commune_Bureau: "ORAN 1",
  Article: "New Balance 500 41.5",
  NoteFournisseur: "",
  Date_Action_D: at,
  Avancement: avancement,
  Situation: situation,
  Commentaire: "",
  Date_Livrée: null
})

const listing = (...rows: ReadonlyArray<unknown>) => ({
  Quota: quota,
  Nb_Colis: rows.length,
  Nb_Page: 1,
  Current_Page: 1,
  Colis: rows
})

describe("EcomDeliveryMapping", () => {
  describe("toColis", () => {
    const pairs: ReadonlyArray<readonly [name: string, order: Shipment.ParcelOrder, colis: Colis]> = [
      [
        "a home delivery with every optional field: national phones, the wilaya unpadded, the reference and note",
        order({
          reference: "CMD-1042",
          recipient: {
            fullName: "Amina Benali",
            phone: "+213 555 12 34 56",
            phoneAlt: "0661 23 45 67",
            wilayaCode: 9,
            communeName: "Boufarik",
            addressLine: "Cité 2000 logements, bât. 12"
          },
          deliveryType: "home",
          productList: "2x robe kabyle",
          codAmount: 4500,
          weightKg: 1.5,
          declaredValue: 4000,
          freeShipping: true,
          hasOpenPackage: true,
          notes: "Appeler avant 18h"
        }),
        {
          Echange: 0,
          Stopdesk: 0,
          NomComplet: "Amina Benali",
          Mobile_1: "0555123456",
          Mobile_2: "0661234567",
          Adresse: "Cité 2000 logements, bât. 12",
          Wilaya: "9",
          Commune: "Boufarik",
          Article: "2x robe kabyle",
          Total: "4500",
          ID_Externe: "CMD-1042",
          NoteFournisseur: "Appeler avant 18h",
          Source: "Tawsil"
        }
      ],
      [
        "a stop-desk delivery without address: Stopdesk 1, the desk's code, the commune stands in for the address",
        order({
          recipient: { fullName: "Karim Haddad", phone: "0771234567", wilayaCode: 31, communeName: "Bir El Djir" },
          deliveryType: "stopdesk",
          stopDeskId: "31A",
          productList: "1x montre",
          codAmount: 12000
        }),
        {
          Echange: 0,
          Stopdesk: 1,
          NomComplet: "Karim Haddad",
          Mobile_1: "0771234567",
          Adresse: "Bir El Djir",
          Wilaya: "31",
          Commune: "Bir El Djir",
          Article: "1x montre",
          Total: "12000",
          CodeStopdesk: "31A",
          Source: "Tawsil"
        }
      ],
      [
        "an exchange to the door without address: Echange 1, no Adresse (the courier refuses it), blank fields left out",
        order({
          reference: "  ",
          recipient: { fullName: "Sara M", phone: "0661234567", phoneAlt: " ", wilayaCode: 16, communeName: "Hydra" },
          deliveryType: "home",
          stopDeskId: "16A",
          productList: "1x veste",
          codAmount: 0,
          isExchange: true,
          notes: ""
        }),
        {
          Echange: 1,
          Stopdesk: 0,
          NomComplet: "Sara M",
          Mobile_1: "0661234567",
          Wilaya: "16",
          Commune: "Hydra",
          Article: "1x veste",
          Total: "0",
          Source: "Tawsil"
        }
      ]
    ]
    for (const [name, input, colis] of pairs) {
      it(name, () => {
        assert.deepStrictEqual(Mapping.toColis(input), colis)
        assert.deepStrictEqual(Mapping.toAddColis(colis), { Colis: [colis] })
      })
    }

    it("names the one parcel to ship by tracking number", () => {
      assert.deepStrictEqual(Mapping.trackingList("TC317LHJ"), { Colis: [{ Tracking: "TC317LHJ" }] })
    })
  })

  describe("fromCreated", () => {
    it("reads the tracking number and the Avancement of the one parcel created (E-COM's page's answer)", () => {
      const created = Mapping.fromCreated(
        response(200, { Quota: quota, Colis: [row("TC317LHJ", "En Préparation", "EnCours", "13/08/2024 20:24:08")] })
      )
      assert.deepStrictEqual(Result.getOrThrow(created), { trackingNumber: "TC317LHJ", rawStatus: "En Préparation" })
    })

    const bad: ReadonlyArray<readonly [name: string, body: unknown]> = [
      ["no parcel", { Quota: quota, Colis: [] }],
      [
        "two parcels for one sent",
        { Colis: [row("A1", "En Préparation", "EnCours"), row("A2", "En Préparation", "EnCours")] }
      ],
      ["a parcel without a tracking number", { Colis: [{ ...row("X", "En Préparation", "EnCours"), Tracking: "" }] }],
      ["no Colis at all", { Quota: quota }]
    ]
    for (const [name, body] of bad) {
      it(`is a BadResponse for ${name}`, () => {
        assert.strictEqual(failure(Mapping.fromCreated(response(200, body)))._tag, "BadResponse")
      })
    }
  })

  describe("fromShipped", () => {
    it("takes any JSON object on a 2xx as done", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromShipped(response(200, { Quota: quota }))))
    })

    it("reads a refusal of aExpédier like any other", () => {
      const reason = failure(Mapping.fromShipped(response(400, { message: "Tracking introuvable : TC1" })))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "Tracking introuvable")
    })
  })

  describe("algiersTimestamp", () => {
    const pairs: ReadonlyArray<readonly [string, string | undefined]> = [
      ["13/08/2024 20:24:08", "2024-08-13T20:24:08+01:00"],
      [" 01/01/2025 08:00:00", "2025-01-01T08:00:00+01:00"],
      ["01/07/2026 09:15", "2026-07-01T09:15:00+01:00"],
      ["2026-07-01 09:15:00", undefined],
      ["32/01/2026 09:15:00", undefined],
      ["01/13/2026 09:15:00", undefined],
      ["", undefined]
    ]
    for (const [raw, iso] of pairs) {
      it(`reads ${JSON.stringify(raw)} as ${iso ?? "nothing"}`, () =>
        assert.strictEqual(Mapping.algiersTimestamp(raw), iso))
    }
  })

  describe("fromTracking", () => {
    const at = "2025-01-01T10:10:10+01:00"
    const pairs: ReadonlyArray<
      readonly [name: string, body: unknown, events: ReadonlyArray<{ rawStatus: string; timestamp: string }>]
    > = [
      [
        "E-COM's page's row: the Avancement, then the Situation that qualifies it",
        listing(row("TC033AAA", "Au Bureau", "Ne Réponde pas #1")),
        [
          { rawStatus: "Au Bureau", timestamp: at },
          { rawStatus: "Ne Réponde pas #1", timestamp: at }
        ]
      ],
      [
        "a situation that only reports contact is left out",
        listing(row("TC033AAA", "Sortir en livraison", "Appel Tel")),
        [{ rawStatus: "Sortir en livraison", timestamp: at }]
      ],
      [
        "EnCours says nothing: only the Avancement",
        listing(row("TC033AAA", "En Préparation", "EnCours")),
        [{ rawStatus: "En Préparation", timestamp: at }]
      ],
      [
        "a null or absent Situation: only the Avancement",
        listing(row("TC033AAA", "Dispatcher", null)),
        [{ rawStatus: "Dispatcher", timestamp: at }]
      ],
      [
        "a delivery whose cash has reached the merchant: both passed on",
        listing(row("TC033AAA", "Récupérer", "Recouvert")),
        [
          { rawStatus: "Récupérer", timestamp: at },
          { rawStatus: "Recouvert", timestamp: at }
        ]
      ],
      [
        "a status nobody documented is passed on as sent",
        listing(row("TC033AAA", "Au Bureau", "Colis Endommagé")),
        [
          { rawStatus: "Au Bureau", timestamp: at },
          { rawStatus: "Colis Endommagé", timestamp: at }
        ]
      ],
      [
        "only the row of exactly the asked parcel is read",
        listing(row("TC033AAAB", "Perdu", "EnCours"), row("TC033AAA", "En livraison", "Reporté")),
        [
          { rawStatus: "En livraison", timestamp: at },
          { rawStatus: "Reporté", timestamp: at }
        ]
      ]
    ]
    for (const [name, body, events] of pairs) {
      it(name, () =>
        assert.deepStrictEqual(Result.getOrThrow(Mapping.fromTracking("TC033AAA", response(200, body))), events)
      )
    }

    it("refuses a tracking number the courier does not know, on the trackingNumber field", () => {
      for (const body of [listing(), listing(row("tc033aaa", "Perdu", "EnCours"))]) {
        const reason = failure(Mapping.fromTracking("TC033AAA", response(200, body)))
        assert.strictEqual(reason._tag, "Refused")
        assert.match(reason.message, /^trackingNumber: /)
      }
    })

    const bad: ReadonlyArray<readonly [name: string, body: unknown]> = [
      ["a row without an Avancement", listing({ ...row("TC033AAA", "", "EnCours") })],
      ["a time in another format", listing(row("TC033AAA", "Au Bureau", "EnCours", "2025-01-01T10:10:10"))],
      ["no Colis list", { Quota: quota, Colis: null }]
    ]
    for (const [name, body] of bad) {
      it(`is a BadResponse for ${name}`, () => {
        assert.strictEqual(failure(Mapping.fromTracking("TC033AAA", response(200, body)))._tag, "BadResponse")
      })
    }
  })

  describe("trackBatch: trackingsList and fromListPage", () => {
    it("asks each number once, as E-COM's list of { Tracking }", () => {
      assert.deepStrictEqual(Mapping.trackingsList(["EC1", "EC2", "EC1"]), {
        Colis: [{ Tracking: "EC1" }, { Tracking: "EC2" }]
      })
    })

    it("reads the asked rows as track does; numbers not returned or not asked are left out", () => {
      const page = Result.getOrThrow(
        Mapping.fromListPage(
          ["TC033AAA", "TC034AAA", "TC999ZZZ"],
          response(200, {
            Quota: quota,
            Nb_Colis: 3,
            Nb_Page: "2",
            Current_Page: 1,
            Colis: [
              row("TC033AAA", "Au Bureau", "Ne Réponde pas #1"),
              row("TC034AAA", "En Traitement", "EnCours", "02/01/2025 09:00:00"),
              row("TC555OTHER", "Perdu", null)
            ]
          })
        )
      )
      assert.deepStrictEqual(
        [...page.events.entries()],
        [
          [
            "TC033AAA",
            [
              { rawStatus: "Au Bureau", timestamp: "2025-01-01T10:10:10+01:00" },
              { rawStatus: "Ne Réponde pas #1", timestamp: "2025-01-01T10:10:10+01:00" }
            ]
          ],
          ["TC034AAA", [{ rawStatus: "En Traitement", timestamp: "2025-01-02T09:00:00+01:00" }]]
        ]
      )
      assert.deepStrictEqual([page.page, page.pages], [1, 2])
    })

    it("an answer without page counts is one page; an empty list knows none", () => {
      const page = Result.getOrThrow(Mapping.fromListPage(["TC1"], response(200, { Quota: quota, Colis: [] })))
      assert.deepStrictEqual([page.events.size, page.page, page.pages], [0, 1, 1])
    })

    it.each([
      ["an asked row without its Avancement", { Colis: [{ Tracking: "TC1", Date_Action_D: "01/01/2025 10:10:10" }] }],
      ["an asked row with an undocumented time", { Colis: [row("TC1", "Au Bureau", null, "2025-01-01")] }],
      ["rows keyed by tracking", { Colis: { TC1: row("TC1", "Au Bureau", null) } }],
      ["a page count that is no number", { Nb_Page: "deux", Colis: [] }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromListPage(["TC1"], response(200, body)))._tag, "BadResponse")
    })

    it("passes E-COM's refusals and errors on", () => {
      assert.strictEqual(
        failure(Mapping.fromListPage(["TC1"], response(400, { message: "Maximum 100 colis" })))._tag,
        "Refused"
      )
      assert.strictEqual(
        failure(Mapping.fromListPage(["TC1"], response(401, { message: "Key ou Token invalide" })))._tag,
        "CredentialsRejected"
      )
    })
  })

  describe("cancel: checkDeletable and fromDeleted", () => {
    it.each(["En Préparation", "En Traitement"])("a parcel %s can be deleted", (avancement) => {
      assert.isTrue(
        Result.isSuccess(Mapping.checkDeletable("TC1", response(200, listing(row("TC1", avancement, "EnCours")))))
      )
    })

    it.each(["Dispatcher", "Au Bureau", "Sortir en livraison", "Récupérer", "Retour Fournisseur", "Perdu"])(
      "a parcel %s is past preparation: NotCancellable, in E-COM's word for where it is",
      (avancement) => {
        const reason = failure(Mapping.checkDeletable("TC1", response(200, listing(row("TC1", avancement, null)))))
        assert.strictEqual(reason._tag, "NotCancellable")
        assert.include(reason.message, `"${avancement}"`)
      }
    )

    it("an unknown parcel is refused, another parcel's row is not read as it", () => {
      for (const body of [listing(), listing(row("TC2", "Dispatcher", null))]) {
        const reason = failure(Mapping.checkDeletable("TC1", response(200, body)))
        assert.strictEqual(reason._tag, "Refused")
        assert.include(reason.message, "does not know this tracking number")
      }
    })

    it("a delete answered with any JSON object is done; a refusal is E-COM's", () => {
      assert.isTrue(
        Result.isSuccess(Mapping.fromDeleted(response(200, { Quota: quota, Colis: [{ Tracking: "TC1" }] })))
      )
      assert.isTrue(Result.isSuccess(Mapping.fromDeleted(response(200, {}))))
      const reason = failure(
        Mapping.fromDeleted(response(400, { message: "Suppression impossible : le colis TC1 est Dispatcher" }))
      )
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "Suppression impossible")
      assert.strictEqual(failure(Mapping.fromDeleted(response(200, [1])))._tag, "BadResponse")
    })
  })

  describe("checkCredentials: fromTest", () => {
    it("E-COM's connection test names the shop: the credentials work", () => {
      assert.isTrue(
        Result.isSuccess(Mapping.fromTest(response(200, { Quota: quota, Fournisseur: "Boutique31", Ville: 31 })))
      )
    })

    it.each<readonly [string, CourierHttp.CourierResponse, string]>([
      ["a refused key or token", response(401, { message: "Key ou Token invalide" }), "CredentialsRejected"],
      ["a 429", response(429, { message: "Trop de demandes" }), "CourierRateLimited"],
      ["a 503", response(503, "down", { "content-type": "text/plain" }), "Unreachable"],
      ["an answer without the shop", response(200, { Quota: quota }), "BadResponse"],
      ["an HTML page", response(200, "<html></html>", { "content-type": "text/html" }), "BadResponse"]
    ])("%s → %s", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromTest(answer))._tag, tag)
    })
  })

  describe("fromTarification", () => {
    const tariff = {
      Quota: quota,
      Wilaya: [
        {
          ID: 1,
          Libellé: "Adrar",
          Domicle: true,
          Stopdesk: true,
          Tarfi_Domicle: 1600,
          Tarfi_Stopdesk: 300,
          Tarfi_Annuler: 150
        },
        {
          ID: 2,
          Libellé: "Chlef",
          Domicle: true,
          Stopdesk: false,
          Tarfi_Domicle: 500,
          Tarfi_Stopdesk: 300,
          Tarfi_Annuler: 150
        },
        {
          ID: 3,
          Libellé: "Laghouat",
          Domicle: false,
          Stopdesk: false,
          Tarfi_Domicle: 500,
          Tarfi_Stopdesk: 300,
          Tarfi_Annuler: 150
        },
        { ID: "16", Libellé: "Alger", Domicle: false, Stopdesk: true, Tarfi_Domicle: "0", Tarfi_Stopdesk: "250" }
      ]
    }

    it("prices a home delivery with both options (E-COM's page's row for Adrar)", () => {
      const result = Result.getOrThrow(
        Mapping.fromTarification(query({ toWilaya: 1, deliveryType: "home" }), response(200, tariff))
      )
      assert.strictEqual(result.deliveryType, "home")
      assert.strictEqual(result.tier, "economic")
      assert.strictEqual(result.deliveryFee, 1600)
      assert.strictEqual(result.returnFee, 150)
      assert.strictEqual(result.codFee, 0)
      assert.strictEqual(result.total, 1600)
      assert.deepStrictEqual(
        result.options.map((option) => [option.deliveryType, option.deliveryFee, option.returnFee]),
        [
          ["home", 1600, 150],
          ["stopdesk", 300, 150]
        ]
      )
    })

    it("prices a stop desk where there is no home delivery; no return fee given is 0", () => {
      const result = Result.getOrThrow(
        Mapping.fromTarification(query({ toWilaya: 16, deliveryType: "stopdesk" }), response(200, tariff))
      )
      assert.deepStrictEqual(
        [result.deliveryFee, result.returnFee, result.total, result.options.length],
        [250, 0, 250, 1]
      )
    })

    const refused: ReadonlyArray<readonly [name: string, input: unknown, words: string]> = [
      ["a desk where the wilaya has none", { toWilaya: 2, deliveryType: "stopdesk" }, "no stop-desk delivery"],
      ["the door where the wilaya has none", { toWilaya: 16, deliveryType: "home" }, "no home delivery"],
      ["a wilaya with neither", { toWilaya: 3, deliveryType: "home" }, "does not deliver to wilaya 3"],
      ["a wilaya missing from the tariff", { toWilaya: 58, deliveryType: "home" }, "does not deliver to wilaya 58"]
    ]
    for (const [name, input, words] of refused) {
      it(`refuses ${name}`, () => {
        const reason = failure(Mapping.fromTarification(query(input), response(200, tariff)))
        assert.strictEqual(reason._tag, "Refused")
        assert.include(reason.message, words)
      })
    }

    it("refuses the express tier before any call", () => {
      assert.strictEqual(
        failure(Mapping.checkTier(query({ toWilaya: 1, deliveryType: "home", tier: "express" })))._tag,
        "Refused"
      )
      assert.isTrue(Result.isSuccess(Mapping.checkTier(query({ toWilaya: 1, deliveryType: "home", tier: "economic" }))))
    })

    it("is a BadResponse for a tariff of an undocumented shape", () => {
      const body = { Wilaya: [{ ID: 1, Domicile: 400 }] }
      assert.strictEqual(
        failure(Mapping.fromTarification(query({ toWilaya: 1, deliveryType: "home" }), response(200, body)))._tag,
        "BadResponse"
      )
    })
  })

  describe("errorOf", () => {
    const pairs: ReadonlyArray<
      readonly [
        name: string,
        response: CourierHttp.CourierResponse,
        reason: CourierError.CourierErrorReason["_tag"],
        words?: string
      ]
    > = [
      [
        "a 400 in the courier's words",
        response(400, { message: "Commune non reconnue" }),
        "Refused",
        "Commune non reconnue"
      ],
      [
        "a 422 with a capitalised Message",
        response(422, { Message: "Wilaya non desservie" }),
        "Refused",
        "Wilaya non desservie"
      ],
      ["a 400 with an error", response(400, { error: "Total invalide" }), "Refused", "Total invalide"],
      [
        "a 401 quoting what E-COM says",
        response(401, { message: "Key ou Token invalide" }),
        "CredentialsRejected",
        "Key ou Token invalide"
      ],
      ["a 403", response(403, {}), "CredentialsRejected"],
      ["a 429 (« Trop de demandes »)", response(429, { message: "Trop de demandes" }), "CourierRateLimited"],
      ["a 500", response(500, { message: "Erreur" }), "Unreachable"],
      ["a 503 page", response(503, "<html>maintenance</html>", { "content-type": "text/html" }), "Unreachable"],
      ["a redirect", response(302, "", { location: "https://ecom-dz.net/login" }), "BadResponse"],
      ["a 404 (a path the API does not have)", response(404, { message: "Ressource introuvable" }), "BadResponse"],
      ["a 400 without words", response(400, { message: "  " }), "BadResponse"],
      ["a 200 page of HTML", response(200, "<html>WinDev</html>", { "content-type": "text/html" }), "BadResponse"]
    ]
    for (const [name, wire, tag, words] of pairs) {
      it(`reads ${name} as ${tag}`, () => {
        const reason = Mapping.errorOf(wire)
        assert.strictEqual(reason._tag, tag)
        if (words !== undefined) assert.include(reason.message, words)
      })
    }

    it("reads Retry-After, and 60 s without it", () => {
      const limited = (headers: Record<string, string>) => {
        const reason = Mapping.errorOf(response(429, { message: "Trop de demandes" }, headers))
        return reason._tag === "CourierRateLimited" ? reason.retryAfterSeconds : undefined
      }
      assert.strictEqual(limited({ "retry-after": "17" }), 17)
      assert.strictEqual(limited({}), 60)
    })

    it("keeps the courier's words as the refusal's code", () => {
      const reason = Mapping.errorOf(
        response(400, { message: "CodeStopdesk obligatoire pour une livraison au bureau" })
      )
      assert.strictEqual(
        reason._tag === "Refused" ? reason.courierCode : undefined,
        "CodeStopdesk obligatoire pour une livraison au bureau"
      )
    })
  })

  describe("notShipped", () => {
    it("names the parcel made, says not to create it again, and is never retryable", () => {
      const reason = Mapping.notShipped("TC317LHJ", Mapping.errorOf(response(503, { message: "indisponible" })))
      assert.strictEqual(reason._tag, "Refused")
      assert.strictEqual(reason.created, "TC317LHJ")
      assert.include(reason.message, "TC317LHJ")
      assert.include(reason.message, "do not create it again")
    })
  })
})
