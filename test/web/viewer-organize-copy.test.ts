/**
 * The organizer's working copy and selection, without a browser: moves, deletions, merges, undo,
 * and the transformation parts a copy becomes (runs of consecutive pages, not one part per page).
 */
import { describe, expect, it } from "vitest"
import { PageSelection } from "../../web/viewer/src/organize/PageSelection.ts"
import { WorkingCopy } from "../../web/viewer/src/organize/WorkingCopy.ts"

const letter = { width: 612, height: 792, rotation: 0, dpi: 72 }
const source = (uuid: string, count: number) => ({ uuid, title: `${uuid}.pdf`, pages: Array(count).fill(letter) })
/** The copy's pages as "<source>:<page>" (1-based pages), to read at a glance. */
const shown = (copy: WorkingCopy) => copy.pages.map((page) => `${copy.sources[page.source]!.uuid}:${page.page + 1}`)

describe("the organizer's working copy", () => {
  it("is the document in order, one part of one range, until changed", () => {
    const copy = new WorkingCopy(source("a", 400))
    expect(copy.parts()).toEqual([{ uuid: "a", pages: [{ from: 0, to: 399 }] }])
    expect(copy.changed).toBe(false)
    expect(copy.canUndo).toBe(false)
  })

  it("moves pages to a gap, several together, and as a block by steps", () => {
    const copy = new WorkingCopy(source("a", 6))
    // Page 2 dropped before page 1.
    expect(copy.moveTo(new Set([1]), 0)).toBe(true)
    expect(shown(copy)).toEqual(["a:2", "a:1", "a:3", "a:4", "a:5", "a:6"])
    expect(copy.parts()).toEqual([{ uuid: "a", pages: [{ from: 1, to: 1 }, { from: 0, to: 0 }, { from: 2, to: 5 }] }])
    // Pages 1 and 5 (keys 0 and 4) dropped after the last page: they go together, in their order.
    copy.moveTo(new Set([0, 4]), 6)
    expect(shown(copy)).toEqual(["a:2", "a:3", "a:4", "a:6", "a:1", "a:5"])
    // A drop where the pages already are changes nothing and is no undo step.
    expect(copy.moveTo(new Set([0, 4]), 4)).toBe(false)
    // One step back, then past the start: they stop at the start.
    copy.shift(new Set([0, 4]), -1)
    expect(shown(copy)).toEqual(["a:2", "a:3", "a:4", "a:1", "a:5", "a:6"])
    copy.shift(new Set([0, 4]), -10)
    expect(shown(copy)).toEqual(["a:1", "a:5", "a:2", "a:3", "a:4", "a:6"])
    expect(copy.shift(new Set([0, 4]), -1)).toBe(false)
  })

  it("deletes, merges, undoes, redoes and resets", () => {
    const copy = new WorkingCopy(source("a", 5))
    copy.remove(new Set([2]))
    expect(shown(copy)).toEqual(["a:1", "a:2", "a:4", "a:5"])
    const added = copy.insert(source("b", 3), 1)
    expect(added).toHaveLength(3)
    expect(shown(copy)).toEqual(["a:1", "b:1", "b:2", "b:3", "a:2", "a:4", "a:5"])
    expect(copy.parts()).toEqual([
      { uuid: "a", pages: [{ from: 0, to: 0 }] },
      { uuid: "b", pages: [{ from: 0, to: 2 }] },
      { uuid: "a", pages: [{ from: 1, to: 1 }, { from: 3, to: 4 }] }
    ])
    // Only the selected pages, in the copy's order.
    expect(copy.parts(new Set([added[2]!, 4]))).toEqual([
      { uuid: "b", pages: [{ from: 2, to: 2 }] },
      { uuid: "a", pages: [{ from: 4, to: 4 }] }
    ])
    expect(copy.undo()).toBe(true)
    expect(shown(copy)).toEqual(["a:1", "a:2", "a:4", "a:5"])
    expect(copy.redo()).toBe(true)
    expect(copy.pages).toHaveLength(7)
    copy.reset()
    expect(shown(copy)).toEqual(["a:1", "a:2", "a:3", "a:4", "a:5"])
    expect(copy.changed).toBe(false)
    // A reset is undone like any change; a new change forgets what could be redone.
    copy.undo()
    expect(copy.pages).toHaveLength(7)
    copy.remove(new Set([0]))
    expect(copy.canRedo).toBe(false)
    copy.remove(new Set(copy.pages.map((page) => page.key)))
    expect(copy.pages).toHaveLength(0)
    expect(copy.parts()).toEqual([])
  })

  it("a document merged with itself: one part, its pages twice", () => {
    const copy = new WorkingCopy(source("a", 3))
    copy.insert(source("a", 3), 3)
    expect(copy.parts()).toEqual([{ uuid: "a", pages: [{ from: 0, to: 2 }, { from: 0, to: 2 }] }])
  })
})

describe("the organizer's selection", () => {
  const order = [10, 11, 12, 13, 14, 15]

  it("selects as a file manager does: alone, toggled, ranges from the anchor", () => {
    const selection = new PageSelection()
    selection.only(11)
    selection.extendTo(order, 13, false)
    expect([...selection.selected].sort()).toEqual([11, 12, 13])
    // Shift again from the same anchor replaces the range; the anchor stays where the click was.
    selection.extendTo(order, 10, false)
    expect([...selection.selected].sort()).toEqual([10, 11])
    selection.toggle(15)
    expect([...selection.selected].sort()).toEqual([10, 11, 15])
    // Ctrl+Shift adds the range from the new anchor.
    selection.extendTo(order, 13, true)
    expect([...selection.selected].sort()).toEqual([10, 11, 13, 14, 15])
    expect(selection.focus).toBe(13)
    selection.toggle(13)
    expect(selection.has(13)).toBe(false)
  })

  it("forgets pages that left the copy, the focus going to one still there", () => {
    const selection = new PageSelection()
    selection.all(order)
    selection.only(12)
    selection.keepOnly([10, 11, 13], 13)
    expect(selection.size).toBe(0)
    expect(selection.focus).toBe(13)
  })
})
