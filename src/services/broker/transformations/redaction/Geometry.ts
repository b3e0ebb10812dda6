/**
 * Geometry in page space against the regions: boxes, the subpaths of a path being painted, and the
 * parts of lines, curves and filled outlines that lie outside the regions.
 */
import { apply, type Matrix, type Point } from "../../engine/Matrix.ts"
import type { Operation } from "./ContentParser.ts"

/** [x0, y0, x1, y1] with x0 <= x1 and y0 <= y1. */
export type Box = readonly [number, number, number, number]

/** The smallest box holding the points. */
export const boxOf = (points: ReadonlyArray<Point>): Box => {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const [x, y] of points) {
    x0 = Math.min(x0, x)
    y0 = Math.min(y0, y)
    x1 = Math.max(x1, x)
    y1 = Math.max(y1, y)
  }
  return [x0, y0, x1, y1]
}

/** The box around a box's image under `m`. */
export const transformBox = ([x0, y0, x1, y1]: Box, m: Matrix): Box =>
  boxOf([[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map((p) => apply(m, p as unknown as Point)))

export const union = (
  a: Box,
  b: Box
): Box => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]

export const intersection = (
  a: Box,
  b: Box
): Box => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])]

export const grow = ([x0, y0, x1, y1]: Box, by: number): Box => [x0 - by, y0 - by, x1 + by, y1 + by]

/** Whether a box has something inside a region; touching its edge is not enough. A line of no width inside counts. */
export const overlaps = (a: Box, region: Box) =>
  a[0] < region[2] && region[0] < a[2] && a[1] < region[3] && region[1] < a[3] ||
  (a[0] === a[2] && a[0] > region[0] && a[0] < region[2] && a[1] < region[3] && region[1] < a[3]) ||
  (a[1] === a[3] && a[1] > region[1] && a[1] < region[3] && a[0] < region[2] && region[0] < a[2])

/** One edge of a subpath, with the operation that drew it so that untouched edges are copied as written. */
export interface Segment {
  /** The operation that drew it, or undefined for an edge of `re` or a closing `h`. */
  readonly op: Operation | undefined
  readonly from: Point
  readonly to: Point
  /** The two control points of a curve (`v` and `y` spelled out), none for a line. */
  readonly controls: ReadonlyArray<Point>
  /** Box of the segment and its control points in page space. */
  readonly box: Box
}

/** A subpath in user space, with its operations as written and its edges. */
export interface Subpath {
  readonly ops: Array<Operation>
  readonly start: Point
  readonly segments: Array<Segment>
  /** Box of all points in page space. */
  box: Box
  closed: boolean
}

/** A subpath starting at `start` (user space), begun by `op` (`m`, `re`) or implicitly. */
export const newSubpath = (start: Point, op: Operation | undefined, ctm: Matrix): Subpath => {
  const [x, y] = apply(ctm, start)
  return { ops: op === undefined ? [] : [op], start, segments: [], box: [x, y, x, y], closed: false }
}

/** Adds a line (no controls) or a curve from `from` to `to`, its box in page space through `ctm`. */
export const addEdge = (
  sub: Subpath,
  from: Point,
  to: Point,
  controls: ReadonlyArray<Point>,
  ctm: Matrix,
  op: Operation | undefined
) => {
  const box = boxOf([from, ...controls, to].map((p) => apply(ctm, p)))
  sub.segments.push({ op, from, to, controls, box })
  sub.box = union(sub.box, box)
}

/** Closing draws a line back to the start when stroked; it is a segment like the others. */
export const closeSubpath = (sub: Subpath, ctm: Matrix) => {
  const end = sub.segments[sub.segments.length - 1]?.to ?? sub.start
  if (end[0] !== sub.start[0] || end[1] !== sub.start[1]) addEdge(sub, end, sub.start, [], ctm, undefined)
  sub.closed = true
}

const lerp = (a: Point, b: Point, t: number): Point => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]

/** The parts of a line (user space) outside the boxes (page space); affine maps keep the line's parameter. */
export const linePieces = (
  from: Point,
  to: Point,
  ctm: Matrix,
  boxes: ReadonlyArray<Box>
): Array<readonly [Point, Point]> => {
  const [p, q] = [apply(ctm, from), apply(ctm, to)]
  const inside = boxes.flatMap((box) => {
    // Liang–Barsky: the parameter interval of the line inside the box.
    let [t0, t1] = [0, 1]
    for (
      const [delta, low, high, origin] of [[q[0] - p[0], box[0], box[2], p[0]], [
        q[1] - p[1],
        box[1],
        box[3],
        p[1]
      ]] as const
    ) {
      if (delta === 0) {
        if (origin <= low || origin >= high) return []
        continue
      }
      const [a, b] = [(low - origin) / delta, (high - origin) / delta]
      t0 = Math.max(t0, Math.min(a, b))
      t1 = Math.min(t1, Math.max(a, b))
    }
    return t0 < t1 ? [[t0, t1] as const] : []
  }).sort((a, b) => a[0] - b[0])
  const pieces: Array<readonly [Point, Point]> = []
  let t = 0
  for (const [t0, t1] of inside) {
    if (t0 > t) pieces.push([lerp(from, to, t), lerp(from, to, t0)])
    t = Math.max(t, t1)
  }
  if (t < 1) pieces.push([t === 0 ? from : lerp(from, to, t), to])
  return pieces
}

/** A cubic Bézier curve: start, two control points, end. */
export type Cubic = readonly [Point, Point, Point, Point]

const halves = ([p0, p1, p2, p3]: Cubic): [Cubic, Cubic] => {
  const [a, b, c] = [lerp(p0, p1, 0.5), lerp(p1, p2, 0.5), lerp(p2, p3, 0.5)]
  const [d, e] = [lerp(a, b, 0.5), lerp(b, c, 0.5)]
  const m = lerp(d, e, 0.5)
  return [[p0, a, d, m], [m, e, c, p3]]
}

/** The parts of a curve clear of the boxes, by halving it until a part's control points are clear (or tiny, then dropped). */
export const curvePieces = (curve: Cubic, ctm: Matrix, boxes: ReadonlyArray<Box>, depth: number): Array<Cubic> => {
  const box = boxOf(curve.map((p) => apply(ctm, p)))
  if (!boxes.some((b) => overlaps(box, b))) return [curve]
  if (depth >= 10) return []
  const [first, second] = halves(curve)
  return [...curvePieces(first, ctm, boxes, depth + 1), ...curvePieces(second, ctm, boxes, depth + 1)]
}

/** A subpath's outline in page space, curves flattened to within 0.05 pt. */
export const flatten = (sub: Subpath, ctm: Matrix): Array<Point> => {
  const points: Array<Point> = [apply(ctm, sub.start)]
  const flat = (curve: Cubic, depth: number) => {
    const [p0, p1, p2, p3] = curve
    const chord = Math.hypot(p3[0] - p0[0], p3[1] - p0[1]) || 1
    const distance = (p: Point) => Math.abs((p3[0] - p0[0]) * (p0[1] - p[1]) - (p0[0] - p[0]) * (p3[1] - p0[1])) / chord
    if (depth >= 12 || Math.max(distance(p1), distance(p2)) <= 0.05) points.push(p3)
    else for (const half of halves(curve)) flat(half, depth + 1)
  }
  for (const segment of sub.segments) {
    if (segment.controls.length === 0) points.push(apply(ctm, segment.to))
    else flat([segment.from, ...segment.controls, segment.to].map((p) => apply(ctm, p)) as unknown as Cubic, 0)
  }
  return points
}

/** Sutherland–Hodgman against one axis-parallel half-plane: coordinate `axis` <= `limit` (or >= when `above`). */
const clipHalf = (polygon: ReadonlyArray<Point>, axis: 0 | 1, limit: number, above: boolean): Array<Point> => {
  const inside = (p: Point) => above ? p[axis] >= limit : p[axis] <= limit
  const out: Array<Point> = []
  for (let i = 0; i < polygon.length; i++) {
    const [a, b] = [polygon[i]!, polygon[(i + 1) % polygon.length]!]
    if (inside(a)) out.push(a)
    if (inside(a) !== inside(b)) out.push(lerp(a, b, (limit - a[axis]) / (b[axis] - a[axis])))
  }
  return out
}

/** A polygon minus a box: its parts left of, right of, below and above the box (disjoint, convex areas). */
export const aroundRegion = (polygon: ReadonlyArray<Point>, [x0, y0, x1, y1]: Box): Array<ReadonlyArray<Point>> => {
  const column = clipHalf(clipHalf(polygon, 0, x0, true), 0, x1, false)
  return [
    clipHalf(polygon, 0, x0, false),
    clipHalf(polygon, 0, x1, true),
    clipHalf(column, 1, y0, false),
    clipHalf(column, 1, y1, true)
  ]
    .filter((piece) => {
      const [bx0, by0, bx1, by1] = boxOf(piece)
      return piece.length >= 3 && bx1 > bx0 && by1 > by0
    })
}
