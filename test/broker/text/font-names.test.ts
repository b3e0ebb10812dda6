/**
 * Font names of text runs read by PDFium (PdfiumFontNames.ts) instead of pdf.js's operator list:
 * the runs come out the same, field for field, and the operator list is loaded only for a page
 * whose fonts PDFium could not all name.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.js"
import { pdfjsResources } from "../../../src/services/broker/engine/PdfJsSetup.ts"
import { pdfiumFontNames } from "../../../src/services/broker/text/PdfiumFontNames.ts"
import { pageTextPositions } from "../../../src/services/broker/text/TextPositions.ts"

const PDF_DIR = "test/corpus/pdf/"

const openPage = async (file: string, index: number) => {
  const doc = await pdfjs.getDocument({ ...pdfjsResources, data: new Uint8Array(readFileSync(PDF_DIR + file)) })
    .promise
  return { doc, page: await doc.getPage(index + 1) }
}

/** Counts the page's operator-list loads. */
const countingOperatorLists = (page: PDFPageProxy) => {
  const calls = { count: 0 }
  const load = page.getOperatorList.bind(page)
  page.getOperatorList = (...args) => {
    calls.count++
    return load(...args)
  }
  return calls
}

/** The page's runs named by PDFium and by pdf.js's operators, each on a document of its own. */
const bothWays = async (file: string, index: number) => {
  const fast = await openPage(file, index)
  const slow = await openPage(file, index)
  try {
    const operatorLists = countingOperatorLists(fast.page)
    const byPdfium = await pageTextPositions(
      fast.page,
      true,
      pdfiumFontNames({ hash: file, path: PDF_DIR + file }, index)
    )
    const byOperators = await pageTextPositions(slow.page, true)
    return { byPdfium, byOperators, operatorLists: operatorLists.count }
  } finally {
    await fast.doc.destroy()
    await slow.doc.destroy()
  }
}

describe("font names read by PDFium", () => {
  for (
    const [file, page] of [
      ["tracemonkey.pdf", 0],
      ["korean-text-with-tables.pdf", 0],
      ["pdf2image-memory-error-test-400p.pdf", 249],
      ["issue12810.pdf", 0]
    ] as const
  ) {
    it(`are pdf.js's names, without its operator list (${file} p${page})`, async () => {
      const { byPdfium, byOperators, operatorLists } = await bothWays(file, page)
      expect(byPdfium.length).toBeGreaterThan(0)
      expect(JSON.stringify(byPdfium)).toBe(JSON.stringify(byOperators))
      expect(byPdfium.every((run) => !["serif", "sans-serif", "monospace"].includes(run.font))).toBe(true)
      expect(operatorLists).toBe(0)
    }, 60_000)
  }

  it("a page PDFium cannot name whole is named by pdf.js's operators (vertical.pdf)", async () => {
    const { byPdfium, byOperators, operatorLists } = await bothWays("vertical.pdf", 0)
    expect(JSON.stringify(byPdfium)).toBe(JSON.stringify(byOperators))
    expect(operatorLists).toBe(1)
  }, 60_000)

  it("a file PDFium will not open is named by pdf.js's operators", async () => {
    const { page, doc } = await openPage("tracemonkey.pdf", 0)
    try {
      const operatorLists = countingOperatorLists(page)
      const runs = await pageTextPositions(
        page,
        true,
        pdfiumFontNames({ hash: "missing", path: "/nonexistent.pdf" }, 0)
      )
      expect(runs.some((run) => run.font.startsWith("NimbusRomNo9L"))).toBe(true)
      expect(operatorLists.count).toBe(1)
    } finally {
      await doc.destroy()
    }
  }, 60_000)
})
