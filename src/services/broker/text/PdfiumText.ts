/**
 * Inside a PDF worker thread: a page's text positions read by PDFium's text page (FPDFText), the
 * runs built from its characters here. Each character comes with its own advance box in the font's
 * real metrics, its origin, its font and its matrix, so the runs carry the file's own glyph widths.
 *
 * Why PDFium and not pdf.js's text content: pdf.js parses and converts every font of a page the
 * first time the page's text is read (for drawing, which text does not need), 40 to 300 ms on a
 * page of a file its thread has not read before; PDFium's text page takes a few milliseconds, and
 * the same thread already holds the document open for the page images (PdfiumDocuments.ts).
 *
 * How characters become runs, as pdf.js's text content does (so search, the text layer and
 * redaction see the runs they always have): one run is the characters of one font and size in one
 * direction on one line, each following the one before with a gap of at most 0.6 em; a gap of more
 * than 0.1 em where the file has no space is read as a space; a larger gap, another line or another
 * font starts a new run. Characters PDFium makes up (spaces and line ends it infers) are not taken
 * as text, only as the sign that a line ended.
 */
import { Rect, TextPosition } from "../../../schemas/broker/Content.ts"
import { free, heap, malloc, type Pdfium } from "../engine/Pdfium.ts"
import { withPdfiumPage } from "../engine/PdfiumDocuments.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"

/** A gap along the line of more than this many ems, where the file has no space, is read as one. */
const SPACE_MIN_EM = 0.1
/** A gap of more than this many ems starts a new run (columns, table cells, tabs). */
const SPACE_MAX_EM = 0.6
/** A character whose baseline is further than this many ems from the run's is on another line. */
const LINE_OFFSET_EM = 0.3
/** Longer font names are not kept (the PDF standard does not bound them; real ones are short). */
const NAME_BUFFER = 256
const SUBSET_TAG = /^[A-Z]{6}\+/
const utf8 = new TextDecoder()
/** Characters of the scripts written right to left (Hebrew, Arabic, Syriac, Thaana, NKo, and their presentation forms). */
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/u
const LINE_END = new Set([0x0a, 0x0d])
const SPACE = 0x20
const HYPHEN_AT_LINE_END = 0x02

const round2 = (n: number) => Math.round(n * 100) / 100

/** A character of the page, in the displayed page's space (points, origin top left, y down). */
interface Glyph {
  readonly text: string
  /** Where the glyph starts, on its baseline. */
  readonly x: number
  readonly y: number
  /** Its advance box (axis-aligned, the font's ascent to descent), for its extent along the line. */
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
  readonly fontSize: number
  readonly font: number
  /** The unit vector along the baseline. */
  readonly alongX: number
  readonly alongY: number
}

/** A run being built: the glyph it starts with, its text, a width for each character, its extent along its direction. */
interface Run {
  readonly first: Glyph
  /** Each glyph left of the one before: taken from the script of the first, then from where the second stands. */
  rightToLeft: boolean
  /** Written top to bottom, each glyph below the one before (CJK vertical writing). */
  vertical: boolean
  text: string
  widths: Array<number>
  lo: number
  hi: number
  /** The direction the run is read in: along the baseline, or down the column for vertical writing. */
  directionX: number
  directionY: number
  /** The extent of the glyph added last: the next character of a ligature has the same. */
  lastLo: number
  lastHi: number
  /** The union of the glyphs' advance boxes: a vertical run's box. */
  left: number
  top: number
  right: number
  bottom: number
  endsLine: boolean
}

/** The font's ascent and descent in ems, as pdf.js takes them (0.8 and -0.2 where the font gives none). */
interface FontMetrics {
  readonly name: string
  readonly ascent: number
  readonly descent: number
}

/**
 * The module's own functions for what is called for every character: the wrapper's (cwrap) convert
 * every argument and cost about 4 µs a character, most of the time of a page.
 */
interface TextExports {
  FPDFText_CountChars(textPage: number): number
  FPDFText_GetUnicode(textPage: number, index: number): number
  FPDFText_IsGenerated(textPage: number, index: number): number
  FPDFText_GetLooseCharBox(textPage: number, index: number, rect: number): number
  FPDFText_GetCharOrigin(textPage: number, index: number, x: number, y: number): number
  FPDFText_GetMatrix(textPage: number, index: number, matrix: number): number
  FPDFText_GetFontSize(textPage: number, index: number): number
  FPDFText_GetTextObject(textPage: number, index: number): number
  FPDFTextObj_GetFont(textObject: number): number
}

const rawExports = (pdfium: Pdfium) => pdfium.pdfium.wasmExports as unknown as TextExports

/**
 * Maps PDFium's page space (PDF user space) to the displayed page: its crop box as shown, its own
 * /Rotate applied, origin top left, in points. PDFium answers in whole device units, so three
 * points far apart are mapped at a hundredth of a point and the matrix derived from them.
 */
const displayMatrix = (pdfium: Pdfium, page: number, out: number) => {
  const scale = 100
  const width = Math.round(pdfium.FPDF_GetPageWidthF(page) * scale)
  const height = Math.round(pdfium.FPDF_GetPageHeightF(page) * scale)
  const map = (x: number, y: number): readonly [number, number] => {
    pdfium.FPDF_PageToDevice(page, 0, 0, width, height, 0, x, y, out, out + 4)
    return [pdfium.pdfium.getValue(out, "i32") / scale, pdfium.pdfium.getValue(out + 4, "i32") / scale]
  }
  const [e, f] = map(0, 0)
  const [ax, ay] = map(1000, 0)
  const [cx, cy] = map(0, 1000)
  return [(ax - e) / 1000, (ay - f) / 1000, (cx - e) / 1000, (cy - f) / 1000, e, f] as const
}

const metricsOf = (pdfium: Pdfium, textPage: number, index: number, font: number, buffer: number): FontMetrics => {
  // The length counts the closing NUL; one past the buffer means the name did not fit.
  const length = pdfium.FPDFText_GetFontInfo(textPage, index, buffer, NAME_BUFFER, 0)
  const name = length <= 1 || length > NAME_BUFFER
    ? "sans-serif"
    : utf8.decode(heap(pdfium).slice(buffer, buffer + length - 1)).replace(SUBSET_TAG, "")
  const read = (get: typeof pdfium.FPDFFont_GetAscent) =>
    font !== 0 && get(font, 1, buffer) ? pdfium.pdfium.getValue(buffer, "float") : 0
  const ascent = read(pdfium.FPDFFont_GetAscent)
  const descent = read(pdfium.FPDFFont_GetDescent)
  return { name, ascent: ascent > 0 ? ascent : 0.8, descent: descent < 0 ? descent : -0.2 }
}

/**
 * The text positions of page `index` (0-based), through the thread's open PDFium documents (the
 * page stays loaded for the next request, often its image).
 */
export const pageTextPositions = (source: PdfSource, index: number) =>
  withPdfiumPage(source, index, (pdfium, _, page) => readTextPositions(pdfium, page, index))

/** The text positions of a loaded PDFium page, page `pageNumber` (0-based). */
const readTextPositions = (pdfium: Pdfium, page: number, pageNumber: number): Array<TextPosition> => {
  const textPage = pdfium.FPDFText_LoadPage(page)
  if (textPage === 0) return []
  const buffer = malloc(pdfium, NAME_BUFFER)
  try {
    const raw = rawExports(pdfium)
    const [ma, mb, mc, md, me, mf] = displayMatrix(pdfium, page, buffer)
    const toX = (x: number, y: number) => ma * x + mc * y + me
    const toY = (x: number, y: number) => mb * x + md * y + mf
    const fonts = new Map<number, FontMetrics>()
    // The font and its size belong to the text object, whose characters come one after another:
    // asked once per object, not per character (each call into the module costs, most of all
    // before the JIT has warmed up). The matrix is asked per character: an object of a form drawn
    // twice has two.
    let object = -1
    let font = 0
    let size = 0

    const runs: Array<Run> = []
    let run: Run | undefined
    const count = raw.FPDFText_CountChars(textPage)
    for (let i = 0; i < count; i++) {
      const code = raw.FPDFText_GetUnicode(textPage, i)
      // PDFium makes up only spaces and line ends, so only they are asked about.
      const mayBeGenerated = code === SPACE || LINE_END.has(code)
      if (mayBeGenerated && raw.FPDFText_IsGenerated(textPage, i) === 1) {
        if (run !== undefined && code !== SPACE) run.endsLine = true
        continue
      }
      if (LINE_END.has(code) || code === 0 || code > 0x10ffff) continue
      // PDFium marks a hyphen that ends a line with 0x02; the file has a hyphen there. A font may map
      // a glyph to half of a surrogate pair, which no text can hold alone: it reads as U+FFFD.
      const text = code === HYPHEN_AT_LINE_END
        ? "-"
        : code >= 0xd800 && code <= 0xdfff
        ? "\ufffd"
        : String.fromCodePoint(code)
      if (
        !raw.FPDFText_GetLooseCharBox(textPage, i, buffer) ||
        !raw.FPDFText_GetCharOrigin(textPage, i, buffer + 16, buffer + 24) ||
        !raw.FPDFText_GetMatrix(textPage, i, buffer + 32)
      ) continue
      // FS_RECTF left, top, right, bottom (floats); the origin x, y (doubles); FS_MATRIX a, b, ... (floats).
      // Read one by one, with no arrays: this runs for every character, mostly before the JIT has warmed up.
      const floats = (pdfium.pdfium as unknown as { readonly HEAPF32: Float32Array }).HEAPF32
      const doubles = (pdfium.pdfium as unknown as { readonly HEAPF64: Float64Array }).HEAPF64
      const f = buffer >> 2
      const l = floats[f]!, t = floats[f + 1]!, r = floats[f + 2]!, b = floats[f + 3]!
      const ca = floats[f + 8]!, cb = floats[f + 9]!, cc = floats[f + 10]!, cd = floats[f + 11]!
      const ox = doubles[(buffer + 16) >> 3]!, oy = doubles[(buffer + 24) >> 3]!
      // The advance box in the displayed space: a quarter turn at most swaps its sides.
      const x0 = toX(l, t), x1 = toX(r, b), y0 = toY(l, t), y1 = toY(r, b)
      const dx = ma * ca + mc * cb, dy = mb * ca + md * cb
      const norm = Math.hypot(dx, dy) || 1
      // PDFium's size is the one the file sets (Tf); the matrix may scale it, as pdf.js counts it.
      const scale = Math.hypot(ma * cc + mc * cd, mb * cc + md * cd)
      const textObject = raw.FPDFText_GetTextObject(textPage, i)
      if (textObject !== object) {
        object = textObject
        font = object === 0 ? 0 : raw.FPDFTextObj_GetFont(object)
        size = raw.FPDFText_GetFontSize(textPage, i)
        if (!fonts.has(font)) fonts.set(font, metricsOf(pdfium, textPage, i, font, buffer))
      }
      const glyph: Glyph = {
        text,
        x: toX(ox, oy),
        y: toY(ox, oy),
        left: Math.min(x0, x1),
        top: Math.min(y0, y1),
        right: Math.max(x0, x1),
        bottom: Math.max(y0, y1),
        fontSize: size * scale,
        font,
        alongX: dx / norm,
        alongY: dy / norm
      }
      if (run !== undefined && extend(run, glyph)) continue
      if (run !== undefined) runs.push(run)
      run = start(glyph)
    }
    if (run !== undefined) runs.push(run)
    return toPositions(runs, pageNumber, (font) => fonts.get(font)!)
  } finally {
    free(pdfium, buffer)
    pdfium.FPDFText_ClosePage(textPage)
  }
}

/**
 * Where the glyph starts along the direction (dx, dy). Along its baseline, at its origin: PDFium's
 * box also reaches left of the origin where the glyph's ink does (a 'j' reaching under the letter
 * before), which is not where the character starts. Down a vertical column, where its box starts
 * (PDFium's origin of a vertical glyph is not at its top).
 */
const startAlong = (glyph: Glyph, dx: number, dy: number, vertical: boolean) => {
  const boxStart = Math.min(
    glyph.left * dx + glyph.top * dy,
    glyph.right * dx + glyph.top * dy,
    glyph.left * dx + glyph.bottom * dy,
    glyph.right * dx + glyph.bottom * dy
  )
  return vertical ? boxStart : Math.min(glyph.x * dx + glyph.y * dy, endAlong(glyph, dx, dy))
}

/** Where the glyph's advance box ends along the direction (dx, dy). */
const endAlong = (glyph: Glyph, dx: number, dy: number) =>
  Math.max(
    glyph.left * dx + glyph.top * dy,
    glyph.right * dx + glyph.top * dy,
    glyph.left * dx + glyph.bottom * dy,
    glyph.right * dx + glyph.bottom * dy
  )

const start = (glyph: Glyph): Run => {
  const lo = startAlong(glyph, glyph.alongX, glyph.alongY, false)
  const hi = endAlong(glyph, glyph.alongX, glyph.alongY)
  return {
    first: glyph,
    rightToLeft: RIGHT_TO_LEFT.test(glyph.text),
    vertical: false,
    directionX: glyph.alongX,
    directionY: glyph.alongY,
    text: glyph.text,
    widths: [hi - lo],
    lo,
    hi,
    lastLo: lo,
    lastHi: hi,
    left: glyph.left,
    top: glyph.top,
    right: glyph.right,
    bottom: glyph.bottom,
    endsLine: false
  }
}

/** Adds the glyph to the run when it continues it (same font, size, line and direction, a small gap). */
const extend = (run: Run, glyph: Glyph): boolean => {
  const { first } = run
  const em = first.fontSize || 1
  if (run.endsLine || glyph.font !== first.font || Math.abs(glyph.fontSize - first.fontSize) > 0.01 * em) return false
  if (glyph.alongX * first.alongX + glyph.alongY * first.alongY < 0.99) return false
  const fromX = glyph.x - first.x, fromY = glyph.y - first.y
  // A second glyph below the first rather than beside it makes the run vertical: read down the column.
  if (run.widths.length === 1) {
    const down = -fromX * first.alongY + fromY * first.alongX
    const ahead = fromX * first.alongX + fromY * first.alongY
    if (down > 0.5 * em && Math.abs(ahead) < 0.25 * em) {
      run.vertical = true
      run.directionX = -first.alongY
      run.directionY = first.alongX
      run.lo = run.lastLo = startAlong(first, run.directionX, run.directionY, true)
      run.hi = run.lastHi = endAlong(first, run.directionX, run.directionY)
      run.widths = [run.hi - run.lo]
    }
  }
  const { directionX: dx, directionY: dy } = run
  // Off the run's line (or column): too far across it from the first glyph.
  if (Math.abs(-fromX * dy + fromY * dx) > LINE_OFFSET_EM * em) return false
  const lo = startAlong(glyph, dx, dy, run.vertical)
  const hi = endAlong(glyph, dx, dy)
  if (run.widths.length === 1 && !run.vertical) {
    if (hi <= run.lo + 0.05 * em) run.rightToLeft = true
    else if (lo >= run.hi - 0.05 * em) run.rightToLeft = false
  }
  if (Math.abs(lo - run.lastLo) < 0.01 * em && Math.abs(hi - run.lastHi) < 0.01 * em) {
    // The next character of a ligature ("fi" drawn as one glyph): the glyph's width is shared.
    const shared = run.widths.pop()! / 2
    run.widths.push(shared, shared)
    run.text += glyph.text
    return true
  }
  const gap = run.rightToLeft ? run.lo - hi : lo - run.hi
  // A glyph may reach back over the one before by as much as its own width (Arabic joining forms).
  if (gap > SPACE_MAX_EM * em || gap < -Math.max(SPACE_MAX_EM * em, hi - lo)) return false
  if (gap > SPACE_MIN_EM * em && run.text.at(-1) !== " " && glyph.text !== " ") {
    run.text += " "
    run.widths.push(gap)
  } else {
    // Tracking, or kerning that draws a glyph over the one before: the glyph before takes the gap,
    // so that each character starts where the widths before it add up to.
    run.widths[run.widths.length - 1] = Math.max(0, run.widths.at(-1)! + gap)
  }
  run.text += glyph.text
  run.widths.push(hi - lo)
  run.lo = Math.min(run.lo, lo)
  run.hi = Math.max(run.hi, hi)
  run.lastLo = lo
  run.lastHi = hi
  run.left = Math.min(run.left, glyph.left)
  run.top = Math.min(run.top, glyph.top)
  run.right = Math.max(run.right, glyph.right)
  run.bottom = Math.max(run.bottom, glyph.bottom)
  return true
}

/**
 * The run's box. Across a line, the font's descent to ascent from the baseline, as pdf.js drew it
 * (PDFium's advance boxes reach the font's whole bounding box, taller than the glyphs). A vertical
 * run's box is its glyphs' advance boxes, whose width is the column's: PDFium's origin of a
 * vertical glyph is at the column's left, not at its middle.
 */
const boxOf = (run: Run, metrics: FontMetrics) => {
  if (run.vertical) {
    return new Rect({
      x: round2(run.left),
      y: round2(run.top),
      w: round2(run.right - run.left),
      h: round2(run.bottom - run.top)
    }, true)
  }
  const { first } = run
  const em = first.fontSize
  const startAt = first.x * first.alongX + first.y * first.alongY
  // Up from the baseline is (alongY, -alongX), in a space whose y goes down.
  const corners = [run.lo, run.hi].flatMap((at) =>
    [metrics.descent * em, metrics.ascent * em].map((h) =>
      [
        first.x + first.alongX * (at - startAt) + first.alongY * h,
        first.y + first.alongY * (at - startAt) - first.alongX * h
      ] as const
    )
  )
  const xs = corners.map(([x]) => x), ys = corners.map(([, y]) => y)
  const [x, y] = [Math.min(...xs), Math.min(...ys)]
  return new Rect({ x: round2(x), y: round2(y), w: round2(Math.max(...xs) - x), h: round2(Math.max(...ys) - y) }, true)
}

/** Widths to a hundredth of a point, rounded where each character starts, so that they add up as the unrounded do. */
const roundedWidths = (widths: ReadonlyArray<number>) => {
  let at = 0
  let rounded = 0
  return widths.map((width) => {
    at += width
    const next = round2(at)
    const result = round2(next - rounded)
    rounded = next
    return result
  })
}

/** The runs as TextPositions, grouped in paragraphs (docs/layout-and-text.md). */
const toPositions = (runs: ReadonlyArray<Run>, pageNumber: number, fontOf: (font: number) => FontMetrics) => {
  const result: Array<TextPosition> = []
  let paragraphId = 0
  let previous:
    | { readonly bottom: number; readonly left: number; readonly fontSize: number; readonly eol: boolean }
    | undefined
  for (const run of runs) {
    if (run.text.trim() === "") {
      if (previous && run.endsLine) previous = { ...previous, eol: true }
      continue
    }
    const fontSize = run.first.fontSize
    const metrics = fontOf(run.first.font)
    const position = boxOf(run, metrics)
    const rotation =
      ((Math.round((Math.atan2(run.directionY, run.directionX) * 180) / Math.PI / 90) * 90) % 360 + 360) % 360
    const newParagraph = previous === undefined ||
      (previous.eol &&
        (position.y - previous.bottom > 0.6 * fontSize || Math.abs(position.x - previous.left) > 3 * fontSize)) ||
      Math.abs(fontSize - previous.fontSize) > 0.25 * fontSize
    if (newParagraph && previous !== undefined) paragraphId++
    previous = { bottom: position.y + position.h, left: position.x, fontSize, eol: run.endsLine }
    result.push(
      new TextPosition({
        pageNumber,
        position,
        text: run.text,
        individualWidths: roundedWidths(run.widths),
        fontSize: round2(fontSize),
        font: metrics.name,
        clickableDestination: null,
        paragraphId,
        rightToLeftText: run.rightToLeft,
        rotation
      }, true)
    )
  }
  return result
}
