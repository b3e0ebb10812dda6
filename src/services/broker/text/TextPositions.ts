/**
 * A page's text positions as the engine reads them: pdf.js text content, measured as the viewer
 * draws it. Used by the worker threads (page text, search, text difference) and by tests that
 * check text on real documents.
 */
import { createCanvas } from "@napi-rs/canvas"
import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.js"
import type { FontNamer, FontProbe } from "./PdfiumFontNames.ts"
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

const SUBSET_TAG = /^[A-Z]{6}\+/

/** Runs of one font tried at most, in case the first does not match (a ligature pdf.js spelled out). */
const PROBES_PER_FONT = 3

/** The first runs of each font that has text, as probes for a namer. */
const probesOf = (items: ReadonlyArray<RawTextItem>) => {
  const probes: Array<FontProbe> = []
  const perFont = new Map<string, number>()
  for (const item of items) {
    const firstChar = item.str.codePointAt(0)
    const count = perFont.get(item.fontName) ?? 0
    // A run starting with a blank starts elsewhere than its first visible character: not a probe.
    if (count >= PROBES_PER_FONT || firstChar === undefined || item.str.trimStart() !== item.str) continue
    perFont.set(item.fontName, count + 1)
    const [a = 0, b = 0, c = 0, d = 0, x = 0, y = 0] = item.transform
    probes.push({ fontId: item.fontName, x, y, along: [a, b], up: [c, d], firstChar })
  }
  return probes
}

/**
 * The page's text positions (pdf.js text content, measured as the viewer draws it). Font names only
 * when asked: from `namer` (PDFium, PdfiumFontNames.ts) where it can tell them, else from pdf.js's
 * font objects, which exist only once the page's operators have been loaded (the slow way).
 */
export const pageTextPositions = async (page: PDFPageProxy, withFontNames: boolean, namer?: FontNamer) => {
  const content = await page.getTextContent()
  const items = content.items.filter((item) => "str" in item) as ReadonlyArray<RawTextItem>
  let named: ReadonlyMap<string, string> = new Map()
  if (withFontNames) {
    const probes = probesOf(items)
    if (namer !== undefined && probes.length > 0) named = await namer(probes)
    // Every font with text named by the namer, or else pdf.js's operators are loaded for the others.
    const fontIds = new Set(items.filter((item) => item.str.trim() !== "").map((item) => item.fontName))
    if ([...fontIds].some((id) => !named.has(id))) await page.getOperatorList()
  }
  const fontNames = (id: string) => {
    const name = named.get(id) ??
      (page.commonObjs.has(id) ? (page.commonObjs.get(id) as { name?: string }).name : undefined)
    return name?.replace(SUBSET_TAG, "")
  }
  return toTextPositions({
    pageNumber: page.pageNumber - 1,
    items,
    styles: content.styles as Record<string, RawTextStyle>,
    viewportTransform: page.getViewport({ scale: 1 }).transform,
    fontNames: withFontNames ? fontNames : () => undefined,
    measure
  })
}
