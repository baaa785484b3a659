/**
 * The shipping API's reference endpoints in memory (`src/shipping/reference`): the couriers of the catalogue, the
 * wilayas in the public dzship client's shape (58, or 69 with the 2026 division; one by code, `?16` included;
 * search), the communes of the bundled dataset, a communes file that cannot be read, and the health probe. The same
 * through the app's process and the dzship client: `../Shipping.test.ts`.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, describe, layer } from "@effect/vitest"
import { Communes } from "@tawsil/reference"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, get } = InMemory

type Wilaya = {
  code: number
  nameFr: string
  nameAr: string
  isDeepSouth: boolean
  communeCount: number
  courierSupported: boolean
  shipAs?: number
}

layer(InMemory.layer(), { excludeTestServices: true })("reference (memory)", (it) => {
  it.effect("lists the couriers with their capabilities, and finds them by name or platform", () =>
    Effect.gen(function* () {
      const all = yield* get("/v1/couriers")
      assert.strictEqual(all.status, 200)
      const sandbox = all.body.find((courier: { key: string }) => courier.key === "sandbox")
      assert.deepStrictEqual(sandbox.requiredCredentials, [])
      assert.deepStrictEqual(sandbox.capabilities, {
        create: true,
        track: true,
        rates: true,
        label: true,
        cancel: true,
        dispatch: false,
        trackBatch: true,
        createBatch: true,
        stopDesks: true,
        communes: true,
        checkCredentials: true,
        push: false
      })
      assert.isFalse(sandbox.requiresBaseUrl)
      const found = yield* get("/v1/couriers?q=sand")
      assert.deepStrictEqual(
        found.body.map((courier: { key: string }) => courier.key),
        ["sandbox"]
      )
      assert.deepStrictEqual((yield* get("/v1/couriers?platform=nowhere")).body, [])
    })
  )

  it.effect("serves the 58 wilayas in dzship's shape, the 69 with ?all=1, one by code or ?16, and a search", () =>
    Effect.gen(function* () {
      const all = (yield* get("/v1/wilayas")).body as ReadonlyArray<Wilaya>
      assert.deepStrictEqual(
        all.map((wilaya) => wilaya.code),
        Array.from({ length: 58 }, (_, i) => i + 1)
      )
      for (const wilaya of all) {
        assert.hasAllKeys(wilaya, ["code", "nameFr", "nameAr", "isDeepSouth", "communeCount", "courierSupported"])
        assert.isTrue(wilaya.courierSupported)
      }
      assert.deepStrictEqual(
        all.filter((wilaya) => wilaya.isDeepSouth).map((wilaya) => wilaya.code),
        [11, 33, 37, 49, 50, 52, 53, 54, 56]
      )
      assert.strictEqual(
        all.reduce((sum, wilaya) => sum + wilaya.communeCount, 0),
        1541
      )
      const algiers = {
        code: 16,
        nameFr: "Alger",
        nameAr: "الجزائر",
        isDeepSouth: false,
        communeCount: 57,
        courierSupported: true
      }
      assert.deepStrictEqual((yield* get("/v1/wilayas?16")).body, algiers, "the dzship shorthand")
      assert.deepStrictEqual((yield* get("/v1/wilayas?016")).body, algiers, "leading zeros")
      assert.deepStrictEqual((yield* get("/v1/wilayas?code=16")).body, algiers)
      for (const all of ["1", "true"]) {
        const division = (yield* get(`/v1/wilayas?all=${all}`)).body as ReadonlyArray<Wilaya>
        assert.lengthOf(division, 69)
        assert.deepStrictEqual(
          division.filter((wilaya) => wilaya.code > 58).map((wilaya) => [wilaya.courierSupported, wilaya.shipAs]),
          [3, 32, 13, 7, 5, 28, 12, 26, 14, 17, 17].map((shipAs) => [false, shipAs])
        )
      }
      assert.lengthOf((yield* get("/v1/wilayas?all=0")).body, 58)
      assert.deepInclude((yield* get("/v1/wilayas?59")).body, {
        code: 59,
        nameFr: "Aflou",
        courierSupported: false,
        shipAs: 3
      })
      const byName = (query: string) =>
        Effect.map(get(`/v1/wilayas?q=${encodeURIComponent(query)}`), (answer) => answer.body[0].code)
      assert.strictEqual(yield* byName("ORAN"), 31)
      assert.strictEqual(yield* byName("وهران"), 31)
      assert.strictEqual(yield* byName("bordj bou arreridj"), 34)
    })
  )

  it.effect("answers 404 for a code no wilaya has, saying which codes exist", () =>
    Effect.gen(function* () {
      for (const path of ["/v1/wilayas?code=70", "/v1/wilayas?70", "/v1/wilayas?code=0"]) {
        const missing = yield* get(path)
        assert.deepStrictEqual(codeOf(missing), [404, "not_found"], path)
        assert.include(missing.body.error.message, "codes run from 1 to 58, and 59 to 69 for the 2026 division")
      }
      assert.deepStrictEqual(codeOf(yield* get("/v1/wilayas?code=abc")), [400, "invalid_input"])
    })
  )

  it.effect("serves the communes of a wilaya (?16 or ?wilaya=16), matching names loosely, or everywhere", () =>
    Effect.gen(function* () {
      for (const path of ["/v1/communes?16", "/v1/communes?wilaya=16"]) {
        const algiers = yield* get(path)
        assert.lengthOf(algiers.body, 57, path)
        assert.isTrue(algiers.body.every((commune: { wilayaCode: number }) => commune.wilayaCode === 16))
        assert.hasAllKeys(algiers.body[0], ["wilayaCode", "nameFr", "nameAr"])
      }
      const found = yield* get("/v1/communes?wilaya=16&q=bab-ezzouar")
      assert.deepStrictEqual(
        found.body.map((commune: { nameFr: string }) => commune.nameFr),
        ["Bab Ezzouar"]
      )
      const everywhere = yield* get("/v1/communes?q=el%20marsa")
      assert.includeMembers(
        everywhere.body.map((commune: { wilayaCode: number }) => commune.wilayaCode),
        [2, 16, 21]
      )
    })
  )

  it.effect("refuses a wilaya outside 1 to 58 for the communes with 400 naming query.wilaya", () =>
    Effect.gen(function* () {
      for (const path of ["/v1/communes?wilaya=70", "/v1/communes?70", "/v1/communes?wilaya=59"]) {
        const bad = yield* get(path)
        assert.deepStrictEqual(codeOf(bad), [400, "invalid_input"], path)
        assert.deepStrictEqual(bad.body.error, {
          code: "invalid_input",
          message: "Request validation failed",
          fields: { "query.wilaya": "Expected a wilaya code, an integer from 1 to 58" }
        })
      }
    })
  )

  it.effect("answers the health probe", () =>
    Effect.gen(function* () {
      const health = yield* get("/health")
      assert.strictEqual(health.status, 200, health.text)
      assert.strictEqual(health.body.status, "ok")
    })
  )
})

describe("reference with a communes file that cannot be read (memory)", () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-communes-"))
  const file = Path.join(dir, "communes.json")
  Fs.writeFileSync(file, "not json")

  layer(InMemory.layer({ communes: Communes.layerFileOptional(file) }), { excludeTestServices: true })(
    "COMMUNES_FILE",
    (it) => {
      it.effect("answers /v1/communes with 503 communes_unavailable saying what is wrong; wilayas still work", () =>
        Effect.gen(function* () {
          const error = yield* get("/v1/communes?16")
          assert.deepStrictEqual(codeOf(error), [503, "communes_unavailable"])
          assert.include(error.body.error.message, "COMMUNES_FILE")
          assert.isNull(error.headers.get("retry-after"), "the file will not mend itself: no Retry-After")
          assert.lengthOf((yield* get("/v1/wilayas")).body, 58)
          Fs.rmSync(dir, { recursive: true, force: true })
        })
      )
    }
  )
})
