/**
 * PDF transformation matrices `[a b c d e f]` (PDF 32000-1 8.3.3): a point (x, y) goes to
 * (a·x + c·y + e, b·x + d·y + f). One definition for content streams (redaction), appearance
 * streams (annotations) and text positions.
 */
export type Matrix = readonly [number, number, number, number, number, number]

export type Point = readonly [number, number]

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0]

/** The transformation that applies `first`, then `then` (what `cm` does to the current matrix: `first` is the new one). */
export const concat = (first: ReadonlyArray<number>, then: ReadonlyArray<number>): Matrix => [
  first[0]! * then[0]! + first[1]! * then[2]!,
  first[0]! * then[1]! + first[1]! * then[3]!,
  first[2]! * then[0]! + first[3]! * then[2]!,
  first[2]! * then[1]! + first[3]! * then[3]!,
  first[4]! * then[0]! + first[5]! * then[2]! + then[4]!,
  first[4]! * then[1]! + first[5]! * then[3]! + then[5]!
]

/** The matrix that undoes `m`; undefined when `m` flattens the plane (no inverse). */
export const invert = ([a, b, c, d, e, f]: Matrix): Matrix | undefined => {
  const det = a * d - b * c
  if (Math.abs(det) < 1e-12) return undefined
  return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det]
}

/** Where `m` takes the point. */
export const apply = (m: Matrix, [x, y]: Point): Point => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]
