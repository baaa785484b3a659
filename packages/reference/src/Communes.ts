/**
 * Algeria's communes, read at start from a dataset file rather than authored: the public CC0 dataset of
 * DZBuild-com/dzship (`data/communes.json`, 1 541 entries of `{ wilayaCode, name, nameAr }`), which users download
 * themselves (see the package README). A commune is named only within its wilaya: 36 names exist in several
 * wilayas (El Marsa is in Chlef, Alger and Skikda).
 *
 * Without the file the app still starts: `layerFileOptional` gives a `Communes` whose every call fails with
 * `CommunesUnavailable`, which the HTTP layer answers with 503.
 */
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { WilayaCode } from "@tawsil/domain"
import { Context, Effect, Layer, Option, Result, Schema, SchemaIssue } from "effect"
import { rank } from "./internal/rank.ts"
import { fold } from "./NameFolding.ts"

export class Commune extends Schema.Class<Commune>("@tawsil/reference/Commune")({
  wilayaCode: WilayaCode.WilayaCode,
  /** The French (Latin-script) name. */
  name: Schema.NonEmptyString,
  nameAr: Schema.NonEmptyString
}) {}

/** What is wrong with a dataset: one entry (`index` in the array), or the document as a whole (no `index`). */
export interface Issue {
  readonly index?: number
  readonly reason: string
}

const decodeEntries = Schema.decodeUnknownResult(Schema.Array(Schema.Unknown))
const decodeCommune = Schema.decodeUnknownResult(Commune)
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const describeIssue = (issue: SchemaIssue.Issue): string =>
  formatter(issue)
    .issues.map(({ message, path = [] }) => {
      const at = path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")
      return at === "" ? message : `${at}: ${message}`
    })
    .join("; ")

/**
 * Decodes a parsed dataset file. Every bad entry is reported, by index, not only the first, so that one run shows
 * all that is wrong with a file; a wilaya code outside 1 to 58 is one of them.
 */
export const parse = (json: unknown): Result.Result<ReadonlyArray<Commune>, ReadonlyArray<Issue>> => {
  const entries = decodeEntries(json)
  if (Result.isFailure(entries)) {
    return Result.fail([{ reason: "Expected a JSON array of { wilayaCode, name, nameAr } entries" }])
  }
  if (entries.success.length === 0) return Result.fail([{ reason: "The dataset has no entries" }])
  const communes: Array<Commune> = []
  const issues: Array<Issue> = []
  entries.success.forEach((entry, index) => {
    const commune = decodeCommune(entry, { errors: "all" })
    if (Result.isSuccess(commune)) communes.push(commune.success)
    else issues.push({ index, reason: describeIssue(commune.failure.issue) })
  })
  return issues.length === 0 ? Result.succeed(communes) : Result.fail(issues)
}

/** Issues in one line, the first few only: a wrong file can have 1 541 of them. */
export const formatIssues = (issues: ReadonlyArray<Issue>, limit = 5): string => {
  const shown = issues
    .slice(0, limit)
    .map((issue) => (issue.index === undefined ? issue.reason : `entry ${issue.index}: ${issue.reason}`))
  const more = issues.length - shown.length
  return more > 0 ? `${shown.join("; ")}; and ${more} more` : shown.join("; ")
}

export const howToLoad =
  "Download the public CC0 dataset with `node --conditions=@tawsil/source " +
  "packages/reference/src/scripts/downloadCommunes.ts <file>` and set COMMUNES_FILE=<file> " +
  "(see packages/reference/README.md)"

/** The communes dataset is not loaded: not configured, missing or invalid. */
export class CommunesUnavailable extends Schema.TaggedError<CommunesUnavailable>()("CommunesUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `${this.reason}. ${howToLoad}`
  }
}

export interface Query {
  readonly wilaya?: WilayaCode.WilayaCode | undefined
  readonly q?: string | undefined
}

export class Communes extends Context.Service<
  Communes,
  {
    /** The communes of one wilaya, in dataset order. */
    readonly list: (wilaya: WilayaCode.WilayaCode) => Effect.Effect<ReadonlyArray<Commune>, CommunesUnavailable>
    /**
     * Communes whose folded French or Arabic name contains the folded `q`, within `wilaya` when given: exact
     * matches first, then names starting with `q`, then the rest, each group in dataset order (by wilaya). Without
     * `q`, every commune (of `wilaya`).
     */
    readonly search: (query: Query) => Effect.Effect<ReadonlyArray<Commune>, CommunesUnavailable>
    /** The commune of `wilaya` whose French or Arabic name equals `name` after folding: a recipient's commune. */
    readonly find: (
      wilaya: WilayaCode.WilayaCode,
      name: string
    ) => Effect.Effect<Option.Option<Commune>, CommunesUnavailable>
  }
>()("@tawsil/reference/Communes") {}

interface Entry {
  readonly commune: Commune
  readonly keys: ReadonlyArray<string>
}

/** A `Communes` over decoded entries. */
export const make = (communes: ReadonlyArray<Commune>): Communes["Service"] => {
  const entries: ReadonlyArray<Entry> = communes.map((commune) => ({
    commune,
    keys: [fold(commune.name), fold(commune.nameAr)]
  }))
  const byWilaya = new Map<number, Array<Entry>>()
  for (const entry of entries) {
    const list = byWilaya.get(entry.commune.wilayaCode)
    if (list === undefined) byWilaya.set(entry.commune.wilayaCode, [entry])
    else list.push(entry)
  }
  const within = (wilaya: WilayaCode.WilayaCode | undefined) =>
    wilaya === undefined ? entries : (byWilaya.get(wilaya) ?? [])
  const keysOf = (entry: Entry) => entry.keys

  return Communes.of({
    list: Effect.fn("Communes.list")((wilaya) => Effect.succeed(within(wilaya).map((entry) => entry.commune))),
    search: Effect.fn("Communes.search")(({ wilaya, q = "" }) => {
      const key = fold(q)
      const found = key === "" ? within(wilaya) : rank(within(wilaya), keysOf, key)
      return Effect.succeed(found.map((entry) => entry.commune))
    }),
    find: Effect.fn("Communes.find")((wilaya, name) => {
      const key = fold(name)
      return Effect.succeed(
        Option.fromNullishOr(within(wilaya).find((entry) => entry.keys.includes(key))).pipe(
          Option.map((entry) => entry.commune)
        )
      )
    })
  })
}

const unavailable = (error: CommunesUnavailable): Communes["Service"] =>
  Communes.of({
    list: () => Effect.fail(error),
    search: () => Effect.fail(error),
    find: () => Effect.fail(error)
  })

/** Reads and decodes a dataset file. */
export const load = Effect.fn("Communes.load")(function* (path: string) {
  const file = Path.resolve(path)
  const text = yield* Effect.tryPromise({
    try: () => Fs.readFile(file, "utf8"),
    catch: (cause) =>
      new CommunesUnavailable({
        reason:
          (cause as NodeJS.ErrnoException).code === "ENOENT"
            ? `No communes dataset at ${file}`
            : `Cannot read the communes dataset ${file}: ${String(cause)}`
      })
  })
  const json = yield* Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: () => new CommunesUnavailable({ reason: `The communes dataset ${file} is not JSON` })
  })
  return yield* Effect.fromResult(parse(json)).pipe(
    Effect.mapError(
      (issues) =>
        new CommunesUnavailable({ reason: `The communes dataset ${file} is invalid: ${formatIssues(issues)}` })
    )
  )
})

/** The communes of a dataset file; the layer fails when the file is missing or invalid. */
export const layerFile = (path: string): Layer.Layer<Communes, CommunesUnavailable> =>
  Layer.effect(Communes, Effect.map(load(path), make))

/**
 * The communes of a dataset file when there is one. The layer never fails: without a path, or with a file that
 * is missing or invalid, it logs a warning and provides a `Communes` whose every call fails with
 * `CommunesUnavailable`, so the rest of the app starts and only commune lookups are unavailable.
 */
export const layerFileOptional = (path: string | undefined): Layer.Layer<Communes> =>
  Layer.effect(
    Communes,
    (path === undefined
      ? Effect.fail(new CommunesUnavailable({ reason: "No communes dataset is configured" }))
      : load(path)
    ).pipe(
      Effect.map(make),
      Effect.catch((error) => Effect.as(Effect.logWarning(error.message), unavailable(error)))
    )
  )

/** The given communes, for tests. */
export const layerFromEntries = (communes: ReadonlyArray<Commune>): Layer.Layer<Communes> =>
  Layer.succeed(Communes, make(communes))
