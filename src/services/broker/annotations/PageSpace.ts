/**
 * Between the two spaces of a page: the displayed page (what the API's positions use, as text
 * positions do: points, origin at the top left of the page as shown after /Rotate, y downwards) and
 * PDF user space (what PDF, FDF and XFDF use: origin at the bottom left of the unrotated page, y
 * upwards). The page's visible box (crop box) and rotation decide the mapping.
 */
import type { PDFDocument } from "pdf-lib"
import { normaliseRotation, type PdfPoint, type PdfRect } from "./PdfAnnotation.ts"

export interface PageGeometry {
  /** The visible box (crop box, else media box) in user space. */
  readonly x0: number
  readonly y0: number
  readonly width: number
  readonly height: number
  /** Clockwise display rotation: 0, 90, 180 or 270. */
  readonly rotation: number
}

export interface DisplayedRect {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

/** A user-space point on the displayed page. */
export const toDisplayed = (g: PageGeometry, [x, y]: PdfPoint): PdfPoint => {
  const ux = x - g.x0
  const uy = g.y0 + g.height - y
  switch (normaliseRotation(g.rotation)) {
    case 90:
      return [y - g.y0, ux]
    case 180:
      return [g.width - ux, y - g.y0]
    case 270:
      return [uy, g.width - ux]
    default:
      return [ux, uy]
  }
}

/** A displayed point in user space. */
export const toUser = (g: PageGeometry, [px, py]: PdfPoint): PdfPoint => {
  switch (normaliseRotation(g.rotation)) {
    case 90:
      return [g.x0 + py, g.y0 + px]
    case 180:
      return [g.x0 + g.width - px, g.y0 + py]
    case 270:
      return [g.x0 + g.width - py, g.y0 + g.height - px]
    default:
      return [g.x0 + px, g.y0 + g.height - py]
  }
}

const bounds = (points: ReadonlyArray<PdfPoint>): PdfRect => {
  const xs = points.map((p) => p[0])
  const ys = points.map((p) => p[1])
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
}

/** A displayed rectangle as a user-space rectangle. */
export const rectToUser = (g: PageGeometry, r: DisplayedRect): PdfRect =>
  bounds([toUser(g, [r.x, r.y]), toUser(g, [r.x + r.w, r.y + r.h])])

/** A user-space rectangle on the displayed page. */
export const rectToDisplayed = (g: PageGeometry, r: PdfRect): DisplayedRect => {
  const [x1, y1, x2, y2] = bounds([toDisplayed(g, [r[0], r[1]]), toDisplayed(g, [r[2], r[3]])])
  return { x: x1, y: y1, w: x2 - x1, h: y2 - y1 }
}

/** The geometry of every page of a PDF loaded with pdf-lib. */
export const pageGeometries = (pdf: PDFDocument): Array<PageGeometry> =>
  pdf.getPages().map((page) => {
    const box = page.getCropBox()
    return { x0: box.x, y0: box.y, width: box.width, height: box.height, rotation: page.getRotation().angle }
  })
