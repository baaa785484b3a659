/**
 * The pure mapping of the optional operations (issue 21): batch tracking, cancel, stop desks, communes and the
 * credential check, over answers shaped as the docs show them (the list envelope, the delete decisions, the
 * centers and communes rows).
 */
import { assert, describe, it } from "@effect/vitest"
import type { CourierError } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result } from "effect"
import * as Mapping from "../src/YalidineMapping.ts"
import { response } from "./fixtures/responses.ts"

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

const success = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  if (Result.isFailure(result)) assert.fail(`expected a success, got ${result.failure._tag}: ${result.failure.message}`)
  return (result as Result.Success<A, CourierError.CourierErrorReason>).success
}

const envelope = (data: ReadonlyArray<unknown>, hasMore = false) => ({
  has_more: hasMore,
  total_data: data.length,
  data,
  links: { self: "https://api.yalidine.app/v1/histories/" }
})

const history = (date_status: string, tracking: string, status: string) => ({
  date_status,
  tracking,
  status,
  reason: "",
  center_id: 163001,
  center_name: "Centre de Bordj El Kiffan",
  wilaya_id: 16,
  wilaya_name: "Alger",
  commune_id: 1630,
  commune_name: "Bordj El Kiffan"
})

const parcel = (tracking: string, last_status: string, date_last_status = "2026-04-18 19:45:06") => ({
  tracking,
  order_id: "CMD-7",
  last_status,
  date_last_status
})

const alger = WilayaCode.WilayaCode.make(16)

describe("YalidineMapping, optional operations", () => {
  describe("checkBatch", () => {
    it("keeps each tracking number once, in order", () => {
      assert.deepStrictEqual(success(Mapping.checkBatch(["yal-A1", "yal-B2", "yal-A1"])), ["yal-A1", "yal-B2"])
    })

    it("refuses a number that could carry a comma into the list, and more than 100", () => {
      assert.strictEqual(failure(Mapping.checkBatch(["yal-A1", "yal-B2,yal-C3"]))._tag, "Refused")
      const many = Array.from({ length: 101 }, (_, i) => `yal-${i}`)
      assert.include(failure(Mapping.checkBatch(many)).message, "at most 100")
      assert.strictEqual(success(Mapping.checkBatch(many.slice(0, 100))).length, 100)
    })

    it("asks for the largest page and the page number", () => {
      assert.deepStrictEqual<Record<string, string>>(
        Mapping.pageQuery(Mapping.trackingFilter(["yal-A1", "yal-B2"]), 2),
        {
          tracking: "yal-A1,yal-B2",
          page_size: "1000",
          page: "2"
        }
      )
    })
  })

  describe("eventsByTracking and currentByTracking", () => {
    it("groups history rows by exact tracking number, leaving out other parcels' rows, none of its own", () => {
      const page = success(
        Mapping.fromHistoryPage(
          response(
            200,
            envelope([
              history("2026-04-19 10:00:00", "yal-A1", "Expédié"),
              history("2026-04-19 09:00:00", "yal-A12", "Livré"),
              history("2026-04-18 20:00:00", "yal-A1", "Alerte résolue"),
              history("2026-04-18 19:00:00", "yal-B2", "Centre")
            ])
          )
        )
      )
      assert.isFalse(page.hasMore)
      const events = Mapping.eventsByTracking(["yal-A1", "yal-B2", "yal-C3"], page.rows)
      assert.deepStrictEqual(
        [...events],
        [
          [
            "yal-A1",
            [
              { rawStatus: "Expédié", timestamp: "2026-04-19T10:00:00+01:00" },
              { rawStatus: "Alerte résolue", timestamp: "2026-04-18T20:00:00+01:00" }
            ]
          ],
          ["yal-B2", [{ rawStatus: "Centre", timestamp: "2026-04-18T19:00:00+01:00" }]]
        ]
      )
    })

    it("reads has_more", () => {
      assert.isTrue(success(Mapping.fromHistoryPage(response(200, envelope([], true)))).hasMore)
    })

    it("gives a parcel with no history its current status, and leaves an unknown number out", () => {
      const page = success(
        Mapping.fromParcelPage(
          response(200, envelope([parcel("yal-C3", "En préparation"), parcel("yal-C34", "Livré")]))
        )
      )
      assert.deepStrictEqual(
        [...Mapping.currentByTracking(["yal-C3", "yal-D4"], page.rows)],
        [["yal-C3", [{ rawStatus: "En préparation", timestamp: "2026-04-18T19:45:06+01:00" }]]]
      )
    })
  })

  describe("fromDeleted", () => {
    it("reads the decision for exactly this parcel, as an array or an object of decisions, booleans or 0/1", () => {
      const decisions = [
        { tracking: "yal-A12", deleted: true },
        { tracking: "yal-A1", deleted: false }
      ]
      assert.isFalse(success(Mapping.fromDeleted("yal-A1", response(200, decisions))))
      assert.isTrue(success(Mapping.fromDeleted("yal-A12", response(200, decisions))))
      assert.isTrue(success(Mapping.fromDeleted("yal-A1", response(200, { 0: { tracking: "yal-A1", deleted: 1 } }))))
    })

    it("is a bad response when the answer does not name the parcel, and reads errors as every answer", () => {
      assert.strictEqual(
        failure(Mapping.fromDeleted("yal-A1", response(200, [{ tracking: "yal-B2", deleted: true }])))._tag,
        "BadResponse"
      )
      assert.strictEqual(
        failure(Mapping.fromDeleted("yal-A1", response(401, { message: "no" })))._tag,
        "CredentialsRejected"
      )
      assert.strictEqual(failure(Mapping.fromDeleted("yal-A1", response(503, "down")))._tag, "Unreachable")
    })
  })

  describe("whyNotDeleted", () => {
    it("a parcel past preparation cannot be cancelled, and the reason names its status", () => {
      const reason = Mapping.whyNotDeleted("yal-A1", response(200, envelope([parcel("yal-A1", "Ramassé")])))
      assert.strictEqual(reason._tag, "NotCancellable")
      assert.include(reason.message, "Ramassé")
      assert.include(reason.message, "En préparation")
    })

    it("no parcel of exactly this number is a refusal on the tracking number", () => {
      const reason = Mapping.whyNotDeleted("yal-A1", response(200, envelope([parcel("yal-A12", "Ramassé")])))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "trackingNumber")
    })

    it("a parcel still in preparation that was not deleted is a refusal without a known reason", () => {
      const reason = Mapping.whyNotDeleted("yal-A1", response(200, envelope([parcel("yal-A1", "En préparation")])))
      assert.strictEqual(reason._tag, "Refused")
    })
  })

  describe("toStopDesks", () => {
    it("maps each center of exactly this wilaya: center id, name, commune and address", () => {
      const page = success(
        Mapping.fromCenterPage(
          response(
            200,
            envelope([
              {
                center_id: 163001,
                name: "Centre de Bordj El Kiffan",
                address: "Cité 1200 logements",
                gps: "36.74,3.19",
                commune_id: 1630,
                commune_name: "Bordj El Kiffan",
                wilaya_id: 16,
                wilaya_name: "Alger"
              },
              { center_id: "161101", name: "Centre de Bab Ezzouar", address: null, commune_name: "", wilaya_id: "16" },
              { center_id: 90101, name: "Centre de Blida", wilaya_id: 9 }
            ])
          )
        )
      )
      assert.deepStrictEqual(Mapping.toStopDesks(alger, page.rows), [
        {
          id: "163001",
          name: "Centre de Bordj El Kiffan",
          wilayaCode: alger,
          communeName: "Bordj El Kiffan",
          address: "Cité 1200 logements"
        },
        { id: "161101", name: "Centre de Bab Ezzouar", wilayaCode: alger }
      ])
    })

    it("a center without an id is an undocumented answer", () => {
      assert.strictEqual(
        failure(Mapping.fromCenterPage(response(200, envelope([{ name: "Centre", wilaya_id: 16 }]))))._tag,
        "BadResponse"
      )
    })
  })

  describe("toCommunes", () => {
    it("spells each commune as Yalidine does: is_deliverable is home, has_stop_desk is a desk", () => {
      const page = success(
        Mapping.fromCommunePage(
          response(
            200,
            envelope([
              {
                id: 1630,
                name: "Bordj El Kiffan",
                wilaya_id: 16,
                wilaya_name: "Alger",
                has_stop_desk: 1,
                is_deliverable: 1,
                delivery_time_parcel: 1,
                delivery_time_payment: 7
              },
              { id: 1620, name: "Hydra", wilaya_id: 16, has_stop_desk: 0, is_deliverable: true },
              { id: 1699, name: "Nowhere", wilaya_id: 16, has_stop_desk: false, is_deliverable: 0 },
              { id: 901, name: "Blida", wilaya_id: 9, has_stop_desk: 1, is_deliverable: 1 }
            ])
          )
        )
      )
      assert.deepStrictEqual(Mapping.toCommunes(alger, page.rows), [
        { name: "Bordj El Kiffan", id: "1630", home: true, stopdesk: true },
        { name: "Hydra", id: "1620", home: true, stopdesk: false },
        { name: "Nowhere", id: "1699", home: false, stopdesk: false }
      ])
    })

    it("a flag that is neither 0/1 nor a boolean is an undocumented answer", () => {
      const row = { id: 1630, name: "Bordj El Kiffan", wilaya_id: 16, has_stop_desk: "yes", is_deliverable: 1 }
      assert.strictEqual(failure(Mapping.fromCommunePage(response(200, envelope([row]))))._tag, "BadResponse")
    })
  })

  describe("fromCredentialCheck", () => {
    it("the wilaya list means the credentials work; 401 and 403 mean they do not", () => {
      const wilayas = envelope([{ id: 1, name: "Adrar", zone: 4, is_deliverable: 1 }])
      assert.isTrue(Result.isSuccess(Mapping.fromCredentialCheck(response(200, wilayas))))
      for (const status of [401, 403]) {
        assert.strictEqual(
          failure(Mapping.fromCredentialCheck(response(status, { error: { message: "Unauthorized" } })))._tag,
          "CredentialsRejected"
        )
      }
      assert.strictEqual(failure(Mapping.fromCredentialCheck(response(200, "<html>")))._tag, "BadResponse")
    })
  })
})
