/**
 * Inside a PDF worker thread: a new PDF put together from pages of loaded ones (a merge, a split,
 * a reorder, a composite document's parts in one file).
 */
import { PDFDocument, type PDFPage } from "pdf-lib"

/** A page to take: which source, which page of it (0-based). */
export interface PageTaken {
  readonly source: number
  readonly page: number
}

/** A new PDF holding `pages` in order; what pages of one source share (fonts, images) is copied once. */
export const assemblePages = async (sources: ReadonlyArray<PDFDocument>, pages: ReadonlyArray<PageTaken>) => {
  const result = await PDFDocument.create()
  const copied = new Map<number, Array<PDFPage>>()
  for (const [source, doc] of sources.entries()) {
    const indices = pages.filter((p) => p.source === source).map((p) => p.page)
    if (indices.length > 0) copied.set(source, await result.copyPages(doc, indices))
  }
  for (const p of pages) result.addPage(copied.get(p.source)!.shift()!)
  return result
}
