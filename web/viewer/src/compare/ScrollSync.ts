/**
 * Where a side of the comparison is scrolled, said so that the other side can be put at the same
 * place: a page and how far down it, not pixels, since the two documents' pages need not be the
 * same size or scale. Horizontally, how far across the scrollable width.
 */
import { PAGE_GAP, type PageGeometry } from "../pages/PageGeometry.ts"

export interface ScrollPosition {
  /** The page at the top of the view (0-based). */
  readonly page: number
  /** How far down that page (and the gap under it) the view's top is, from 0 to 1. */
  readonly fraction: number
  /** How far across the scrollable width, from 0 to 1 (0 when the pages fit). */
  readonly across: number
}

/** The position of content offset `top` (as in `geometry.tops`). */
export const positionAt = (geometry: PageGeometry, top: number, across: number): ScrollPosition => {
  const page = geometry.pageAt(top)
  const span = geometry.heights[page]! + PAGE_GAP
  return { page, fraction: Math.min(1, Math.max(0, (top - geometry.tops[page]!) / span)), across }
}

/**
 * The content offset that shows `position` in `geometry`: the same page and fraction, or the last
 * page's end when this document is shorter.
 */
export const topOf = (geometry: PageGeometry, position: ScrollPosition): number => {
  if (geometry.count === 0) return 0
  if (position.page >= geometry.count) return geometry.totalHeight
  const page = position.page
  return geometry.tops[page]! + position.fraction * (geometry.heights[page]! + PAGE_GAP)
}
