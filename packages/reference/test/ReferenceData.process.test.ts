import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { NameFolding, ReferenceData } from "@tawsil/reference"
import { Effect, Result } from "effect"

const dataDir = Path.resolve(import.meta.dirname, "../src/data")
const script = Path.resolve(import.meta.dirname, "../src/scripts/writeReferenceData.ts")
const bundled = {
  wilayas: Fs.readFileSync(Path.join(dataDir, "wilayas.json"), "utf8"),
  communes: Fs.readFileSync(Path.join(dataDir, "communes.json"), "utf8")
}

interface SourceWilaya {
  code: number
  name: string
  nameAr: string
  nameAscii?: string
  communeCount: number
}
interface SourceCommune {
  wilayaCode: number
  name: string
  nameAr: string
}

/**
 * The dzship dataset our files were made from, rebuilt from them: the same entries, with dzship's `nameAscii` put
 * back (the accent-free name) and its key order.
 */
const dataset = () => ({
  wilayas: (JSON.parse(bundled.wilayas) as Array<SourceWilaya>).map(({ code, name, nameAr, communeCount }) => ({
    code,
    name,
    nameAr,
    nameAscii: name.normalize("NFKD").replace(/\p{M}/gu, ""),
    communeCount
  })),
  communes: JSON.parse(bundled.communes) as Array<SourceCommune>
})

const problems = (source: { wilayas: unknown; communes: unknown }) => {
  const files = ReferenceData.generate(source)
  return Result.isFailure(files) ? files.failure : []
}

const temporaryDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-reference-"))
afterAll(() => Fs.rmSync(temporaryDir, { recursive: true, force: true }))

/** Runs `npm run data:reference`'s script with the project's Node, as npm would. */
const runScript = (args: ReadonlyArray<string>, cwd: string) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(
      process.execPath,
      ["--conditions=@tawsil/source", script, ...args],
      { cwd, env: { ...process.env, INIT_CWD: cwd } },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
    )
  })

describe("ReferenceData", () => {
  it("keeps the bundled files in the generator's form: regenerating them changes no byte", () => {
    const files = ReferenceData.generate(dataset())
    assert.isTrue(Result.isSuccess(files), problems(dataset()).join("\n"))
    assert.strictEqual(Result.getOrThrow(files).wilayas, bundled.wilayas)
    assert.strictEqual(Result.getOrThrow(files).communes, bundled.communes)
  })

  it("holds 58 wilayas and 1 541 communes, one a line", () => {
    assert.strictEqual(bundled.wilayas.split("\n").filter((line) => line.startsWith("  {")).length, 58)
    assert.strictEqual(bundled.communes.split("\n").filter((line) => line.startsWith("  {")).length, 1541)
    assert.match(bundled.wilayas, /^\[\n {2}\{ "code": 1, "name": "Adrar", "nameAr": "أدرار", "communeCount": 16 \},\n/)
    assert.match(bundled.communes, /\n {2}\{ "wilayaCode": 16, "name": "Bab Ezzouar", "nameAr": "باب الزوار" \},\n/)
  })

  it("orders wilayas by code and communes by wilaya, keeping the dataset's order within a wilaya", () => {
    const source = dataset()
    const shuffled = {
      wilayas: [...source.wilayas].reverse(),
      communes: [
        ...source.communes.filter((c) => c.wilayaCode === 16),
        ...source.communes.filter((c) => c.wilayaCode !== 16)
      ]
    }
    assert.deepStrictEqual(Result.getOrThrow(ReferenceData.generate(shuffled)), bundled)
    const swapped = [...source.communes]
    const first = swapped.findIndex((c) => c.wilayaCode === 16)
    ;[swapped[first], swapped[first + 1]] = [swapped[first + 1]!, swapped[first]!]
    const files = Result.getOrThrow(ReferenceData.generate({ ...source, communes: swapped }))
    assert.notStrictEqual(files.communes, bundled.communes)
    assert.strictEqual(files.communes.length, bundled.communes.length)
  })

  it("refuses a dataset whose files disagree, listing every problem", () => {
    const source = dataset()
    const wilayas = source.wilayas.map((wilaya) =>
      wilaya.code === 16
        ? { ...wilaya, communeCount: 56 }
        : wilaya.code === 6
          ? { ...wilaya, nameAscii: "Bgayet" }
          : wilaya.code === 40
            ? { ...wilaya, code: 39 }
            : wilaya
    )
    assert.deepStrictEqual(problems({ wilayas, communes: source.communes }), [
      "wilayas.json: code 39 appears more than once",
      'wilaya 6: the ASCII name "Bgayet" does not fold to "Béjaïa"; add it to the other spellings in src/Wilayas.ts',
      "wilaya 16: communeCount is 56, but communes.json lists 57",
      // Khenchela's count, now under El Oued's code.
      "wilaya 39: communeCount is 21, but communes.json lists 22",
      "wilayas.json: no wilaya has code 40"
    ])
  })

  it("refuses two communes of one wilaya that name folding cannot tell apart", () => {
    const source = dataset()
    const communes = source.communes.map((commune) =>
      commune.name === "Bab Ezzouar" ? { ...commune, name: "Bab-El-Oued" } : commune
    )
    assert.strictEqual(NameFolding.fold("Bab-El-Oued"), NameFolding.fold("Bab El Oued"))
    assert.deepStrictEqual(problems({ wilayas: source.wilayas, communes }), [
      'wilaya 16: "Bab El Oued" and "Bab-El-Oued" fold to one key'
    ])
  })

  it("refuses entries that do not decode, in either file, by index", () => {
    const source = dataset()
    const found = problems({
      wilayas: [...source.wilayas.slice(0, 57), { ...source.wilayas[57]!, code: 59 }],
      communes: [{ wilayaCode: 16, name: "" }, ...source.communes.slice(1)]
    })
    assert.lengthOf(found, 2)
    assert.match(found[0]!, /^wilayas\.json: entry 57: code: Expected a wilaya code, an integer from 1 to 58/)
    assert.match(found[1]!, /^communes\.json: entry 0: name: .*; nameAr: Missing key/)
    assert.deepStrictEqual(problems({ wilayas: {}, communes: [] }), [
      "wilayas.json: Expected a JSON array of { code, name, nameAr, nameAscii, communeCount } entries",
      "communes.json: The dataset has no entries"
    ])
  })

  it("decodes a wilaya file of ours, every bad entry by index", () => {
    assert.lengthOf(Result.getOrThrow(ReferenceData.parseWilayas(JSON.parse(bundled.wilayas))), 58)
    const result = ReferenceData.parseWilayas([{ code: 1, name: "Adrar", nameAr: "أدرار", communeCount: 0 }, {}])
    assert.deepStrictEqual(Result.isFailure(result) ? result.failure.map((issue) => issue.index) : [], [0, 1])
  })

  describe("npm run data:reference", () => {
    it.effect("writes both files from a dataset folder given relative to where it was typed", () =>
      Effect.gen(function* () {
        const source = Path.join(temporaryDir, "dzship", "data")
        Fs.mkdirSync(source, { recursive: true })
        Fs.writeFileSync(Path.join(source, "wilayas.json"), JSON.stringify(dataset().wilayas, null, 4))
        Fs.writeFileSync(Path.join(source, "communes.json"), JSON.stringify(dataset().communes, null, 4))
        const run = yield* runScript(["dzship/data", "out"], temporaryDir)
        assert.strictEqual(run.code, 0, run.stderr)
        assert.strictEqual(Fs.readFileSync(Path.join(temporaryDir, "out", "wilayas.json"), "utf8"), bundled.wilayas)
        assert.strictEqual(Fs.readFileSync(Path.join(temporaryDir, "out", "communes.json"), "utf8"), bundled.communes)
        assert.deepStrictEqual(Fs.readdirSync(Path.join(temporaryDir, "out")).sort(), ["communes.json", "wilayas.json"])
      })
    )

    it.effect("stops, writing nothing, when the folder is not a usable dataset", () =>
      Effect.gen(function* () {
        const empty = Path.join(temporaryDir, "empty")
        Fs.mkdirSync(empty)
        const missing = yield* runScript([empty, Path.join(temporaryDir, "never")], temporaryDir)
        assert.strictEqual(missing.code, 1)
        assert.include(missing.stderr, `No wilayas.json in ${empty}`)
        const broken = Path.join(temporaryDir, "broken")
        Fs.mkdirSync(broken)
        Fs.writeFileSync(Path.join(broken, "wilayas.json"), JSON.stringify(dataset().wilayas.slice(1)))
        Fs.writeFileSync(Path.join(broken, "communes.json"), JSON.stringify(dataset().communes))
        const refused = yield* runScript([broken, Path.join(temporaryDir, "never")], temporaryDir)
        assert.strictEqual(refused.code, 1)
        assert.include(refused.stderr, "- wilayas.json: no wilaya has code 1")
        assert.isFalse(Fs.existsSync(Path.join(temporaryDir, "never")))
        const usage = yield* runScript([], temporaryDir)
        assert.strictEqual(usage.code, 1)
        assert.include(usage.stderr, "usage: npm run data:reference -- <dzship data folder>")
      })
    )
  })
})
