/**
 * Appearance streams for the annotation model: the content of the form XObject that shows one
 * annotation, so that every viewer (and a flattened copy) draws it the same way instead of
 * synthesising its own. Pure: it returns content-stream text plus what the form's resources need;
 * PdfAnnotations.ts turns that into PDF objects. The paths and frames it draws with are in
 * AppearanceGeometry.ts, the fitting of text to a font and a width in AppearanceText.ts.
 *
 * Every form has /BBox = the annotation's /Rect and the identity /Matrix, so the content is written
 * in user space and a viewer maps it onto the page unchanged (PDF 32000-1, 12.5.5, algorithm 8.1);
 * the BBox also clips, so nothing is ever drawn outside the rectangle. What is geometry (quads, ink,
 * shapes) is drawn where its points are; what must read upright (FreeText, Stamp, the note icon) is
 * drawn in a frame turned against the page's /Rotate, because a viewer turns the annotation's
 * appearance with the page.
 */
import {
  boxHolding,
  cm,
  ellipse,
  lineEndingPath,
  num,
  polyline,
  quadFrame,
  quadsOf,
  roundedBox,
  uprightFrame
} from "./AppearanceGeometry.ts"
import { type AppearanceFont, encodable, wrapText } from "./AppearanceText.ts"
import {
  clamp01,
  type LineEnding,
  normaliseRect,
  type PdfAnnotation,
  type PdfColor,
  type PdfPoint,
  type PdfRect
} from "./PdfAnnotation.ts"

export type AppearanceFontKind = "regular" | "bold"

/** Resource names of the two fonts inside appearance streams. */
export const APPEARANCE_FONT_NAMES: Readonly<Record<AppearanceFontKind, string>> = { regular: "Helv", bold: "HeBo" }

export interface GraphicsState {
  /** Fill and stroke opacity (/ca /CA). */
  readonly opacity?: number
  readonly multiply?: boolean
}

export interface Appearance {
  /** The form's content stream, in user space. */
  readonly content: string
  /** The form's /BBox (the annotation's normalised /Rect). */
  readonly bbox: PdfRect
  readonly fonts: ReadonlyArray<AppearanceFontKind>
  /** The graphics state the content selects as /GS0, when it needs one. */
  readonly graphicsState?: GraphicsState
  /** Characters the font could not show, replaced in the drawing (the annotation keeps them). */
  readonly replaced: ReadonlyArray<string>
}

export interface AppearanceContext {
  /** The page's /Rotate, clockwise. */
  readonly rotation: number
  readonly font: (kind: AppearanceFontKind) => AppearanceFont
}

// ---------------------------------------------------------------------------------------------
// Colours

const rgb = (c: PdfColor) => `${num(clamp01(c[0]))} ${num(clamp01(c[1]))} ${num(clamp01(c[2]))}`
const fill = (c: PdfColor) => `${rgb(c)} rg`
const stroke = (c: PdfColor) => `${rgb(c)} RG`

const RED: PdfColor = [1, 0, 0]
const BLACK: PdfColor = [0, 0, 0]
const YELLOW: PdfColor = [1, 1, 0]
const NOTE_YELLOW: PdfColor = [1, 0.82, 0]
const INK_DARK: PdfColor = [0.2, 0.2, 0.2]

/** Default colours where the annotation names none (the annotation itself keeps no /C). */
export const defaultColor = (a: PdfAnnotation): PdfColor =>
  a.color ?? (a.subtype === "Highlight" ? YELLOW : a.subtype === "Text" ? NOTE_YELLOW : RED)

// ---------------------------------------------------------------------------------------------
// The appearances

interface Drawn {
  readonly ops: Array<string>
  /** The form's box when the drawing reaches past the annotation's rectangle (a line's stroke and endings). */
  readonly bbox?: PdfRect
  readonly fonts?: ReadonlyArray<AppearanceFontKind>
  readonly replaced?: ReadonlyArray<string>
  readonly multiply?: boolean
}

const highlight = (a: PdfAnnotation, rect: PdfRect, rotation: number): Drawn => {
  // One path for all quads: where quads overlap, one fill paints once.
  const ops = [fill(defaultColor(a))]
  for (const q of quadsOf(a, rect, rotation)) ops.push(...polyline([q.ll, q.lr, q.ur, q.ul], true))
  ops.push("f")
  return { ops, multiply: true }
}

const textLine = (a: PdfAnnotation, rect: PdfRect, rotation: number, position: "under" | "through"): Drawn => {
  const ops = [stroke(defaultColor(a)), "0 J"]
  for (const q of quadsOf(a, rect, rotation)) {
    const f = quadFrame(q)
    if (f.length === 0 || f.height === 0) continue
    const width = a.lineWidth ?? Math.max(0.5, f.height / 14)
    const t = position === "under" ? Math.min(width, f.height / 2) : f.height / 2
    const [x1, y1] = f.at(0, t)
    const [x2, y2] = f.at(f.length, t)
    ops.push(`${num(width)} w`, `${num(x1)} ${num(y1)} m`, `${num(x2)} ${num(y2)} l`, "S")
  }
  return { ops }
}

const squiggly = (a: PdfAnnotation, rect: PdfRect, rotation: number): Drawn => {
  const ops = [stroke(defaultColor(a)), "1 j", "0 J"]
  for (const q of quadsOf(a, rect, rotation)) {
    const f = quadFrame(q)
    if (f.length === 0 || f.height === 0) continue
    const width = a.lineWidth ?? Math.max(0.5, f.height / 18)
    const low = width / 2
    const high = Math.max(low + width, f.height / 7)
    const step = Math.max(1, (high - low) * 1.2)
    const points: Array<PdfPoint> = []
    const count = Math.max(1, Math.round(f.length / step))
    for (let i = 0; i <= count; i++) points.push(f.at((f.length * i) / count, i % 2 === 0 ? low : high))
    ops.push(`${num(width)} w`, ...polyline(points, false), "S")
  }
  return { ops }
}

/** The note icons, drawn in a 20 × 20 box (y up), filled with the note's colour and outlined in dark grey. */
const NOTE_ICONS: Readonly<Record<string, ReadonlyArray<string>>> = {
  Comment: [
    "4.5 6 m 5.5 6 l 4 1.5 l 10 6 l 15.5 6 l 17.16 6 18.5 7.34 18.5 9 c 18.5 15.5 l",
    "18.5 17.16 17.16 18.5 15.5 18.5 c 4.5 18.5 l 2.84 18.5 1.5 17.16 1.5 15.5 c 1.5 9 l 1.5 7.34 2.84 6 4.5 6 c h B",
    "5 15 m 15 15 l 5 12 m 15 12 l 5 9 m 12 9 l S"
  ],
  Note: [
    "3 1 m 17 1 l 17 14 l 12 19 l 3 19 l h B",
    "12 19 m 12 14 l 17 14 l S",
    "6 11 m 14 11 l 6 8 m 14 8 l 6 5 m 11 5 l S"
  ],
  Insert: ["2 2 m 10 18 l 18 2 l h B"],
  Key: [...ellipse(6.5, 13.5, 5, 5), "B", "3 w 9.5 10.5 m 17.5 2.5 l S", "2 w 14.5 5.5 m 17 8 l S"],
  Help: [...ellipse(10, 10, 8.5, 8.5), "B"],
  Paragraph: [...ellipse(10, 10, 8.5, 8.5), "B"],
  NewParagraph: ["2 2 m 10 18 l 18 2 l h B"]
}

/** Glyphs drawn over an icon in bold Helvetica: [text, x, baseline, size]. */
const NOTE_GLYPHS: Readonly<Record<string, readonly [string, number, number, number]>> = {
  Help: ["?", 10, 5.2, 13],
  Paragraph: ["\u00b6", 10, 5.5, 12],
  NewParagraph: ["\u00b6", 10, 3.5, 9]
}

const note = (a: PdfAnnotation, rect: PdfRect, ctx: AppearanceContext): Drawn => {
  const f = uprightFrame(rect, ctx.rotation)
  const size = Math.min(f.width, f.height)
  if (size <= 0) return { ops: [] }
  const icon = a.iconName !== undefined && a.iconName in NOTE_ICONS ? a.iconName : "Comment"
  const s = size / 20
  const ops = [
    cm(f.matrix),
    cm([s, 0, 0, s, 0, f.height - size]),
    fill(defaultColor(a)),
    stroke(INK_DARK),
    "1 w 1 j 1 J",
    ...NOTE_ICONS[icon]!
  ]
  const glyph = NOTE_GLYPHS[icon]
  if (!glyph) return { ops }
  const bold = ctx.font("bold")
  const [text, cx, baseline, fontSize] = glyph
  const width = bold.widthOfTextAtSize(text, fontSize)
  ops.push(
    "BT",
    fill(INK_DARK),
    `/${APPEARANCE_FONT_NAMES.bold} ${fontSize} Tf`,
    `1 0 0 1 ${num(cx - width / 2)} ${num(baseline)} Tm`,
    `${bold.encodeText(text).toString()} Tj`,
    "ET"
  )
  return { ops, fonts: ["bold"] }
}

const DEFAULT_FONT_SIZE = 12

const freeText = (a: PdfAnnotation, rect: PdfRect, ctx: AppearanceContext): Drawn => {
  const f = uprightFrame(rect, ctx.rotation)
  const font = ctx.font("regular")
  const size = a.fontSize !== undefined && a.fontSize > 0 ? a.fontSize : DEFAULT_FONT_SIZE
  const border = a.lineWidth ?? 0
  const padding = border + 2
  const { text, replaced } = encodable(font, a.contents ?? "")
  const lines = wrapText(font, text, size, Math.max(size, f.width - 2 * padding))
  const ops = [cm(f.matrix)]
  if (a.color) ops.push(fill(a.color), `0 0 ${num(f.width)} ${num(f.height)} re f`)
  if (border > 0) {
    ops.push(stroke(a.fontColor ?? BLACK), `${num(border)} w`)
    ops.push(`${num(border / 2)} ${num(border / 2)} ${num(f.width - border)} ${num(f.height - border)} re S`)
  }
  const leading = size * 1.2
  // Helvetica's ascender is 0.718 em: the first baseline leaves that much below the top padding.
  let baseline = f.height - padding - size * 0.75
  ops.push("BT", fill(a.fontColor ?? BLACK), `/${APPEARANCE_FONT_NAMES.regular} ${num(size)} Tf`)
  for (const line of lines) {
    if (baseline < -size) break
    if (line !== "") ops.push(`1 0 0 1 ${num(padding)} ${num(baseline)} Tm`, `${font.encodeText(line).toString()} Tj`)
    baseline -= leading
  }
  ops.push("ET")
  return { ops, fonts: ["regular"], replaced }
}

/** A stamp's /Name as words ("NotApproved" → "NOT APPROVED", Acrobat's "SBApproved"/"#DApproved" → "APPROVED"). */
export const stampLabel = (a: PdfAnnotation): string => {
  const name = a.iconName?.replace(/^#/, "").replace(/^(SB|SH|D)(?=[A-Z][a-z])/, "")
  const label = name && name.length > 0
    ? name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ")
    : (a.contents ?? "Stamp")
  return label.toUpperCase()
}

const stamp = (a: PdfAnnotation, rect: PdfRect, ctx: AppearanceContext): Drawn => {
  const f = uprightFrame(rect, ctx.rotation)
  if (f.width <= 0 || f.height <= 0) return { ops: [] }
  const color = defaultColor(a)
  const border = a.lineWidth ?? Math.max(1, Math.min(f.width, f.height) * 0.06)
  const inset = border / 2 + Math.min(1, f.height * 0.02)
  const bold = ctx.font("bold")
  const { text, replaced } = encodable(bold, stampLabel(a).replace(/\s+/g, " ").trim())
  const ops = [
    cm(f.matrix),
    stroke(color),
    `${num(border)} w`,
    ...roundedBox(inset, inset, f.width - 2 * inset, f.height - 2 * inset, f.height * 0.2),
    "S"
  ]
  const room = f.width - 2 * inset - 2 * border - f.height * 0.2
  const perPoint = bold.widthOfTextAtSize(text, 1)
  const size = Math.max(0, Math.min(f.height * 0.55, perPoint > 0 ? room / perPoint : Infinity))
  if (size > 0 && text !== "") {
    const width = perPoint * size
    // Capitals of Helvetica-Bold are 0.718 em tall: centre them.
    ops.push(
      "BT",
      fill(color),
      `/${APPEARANCE_FONT_NAMES.bold} ${num(size)} Tf`,
      `1 0 0 1 ${num((f.width - width) / 2)} ${num((f.height - size * 0.718) / 2)} Tm`,
      `${bold.encodeText(text).toString()} Tj`,
      "ET"
    )
  }
  return { ops, fonts: ["bold"], replaced }
}

const shape = (a: PdfAnnotation, rect: PdfRect, kind: "Square" | "Circle"): Drawn => {
  const [x1, y1, x2, y2] = rect
  const width = a.lineWidth ?? 1
  const ops: Array<string> = []
  const strokes = width > 0
  const fills = a.interiorColor !== undefined
  if (!strokes && !fills) return { ops }
  if (strokes) ops.push(stroke(defaultColor(a)), `${num(width)} w`)
  if (fills) ops.push(fill(a.interiorColor!))
  // The border lies inside the rectangle, as the shape is inscribed in it.
  const inset = strokes ? width / 2 : 0
  const w = Math.max(0, x2 - x1 - 2 * inset)
  const h = Math.max(0, y2 - y1 - 2 * inset)
  if (kind === "Square") ops.push(`${num(x1 + inset)} ${num(y1 + inset)} ${num(w)} ${num(h)} re`)
  else ops.push(...ellipse((x1 + x2) / 2, (y1 + y2) / 2, w / 2, h / 2))
  ops.push(strokes && fills ? "B" : strokes ? "S" : "f")
  return { ops }
}

const path = (a: PdfAnnotation, points: ReadonlyArray<PdfPoint>, close: boolean): Drawn => {
  const width = a.lineWidth ?? 1
  const fills = close && a.interiorColor !== undefined
  if (points.length === 0 || (width <= 0 && !fills)) return { ops: [] }
  const ops = [stroke(defaultColor(a)), `${num(width)} w`, "1 j 1 J"]
  if (fills) ops.push(fill(a.interiorColor!))
  ops.push(...polyline(points, close), width > 0 ? (fills ? "B" : "S") : "f")
  return { ops }
}

/**
 * How far from the tip a line ending reaches: an arrowhead's length and a box's side, in
 * proportion to the line's width as Acrobat draws them, never under 6 points.
 */
const endingSize = (width: number) => Math.max(6, 4.5 * width)

/**
 * The way a path leaves at its end `tip`, `others` being its other points from the tip's neighbour
 * on: from the first of them that is not the tip towards it (none when every point is the tip).
 */
const outwardAt = (tip: PdfPoint, others: ReadonlyArray<PdfPoint>): PdfPoint | undefined => {
  const from = others.find(([x, y]) => x !== tip[0] || y !== tip[1])
  if (from === undefined) return undefined
  const length = Math.hypot(tip[0] - from[0], tip[1] - from[1])
  return [(tip[0] - from[0]) / length, (tip[1] - from[1]) / length]
}

/**
 * A Line or PolyLine: its path, then its /LE endings, stroked like it, the closed ones filled with
 * the interior colour when there is one (PDF 32000-1 12.5.6.7). The form's box holds the whole
 * stroke and the endings, which reach past the line's own rectangle (a level line's has no
 * height: as the box, it would clip the line away).
 */
const lineWithEndings = (a: PdfAnnotation, points: ReadonlyArray<PdfPoint>, rect: PdfRect): Drawn => {
  const line = path(a, points, false)
  const [startEnding, endEnding] = a.lineEndings ?? ["None", "None"]
  const width = a.lineWidth ?? 1
  const ending = (kind: LineEnding, tip: PdfPoint | undefined, others: ReadonlyArray<PdfPoint>) => {
    const outward = tip === undefined ? undefined : outwardAt(tip, others)
    return tip === undefined || outward === undefined
      ? undefined
      : lineEndingPath(kind, tip, outward, endingSize(width))
  }
  const endings = [
    ending(startEnding, points[0], points.slice(1)),
    ending(endEnding, points.at(-1), points.slice(0, -1).reverse())
  ].filter((e) => e !== undefined)
  const ops = line.ops.length > 0 || endings.length === 0
    ? [...line.ops]
    : [stroke(defaultColor(a)), `${num(width)} w`, "1 j 1 J"]
  const filled = a.interiorColor
  if (filled && endings.length > 0) ops.push(fill(filled))
  for (const e of endings) {
    const paint = e.closed && filled ? (width > 0 ? "B" : "f") : width > 0 ? "S" : "n"
    ops.push(...e.ops, paint)
  }
  return { ops, bbox: boxHolding(rect, [...points, ...endings.flatMap((e) => e.reach)], width / 2) }
}

const ink = (a: PdfAnnotation): Drawn => {
  const width = a.lineWidth ?? 1
  const strokes = (a.inkList ?? []).filter((s) => s.length > 0)
  if (strokes.length === 0 || width <= 0) return { ops: [] }
  // One path: where strokes cross, a translucent ink does not darken.
  return {
    ops: [stroke(defaultColor(a)), `${num(width)} w`, "1 j 1 J", ...strokes.flatMap((s) => polyline(s, false)), "S"]
  }
}

const redactOutline = (a: PdfAnnotation, rect: PdfRect, rotation: number): Drawn => {
  const width = a.lineWidth ?? 1
  const ops = [stroke(defaultColor(a)), `${num(width)} w`, "0 j"]
  // Each area's outline lies just inside it (the rectangle clips what is outside).
  for (const q of quadsOf(a, rect, rotation)) {
    const f = quadFrame(q)
    const i = Math.min(width / 2, f.length / 2, f.height / 2)
    ops.push(
      ...polyline([f.at(i, i), f.at(f.length - i, i), f.at(f.length - i, f.height - i), f.at(i, f.height - i)], true)
    )
  }
  ops.push("S")
  return { ops }
}

/** What a Redact shows once applied (its /RO): the areas filled with /IC (black by default) and /OverlayText over them. */
const redactOverlay = (a: PdfAnnotation, rect: PdfRect, ctx: AppearanceContext): Drawn => {
  const ops = [fill(a.interiorColor ?? BLACK)]
  if (a.quadPoints && a.quadPoints.length >= 8) {
    for (const q of quadsOf(a, rect, ctx.rotation)) ops.push(...polyline([q.ll, q.lr, q.ur, q.ul], true))
  } else {
    ops.push(`${num(rect[0])} ${num(rect[1])} ${num(rect[2] - rect[0])} ${num(rect[3] - rect[1])} re`)
  }
  ops.push("f")
  if (!a.overlayText) return { ops }
  const f = uprightFrame(rect, ctx.rotation)
  const font = ctx.font("regular")
  const { text, replaced } = encodable(font, a.overlayText)
  const size = Math.min(a.fontSize ?? 10, f.height * 0.8)
  ops.push(
    "q",
    cm(f.matrix),
    "BT",
    fill(a.fontColor ?? [1, 1, 1]),
    `/${APPEARANCE_FONT_NAMES.regular} ${num(size)} Tf`,
    `1 0 0 1 1 ${num((f.height - size * 0.718) / 2)} Tm`,
    `${font.encodeText(text).toString()} Tj`,
    "ET",
    "Q"
  )
  return { ops, fonts: ["regular"], replaced }
}

const finish = (a: PdfAnnotation, bbox: PdfRect, drawn: Drawn): Appearance => {
  const opacity = a.opacity !== undefined && a.opacity < 1 ? clamp01(a.opacity) : undefined
  const needsState = opacity !== undefined || drawn.multiply === true
  const graphicsState: GraphicsState | undefined = needsState
    ? { ...(opacity !== undefined ? { opacity } : {}), ...(drawn.multiply ? { multiply: true } : {}) }
    : undefined
  const body = drawn.ops.length === 0 ? [] : ["q", ...(needsState ? ["/GS0 gs"] : []), ...drawn.ops, "Q"]
  return {
    content: body.join("\n"),
    bbox,
    fonts: drawn.fonts ?? [],
    ...(graphicsState ? { graphicsState } : {}),
    replaced: drawn.replaced ?? []
  }
}

/**
 * The normal appearance (/AP /N) of an annotation. `flatten` changes only Redact: instead of the
 * outline that marks an area to redact, a black box over its whole rectangle.
 */
export const normalAppearance = (a: PdfAnnotation, ctx: AppearanceContext, flatten = false): Appearance => {
  const rect = normaliseRect(a.rect)
  const drawn = ((): Drawn => {
    switch (a.subtype) {
      case "Highlight":
        return highlight(a, rect, ctx.rotation)
      case "Underline":
        return textLine(a, rect, ctx.rotation, "under")
      case "StrikeOut":
        return textLine(a, rect, ctx.rotation, "through")
      case "Squiggly":
        return squiggly(a, rect, ctx.rotation)
      case "Text":
        return note(a, rect, ctx)
      case "FreeText":
        return freeText(a, rect, ctx)
      case "Square":
      case "Circle":
        return shape(a, rect, a.subtype)
      case "Line":
        return lineWithEndings(a, (a.vertices ?? []).slice(0, 2), rect)
      case "Polygon":
        return path(a, a.vertices ?? [], true)
      case "PolyLine":
        return lineWithEndings(a, a.vertices ?? [], rect)
      case "Ink":
        return ink(a)
      case "Stamp":
        return stamp(a, rect, ctx)
      case "Redact":
        return flatten
          ? {
            ops: [
              fill(BLACK),
              `${num(rect[0])} ${num(rect[1])} ${num(rect[2] - rect[0])} ${num(rect[3] - rect[1])} re f`
            ]
          }
          : redactOutline(a, rect, ctx.rotation)
    }
  })()
  // A flattened redaction box is opaque whatever the annotation's opacity.
  return finish(a.subtype === "Redact" && flatten ? { ...a, opacity: 1 } : a, drawn.bbox ?? rect, drawn)
}

/** The redaction overlay appearance (/RO) of a Redact annotation. */
export const redactOverlayAppearance = (a: PdfAnnotation, ctx: AppearanceContext): Appearance =>
  finish({ ...a, opacity: 1 }, normaliseRect(a.rect), redactOverlay(a, normaliseRect(a.rect), ctx))

/** An appearance that draws nothing (replies: their parent's icon already shows). */
export const emptyAppearance = (rect: PdfRect): Appearance => ({
  content: "",
  bbox: normaliseRect(rect),
  fonts: [],
  replaced: []
})
