/**
 * The page PDFium loaded last, kept loaded between requests (engine/PdfiumPages.ts): the same page
 * again is not loaded again, another page replaces it (never two loaded at once), a document's page
 * closes with it, and a kept page drawn without its listed annotations (A~0) shows them again on
 * the next request.
 */
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { keepsPageLoaded, withPdfiumDocument } from "../../../src/services/broker/engine/PdfiumDocuments.ts"
import { PdfiumPages } from "../../../src/services/broker/engine/PdfiumPages.ts"
import type { RenderSettings } from "../../../src/services/broker/engine/PdfRequest.ts"
import { renderPng } from "../../../src/services/broker/engine/Rasterizer.ts"
import { CORPUS } from "../../support/backends.ts"

const source = (file: string) => ({ hash: `loaded-pages:${file}`, path: `${CORPUS}pdf/${file}` })
const digest = (png: Uint8Array) => createHash("sha256").update(png).digest("hex")
const settings = (filters: RenderSettings["filters"] = []): RenderSettings => ({
  width: 600,
  rotation: 0,
  filters,
  maxPixels: 60_000_000
})

describe("the page PDFium loaded last", () => {
  it("is used again as it is; another page replaces it; it closes with its document", async () => {
    const seen = await withPdfiumDocument(
      source("tracemonkey.pdf"),
      (pdfium, document) =>
        withPdfiumDocument(source("issue12810.pdf"), (_, other) => {
          const pages = new PdfiumPages(pdfium)
          const first = pages.use(document, 0, (page) => page)
          const again = pages.use(document, 0, (page) => page)
          pages.use(document, 1, () => {})
          const afterSecond = [pages.has(document, 0), pages.has(document, 1)]
          // Closing another document leaves this one's page loaded; closing its own closes it.
          pages.closeFor(other)
          const afterOtherClosed = pages.has(document, 1)
          pages.closeFor(document)
          return { first, again, afterSecond, afterOtherClosed, afterOwnClosed: pages.has(document, 1) }
        })
    )
    expect(seen.first).not.toBe(0)
    expect(seen.again).toBe(seen.first)
    expect(seen.afterSecond).toEqual([false, true])
    expect(seen.afterOtherClosed).toBe(true)
    expect(seen.afterOwnClosed).toBe(false)
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
