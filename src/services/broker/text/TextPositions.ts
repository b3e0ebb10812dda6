/**
 * A page's text positions as the engine reads them: pdf.js text content, measured as the viewer
 * draws it. Used by the worker threads (page text, search, text difference) and by tests that
 * check text on real documents.
 */
import { createCanvas } from "@napi-rs/canvas"
import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.js"
import { type RawTextItem, type RawTextStyle, toTextPositions } from "./Text.ts"

const measureContext = createCanvas(1, 1).getContext("2d")
/**
 * pdf.js names generic families only. Which font the canvas takes for those depends on every font
 * installed (CJK fonts, LibreOffice's), so they are pinned to the fonts metric-compatible with the
 * PDF standard fonts (Times, Helvetica, Courier) that the setup installs.
 */
const MEASURE_FAMILIES: Readonly<Record<string, string>> = {
  serif: "Liberation Serif, DejaVu Serif, serif",
  "sans-serif": "Liberation Sans, DejaVu Sans, sans-serif",
  monospace: "Liberation Mono, DejaVu Sans Mono, monospace"
}
/** The most characters whose widths are kept per family: past it the family's widths are measured afresh. */
const MEASURED_PER_FAMILY = 65_536
/**
 * Widths of characters as measured, by family: the canvas measures a character the same way every
 * time, and a page repeats a few dozen characters, so each is measured once per thread.
 */
const measured = new Map<string, Map<string, number>>()
const measure = (text: string, fontFamily: string) => {
  let widths = measured.get(fontFamily)
  if (widths === undefined || widths.size >= MEASURED_PER_FAMILY) {
    widths = new Map()
    measured.set(fontFamily, widths)
  }
  const result: Array<number> = []
  for (const ch of text) {
    let width = widths.get(ch)
    if (width === undefined) {
      // The canvas throws on control characters (a NUL in a run of standard_fonts.pdf); they take no width.
      if (ch < " ") {
        width = 0
      } else {
        measureContext.font = `100px ${MEASURE_FAMILIES[fontFamily] ?? fontFamily}`
        width = measureContext.measureText(ch).width
      }
      widths.set(ch, width)
    }
    result.push(width)
  }
  return result
}

/** The page's text positions (pdf.js text content, measured as the viewer draws it); font names only when asked (they need the page's operators). */
export const pageTextPositions = async (page: PDFPageProxy, withFontNames: boolean) => {
  const content = await page.getTextContent()
  // Font objects (with their real names) exist only once the page's operators have been loaded.
  if (withFontNames) await page.getOperatorList()
  const fontNames = (id: string) => {
    if (!page.commonObjs.has(id)) return undefined
    const name = (page.commonObjs.get(id) as { name?: string }).name
    return name?.replace(/^[A-Z]{6}\+/, "")
  }
  return toTextPositions({
    pageNumber: page.pageNumber - 1,
    items: content.items.filter((item) => "str" in item) as ReadonlyArray<RawTextItem>,
    styles: content.styles as Record<string, RawTextStyle>,
    viewportTransform: page.getViewport({ scale: 1 }).transform,
    fontNames: withFontNames ? fontNames : () => undefined,
    measure
  })
}
