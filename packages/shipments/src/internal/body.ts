/** Reading a JSON body by its schema: the decoded value, or one message naming every field at fault. */
import { FieldIssues } from "@tawsil/domain"
import { Result, Schema } from "effect"

export const decodeBody =
  <S extends Schema.Decoder<unknown>>(schema: S, shape: string) =>
  (body: unknown): Result.Result<S["Type"], string> => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return Result.fail(`Body must be a JSON object: ${shape}`)
    }
    const decoded = Schema.decodeUnknownResult(schema)(body, { errors: "all", onExcessProperty: "error" })
    if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
    const issues = FieldIssues.fromIssue(decoded.failure.issue)
    return Result.fail(
      `Invalid body: ${Object.entries(issues)
        .map(([field, message]) => `${field}: ${message}`)
        .join("; ")}`
    )
  }
