/**
 * An annotation as PDF files, FDF and XFDF hold it: in PDF user space (points, origin at the
 * bottom left of the unrotated page, y upwards), colours as 0–1 components, dates as PDF date
 * strings' instants. Every codec (XFDF, FDF, a PDF's /Annots, appearance streams) reads and writes
 * this one model; the API's Annotation (displayed page space, see docs/annotations.md) is converted
 * to and from it with the page's geometry (PageSpace.ts).
 */
import { Schema } from "effect"
import { LineEnding, PdfAnnotationSubtype } from "../../../schemas/broker/Annotations.ts"

export { LineEnding, PdfAnnotationSubtype }

/** Whether a PDF /Subtype is one the broker keeps (others are passed over when reading a file). */
export const isPdfAnnotationSubtype = Schema.is(PdfAnnotationSubtype)

/** A rectangle as PDF writes it: [x1, y1, x2, y2] with x1 ≤ x2, y1 ≤ y2. */
export const PdfRect = Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.Number)
export type PdfRect = typeof PdfRect.Type

/** An RGB colour, each component from 0 to 1. */
export const PdfColor = Schema.Tuple(Schema.Number, Schema.Number, Schema.Number)
export type PdfColor = typeof PdfColor.Type

export const PdfPoint = Schema.Tuple(Schema.Number, Schema.Number)
export type PdfPoint = typeof PdfPoint.Type

/** /LE of Line and PolyLine: how the start and the end are drawn. */
export const PdfLineEndings = Schema.Tuple(LineEnding, LineEnding)
export type PdfLineEndings = typeof PdfLineEndings.Type

const isLineEnding = Schema.is(LineEnding)
const knownEnding = (name: string | undefined): LineEnding => (isLineEnding(name) ? name : "None")

/**
 * Line endings from the names a file gives (/LE, XFDF head and tail): a missing or unknown name is
 * None, as PDF 32000-1 table 176 says; None at both ends is no endings at all (the default).
 */
export const lineEndingsFrom = (names: ReadonlyArray<string | undefined>): PdfLineEndings | undefined => {
  const endings: PdfLineEndings = [knownEnding(names[0]), knownEnding(names[1])]
  return endings[0] === "None" && endings[1] === "None" ? undefined : endings
}

/** The subtypes that have line endings. */
export const hasLineEndings = (subtype: string) => subtype === "Line" || subtype === "PolyLine"

/** A reply to an annotation (a Text annotation with /IRT naming its parent, in a PDF). */
export const PdfReply = Schema.Struct({
  /** The reply's own name (/NM), unique within the document. */
  name: Schema.String,
  author: Schema.optional(Schema.String),
  contents: Schema.String,
  /** ISO 8601 instant (from /M). */
  modified: Schema.optional(Schema.String),
  created: Schema.optional(Schema.String)
})
export type PdfReply = typeof PdfReply.Type

export const PdfAnnotation = Schema.Struct({
  subtype: PdfAnnotationSubtype,
  /** 0-based page index. */
  page: Schema.Int,
  /** /NM: the annotation's name, unique within the document (the broker's ID when it wrote it). */
  name: Schema.String,
  rect: PdfRect,
  /** /C: the annotation's colour (stroke, markup colour). */
  color: Schema.optional(PdfColor),
  /** /IC: interior (fill) colour of Square, Circle, Polygon, Line endings. */
  interiorColor: Schema.optional(PdfColor),
  /** /CA: constant opacity, 0–1. */
  opacity: Schema.optional(Schema.Number),
  /** /T: the author. */
  author: Schema.optional(Schema.String),
  /** /Subj. */
  subject: Schema.optional(Schema.String),
  /** /Contents: a note's text, FreeText's text, a stamp's or redaction's label. */
  contents: Schema.optional(Schema.String),
  /** /M and /CreationDate as ISO 8601 instants. */
  modified: Schema.optional(Schema.String),
  created: Schema.optional(Schema.String),
  /** /F: annotation flags (bit 2 hidden, 3 print, 7 read-only, 8 locked; PDF 32000-1 table 165). */
  flags: Schema.optional(Schema.Int),
  /** /BS /W: border or line width in points. */
  lineWidth: Schema.optional(Schema.Number),
  /** /QuadPoints of text markup and Redact: quadrilaterals of 4 points each (x1 y1 … x4 y4), as PDF orders them. */
  quadPoints: Schema.optional(Schema.Array(Schema.Number)),
  /** /InkList of Ink: strokes of points. */
  inkList: Schema.optional(Schema.Array(Schema.Array(PdfPoint))),
  /** /Vertices of Polygon and PolyLine; /L of Line (two points). */
  vertices: Schema.optional(Schema.Array(PdfPoint)),
  /** /LE of Line and PolyLine: [start, end]. */
  lineEndings: Schema.optional(PdfLineEndings),
  /** /Name: a Text note's icon or a Stamp's name (Approved, Confidential, …). */
  iconName: Schema.optional(Schema.String),
  /** FreeText: font size in points (from /DA) and text colour. */
  fontSize: Schema.optional(Schema.Number),
  fontColor: Schema.optional(PdfColor),
  /** Redact: /OverlayText drawn in the redacted area. */
  overlayText: Schema.optional(Schema.String),
  /** Text: the review /State (Accepted, Rejected, Cancelled, Completed, None). */
  state: Schema.optional(Schema.String),
  replies: Schema.optional(Schema.Array(PdfReply))
})
export type PdfAnnotation = typeof PdfAnnotation.Type

/** PDF annotation flag bits (PDF 32000-1, table 165). */
export const AnnotationFlag = {
  hidden: 1 << 1,
  print: 1 << 2,
  readOnly: 1 << 6,
  locked: 1 << 7
} as const

/** A rectangle with its corners in order (x1 ≤ x2, y1 ≤ y2); missing numbers are 0. */
export const normaliseRect = ([x1, y1, x2, y2]: ReadonlyArray<number>): PdfRect => [
  Math.min(x1 ?? 0, x2 ?? 0),
  Math.min(y1 ?? 0, y2 ?? 0),
  Math.max(x1 ?? 0, x2 ?? 0),
  Math.max(y1 ?? 0, y2 ?? 0)
]

/** A page rotation as one of 0, 90, 180, 270. */
export const normaliseRotation = (rotation: number) => ((Math.round(rotation / 90) * 90) % 360 + 360) % 360

/** A colour component or opacity kept within 0–1 (not a number: 0). */
export const clamp01 = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0)
