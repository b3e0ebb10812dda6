/**
 * The browser section's generated document: a PDF of many simple text pages ("Page N" and a few
 * lines), made with pdf-lib, as long as a document gets before viewers give up on scrolling it.
 */
import { writeFileSync } from "node:fs"
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, type PDFRef, StandardFonts } from "pdf-lib"

/** Pages under one node of the page tree. */
const FAN_OUT = 100

/**
 * Regroups the pages under intermediate nodes of FAN_OUT pages each, as producers of long documents
 * write them. pdf-lib writes one flat node of every page, which no producer of a 20,000-page file
 * does and on which pdf.js spends milliseconds per page lookup (two minutes for the whole layout).
 */
const balancePageTree = (pdf: PDFDocument) => {
  const root = pdf.catalog.Pages()
  const rootRef = pdf.catalog.get(PDFName.of("Pages")) as PDFRef
  const leaves = pdf.getPages().map((page) => page.ref)
  const groups = PDFArray.withContext(pdf.context)
  for (let start = 0; start < leaves.length; start += FAN_OUT) {
    const kids = leaves.slice(start, start + FAN_OUT)
    const node = pdf.context.obj({ Type: "Pages", Parent: rootRef, Count: kids.length, Kids: kids })
    const nodeRef = pdf.context.register(node)
    for (const kid of kids) pdf.context.lookup(kid, PDFDict).set(PDFName.of("Parent"), nodeRef)
    groups.push(nodeRef)
  }
  root.set(PDFName.of("Kids"), groups)
  root.set(PDFName.of("Count"), PDFNumber.of(leaves.length))
}

const LINES = [
  "A generated page of the browser benchmark: a few lines of text on each page,",
  "so that every page has a text layer to draw and to select, and nothing else.",
  "The document exists to be scrolled from its first page to its last."
]

/** Writes a `pages`-page PDF (US Letter, Helvetica, not embedded) to `path`; answers its size in bytes. */
export const writeTextPagesPdf = async (path: string, pages: number) => {
  const pdf = await PDFDocument.create()
  pdf.setTitle(`${pages} generated pages`)
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (let n = 1; n <= pages; n++) {
    const page = pdf.addPage([612, 792])
    page.drawText(`Page ${n}`, { x: 72, y: 700, size: 28, font })
    LINES.forEach((line, i) => page.drawText(line, { x: 72, y: 650 - i * 18, size: 11, font }))
  }
  balancePageTree(pdf)
  const bytes = await pdf.save()
  writeFileSync(path, bytes)
  return bytes.byteLength
}
