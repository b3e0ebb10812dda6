/**
 * Where the browser viewer puts pages, from the layout alone: the arithmetic behind a scroll bar
 * that is right at once and a 20,000-page list the browser can hold.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  CSS_PER_POINT,
  MAX_LIST_HEIGHT,
  PAGE_GAP,
  PageGeometry,
  scaleFor,
  stepScale
} from "../../web/viewer/src/pages/PageGeometry.ts"

const letter = { width: 612, height: 792, rotation: 0, dpi: 72 }
const landscape = { width: 612, height: 792, rotation: 90, dpi: 72 }

describe("page geometry", () => {
  it("places pages one under the other, turned ones by their shown size", () => {
    const geometry = new PageGeometry([letter, landscape, letter], 1, new Map([[2, 90]]))
    const letterHeight = 792 * CSS_PER_POINT
    expect(geometry.tops[0]).toBe(PAGE_GAP)
    expect(geometry.tops[1]).toBeCloseTo(PAGE_GAP * 2 + letterHeight)
    // The page's own /Rotate 90 shows it landscape; the user's turn does the same to the third.
    expect(geometry.heights[1]).toBeCloseTo(612 * CSS_PER_POINT)
    expect(geometry.widths[2]).toBeCloseTo(792 * CSS_PER_POINT)
    expect(geometry.pageAt(geometry.tops[1]! + 1)).toBe(1)
    expect(geometry.pageAt(0)).toBe(0)
    expect(geometry.pageAt(geometry.totalHeight + 500)).toBe(2)
  })

  it("keeps a 20,000-page list within what browsers lay out, every page still reachable", () => {
    const pages = Array.from({ length: 20_000 }, () => letter)
    const geometry = new PageGeometry(pages, 1.5, new Map())
    const viewport = 800
    expect(geometry.totalHeight).toBeGreaterThan(30_000_000)
    expect(geometry.listHeight).toBe(MAX_LIST_HEIGHT)
    // The bottom of the scroll range shows the bottom of the last page.
    const bottom = geometry.contentTop(MAX_LIST_HEIGHT - viewport, viewport)
    expect(bottom + viewport).toBeCloseTo(geometry.totalHeight, 3)
    expect(geometry.currentPage(bottom, viewport)).toBe(19_999)
    // Scroll positions and content positions map both ways.
    const top = geometry.tops[12_345]!
    expect(geometry.contentTop(geometry.scrollTopFor(top, viewport), viewport)).toBeCloseTo(top, 6)
    expect(geometry.range(top, top + viewport * 2).first).toBe(12_345)
  })

  it("leaves a short document's scrolling one to one", () => {
    const geometry = new PageGeometry([letter, letter], 1, new Map())
    expect(geometry.listHeight).toBe(geometry.totalHeight)
    expect(geometry.contentTop(300, 800)).toBe(300)
  })

  it("fits the width or the whole page, and steps through the zoom levels", () => {
    const viewport = { width: 1000 + 2 * PAGE_GAP, height: 700 }
    expect(scaleFor("page-width", letter, 0, viewport)).toBeCloseTo(1000 / (612 * CSS_PER_POINT))
    expect(scaleFor("page-fit", letter, 0, viewport)).toBeCloseTo((700 - 2 * PAGE_GAP) / (792 * CSS_PER_POINT))
    expect(scaleFor("actual", letter, 0, viewport)).toBe(1)
    expect(scaleFor(99, letter, 0, viewport)).toBe(6.4)
    expect(stepScale(1, 1)).toBe(1.1)
    expect(stepScale(1, -1)).toBe(0.9)
    expect(stepScale(1.05, -1)).toBe(1)
  })
})
