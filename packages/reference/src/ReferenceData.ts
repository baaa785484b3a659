/**
 * The data files this package ships, `src/data/wilayas.json` and `src/data/communes.json`, made from the public CC0
 * dataset of DZBuild-com/dzship (its `data/wilayas.json` and `data/communes.json`) by `npm run data:reference`.
 *
 * Pure: `generate` decodes the dataset, checks that its two files agree with each other and with what the lookups
 * rely on, and renders our files in one stable form — one entry per line, keys in a fixed order, wilayas by code,
 * communes by wilaya in the dataset's order — so that regenerating from the same dataset changes no byte, and a
 * change upstream reviews as one line per wilaya or commune.
 */
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import { type Commune, parse as parseCommunes } from "./Communes.ts"
import { decodeEach, formatIssues, type Issue } from "./internal/entries.ts"
import { fold } from "./NameFolding.ts"

/** A wilaya as `src/data/wilayas.json` holds it: the dataset's facts, nothing authored. */
export const WilayaEntry = Schema.Struct({
  code: WilayaCode.WilayaCode,
  /** The French (Latin-script) name. */
  name: Schema.NonEmptyString,
  nameAr: Schema.NonEmptyString,
  communeCount: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
})
export type WilayaEntry = typeof WilayaEntry.Type

/** Decodes a wilaya file in our format, every bad entry reported by index. */
export const parseWilayas: (json: unknown) => Result.Result<ReadonlyArray<WilayaEntry>, ReadonlyArray<Issue>> =
  decodeEach(WilayaEntry, "{ code, name, nameAr, communeCount }")

/**
 * dzship's wilaya entry: ours plus `nameAscii`, which we leave out because name folding already meets it (the
 * generator checks that it does, so search loses no spelling).
 */
const SourceWilaya = Schema.Struct({ ...WilayaEntry.fields, nameAscii: Schema.optionalKey(Schema.String) })
const parseSourceWilayas = decodeEach(SourceWilaya, "{ code, name, nameAr, nameAscii, communeCount }")

/** The texts of our two files. */
export interface Files {
  readonly wilayas: string
  readonly communes: string
}

const json = (value: unknown) => JSON.stringify(value)

/** One entry per line, keys in the order given: the layout the repository's formatter keeps as it is. */
const render = <A>(entries: ReadonlyArray<A>, keys: ReadonlyArray<keyof A & string>): string =>
  `[\n${entries.map((entry) => `  { ${keys.map((key) => `${json(key)}: ${json(entry[key])}`).join(", ")} }`).join(",\n")}\n]\n`

export const renderWilayas = (wilayas: ReadonlyArray<WilayaEntry>): string =>
  render(
    [...wilayas].sort((a, b) => a.code - b.code),
    ["code", "name", "nameAr", "communeCount"]
  )

/** Communes by wilaya code; within a wilaya, in the order given (the sort is stable). */
export const renderCommunes = (communes: ReadonlyArray<Commune>): string =>
  render(
    [...communes].sort((a, b) => a.wilayaCode - b.wilayaCode),
    ["wilayaCode", "name", "nameAr"]
  )

const issuesIn = (file: string, issues: ReadonlyArray<Issue>) => `${file}: ${formatIssues(issues, 20)}`

/** Two communes of one wilaya that fold to one key: `Communes.find` could not tell them apart. */
const sameKeys = (communes: ReadonlyArray<Commune>): ReadonlyArray<string> => {
  const seen = new Map<string, Commune>()
  const found: Array<string> = []
  for (const commune of communes) {
    for (const name of [commune.name, commune.nameAr]) {
      const key = `${commune.wilayaCode}\u0000${fold(name)}`
      const other = seen.get(key)
      if (other === undefined) seen.set(key, commune)
      else if (other !== commune) {
        found.push(`wilaya ${commune.wilayaCode}: "${other.name}" and "${commune.name}" fold to one key`)
      }
    }
  }
  return found
}

/**
 * Our two files from dzship's `wilayas.json` and `communes.json` (parsed JSON), or every problem found: entries
 * that do not decode, wilaya codes missing or repeated, a `communeCount` that is not the number of communes
 * listed, an ASCII name that name folding does not meet, communes of one wilaya that fold to one key.
 */
export const generate = (source: {
  readonly wilayas: unknown
  readonly communes: unknown
}): Result.Result<Files, ReadonlyArray<string>> => {
  const wilayas = parseSourceWilayas(source.wilayas)
  const communes = parseCommunes(source.communes)
  if (Result.isFailure(wilayas) || Result.isFailure(communes)) {
    return Result.fail([
      ...(Result.isFailure(wilayas) ? [issuesIn("wilayas.json", wilayas.failure)] : []),
      ...(Result.isFailure(communes) ? [issuesIn("communes.json", communes.failure)] : [])
    ])
  }
  const problems: Array<string> = []
  const byCode = new Map<number, (typeof wilayas.success)[number]>()
  for (const wilaya of wilayas.success) {
    if (byCode.has(wilaya.code)) problems.push(`wilayas.json: code ${wilaya.code} appears more than once`)
    byCode.set(wilaya.code, wilaya)
  }
  const listed = new Map<number, number>()
  for (const commune of communes.success) listed.set(commune.wilayaCode, (listed.get(commune.wilayaCode) ?? 0) + 1)
  for (let code = 1; code <= 58; code++) {
    const wilaya = byCode.get(code)
    if (wilaya === undefined) {
      problems.push(`wilayas.json: no wilaya has code ${code}`)
      continue
    }
    const count = listed.get(code) ?? 0
    if (wilaya.communeCount !== count) {
      problems.push(`wilaya ${code}: communeCount is ${wilaya.communeCount}, but communes.json lists ${count}`)
    }
    if (wilaya.nameAscii !== undefined && fold(wilaya.nameAscii) !== fold(wilaya.name)) {
      problems.push(
        `wilaya ${code}: the ASCII name "${wilaya.nameAscii}" does not fold to "${wilaya.name}"; ` +
          "add it to the other spellings in src/Wilayas.ts"
      )
    }
  }
  problems.push(...sameKeys(communes.success))
  if (problems.length > 0) return Result.fail(problems)
  return Result.succeed({
    wilayas: renderWilayas(
      wilayas.success.map(({ code, name, nameAr, communeCount }) => ({ code, name, nameAr, communeCount }))
    ),
    communes: renderCommunes(communes.success)
  })
}
