import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, assert, describe, it, layer } from "@effect/vitest"
import { WilayaCode } from "@tawsil/domain"
import { Communes, Wilayas } from "@tawsil/reference"
import { Effect, type Layer, Option, Result } from "effect"

const code = WilayaCode.WilayaCode.make
const names = (communes: ReadonlyArray<Communes.Commune>) =>
  communes.map((commune) => `${commune.name} (${commune.wilayaCode})`)

const decode = (entries: ReadonlyArray<unknown>): ReadonlyArray<Communes.Commune> => {
  const result = Communes.parse(entries)
  assert.isTrue(Result.isSuccess(result))
  return Result.getOrThrow(result)
}

/** The error a layer fails with when it is built, or the error its first `list` call fails with. */
const unavailable = (communes: Layer.Layer<Communes.Communes, Communes.CommunesUnavailable>) =>
  Effect.gen(function* () {
    const service = yield* Communes.Communes
    return yield* service.list(code(16))
  }).pipe(Effect.provide(communes), Effect.flip)

const temporaryDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-communes-"))
afterAll(() => Fs.rmSync(temporaryDir, { recursive: true, force: true }))

const temporaryFile = (name: string, content: string) => {
  const file = Path.join(temporaryDir, name)
  Fs.writeFileSync(file, content)
  return file
}

describe("Communes", () => {
  describe("parse", () => {
    it("decodes the bundled dataset, a file in the format it accepts from an operator", () => {
      const result = Communes.parse(JSON.parse(Fs.readFileSync(Communes.bundledFile, "utf8")))
      assert.isTrue(Result.isSuccess(result))
      assert.strictEqual(Result.getOrThrow(result).length, 1541)
    })

    it("reports every bad entry with its index", () => {
      const result = Communes.parse([
        { wilayaCode: 16, name: "El Marsa", nameAr: "المرسى" },
        { wilayaCode: 59, name: "Aflou", nameAr: "آفلو" },
        { wilayaCode: 16, name: "", nameAr: "المرسى" },
        "El Marsa",
        { wilayaCode: "16", name: "El Marsa" }
      ])
      assert.isTrue(Result.isFailure(result))
      const issues = Result.isFailure(result) ? result.failure : []
      assert.deepStrictEqual(
        issues.map((issue) => issue.index),
        [1, 2, 3, 4]
      )
      assert.match(issues[0]!.reason, /^wilayaCode: Expected a wilaya code, an integer from 1 to 58/)
      assert.match(issues[1]!.reason, /^name: /)
      assert.match(issues[3]!.reason, /wilayaCode: .*; nameAr: Missing key/)
    })

    it("reports a document that is not a non-empty array as a whole", () => {
      for (const json of [{}, "communes", null, []]) {
        const result = Communes.parse(json)
        assert.isTrue(Result.isFailure(result))
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure.length, 1)
          assert.isUndefined(result.failure[0]!.index)
        }
      }
    })

    it("formats the first issues on one line", () => {
      const issues = Array.from({ length: 8 }, (_, index) => ({ index, reason: "bad" }))
      assert.strictEqual(Communes.formatIssues(issues, 2), "entry 0: bad; entry 1: bad; and 6 more")
    })
  })

  layer(Communes.layerBundled)("the bundled CC0 dataset", (it) => {
    it.effect("has as many communes in each wilaya as the wilaya table says, 1 541 in all", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        const counts = yield* Effect.forEach(Wilayas.all, (wilaya) =>
          Effect.map(communes.list(code(wilaya.code)), (list) => ({ code: wilaya.code, communeCount: list.length }))
        )
        assert.deepStrictEqual(
          counts,
          Wilayas.all.map(({ code, communeCount }) => ({ code, communeCount }))
        )
        assert.strictEqual((yield* communes.search({})).length, 1541)
      })
    )

    it.effect("finds every commune within its wilaya by its French or Arabic name, however written", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        for (const row of yield* communes.search({})) {
          const wilaya = code(row.wilayaCode)
          for (const spelling of [row.name, row.nameAr, row.name.toUpperCase().replaceAll(" ", "-")]) {
            const found = yield* communes.find(wilaya, spelling)
            assert.isTrue(Option.isSome(found), `${spelling} in ${row.wilayaCode}`)
            if (Option.isSome(found)) assert.strictEqual(found.value.name, row.name)
          }
        }
      })
    )

    it.effect("tells apart communes of one name in different wilayas", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.deepStrictEqual(names(yield* communes.search({ q: "El Marsa" })), [
          "El Marsa (2)",
          "El Marsa (16)",
          "El Marsa (21)"
        ])
        assert.deepStrictEqual(names(yield* communes.search({ wilaya: code(16), q: "el-marsa" })), ["El Marsa (16)"])
        for (const wilaya of [2, 16, 21]) {
          const found = yield* communes.find(code(wilaya), "el marsa")
          assert.strictEqual(Option.getOrThrow(found).wilayaCode, wilaya)
        }
        assert.isTrue(Option.isNone(yield* communes.find(code(31), "El Marsa")))
      })
    )

    it.effect("says 36 names belong to more than one wilaya", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        const wilayasByName = new Map<string, Set<number>>()
        for (const commune of yield* communes.search({})) {
          wilayasByName.set(commune.name, (wilayasByName.get(commune.name) ?? new Set()).add(commune.wilayaCode))
        }
        assert.strictEqual([...wilayasByName.values()].filter((wilayas) => wilayas.size > 1).length, 36)
      })
    )

    it.effect("searches within a wilaya", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.deepStrictEqual(names(yield* communes.search({ wilaya: code(16), q: "bab" })), [
          "Bab El Oued (16)",
          "Bab Ezzouar (16)",
          "Baba Hassen (16)"
        ])
        const everywhere = yield* communes.search({ q: "bab" })
        assert.isAbove(everywhere.length, 3)
        assert.deepStrictEqual(yield* communes.search({ wilaya: code(16) }), yield* communes.list(code(16)))
      })
    )

    it.effect("finds only exact names", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.isTrue(Option.isNone(yield* communes.find(code(16), "Bab")))
        assert.isTrue(Option.isSome(yield* communes.find(code(16), "babelOUED")))
      })
    )
  })

  const small = [
    { wilayaCode: 1, name: "Bir Tala", nameAr: "بئر تالة" },
    { wilayaCode: 1, name: "Tala Ifacene", nameAr: "تالة إيفاسن" },
    { wilayaCode: 1, name: "Tala", nameAr: "تالة" },
    { wilayaCode: 2, name: "Tala", nameAr: "تالة" }
  ]

  layer(Communes.layerFromEntries(decode(small)))("search ranking", (it) => {
    it.effect("puts exact names first, then prefixes, then the rest, each in dataset order", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.deepStrictEqual(names(yield* communes.search({ q: "tala" })), [
          "Tala (1)",
          "Tala (2)",
          "Tala Ifacene (1)",
          "Bir Tala (1)"
        ])
        assert.deepStrictEqual(names(yield* communes.search({ wilaya: code(1), q: "تاله" })), [
          "Tala (1)",
          "Tala Ifacene (1)",
          "Bir Tala (1)"
        ])
        assert.deepStrictEqual(names(yield* communes.search({ q: " " })), names(decode(small)))
        assert.deepStrictEqual(yield* communes.list(code(3)), [])
      })
    )
  })

  describe("loading", () => {
    it.effect("fails with CommunesUnavailable, saying what to do, when the file is missing", () =>
      Effect.gen(function* () {
        const missing = Path.join(temporaryDir, "no-such-dir", "communes.json")
        const error = yield* unavailable(Communes.layerFile(missing))
        assert.strictEqual(error._tag, "CommunesUnavailable")
        assert.strictEqual(error.reason, `No communes dataset at ${missing}`)
        assert.include(error.message, "Unset COMMUNES_FILE to use the dataset bundled")
      })
    )

    it.effect("fails with CommunesUnavailable when the file is not JSON or not a dataset", () =>
      Effect.gen(function* () {
        const notJson = temporaryFile("notJson.json", "<html>")
        assert.strictEqual(
          (yield* unavailable(Communes.layerFile(notJson))).reason,
          `The communes dataset ${notJson} is not JSON`
        )
        const invalid = temporaryFile(
          "invalid.json",
          JSON.stringify([...small, { wilayaCode: 0, name: "X", nameAr: "س" }])
        )
        assert.match(
          (yield* unavailable(Communes.layerFile(invalid))).reason,
          /is invalid: entry 4: wilayaCode: Expected a wilaya code/
        )
      })
    )

    it.effect("serves the bundled dataset when no file is named", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.strictEqual((yield* communes.list(code(16))).length, 57)
        assert.strictEqual((yield* communes.search({})).length, 1541)
      }).pipe(Effect.provide(Communes.layerFileOptional(undefined)))
    )

    it.effect("serves the file an operator names instead of the bundled dataset", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.deepStrictEqual(names(yield* communes.search({})), names(decode(small)))
        assert.deepStrictEqual(yield* communes.list(code(16)), [])
      }).pipe(Effect.provide(Communes.layerFileOptional(temporaryFile("mine.json", JSON.stringify(small)))))
    )

    it.effect("loads the bundled file when it is named, as it would any file of its format", () =>
      Effect.gen(function* () {
        const communes = yield* Communes.Communes
        assert.strictEqual((yield* communes.list(code(16))).length, 57)
      }).pipe(Effect.provide(Communes.layerFileOptional(Communes.bundledFile)))
    )

    it.effect("starts when the named file cannot be loaded, and fails each call instead of serving other data", () =>
      Effect.gen(function* () {
        const file = Path.join(temporaryDir, "none.json")
        const missing = yield* unavailable(Communes.layerFileOptional(file))
        assert.strictEqual(missing.reason, `No communes dataset at ${file}`)
        assert.include(missing.message, "COMMUNES_FILE")
        const invalid = yield* unavailable(Communes.layerFileOptional(temporaryFile("bad.json", "[]")))
        assert.match(invalid.reason, /is invalid: The dataset has no entries$/)
      })
    )
  })
})
