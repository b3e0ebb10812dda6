/**
 * Inside a PDF worker thread: the real names of a page's fonts, read by PDFium. pdf.js tells a text
 * run's font only by its own ID; the font's name reaches the page only once its whole operator list
 * has been built (every path and image of the page evaluated: 3 ms on a page of text, over a second
 * on a vector drawing). PDFium's text page names the font of each character for the cost of reading
 * the page's text (about a millisecond): the first run of each pdf.js font is found there by where
 * it starts, and its character's font named.
 */
import { free, heap, malloc, type Pdfium } from "../engine/Pdfium.ts"
import { withPdfiumPage } from "../engine/PdfiumDocuments.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"

/** Where a pdf.js font's first run starts, in PDF user space, and its first character. */
export interface FontProbe {
  readonly fontId: string
  readonly x: number
  readonly y: number
  /** The run's direction along the baseline and up from it, each one em long. */
  readonly along: readonly [number, number]
  readonly up: readonly [number, number]
  readonly firstChar: number
}

/** Names by pdf.js font ID, for the probes it could match; the others are left out. */
export type FontNamer = (probes: ReadonlyArray<FontProbe>) => Promise<ReadonlyMap<string, string>>

/** Longer font names are not kept (the PDF standard does not bound them; real ones are short). */
const NAME_BUFFER = 256
const utf8 = new TextDecoder()

/** Characters either side of the one PDFium finds at a probe's point that are looked at for its start. */
const NEIGHBOURS = 4

const namesOnPage = (pdfium: Pdfium, page: number, probes: ReadonlyArray<FontProbe>) => {
  const names = new Map<string, string>()
  const text = pdfium.FPDFText_LoadPage(page)
  if (text === 0) return names
  const count = pdfium.FPDFText_CountChars(text)
  const buffer = malloc(pdfium, NAME_BUFFER)
  try {
    /** The character of the page whose origin is the probe's start, if one is. */
    const startOf = (probe: FontProbe) => {
      const em = Math.hypot(probe.up[0], probe.up[1])
      // A point inside the first glyph (a tenth of an em along, a quarter up).
      const found = pdfium.FPDFText_GetCharIndexAtPos(
        text,
        probe.x + 0.1 * probe.along[0] + 0.25 * probe.up[0],
        probe.y + 0.1 * probe.along[1] + 0.25 * probe.up[1],
        0.25 * em,
        0.25 * em
      )
      if (found < 0) return -1
      // The nearest origin around it within a fifth of an em: the same character is preferred, but
      // pdf.js and PDFium may read one glyph as two different characters (TeX's ©, a 'c' to PDFium).
      let best = -1
      let bestScore = 0.2 * em
      for (let i = Math.max(0, found - NEIGHBOURS); i <= Math.min(count - 1, found + NEIGHBOURS); i++) {
        if (pdfium.FPDFText_IsGenerated(text, i) === 1) continue
        if (!pdfium.FPDFText_GetCharOrigin(text, i, buffer, buffer + 8)) continue
        const origin = new DataView(heap(pdfium).buffer, buffer, 16)
        const distance = Math.hypot(origin.getFloat64(0, true) - probe.x, origin.getFloat64(8, true) - probe.y)
        const score = pdfium.FPDFText_GetUnicode(text, i) === probe.firstChar ? distance / 2 : distance
        if (score < bestScore) {
          best = i
          bestScore = score
        }
      }
      return best
    }
    for (const probe of probes) {
      if (names.has(probe.fontId)) continue
      const index = startOf(probe)
      if (index < 0) continue
      // The length counts the closing NUL; one past the buffer means the name did not fit.
      const length = pdfium.FPDFText_GetFontInfo(text, index, buffer, NAME_BUFFER, 0)
      if (length <= 1 || length > NAME_BUFFER) continue
      names.set(probe.fontId, utf8.decode(heap(pdfium).slice(buffer, buffer + length - 1)))
    }
  } finally {
    free(pdfium, buffer)
    pdfium.FPDFText_ClosePage(text)
  }
  return names
}

/**
 * The namer of page `pageIndex` (0-based) of the PDF, through the thread's open PDFium documents.
 * A file PDFium will not open names nothing (pdf.js, which read the runs, names them then).
 */
export const pdfiumFontNames = (source: PdfSource, pageIndex: number): FontNamer => (probes) =>
  withPdfiumPage(source, pageIndex, (pdfium, _, page) => namesOnPage(pdfium, page, probes)).catch(() =>
    new Map<string, string>()
  )
