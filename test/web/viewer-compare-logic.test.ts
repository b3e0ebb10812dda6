/**
 * The comparison's arithmetic, without a browser: which words each side highlights and which pages
 * get a badge, how next and previous walk the changes, where the other side scrolls to, the list of
 * recent documents and what a pasted document ID or viewer link names.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import {
  documentIdOf,
  MAX_RECENT,
  recentDocuments,
  rememberDocument,
  withRecent
} from "../../web/viewer/src/client/RecentDocuments.ts"
import type { TextChange } from "../../web/viewer/src/client/ViewerClient.ts"
import { countByType, SideHighlights, stepChange } from "../../web/viewer/src/compare/Changes.ts"
import { positionAt, topOf } from "../../web/viewer/src/compare/ScrollSync.ts"
import { PAGE_GAP, PageGeometry } from "../../web/viewer/src/pages/PageGeometry.ts"

const box = (x: number, y: number) => ({ x, y, w: 30, h: 11 })
const side = (text: string, pageNumber: number, ...rects: Array<{ x: number; y: number; w: number; h: number }>) => ({
  text,
  pageNumber,
  rects
})

const CHANGES: ReadonlyArray<TextChange> = [
  { type: "MODIFIED", left: side("Genoa", 0, box(160, 80)), right: side("Venice", 0, box(160, 80)) },
  { type: "DELETED", left: side("virulent", 0, box(140, 350)), right: null },
  // A change over two lines: one box per line, both drawn.
  { type: "INSERTED", left: null, right: side("truly profound", 1, box(400, 200), box(72, 212)) },
  { type: "MODIFIED", left: side("lately", 3, box(370, 170)), right: side("recently", 3, box(370, 170)) }
]

describe("the comparison's changes", () => {
  it("highlights the left's words as deleted and the right's as inserted, on their pages, the current one marked", () => {
    const left = new SideHighlights(CHANGES, "left")
    const right = new SideHighlights(CHANGES, "right")
    expect(left.on(0, 1)).toEqual([
      { rects: [box(160, 80)], current: false, kind: "deleted" },
      { rects: [box(140, 350)], current: true, kind: "deleted" }
    ])
    expect(left.on(1, 2)).toEqual([])
    expect(right.on(1, 2)).toEqual([{ rects: [box(400, 200), box(72, 212)], current: true, kind: "inserted" }])
    expect(right.on(3, -1)).toEqual([{ rects: [box(370, 170)], current: false, kind: "inserted" }])
  })

  it("badges the pages holding a change on each side", () => {
    expect([...new SideHighlights(CHANGES, "left").pages]).toEqual([0, 3])
    expect([...new SideHighlights(CHANGES, "right").pages]).toEqual([0, 1, 3])
    // A side with no words to box (the broker found none on the page) draws nothing and gets no badge.
    const unboxed: ReadonlyArray<TextChange> = [{ type: "DELETED", left: side("gone", 5), right: null }]
    expect([...new SideHighlights(unboxed, "left").pages]).toEqual([])
  })

  it("next and previous wrap round; from none, next is the first and previous the last", () => {
    expect(stepChange(-1, 4, 1)).toBe(0)
    expect(stepChange(-1, 4, -1)).toBe(3)
    expect(stepChange(2, 4, 1)).toBe(3)
    expect(stepChange(3, 4, 1)).toBe(0)
    expect(stepChange(0, 4, -1)).toBe(3)
    expect(stepChange(-1, 0, 1)).toBe(-1)
  })

  it("counts the changes by type", () => {
    const difference = {
      left: { uuid: "a", title: null, pageCount: 4 },
      right: { uuid: "b", title: "b.docx", pageCount: 4 },
      changes: CHANGES
    }
    expect(countByType(difference)).toEqual({ MODIFIED: 2, DELETED: 1, INSERTED: 1 })
  })
})

describe("scrolling the sides together", () => {
  const letter = { width: 612, height: 792, rotation: 0, dpi: 72 }
  const a4 = { width: 595, height: 842, rotation: 0, dpi: 72 }

  it("puts the other side at the same page and fraction of it, whatever its page sizes and scale", () => {
    const left = new PageGeometry([letter, letter, letter], 1, new Map())
    const right = new PageGeometry([a4, a4, a4], 0.6, new Map())
    const top = left.tops[1]! + 0.25 * (left.heights[1]! + PAGE_GAP)
    const position = positionAt(left, top, 0.5)
    expect(position.page).toBe(1)
    expect(position.fraction).toBeCloseTo(0.25)
    expect(position.across).toBe(0.5)
    const followed = topOf(right, position)
    expect(followed).toBeCloseTo(right.tops[1]! + 0.25 * (right.heights[1]! + PAGE_GAP))
    // And back: the same place.
    expect(topOf(left, positionAt(right, followed, 0))).toBeCloseTo(top)
  })

  it("above the first page is its top; past a shorter document's end is its end", () => {
    const long = new PageGeometry([letter, letter, letter, letter], 1, new Map())
    const short = new PageGeometry([letter, letter], 1, new Map())
    expect(positionAt(long, 0, 0)).toEqual({ page: 0, fraction: 0, across: 0 })
    expect(topOf(short, positionAt(long, long.tops[3]! + 10, 0))).toBe(short.totalHeight)
    expect(topOf(new PageGeometry([], 1, new Map()), { page: 2, fraction: 0.5, across: 0 })).toBe(0)
  })
})

describe("the documents recently shown", () => {
  const stored = new Map<string, string>()
  const storage = {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => void stored.set(key, value)
  }

  afterEach(() => {
    stored.clear()
    delete (globalThis as { localStorage?: unknown }).localStorage
  })

  it("keeps the latest first, each once, at most MAX_RECENT", () => {
    const entries = Array.from(
      { length: MAX_RECENT + 3 },
      (_, index) => ({ uuid: `d${index}`, title: null, at: index })
    )
    const list = entries.reduce(withRecent, [])
    expect(list.length).toBe(MAX_RECENT)
    expect(list[0]!.uuid).toBe(`d${MAX_RECENT + 2}`)
    const again = withRecent(list, { uuid: "d5", title: "again", at: 99 })
    expect(again[0]).toEqual({ uuid: "d5", title: "again", at: 99 })
    expect(again.filter((entry) => entry.uuid === "d5").length).toBe(1)
  })

  it("is read back from localStorage; without storage, or with something else stored, it is empty", () => {
    expect(recentDocuments()).toEqual([])
    rememberDocument("b64_x", "x.pdf")
    expect(recentDocuments()).toEqual([])
    Object.assign(globalThis, { localStorage: storage })
    rememberDocument("b64_a", "a.pdf")
    rememberDocument("b64_b", null)
    expect(recentDocuments().map((entry) => [entry.uuid, entry.title])).toEqual([["b64_b", null], ["b64_a", "a.pdf"]])
    stored.set("docstack-viewer-recent", "{not json")
    expect(recentDocuments()).toEqual([])
    stored.set("docstack-viewer-recent", JSON.stringify([{ uuid: 3 }, { uuid: "b64_c", title: null, at: 1 }]))
    expect(recentDocuments()).toEqual([{ uuid: "b64_c", title: null, at: 1 }])
  })

  it("reads a document ID from a bare ID, a part's ID or a viewer link, and nothing else", () => {
    expect(documentIdOf("  b64_AbC-12_x ")).toBe("b64_AbC-12_x")
    expect(documentIdOf("b64_mail/1/0")).toBe("b64_mail/1/0")
    expect(documentIdOf("https://viewer.example/?uuid=b64_q&page=3")).toBe("b64_q")
    expect(documentIdOf("?uuid=b64_q")).toBe("b64_q")
    expect(documentIdOf("https://viewer.example/other")).toBeNull()
    expect(documentIdOf("not a document")).toBeNull()
    expect(documentIdOf("https://viewer.example/?uuid=")).toBeNull()
    expect(documentIdOf("")).toBeNull()
  })
})
