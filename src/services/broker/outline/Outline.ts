/**
 * The outline of a document a transformation builds, from its entries (OutlineEntry.ts), written
 * with pdf-lib's low-level objects, which have no outline API.
 */
import { type PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, type PDFRef } from "pdf-lib"
import type { OutlineEntry } from "./OutlineEntry.ts"

/** How many entries show under an open entry (PDF 32000-1, 12.3.3: an outline item's /Count). */
const visible = (entries: ReadonlyArray<OutlineEntry>): number =>
  entries.reduce((n, e) => n + 1 + (e.open ? visible(e.children) : 0), 0)

/** Writes `entries` as the document's outline (replacing any), each pointing at its page. */
export const writeOutline = (pdf: PDFDocument, entries: ReadonlyArray<OutlineEntry>) => {
  if (entries.length === 0) return
  const { context } = pdf
  const pages = pdf.getPages()
  const build = (items: ReadonlyArray<OutlineEntry>, parent: PDFRef) => {
    const refs = items.map(() => context.nextRef())
    items.forEach((item, i) => {
      const page = pages[Math.min(Math.max(item.page, 0), pages.length - 1)]!
      const dict = context.obj({})
      dict.set(PDFName.of("Title"), PDFHexString.fromText(item.title))
      dict.set(PDFName.of("Parent"), parent)
      if (i > 0) dict.set(PDFName.of("Prev"), refs[i - 1]!)
      if (i < refs.length - 1) dict.set(PDFName.of("Next"), refs[i + 1]!)
      dict.set(
        PDFName.of("Dest"),
        context.obj(
          item.top === undefined
            ? [page.ref, PDFName.of("Fit")]
            : [page.ref, PDFName.of("XYZ"), PDFNull, PDFNumber.of(item.top), PDFNull]
        )
      )
      if (item.children.length > 0) {
        const { first, last } = build(item.children, refs[i]!)
        dict.set(PDFName.of("First"), first)
        dict.set(PDFName.of("Last"), last)
        // Positive: open, showing that many; negative: closed.
        dict.set(PDFName.of("Count"), PDFNumber.of(item.open ? visible(item.children) : -item.children.length))
      }
      context.assign(refs[i]!, dict)
    })
    return { first: refs[0]!, last: refs[refs.length - 1]! }
  }
  const root = context.nextRef()
  const { first, last } = build(entries, root)
  context.assign(root, context.obj({ Type: "Outlines", First: first, Last: last, Count: visible(entries) }))
  pdf.catalog.set(PDFName.of("Outlines"), root)
}
