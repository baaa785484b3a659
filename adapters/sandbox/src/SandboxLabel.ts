/**
 * The sandbox's shipping label: a one-page PDF (A6) naming the tracking number, drawn by hand so the sandbox needs
 * no PDF library and creates nothing anywhere. Integrators get real PDF bytes to store or print.
 */

// PDF strings escape backslashes and parentheses; the built-in Helvetica covers printable ASCII only.
const pdfText = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`).replace(/[^\x20-\x7e]/g, "?")

/** A minimal valid PDF 1.4 document with one line of Helvetica text per entry. */
export const render = (lines: ReadonlyArray<string>): Uint8Array => {
  const content = ["BT /F1 14 Tf 20 370 Td 18 TL", ...lines.map((line) => `(${pdfText(line)}) Tj T*`), "ET"].join("\n")
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
  ]
  let pdf = "%PDF-1.4\n"
  const offsets: Array<number> = []
  objects.forEach((object, index) => {
    offsets.push(pdf.length)
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = pdf.length
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new TextEncoder().encode(pdf)
}
