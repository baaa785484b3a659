/**
 * Decoding a dataset file (a JSON array) entry by entry, so that one run reports everything wrong with a file, each
 * bad entry by its index, rather than the first problem only.
 */
import { Result, Schema, SchemaIssue } from "effect"

/** What is wrong with a dataset: one entry (`index` in the array), or the document as a whole (no `index`). */
export interface Issue {
  readonly index?: number
  readonly reason: string
}

const decodeArray = Schema.decodeUnknownResult(Schema.Array(Schema.Unknown))
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const describe = (issue: SchemaIssue.Issue): string =>
  formatter(issue)
    .issues.map(({ message, path = [] }) => {
      const at = path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")
      return at === "" ? message : `${at}: ${message}`
    })
    .join("; ")

/** A decoder of a non-empty JSON array of `entry`; `shape` names the entries in the whole-document issue. */
export const decodeEach = <S extends Schema.ConstraintDecoder<unknown>>(entry: S, shape: string) => {
  const decodeEntry = Schema.decodeUnknownResult(entry)
  return (json: unknown): Result.Result<ReadonlyArray<S["Type"]>, ReadonlyArray<Issue>> => {
    const entries = decodeArray(json)
    if (Result.isFailure(entries)) return Result.fail([{ reason: `Expected a JSON array of ${shape} entries` }])
    if (entries.success.length === 0) return Result.fail([{ reason: "The dataset has no entries" }])
    const decoded: Array<S["Type"]> = []
    const issues: Array<Issue> = []
    entries.success.forEach((value, index) => {
      const result = decodeEntry(value, { errors: "all" })
      if (Result.isSuccess(result)) decoded.push(result.success)
      else issues.push({ index, reason: describe(result.failure.issue) })
    })
    return issues.length === 0 ? Result.succeed(decoded) : Result.fail(issues)
  }
}

/** Issues in one line, the first few only: a wrong file can have 1 541 of them. */
export const formatIssues = (issues: ReadonlyArray<Issue>, limit = 5): string => {
  const shown = issues
    .slice(0, limit)
    .map((issue) => (issue.index === undefined ? issue.reason : `entry ${issue.index}: ${issue.reason}`))
  const more = issues.length - shown.length
  return more > 0 ? `${shown.join("; ")}; and ${more} more` : shown.join("; ")
}
