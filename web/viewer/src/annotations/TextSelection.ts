/**
 * The reader's text selection as boxes on the pages: one box per selected piece of a line, cut from
 * each text run by its characters' widths (pageContent's individualWidths), so a highlight or a
 * redaction covers exactly the glyphs selected, not the approximate width of the browser's font
 * that the text layer is drawn in.
 */
import type { Rect, TextRun } from "../client/ViewerClient.ts"
import { runOf } from "../pages/TextLayer.ts"

export interface SelectedText {
  /** 0-based page. */
  readonly page: number
  readonly quads: ReadonlyArray<Rect>
  readonly text: string
}

/** The selection as the shadow root sees it (Chromium's ShadowRoot.getSelection), else the document's. */
export const selectionIn = (root: ShadowRoot): Selection | null => {
  const own = (root as ShadowRoot & { getSelection?: () => Selection | null }).getSelection?.()
  return own ?? document.getSelection()
}

const codePoints = (text: string, utf16Offset: number) => Array.from(text.slice(0, utf16Offset)).length

/** The box of characters `from` to `to` (code points) of a run, along its direction. */
export const characterBox = (run: TextRun, from: number, to: number): Rect => {
  const chars = Array.from(run.text)
  const { x, y, w, h } = run.position
  const rotation = ((run.rotation % 360) + 360) % 360
  const length = rotation === 90 || rotation === 270 ? h : w
  const widths = run.individualWidths.length === chars.length
    ? run.individualWidths
    : chars.map(() => length / Math.max(1, chars.length))
  let start = 0
  for (let k = 0; k < from; k++) start += widths[k]!
  let end = start
  for (let k = from; k < to; k++) end += widths[k]!
  start = Math.min(start, length)
  end = Math.min(end, length)
  switch (rotation) {
    case 90:
      return { x, y: y + start, w, h: end - start }
    case 180:
      return { x: x + w - end, y, w: end - start, h }
    case 270:
      return { x, y: y + h - end, w, h: end - start }
    default:
      return { x: x + start, y, w: end - start, h }
  }
}

/** Boxes on one line that touch are one box: a highlight over three words is one rectangle, not three. */
const mergeLine = (quads: ReadonlyArray<Rect>): Array<Rect> => {
  const merged: Array<Rect> = []
  for (const q of quads) {
    const last = merged[merged.length - 1]
    const sameLine = last !== undefined && Math.abs(last.y - q.y) < Math.min(last.h, q.h) / 2 &&
      Math.abs(last.h - q.h) < Math.max(last.h, q.h) / 2
    if (sameLine && q.x <= last.x + last.w + q.h * 0.6 && q.x + q.w >= last.x) {
      const x0 = Math.min(last.x, q.x)
      const y0 = Math.min(last.y, q.y)
      const x1 = Math.max(last.x + last.w, q.x + q.w)
      const y1 = Math.max(last.y + last.h, q.y + q.h)
      merged[merged.length - 1] = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }
    } else {
      merged.push(q)
    }
  }
  return merged
}

/** The selected text of every page in `root`, page by page; empty when nothing is selected. */
export const selectedText = (root: ShadowRoot): ReadonlyArray<SelectedText> => {
  const selection = selectionIn(root)
  if (selection === null || selection.rangeCount === 0 || selection.isCollapsed) return []
  const range = selection.getRangeAt(0)
  const found = new Map<number, { quads: Array<Rect>; text: Array<string> }>()
  for (const page of root.querySelectorAll<HTMLElement>("docstack-page")) {
    const index = Number(page.dataset.pageNumber) - 1
    for (const span of page.querySelectorAll<HTMLElement>(".text-layer span")) {
      if (!range.intersectsNode(span)) continue
      const run = runOf(span)
      const node = span.firstChild
      if (run === undefined || node === null) continue
      const text = node.textContent ?? ""
      const startOffset = range.startContainer === node ? range.startOffset : 0
      const endOffset = range.endContainer === node
        ? range.endOffset
        : range.endContainer === span && range.endOffset === 0
        ? 0
        : text.length
      if (endOffset <= startOffset) continue
      const chars = Array.from(text)
      let from = codePoints(text, startOffset)
      let to = codePoints(text, endOffset)
      // Spaces at either end are not part of what a reader means to mark.
      while (from < to && /\s/.test(chars[from]!)) from++
      while (to > from && /\s/.test(chars[to - 1]!)) to--
      if (to <= from) continue
      const piece = chars.slice(from, to).join("")
      const entry = found.get(index) ?? { quads: [], text: [] }
      entry.quads.push(characterBox(run, from, to))
      entry.text.push(piece)
      found.set(index, entry)
    }
  }
  return [...found].sort(([a], [b]) => a - b).map(([page, { quads, text }]) => ({
    page,
    quads: mergeLine(quads),
    text: text.join(" ")
  }))
}
