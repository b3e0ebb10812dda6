/**
 * Pages PDFium has loaded, kept between requests (engine/PdfiumPages.ts): a page drawn again is not
 * loaded again, what is kept stays within its bytes (the least recently used closed first, a page
 * heavier than the whole budget never kept), a document's pages close with it, and a kept page
 * drawn without its listed annotations (A~0) shows them again on the next request.
 */
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { keepsPageLoaded, withPdfiumDocument } from "../../../src/services/broker/engine/PdfiumDocuments.ts"
import { PdfiumPages } from "../../../src/services/broker/engine/PdfiumPages.ts"
import type { RenderSettings } from "../../../src/services/broker/engine/PdfRequest.ts"
import { renderPng } from "../../../src/services/broker/engine/Rasterizer.ts"
import { CORPUS } from "../../support/backends.ts"

const KiB = 1024
const source = (file: string) => ({ hash: `loaded-pages:${file}`, path: `${CORPUS}pdf/${file}` })
const digest = (png: Uint8Array) => createHash("sha256").update(png).digest("hex")
const settings = (filters: RenderSettings["filters"] = []): RenderSettings => ({
  width: 600,
  rotation: 0,
  filters,
  maxPixels: 60_000_000
})

describe("pages PDFium has loaded", () => {
  it("a page used again is the same loaded page; the least recently used go first; a document's pages close with it", async () => {
    const handles = await withPdfiumDocument(source("tracemonkey.pdf"), (pdfium, document) => {
      // Its pages 1-4 weigh 90-113 KiB each (64 KiB and 256 bytes for each of their 103-195
      // objects): three fit in 320 KiB, not four.
      const pages = new PdfiumPages(pdfium, 320 * KiB)
      const first = pages.use(document, 0, (page) => page)
      const again = pages.use(document, 0, (page) => page)
      pages.use(document, 1, () => {})
      pages.use(document, 2, () => {})
      const keptBeforeFourth = [0, 1, 2].map((index) => pages.has(document, index))
      // Page 0 was used least recently: the fourth page pushes it out.
      pages.use(document, 3, () => {})
      const keptAfterFourth = [0, 1, 2, 3].map((index) => pages.has(document, index))
      const weightBeforeClose = pages.weight
      pages.closeAll(document)
      return {
        first,
        again,
        keptBeforeFourth,
        keptAfterFourth,
        weightBeforeClose,
        afterClose: [1, 2, 3].map((index) => pages.has(document, index)),
        weightAfterClose: pages.weight
      }
    })
    expect(handles.first).not.toBe(0)
    expect(handles.again).toBe(handles.first)
    expect(handles.keptBeforeFourth).toEqual([true, true, true])
    expect(handles.keptAfterFourth).toEqual([false, true, true, true])
    expect(handles.weightBeforeClose).toBeLessThanOrEqual(320 * KiB)
    expect(handles.afterClose).toEqual([false, false, false])
    expect(handles.weightAfterClose).toBe(0)
  })

  it("a page weighing more than the whole budget is used and closed, the others stay", async () => {
    const kept = await withPdfiumDocument(
      source("issue12810.pdf"),
      (pdfium, document) =>
        withPdfiumDocument(source("tracemonkey.pdf"), (_, text) => {
          const pages = new PdfiumPages(pdfium, 1024 * KiB)
          pages.use(text, 0, () => {})
          // 38,600 paths: about 9.9 MB as weighed, more than 1 MiB.
          const objects = pages.use(document, 0, (page) => pdfium.FPDFPage_CountObjects(page))
          const result = { objects, vector: pages.has(document, 0), text: pages.has(text, 0), weight: pages.weight }
          pages.closeAll(text)
          return result
        })
    )
    expect(kept.objects).toBeGreaterThan(30_000)
    expect(kept).toMatchObject({ vector: false, text: true })
    expect(kept.weight).toBeLessThanOrEqual(1024 * KiB)
  })

  it("page images keep their page loaded, and a page drawn without its annotations shows them again next time", async () => {
    const annotated = source("annotation-highlight.pdf")
    const withAnnotations = digest(await renderPng(annotated, 0, settings()))
    expect(await keepsPageLoaded(annotated, 0)).toBe(true)
    const without = digest(await renderPng(annotated, 0, settings([{ code: "A", value: 0 }])))
    expect(without).not.toBe(withAnnotations)
    // The same kept page: its annotations' Hidden flags were put back after the A~0 drawing.
    expect(digest(await renderPng(annotated, 0, settings()))).toBe(withAnnotations)
  })
})
