/**
 * Where the organizer's thumbnails sit: a grid of equal cells, as many columns as the width takes,
 * so a cell's place, the cells in view and the gap under the pointer are arithmetic, whatever the
 * number of pages. A page is drawn inside its cell's box at its own proportions.
 */
import type { PageDimensions } from "../client/ViewerClient.ts"
import { imageSize } from "../pages/PageGeometry.ts"

/** Around the grid and between cells, in CSS pixels. */
export const GRID_PADDING = 16
export const GRID_GAP = 12
/** Inside a cell, around its box: room for the selection's outline. */
const CELL_PADDING = 6
/** Under the box: the page number and where the page comes from. */
const LABEL_HEIGHT = 22
/** A box is this much taller than wide: an A4 page fills it, a letter page nearly. */
const BOX_RATIO = Math.SQRT2

export interface Box {
  readonly width: number
  readonly height: number
}

/** A gap between cells where dragged pages would land: the position in the copy, and where to draw it. */
export interface DropPlace {
  readonly before: number
  readonly x: number
  readonly y: number
}

export class GridGeometry {
  readonly columns: number
  readonly cellWidth: number
  readonly cellHeight: number
  readonly boxHeight: number
  readonly rowHeight: number
  readonly rows: number
  /** Left edge of the first column: the grid is centred. */
  readonly left: number

  /** `thumbnailWidth`: a box's width in CSS pixels; `width`: the grid's. */
  constructor(readonly count: number, width: number, readonly thumbnailWidth: number) {
    this.cellWidth = thumbnailWidth + 2 * CELL_PADDING
    this.boxHeight = Math.round(thumbnailWidth * BOX_RATIO)
    this.cellHeight = this.boxHeight + LABEL_HEIGHT + 2 * CELL_PADDING
    this.rowHeight = this.cellHeight + GRID_GAP
    this.columns = Math.max(1, Math.floor((width - 2 * GRID_PADDING + GRID_GAP) / (this.cellWidth + GRID_GAP)))
    this.rows = Math.ceil(count / this.columns)
    const used = this.columns * (this.cellWidth + GRID_GAP) - GRID_GAP
    this.left = Math.max(GRID_PADDING, (width - used) / 2)
  }

  get totalHeight() {
    return this.rows === 0 ? 0 : 2 * GRID_PADDING + this.rows * this.rowHeight - GRID_GAP
  }

  cellLeft(index: number) {
    return this.left + (index % this.columns) * (this.cellWidth + GRID_GAP)
  }

  cellTop(index: number) {
    return GRID_PADDING + Math.floor(index / this.columns) * this.rowHeight
  }

  /** The cells of the rows between `top` and `bottom` (CSS px down the grid), as an inclusive range. */
  range(top: number, bottom: number): { readonly first: number; readonly last: number } {
    const row = (y: number) => Math.max(0, Math.min(this.rows - 1, Math.floor((y - GRID_PADDING) / this.rowHeight)))
    return { first: row(top) * this.columns, last: Math.min(this.count - 1, (row(bottom) + 1) * this.columns - 1) }
  }

  /** The page drawn in a box: as wide as the box, or narrower when it is taller than the box. */
  box(page: PageDimensions): Box {
    const size = imageSize(page)
    const ratio = size.height / Math.max(1, size.width)
    const width = Math.min(this.thumbnailWidth, this.boxHeight / ratio)
    return { width, height: width * ratio }
  }

  /** The gap nearest to the point (CSS px in the grid): before a cell's left half, after its right half. */
  dropPlace(x: number, y: number): DropPlace {
    const row = Math.max(0, Math.min(this.rows - 1, Math.floor((y - GRID_PADDING + GRID_GAP / 2) / this.rowHeight)))
    const inRow = Math.min(this.columns, this.count - row * this.columns)
    // The cells of the row whose middle is left of the point.
    const passed = Math.floor((x - this.left - this.cellWidth / 2) / (this.cellWidth + GRID_GAP)) + 1
    const column = Math.max(0, Math.min(inRow, passed))
    return {
      before: row * this.columns + column,
      x: this.left + column * (this.cellWidth + GRID_GAP) - GRID_GAP / 2,
      y: GRID_PADDING + row * this.rowHeight
    }
  }
}
