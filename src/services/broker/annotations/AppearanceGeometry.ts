/**
 * The geometry of appearance streams, in user space: numbers as operands, the upright frame of a
 * rectangle on a turned page, and the paths the appearances are made of (ellipses, rounded boxes,
 * polylines, line endings, the quadrilaterals of text markup).
 */
import { apply, type Matrix } from "../engine/Matrix.ts"
import {
  type LineEnding,
  normaliseRect,
  normaliseRotation,
  type PdfAnnotation,
  type PdfPoint,
  type PdfRect
} from "./PdfAnnotation.ts"

/** A number as a content-stream operand, to a thousandth of a point. */
export const num = (v: number): string => {
  const r = Math.round(v * 1000) / 1000
  return Object.is(r, -0) || r === 0 ? "0" : String(r)
}

/**
 * The rectangle as the page shows it: a frame whose x axis runs to the displayed right and y axis
 * to the displayed top, origin at the displayed bottom left corner, and the matrix from that frame
 * to user space.
 */
export interface UprightFrame {
  readonly width: number
  readonly height: number
  readonly matrix: Matrix
}

export const uprightFrame = (rect: PdfRect, rotation: number): UprightFrame => {
  const [x1, y1, x2, y2] = normaliseRect(rect)
  switch (normaliseRotation(rotation)) {
    case 90:
      return { width: y2 - y1, height: x2 - x1, matrix: [0, 1, -1, 0, x2, y1] }
    case 180:
      return { width: x2 - x1, height: y2 - y1, matrix: [-1, 0, 0, -1, x2, y2] }
    case 270:
      return { width: y2 - y1, height: x2 - x1, matrix: [0, -1, 1, 0, x1, y2] }
    default:
      return { width: x2 - x1, height: y2 - y1, matrix: [1, 0, 0, 1, x1, y1] }
  }
}

/** The `cm` operator: `m` concatenated to the current matrix. */
export const cm = (m: Matrix) => `${m.map(num).join(" ")} cm`

/** How far a cubic Bézier's control points lie along the tangents to draw a quarter of a circle, per unit of radius. */
const KAPPA = 0.5523

/** A closed ellipse path centred on (cx, cy). */
export const ellipse = (cx: number, cy: number, rx: number, ry: number): Array<string> => {
  const mx = rx * KAPPA
  const my = ry * KAPPA
  return [
    `${num(cx + rx)} ${num(cy)} m`,
    `${num(cx + rx)} ${num(cy + my)} ${num(cx + mx)} ${num(cy + ry)} ${num(cx)} ${num(cy + ry)} c`,
    `${num(cx - mx)} ${num(cy + ry)} ${num(cx - rx)} ${num(cy + my)} ${num(cx - rx)} ${num(cy)} c`,
    `${num(cx - rx)} ${num(cy - my)} ${num(cx - mx)} ${num(cy - ry)} ${num(cx)} ${num(cy - ry)} c`,
    `${num(cx + mx)} ${num(cy - ry)} ${num(cx + rx)} ${num(cy - my)} ${num(cx + rx)} ${num(cy)} c`,
    "h"
  ]
}

/** A closed rectangle path with rounded corners (the radius capped to half the shorter side). */
export const roundedBox = (x: number, y: number, w: number, h: number, radius: number): Array<string> => {
  const r = Math.max(0, Math.min(radius, w / 2, h / 2))
  const k = r * KAPPA
  return [
    `${num(x + r)} ${num(y)} m`,
    `${num(x + w - r)} ${num(y)} l`,
    `${num(x + w - r + k)} ${num(y)} ${num(x + w)} ${num(y + r - k)} ${num(x + w)} ${num(y + r)} c`,
    `${num(x + w)} ${num(y + h - r)} l`,
    `${num(x + w)} ${num(y + h - r + k)} ${num(x + w - r + k)} ${num(y + h)} ${num(x + w - r)} ${num(y + h)} c`,
    `${num(x + r)} ${num(y + h)} l`,
    `${num(x + r - k)} ${num(y + h)} ${num(x)} ${num(y + h - r + k)} ${num(x)} ${num(y + h - r)} c`,
    `${num(x)} ${num(y + r)} l`,
    `${num(x)} ${num(y + r - k)} ${num(x + r - k)} ${num(y)} ${num(x + r)} ${num(y)} c`,
    "h"
  ]
}

/** A path through the points, closed when asked. */
export const polyline = (points: ReadonlyArray<PdfPoint>, close: boolean): Array<string> => {
  if (points.length === 0) return []
  const [first, ...rest] = points
  const ops = [`${num(first![0])} ${num(first![1])} m`, ...rest.map(([x, y]) => `${num(x)} ${num(y)} l`)]
  // A single point still shows as a dot under a round cap.
  if (rest.length === 0) ops.push(`${num(first![0])} ${num(first![1])} l`)
  if (close) ops.push("h")
  return ops
}

/** A drawn line ending: its path, whether it is closed (and so filled with the interior colour), the points it reaches. */
export interface EndingPath {
  readonly ops: ReadonlyArray<string>
  readonly closed: boolean
  readonly reach: ReadonlyArray<PdfPoint>
}

/** An arrowhead's wings leave its tip at 30 degrees to the line, as Acrobat draws them. */
const WING_ALONG = Math.cos(Math.PI / 6)
const WING_ACROSS = Math.sin(Math.PI / 6)

/**
 * A line ending (PDF 32000-1 table 176) at `tip`, an end of the line, where `outward` (a unit
 * vector) is the way the line leaves there; `size` is an arrowhead's length and a box's side. A
 * square and a diamond turn with the line; a slash lies 30 degrees clockwise from the
 * perpendicular, so the slashes at both ends are parallel. None draws nothing.
 */
export const lineEndingPath = (
  ending: LineEnding,
  tip: PdfPoint,
  outward: PdfPoint,
  size: number
): EndingPath | undefined => {
  const [ux, uy] = outward
  // s along the line, outwards; t across it, to its left.
  const at = (s: number, t: number): PdfPoint => [tip[0] + s * ux - t * uy, tip[1] + s * uy + t * ux]
  const r = size / 2
  const shape = (points: ReadonlyArray<PdfPoint>, closed: boolean): EndingPath => ({
    ops: polyline(points, closed),
    closed,
    reach: points
  })
  // An arrow's wings go back along the line; a reversed (R) arrow's go on past its end.
  const arrow = (back: number, closed: boolean) =>
    shape(
      [at(back * size * WING_ALONG, size * WING_ACROSS), tip, at(back * size * WING_ALONG, -size * WING_ACROSS)],
      closed
    )
  switch (ending) {
    case "OpenArrow":
      return arrow(-1, false)
    case "ClosedArrow":
      return arrow(-1, true)
    case "ROpenArrow":
      return arrow(1, false)
    case "RClosedArrow":
      return arrow(1, true)
    case "Square":
      return shape([at(r, r), at(-r, r), at(-r, -r), at(r, -r)], true)
    case "Diamond":
      return shape([at(r, 0), at(0, r), at(-r, 0), at(0, -r)], true)
    case "Circle":
      return { ops: ellipse(tip[0], tip[1], r, r), closed: true, reach: [at(r, r), at(-r, -r), at(r, -r), at(-r, r)] }
    case "Butt":
      return shape([at(0, r), at(0, -r)], false)
    case "Slash":
      return shape([at(-r * WING_ACROSS, -r * WING_ALONG), at(r * WING_ACROSS, r * WING_ALONG)], false)
    case "None":
      return undefined
  }
}

/** The rectangle grown to hold the points, `margin` around each (a stroke's half width). */
export const boxHolding = (rect: PdfRect, points: ReadonlyArray<PdfPoint>, margin: number): PdfRect =>
  points.reduce<PdfRect>(
    ([x1, y1, x2, y2], [x, y]) => [
      Math.min(x1, x - margin),
      Math.min(y1, y - margin),
      Math.max(x2, x + margin),
      Math.max(y2, y + margin)
    ],
    normaliseRect(rect)
  )

/** A quadrilateral of text as PDF writers order /QuadPoints: upper left, upper right, lower left, lower right. */
export interface Quad {
  readonly ul: PdfPoint
  readonly ur: PdfPoint
  readonly ll: PdfPoint
  readonly lr: PdfPoint
}

/** The quadrilaterals of a text markup annotation; without /QuadPoints, its rectangle as text reading upright on the page. */
export const quadsOf = (a: PdfAnnotation, rect: PdfRect, rotation: number): Array<Quad> => {
  const q = a.quadPoints ?? []
  const quads: Array<Quad> = []
  for (let i = 0; i + 8 <= q.length; i += 8) {
    quads.push({
      ul: [q[i]!, q[i + 1]!],
      ur: [q[i + 2]!, q[i + 3]!],
      ll: [q[i + 4]!, q[i + 5]!],
      lr: [q[i + 6]!, q[i + 7]!]
    })
  }
  if (quads.length > 0) return quads
  // No quads: the rectangle, as text reading upright on the page.
  const f = uprightFrame(rect, rotation)
  return [
    {
      ul: apply(f.matrix, [0, f.height]),
      ur: apply(f.matrix, [f.width, f.height]),
      ll: apply(f.matrix, [0, 0]),
      lr: apply(f.matrix, [f.width, 0])
    }
  ]
}

/** A quad's own frame: x along the baseline from its lower left corner, y towards its top. */
export const quadFrame = (quad: Quad) => {
  const bx = quad.lr[0] - quad.ll[0]
  const by = quad.lr[1] - quad.ll[1]
  const length = Math.hypot(bx, by)
  const ux = length > 0 ? bx / length : 1
  const uy = length > 0 ? by / length : 0
  // Height: the distance of the top edge from the baseline, perpendicular to it.
  const height = Math.abs((quad.ul[0] - quad.ll[0]) * -uy + (quad.ul[1] - quad.ll[1]) * ux)
  const at = (s: number, t: number): PdfPoint => [quad.ll[0] + s * ux - t * uy, quad.ll[1] + s * uy + t * ux]
  return { length, height, at }
}
