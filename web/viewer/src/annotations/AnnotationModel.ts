/**
 * Annotations as the browser holds them: the viewer service's `annotations` routes' shape (the
 * broker's annotation with a plain string ID, docs/annotations.md and docs/viewer.md). Geometry is in
 * points on the page as displayed (its own rotation applied), from its top left corner, y downwards:
 * the space of pageContent's text positions, so a highlight made from text lands on the text.
 * Everything here is pure: what an annotation's geometry is, and how a move or a resize changes it.
 */
import type { Rect } from "../client/ViewerClient.ts"

export interface Rgb {
  readonly r: number
  readonly g: number
  readonly b: number
}

export interface Point {
  readonly x: number
  readonly y: number
}

export interface Reply {
  readonly id?: string
  readonly creator?: string
  readonly date?: string
  readonly contents: string
}

export interface AnnotationFlags {
  readonly hidden: boolean
  readonly readonly: boolean
  readonly locked: boolean
  readonly print: boolean
}

export const TEXT_MARKUP_TYPES = ["Highlight", "Underline", "StrikeOut", "Squiggly"] as const
export const REDACTION_TYPES = ["RedactText", "Redact"] as const

export type AnnotationType =
  | typeof TEXT_MARKUP_TYPES[number]
  | typeof REDACTION_TYPES[number]
  | "Text"
  | "FreeText"
  | "Square"
  | "Circle"
  | "Line"
  | "Polygon"
  | "PolyLine"
  | "Ink"
  | "Stamp"

/** PDF line endings (PDF 32000-1, table 176): what a Line or PolyLine ends with. */
export type LineEnding =
  | "None"
  | "Square"
  | "Circle"
  | "Diamond"
  | "OpenArrow"
  | "ClosedArrow"
  | "Butt"
  | "ROpenArrow"
  | "RClosedArrow"
  | "Slash"

export interface Annotation {
  readonly id: string
  readonly type: AnnotationType
  /** 0-based. */
  readonly page: number
  readonly position: Rect
  readonly color?: Rgb
  readonly opacity?: number
  readonly creator?: string
  readonly subject?: string
  readonly date?: string
  readonly creationDate?: string
  readonly flags?: AnnotationFlags
  readonly contents?: string
  readonly replies?: ReadonlyArray<Reply>
  readonly status?: string
  readonly quadPoints?: ReadonlyArray<Rect>
  readonly points?: ReadonlyArray<Point>
  readonly inkList?: ReadonlyArray<ReadonlyArray<Point>>
  readonly interiorColor?: Rgb
  readonly lineWidth?: number
  readonly fontSize?: number
  readonly fontColor?: Rgb
  readonly stampName?: string
  readonly redactReason?: string
  readonly lineEndings?: readonly [LineEnding, LineEnding]
  /** "file": read from the PDF itself; "store": kept by the broker (or the provider). */
  readonly origin?: "store" | "file"
}

/** A mutable draft, for building an annotation field by field. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] }

export const isTextMarkup = (type: AnnotationType) => (TEXT_MARKUP_TYPES as ReadonlyArray<string>).includes(type)
export const isRedaction = (type: AnnotationType) => (REDACTION_TYPES as ReadonlyArray<string>).includes(type)

/**
 * Drawn over text (highlights, underlines, text redactions): such an annotation leaves the pointer to
 * the text layer, so text can still be selected through it; a click on it is found by its boxes.
 */
export const liesOverText = (type: AnnotationType) => isTextMarkup(type) || type === "RedactText"

/** Review states a note can have (the broker's `status`). */
export const REVIEW_STATES = ["None", "Accepted", "Rejected", "Cancelled", "Completed"] as const

/** Defaults where an annotation names no colour: those the broker draws it with (AppearanceStreams.ts). */
export const defaultColor = (a: Pick<Annotation, "type" | "color">): Rgb =>
  a.color ??
    (a.type === "Highlight"
      ? { r: 255, g: 255, b: 0 }
      : a.type === "Text"
      ? { r: 255, g: 209, b: 0 }
      : { r: 255, g: 0, b: 0 })

export const cssColor = ({ r, g, b }: Rgb) => `rgb(${r} ${g} ${b})`

export const hexColor = ({ r, g, b }: Rgb) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, "0")).join("")}`

export const rgbOf = (hex: string): Rgb | undefined => {
  const match = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex.trim())
  return match ? { r: parseInt(match[1]!, 16), g: parseInt(match[2]!, 16), b: parseInt(match[3]!, 16) } : undefined
}

/** A new annotation ID, made in the browser (the broker keeps it: undo and later edits can name it). */
export const newAnnotationId = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(12))
  return `a${btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`
}

// ---- Geometry ---------------------------------------------------------------------------------

const boundsOfPoints = (points: ReadonlyArray<Point>, pad = 0): Rect => {
  let x0 = Infinity
  let y0 = Infinity
  let x1 = -Infinity
  let y1 = -Infinity
  for (const { x, y } of points) {
    x0 = Math.min(x0, x)
    y0 = Math.min(y0, y)
    x1 = Math.max(x1, x)
    y1 = Math.max(y1, y)
  }
  if (!Number.isFinite(x0)) return { x: 0, y: 0, w: 0, h: 0 }
  return { x: x0 - pad, y: y0 - pad, w: x1 - x0 + 2 * pad, h: y1 - y0 + 2 * pad }
}

export const unionOf = (rects: ReadonlyArray<Rect>): Rect =>
  boundsOfPoints(rects.flatMap((r) => [{ x: r.x, y: r.y }, { x: r.x + r.w, y: r.y + r.h }]))

/** Where an annotation is drawn: its points, strokes or quads when it has them, else its position. */
export const boundsOf = (a: Annotation): Rect => {
  const pad = (a.lineWidth ?? 1) / 2
  if (a.type === "Ink" && a.inkList && a.inkList.length > 0) return boundsOfPoints(a.inkList.flat(), pad)
  if ((a.type === "Line" || a.type === "Polygon" || a.type === "PolyLine") && a.points && a.points.length > 0) {
    return boundsOfPoints(a.points, pad)
  }
  if (a.quadPoints && a.quadPoints.length > 0) return unionOf(a.quadPoints)
  return a.position
}

/** A map of the page onto itself: a move, or a scale about a fixed point. */
export interface Transform {
  readonly sx: number
  readonly sy: number
  readonly tx: number
  readonly ty: number
}

const apply = (t: Transform, p: Point): Point => ({ x: p.x * t.sx + t.tx, y: p.y * t.sy + t.ty })

const applyRect = (t: Transform, r: Rect): Rect => {
  const a = apply(t, { x: r.x, y: r.y })
  const b = apply(t, { x: r.x + r.w, y: r.y + r.h })
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(b.x - a.x), h: Math.abs(b.y - a.y) }
}

export const translation = (dx: number, dy: number): Transform => ({ sx: 1, sy: 1, tx: dx, ty: dy })

/** The transform that maps rectangle `from` onto `to`. */
export const rectToRect = (from: Rect, to: Rect): Transform => {
  const sx = from.w === 0 ? 1 : to.w / from.w
  const sy = from.h === 0 ? 1 : to.h / from.h
  return { sx, sy, tx: to.x - from.x * sx, ty: to.y - from.y * sy }
}

/** The annotation with all its geometry mapped by `t` (text sizes and line widths stay). */
export const transformed = (a: Annotation, t: Transform): Annotation => ({
  ...a,
  position: applyRect(t, a.position),
  ...(a.quadPoints ? { quadPoints: a.quadPoints.map((q) => applyRect(t, q)) } : {}),
  ...(a.points ? { points: a.points.map((p) => apply(t, p)) } : {}),
  ...(a.inkList ? { inkList: a.inkList.map((stroke) => stroke.map((p) => apply(t, p))) } : {})
})

/** Keeps `r` on a page of `size` (points), moving it rather than shrinking it. */
export const keepOnPage = (r: Rect, size: { readonly width: number; readonly height: number }): Transform => {
  const dx = r.x < 0 ? -r.x : r.x + r.w > size.width ? size.width - r.x - r.w : 0
  const dy = r.y < 0 ? -r.y : r.y + r.h > size.height ? size.height - r.y - r.h : 0
  return translation(dx, dy)
}

/** The annotation's position refreshed from its geometry (after a change of points, strokes or quads). */
export const withPosition = (a: Annotation): Annotation => ({ ...a, position: boundsOf(a) })

/** Annotations that can be moved and resized as a box (text markups follow their text; notes only move). */
export const isResizable = (a: Annotation) => !isTextMarkup(a.type) && a.type !== "RedactText" && a.type !== "Text"

export const isLocked = (a: Annotation) => a.flags?.locked === true || a.flags?.readonly === true

/** A stamp's label as the broker draws it: its name as words, upper case (AppearanceStreams.ts stampLabel). */
export const stampLabel = (a: Pick<Annotation, "stampName" | "contents">): string => {
  const name = a.stampName?.replace(/^#/, "").replace(/^(SB|SH|D)(?=[A-Z][a-z])/, "")
  const label = name && name.length > 0
    ? name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ")
    : (a.contents ?? "Stamp")
  return label.toUpperCase()
}
