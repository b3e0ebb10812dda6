/**
 * The annotation tools: what each one makes, from what the reader did with it (a text selection, a
 * dragged box, a click, a drawn stroke), with the style chosen for it. Pure: the editor
 * (AnnotationEditor.ts) turns pointer movements into these calls.
 */
import type { AnnotationPolicy, Rect } from "../client/ViewerClient.ts"
import {
  type Annotation,
  type AnnotationType,
  newAnnotationId,
  type Point,
  type Rgb,
  rgbOf,
  unionOf,
  withPosition
} from "./AnnotationModel.ts"

export const TEXT_TOOLS = ["Highlight", "Underline", "StrikeOut", "Squiggly"] as const
export const SHAPE_TOOLS = ["Square", "Circle", "Line", "Arrow", "Polygon", "Ink"] as const
export const PLACED_TOOLS = ["Text", "FreeText", "Stamp"] as const
export const REDACTION_TOOLS = ["RedactText", "Redact"] as const

export type Tool =
  | "select"
  | typeof TEXT_TOOLS[number]
  | typeof SHAPE_TOOLS[number]
  | typeof PLACED_TOOLS[number]
  | typeof REDACTION_TOOLS[number]

/** Tools that mark selected text (the reader selects, the tool marks what is selected). */
export const marksText = (tool: Tool) => tool === "RedactText" || (TEXT_TOOLS as ReadonlyArray<string>).includes(tool)

/** Tools that draw on the page with the pointer (the page takes the pointer instead of the text). */
export const drawsOnPage = (tool: Tool) => tool !== "select" && !marksText(tool)

/** What the reader chose for a tool; each tool remembers its own. */
export interface ToolStyle {
  readonly color: Rgb
  readonly opacity: number
  readonly lineWidth: number
  readonly interiorColor: Rgb | null
  readonly fontSize: number
}

const rgb = (hex: string) => rgbOf(hex)!

export const DEFAULT_STYLES: Readonly<Record<Exclude<Tool, "select">, ToolStyle>> = {
  Highlight: { color: rgb("#ffe600"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 },
  Underline: { color: rgb("#1e6fd9"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 },
  StrikeOut: { color: rgb("#e0281e"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 },
  Squiggly: { color: rgb("#2e9e44"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 },
  Text: { color: rgb("#ffd100"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 },
  FreeText: { color: rgb("#000000"), opacity: 1, lineWidth: 0, interiorColor: null, fontSize: 12 },
  Square: { color: rgb("#e0281e"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 12 },
  Circle: { color: rgb("#e0281e"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 12 },
  Line: { color: rgb("#e0281e"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 12 },
  Arrow: { color: rgb("#e0281e"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 12 },
  Polygon: { color: rgb("#e0281e"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 12 },
  Ink: { color: rgb("#1e6fd9"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 12 },
  Stamp: { color: rgb("#1e7b34"), opacity: 1, lineWidth: 2, interiorColor: null, fontSize: 16 },
  RedactText: { color: rgb("#e0281e"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 },
  Redact: { color: rgb("#e0281e"), opacity: 1, lineWidth: 1, interiorColor: null, fontSize: 12 }
}

/** The colours offered with one click (others through the colour field). */
export const SWATCHES = ["#ffe600", "#ff9f1a", "#e0281e", "#d6336c", "#7048e8", "#1e6fd9", "#2e9e44", "#000000"]

/** Sizes, in points, of what a click (rather than a drag) places. */
export const PLACED_SIZE = {
  Text: { w: 20, h: 20 },
  FreeText: { w: 160, h: 36 },
  Stamp: { w: 150, h: 40 },
  box: { w: 100, h: 60 }
} as const

/** A drag shorter than this (points) is a click. */
export const CLICK_DISTANCE = 3

/** The policy's stamp templates (annotationType Stamp). */
export const stampTemplates = (policy: AnnotationPolicy | null) =>
  (policy?.annotationTemplateCatalog.annotationTemplates ?? []).filter((t) => t.annotationType === "Stamp")

/** A template's text with its placeholders filled (`${user}`, `${date}`). */
export const fillTemplate = (template: string, user: string, now = new Date()) =>
  template.replace(/\$\{user\}/g, user).replace(/\$\{date\}/g, now.toLocaleDateString()).trim()

export interface Making {
  readonly tool: Exclude<Tool, "select">
  readonly page: number
  readonly style: ToolStyle
  /** Stamps: the policy's template; redactions: the reason's symbolic name. */
  readonly stamp?: { readonly name: string; readonly contents: string; readonly color: Rgb | undefined }
  readonly redactReason?: string | undefined
}

const typeOfTool = (tool: Exclude<Tool, "select">): AnnotationType => (tool === "Arrow" ? "Line" : tool)

const base = (m: Making): Annotation => ({
  id: newAnnotationId(),
  type: typeOfTool(m.tool),
  page: m.page,
  position: { x: 0, y: 0, w: 0, h: 0 },
  color: m.style.color,
  ...(m.style.opacity < 1 ? { opacity: m.style.opacity } : {}),
  ...(m.redactReason !== undefined && (m.tool === "Redact" || m.tool === "RedactText")
    ? { redactReason: m.redactReason }
    : {})
})

/** A text markup or text redaction over the selected text's boxes. */
export const fromQuads = (m: Making, quads: ReadonlyArray<Rect>, text: string): Annotation => ({
  ...base(m),
  position: unionOf(quads),
  quadPoints: quads,
  // What was marked, so the list and a redaction's review can show it.
  contents: text
})

/** A box tool's annotation over `box` (a shape, a note, free text, a stamp, an area redaction). */
export const fromBox = (m: Making, box: Rect): Annotation => {
  const a = { ...base(m), position: box }
  switch (m.tool) {
    case "Square":
    case "Circle":
      return {
        ...a,
        lineWidth: m.style.lineWidth,
        ...(m.style.interiorColor ? { interiorColor: m.style.interiorColor } : {})
      }
    case "FreeText": {
      const { color: _ignored, ...rest } = a
      return {
        ...rest,
        contents: "",
        fontSize: m.style.fontSize,
        fontColor: m.style.color,
        lineWidth: m.style.lineWidth,
        ...(m.style.interiorColor ? { color: m.style.interiorColor } : {})
      }
    }
    case "Stamp":
      return {
        ...a,
        ...(m.stamp ? { stampName: m.stamp.name, contents: m.stamp.contents } : {}),
        color: m.stamp?.color ?? m.style.color
      }
    case "Text":
      return { ...a, contents: "", stampName: "Comment" }
    default:
      return a
  }
}

/** A line, an arrow, a polygon or an ink stroke through `points`. */
export const fromPoints = (m: Making, points: ReadonlyArray<Point>): Annotation => {
  const a = { ...base(m), lineWidth: m.style.lineWidth }
  if (m.tool === "Ink") return withPosition({ ...a, inkList: [points] })
  return withPosition({
    ...a,
    points,
    ...(m.tool === "Arrow" ? { lineEndings: ["None", "OpenArrow"] as const } : {}),
    ...(m.tool === "Polygon" && m.style.interiorColor ? { interiorColor: m.style.interiorColor } : {})
  })
}

/** The box between two points, at least `min` points wide and tall. */
export const boxBetween = (a: Point, b: Point): Rect => ({
  x: Math.min(a.x, b.x),
  y: Math.min(a.y, b.y),
  w: Math.abs(b.x - a.x),
  h: Math.abs(b.y - a.y)
})

/** A tool's annotation type, for labels and filters. */
export const annotationTypeOf = typeOfTool
