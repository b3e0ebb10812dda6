/**
 * Where every page sits in the scrolled list, from the layout alone (sizes in points), so the scroll
 * bar is right before any image arrives. Offsets are one typed array: a 20,000-page document costs
 * 160 kB and a binary search per scroll, never a DOM node per page.
 */
import type { PageDimensions } from "../client/ViewerClient.ts"

/** CSS pixels per point at 100 %: a page shown at its printed size (96 px per inch, 72 points). */
export const CSS_PER_POINT = 96 / 72
/**
 * The tallest list put in the DOM. Browsers cap an element's height (Firefox near 17.9 million
 * pixels, Chromium near 33.5 million), which 20,000 pages at page width pass; past this height the
 * list stays this tall and a scrolled pixel moves the pages by more than one.
 */
export const MAX_LIST_HEIGHT = 8_000_000
/** Space between pages and around them, in CSS pixels. */
export const PAGE_GAP = 12

export type ZoomMode = "page-width" | "page-fit" | "actual"
export type Zoom = ZoomMode | number

export const ZOOM_STEPS = [
  0.25,
  0.33,
  0.5,
  0.67,
  0.75,
  0.8,
  0.9,
  1,
  1.1,
  1.25,
  1.5,
  1.75,
  2,
  2.5,
  3,
  4,
  5,
  6.4
] as const
export const MIN_SCALE = ZOOM_STEPS[0]
export const MAX_SCALE = ZOOM_STEPS[ZOOM_STEPS.length - 1]

export const clampScale = (scale: number) => Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale))

/** The next step above (`+1`) or below (`-1`) the scale. */
export const stepScale = (scale: number, direction: 1 | -1): number => {
  const steps = direction > 0 ? ZOOM_STEPS : [...ZOOM_STEPS].reverse()
  return steps.find((step) => (direction > 0 ? step > scale * 1.001 : step < scale * 0.999)) ?? clampScale(scale)
}

/** Image widths are rounded up to a multiple of this, so nearby sizes (pages, thumbnails) share the broker's cache. */
const IMAGE_WIDTH_STEP = 64

/** The width in device pixels to ask for an image shown `cssWidth` CSS pixels wide. */
export const imageWidthFor = (cssWidth: number) =>
  Math.ceil((cssWidth * (globalThis.devicePixelRatio || 1)) / IMAGE_WIDTH_STEP) * IMAGE_WIDTH_STEP

/** A page's size in points as shown: the layout's size turned by its own and the user's rotation. */
export const shownSize = (page: PageDimensions, userRotation: number) => {
  const turned = ((page.rotation + userRotation) % 180 + 180) % 180 === 90
  return turned ? { width: page.height, height: page.width } : { width: page.width, height: page.height }
}

/** A page's size in points as the page image draws it: its own rotation applied, not the user's. */
export const imageSize = (page: PageDimensions) => shownSize(page, 0)

/** In a list of `count` items whose tops ascend, the last whose top is at or above `y` (binary search). */
export const lastStartingAtOrAbove = (tops: Float64Array, count: number, y: number): number => {
  let low = 0
  let high = count - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (tops[middle]! <= y) low = middle
    else high = middle - 1
  }
  return Math.max(0, low)
}

export interface Viewport {
  readonly width: number
  readonly height: number
}

export class PageGeometry {
  /** Top of each page in CSS pixels, and one more entry: the list's total height. */
  readonly tops: Float64Array
  readonly widths: Float64Array
  readonly heights: Float64Array
  readonly maxWidth: number

  constructor(
    readonly pages: ReadonlyArray<PageDimensions>,
    readonly scale: number,
    readonly rotations: ReadonlyMap<number, number>
  ) {
    const count = pages.length
    this.tops = new Float64Array(count + 1)
    this.widths = new Float64Array(count)
    this.heights = new Float64Array(count)
    let top = PAGE_GAP
    let maxWidth = 0
    for (let index = 0; index < count; index++) {
      const size = shownSize(pages[index]!, rotations.get(index) ?? 0)
      const width = size.width * CSS_PER_POINT * scale
      const height = size.height * CSS_PER_POINT * scale
      this.tops[index] = top
      this.widths[index] = width
      this.heights[index] = height
      maxWidth = Math.max(maxWidth, width)
      top += height + PAGE_GAP
    }
    this.tops[count] = top
    this.maxWidth = maxWidth
  }

  get count() {
    return this.pages.length
  }

  get totalHeight() {
    return this.tops[this.count]!
  }

  /** The index of the page at vertical position `y` (the last page whose top is at or above it). */
  pageAt(y: number): number {
    return lastStartingAtOrAbove(this.tops, this.count, y)
  }

  /** Pages overlapping [top, bottom], as an inclusive index range. */
  range(top: number, bottom: number): { readonly first: number; readonly last: number } {
    return { first: this.pageAt(top), last: this.pageAt(bottom) }
  }

  /**
   * The page a reader is on: the one covering the most of the viewport's upper half, as a reader's
   * eyes sit there.
   */
  currentPage(scrollTop: number, viewportHeight: number): number {
    const { first, last } = this.range(scrollTop, scrollTop + viewportHeight / 2)
    let best = first
    let bestCover = -1
    for (let index = first; index <= last; index++) {
      const top = Math.max(scrollTop, this.tops[index]!)
      const bottom = Math.min(scrollTop + viewportHeight / 2, this.tops[index]! + this.heights[index]!)
      if (bottom - top > bestCover) {
        bestCover = bottom - top
        best = index
      }
    }
    return best
  }

  /** Left edge of a page: centred in the viewport, or at the margin when the list is wider. */
  left(index: number, viewportWidth: number): number {
    const listWidth = Math.max(viewportWidth, this.maxWidth + 2 * PAGE_GAP)
    return (listWidth - this.widths[index]!) / 2
  }

  /** The list's height in the DOM: the pages' whole height, or MAX_LIST_HEIGHT past it. */
  get listHeight() {
    return Math.min(this.totalHeight, MAX_LIST_HEIGHT)
  }

  /** How many content pixels one scrolled pixel moves: 1 unless the list is capped. */
  private scrollRatio(viewportHeight: number) {
    const total = this.totalHeight
    return total <= MAX_LIST_HEIGHT ? 1 : (total - viewportHeight) / (MAX_LIST_HEIGHT - viewportHeight)
  }

  /** The content position (as in `tops`) at the top of the view, for a scroll position. */
  contentTop(scrollTop: number, viewportHeight: number) {
    return scrollTop * this.scrollRatio(viewportHeight)
  }

  /** The scroll position that puts content position `top` at the top of the view. */
  scrollTopFor(top: number, viewportHeight: number) {
    return top / this.scrollRatio(viewportHeight)
  }

  get listWidth() {
    return this.maxWidth + 2 * PAGE_GAP
  }
}

/** The scale a zoom mode means for `page` in `viewport` (a number is a scale already). */
export const scaleFor = (
  zoom: Zoom,
  page: PageDimensions | undefined,
  userRotation: number,
  viewport: Viewport
): number => {
  if (typeof zoom === "number") return clampScale(zoom)
  if (zoom === "actual" || page === undefined) return 1
  const size = shownSize(page, userRotation)
  const byWidth = (viewport.width - 2 * PAGE_GAP) / (size.width * CSS_PER_POINT)
  if (zoom === "page-width") return clampScale(byWidth)
  const byHeight = (viewport.height - 2 * PAGE_GAP) / (size.height * CSS_PER_POINT)
  return clampScale(Math.min(byWidth, byHeight))
}
