/** Argument and answer schemas the shipping and store tools share. */
import { Schema } from "effect"

/**
 * An `Idempotency-Key` as both APIs take it: 1 to 64 of `A-Z a-z 0-9 _ - : .`. A tool that requires one refuses a
 * call without it, with this message.
 */
export const IdempotencyKey = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_\-:.]{1,64}$/, {
    message: "Expected an idempotency key: 1 to 64 of A-Z a-z 0-9 _ - : ."
  })
).pipe(
  Schema.annotateKey({
    description:
      "Required: 1 to 64 of A-Z a-z 0-9 _ - : . — a key you make once for this operation (a UUID, or the " +
      "merchant's order reference) and send again on every retry of it; the same key with the same arguments " +
      "within 24 hours answers the first result again and does nothing twice.",
    messageMissingKey:
      "idempotencyKey is required: make one key for this operation (a UUID, or the order's reference) and send " +
      "the same key on every retry"
  })
)

/** A PDF as a tool answers it. */
export const Pdf = Schema.Struct({
  contentType: Schema.Literal("application/pdf"),
  bytes: Schema.Int,
  base64: Schema.String
}).annotate({ identifier: "Pdf" })

export const pdfOf = (bytes: Uint8Array): typeof Pdf.Type => ({
  contentType: "application/pdf",
  bytes: bytes.length,
  base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")
})
