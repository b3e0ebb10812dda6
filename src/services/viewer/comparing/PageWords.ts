/**
 * The words of a page, cut from the broker's text runs, and the words a text change covers: what
 * the comparison PDF highlights and what the difference route boxes (docs/viewer.md "Comparison
 * result", "The browser viewer's JSON routes"). Every box is in the text positions' space: points
 * on the page as displayed, from its top left corner, y downwards.
 */
import { Rect, type TextPosition } from "../../../schemas/broker/Content.ts"

export interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

/** A word on a page: its text, its box, and the run (line) it belongs to. */
export interface Word {
  readonly text: string
  readonly box: Box
  readonly run: number
}

/**
 * The words of a page's text runs, each cut from its run's box by the character widths (a run
 * turned or without one width per character stays one piece).
 */
export const wordsOf = (runs: ReadonlyArray<TextPosition>): ReadonlyArray<Word> =>
  runs.flatMap((run, index) => {
    const chars = Array.from(run.text)
    const p = run.position
    if (run.rotation !== 0 || run.rightToLeftText || run.individualWidths.length !== chars.length) {
      return run.text.trim() === "" ? [] : [{ text: run.text.trim(), box: p, run: index }]
    }
    const words: Array<Word> = []
    let x = p.x
    let start = -1
    let startX = 0
    chars.forEach((char, k) => {
      const blank = /\s/.test(char)
      if (!blank && start < 0) {
        start = k
        startX = x
      }
      x += run.individualWidths[k]!
      if (start >= 0 && (blank || k === chars.length - 1)) {
        const end = blank ? k : k + 1
        const right = blank ? x - run.individualWidths[k]! : x
        words.push({
          text: chars.slice(start, end).join(""),
          box: { x: startX, y: p.y, w: right - startX, h: p.h },
          run: index
        })
        start = -1
      }
    })
    return words
  })

const centreInside = (word: Box, area: Box) => {
  const cx = word.x + word.w / 2
  const cy = word.y + word.h / 2
  return cx >= area.x - 0.5 && cx <= area.x + area.w + 0.5 && cy >= area.y - 0.5 && cy <= area.y + area.h + 0.5
}

/**
 * The words of one side of a change: those whose centre lies in the change's box, narrowed to the
 * run of them that spells the change's text when the box (the union over several lines) holds
 * more.
 */
export const changedWords = (words: ReadonlyArray<Word>, text: string, area: Box): ReadonlyArray<Word> => {
  const inside = words.filter((word) => centreInside(word.box, area))
  const wanted = text.split(/\s+/).filter((w) => w !== "")
  for (let from = 0; inside.length > wanted.length && from + wanted.length <= inside.length; from++) {
    if (wanted.every((w, k) => inside[from + k]!.text === w)) return inside.slice(from, from + wanted.length)
  }
  return inside
}

/** The smallest rectangle holding every box. */
export const union = (boxes: ReadonlyArray<Box>): Rect => {
  const x0 = Math.min(...boxes.map((b) => b.x))
  const y0 = Math.min(...boxes.map((b) => b.y))
  const x1 = Math.max(...boxes.map((b) => b.x + b.w))
  const y1 = Math.max(...boxes.map((b) => b.y + b.h))
  return new Rect({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 })
}

/** The words grouped by line (text run), lines in the order their first word comes. */
export const lines = (words: ReadonlyArray<Word>): ReadonlyArray<ReadonlyArray<Word>> => {
  const byRun = new Map<number, Array<Word>>()
  for (const word of words) byRun.set(word.run, [...(byRun.get(word.run) ?? []), word])
  return [...byRun.values()]
}
