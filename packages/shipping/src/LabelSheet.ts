/**
 * One PDF for many labels: the couriers' PDFs merged page by page into one document, in the order given, so a
 * merchant prints one sheet for a day's parcels. A label that is not a PDF this can read is left out and said so
 * (`UnreadableLabel`), never a reason to lose the others. The merge is pdf-lib's (decision 0033): it copies each
 * page with what it draws (fonts, images) and reads the PDFs couriers produce, compressed streams included.
 */
import { Effect, Schema } from "effect"
import type { PDFDocument } from "pdf-lib"

/**
 * pdf-lib, imported when a sheet is first made or read: its modules take about half a second of a start to load, and
 * most processes never merge a label.
 */
const pdfLib = Effect.promise(() => import("pdf-lib"))

/** A label the courier sent that is not a PDF, or one that cannot be read. */
export class UnreadableLabel extends Schema.TaggedError<UnreadableLabel>()("UnreadableLabel", {
  contentType: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `the courier's label cannot be merged (${this.contentType}): ${this.problem}`
  }
}

const isPdf = (bytes: Uint8Array) =>
  bytes.length > 4 && bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 // %PDF

const problemOf = (cause: unknown) => (cause instanceof Error ? cause.message.slice(0, 200) : String(cause))

/** A new, empty sheet. */
export const make: Effect.Effect<PDFDocument> = Effect.flatMap(pdfLib, ({ PDFDocument }) =>
  Effect.promise(() => PDFDocument.create({ updateMetadata: false }))
)

/**
 * Appends every page of one label to the sheet and answers how many: a PDF with at least one page, whatever the
 * courier called its content type. A label that cannot be read leaves the sheet as it was.
 */
export const append = (
  sheet: PDFDocument,
  label: { readonly contentType: string; readonly bytes: Uint8Array }
): Effect.Effect<number, UnreadableLabel> =>
  Effect.gen(function* () {
    const unreadable = (problem: string) => new UnreadableLabel({ contentType: label.contentType, problem })
    if (!isPdf(label.bytes)) return yield* unreadable("it is not a PDF")
    const { PDFDocument } = yield* pdfLib
    const document = yield* Effect.tryPromise({
      try: () => PDFDocument.load(label.bytes, { updateMetadata: false }),
      catch: (cause) => unreadable(problemOf(cause))
    })
    // A file that parses but has no page tree (a header and a trailer only) throws here rather than at load.
    const count = yield* Effect.try({
      try: () => document.getPageCount(),
      catch: (cause) => unreadable(problemOf(cause))
    })
    if (count === 0) return yield* unreadable("the PDF has no page")
    const pages = yield* Effect.tryPromise({
      try: () => sheet.copyPages(document, document.getPageIndices()),
      catch: (cause) => unreadable(problemOf(cause))
    })
    for (const page of pages) sheet.addPage(page)
    return pages.length
  })

/** The sheet as PDF bytes. */
export const save = (sheet: PDFDocument): Effect.Effect<Uint8Array> =>
  Effect.promise(() => sheet.save({ useObjectStreams: true }))

/** How many pages a PDF has, as a merchant's tools read it back. */
export const pageCount = (bytes: Uint8Array): Effect.Effect<number> =>
  Effect.flatMap(pdfLib, ({ PDFDocument }) =>
    Effect.map(
      Effect.promise(() => PDFDocument.load(bytes, { updateMetadata: false })),
      (document) => document.getPageCount()
    )
  )
