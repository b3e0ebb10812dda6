/**
 * The text differences of two documents as each side shows them: which words to highlight on which
 * page (the left's as deleted, the right's as inserted: a modification has both), which pages carry
 * a change, and how next and previous walk the changes.
 */
import type { ChangeSide, Difference, TextChange } from "../client/ViewerClient.ts"
import type { Highlight } from "../pages/PageView.ts"

export type Side = "left" | "right"

export const otherSide = (side: Side): Side => (side === "left" ? "right" : "left")

/** A change's words on one side; null where the change has none there (an insertion has no left). */
export const sideOf = (change: TextChange, side: Side): ChangeSide | null =>
  side === "left" ? change.left : change.right

/** What a side's highlights show: the left lost its words, the right gained its own. */
export const KIND: Readonly<Record<Side, string>> = { left: "deleted", right: "inserted" }

const NONE: ReadonlyArray<Highlight> = []

/**
 * One side's changes page by page, read once per difference; `on(page, current)` then answers a
 * page's highlights with the current change marked, as often as the page list renders.
 */
export class SideHighlights {
  private readonly byPage = new Map<number, Array<{ readonly change: number; readonly side: ChangeSide }>>()

  constructor(changes: ReadonlyArray<TextChange>, readonly side: Side) {
    changes.forEach((change, index) => {
      const words = sideOf(change, side)
      if (words === null || words.rects.length === 0) return
      const list = this.byPage.get(words.pageNumber) ?? []
      list.push({ change: index, side: words })
      this.byPage.set(words.pageNumber, list)
    })
  }

  /** The pages (0-based) with a change on this side: the thumbnails' badges. */
  get pages(): ReadonlySet<number> {
    return new Set(this.byPage.keys())
  }

  on(page: number, current: number): ReadonlyArray<Highlight> {
    const list = this.byPage.get(page)
    if (list === undefined) return NONE
    return list.map(({ change, side }) => ({ rects: side.rects, current: change === current, kind: KIND[this.side] }))
  }
}

/** The change after (`+1`) or before (`-1`) `current`, wrapping round; from none, the first or the last. */
export const stepChange = (current: number, count: number, direction: 1 | -1): number => {
  if (count === 0) return -1
  if (current < 0) return direction > 0 ? 0 : count - 1
  return (current + direction + count) % count
}

/** The first change at or after page `page` of `side` (where a reader is), or -1 when there is none. */
export const changeFrom = (changes: ReadonlyArray<TextChange>, side: Side, page: number): number =>
  changes.findIndex((change) => (sideOf(change, side)?.pageNumber ?? -1) >= page)

/** How many changes of each type: the list's heading. */
export const countByType = (difference: Difference) => {
  const counts = { MODIFIED: 0, DELETED: 0, INSERTED: 0 }
  for (const change of difference.changes) counts[change.type]++
  return counts
}
