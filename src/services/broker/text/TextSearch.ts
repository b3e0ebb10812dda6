/**
 * Search over a page's positioned runs (PdfiumText.ts reads them). Pure functions; the worker
 * feeds them.
 */
import { RE2JS } from "re2js"
import {
  PageSearchHit,
  PositionText,
  Rect,
  type SearchOptions,
  type TextPosition,
  TextRange
} from "../../../schemas/broker/Content.ts"

const round2 = (n: number) => Math.round(n * 100) / 100

/** The most matches reported for one page; a pattern matching everything stops there. */
export const MAX_MATCHES_PER_PAGE = 5_000

export class InvalidSearchPattern extends Error {}

/** Page text with the index of every character back into the runs. */
const joinRuns = (runs: ReadonlyArray<TextPosition>) => {
  let text = ""
  const starts: Array<number> = []
  runs.forEach((run, i) => {
    if (i > 0) {
      const prev = runs[i - 1]!
      const sameLine =
        Math.abs(prev.position.y + prev.position.h / 2 - (run.position.y + run.position.h / 2)) < run.position.h / 2
      const gap = run.position.x - (prev.position.x + prev.position.w)
      text += sameLine && gap < 0.15 * run.fontSize ? "" : sameLine ? " " : "\n"
    }
    starts.push(text.length)
    text += run.text
  })
  return { text, starts }
}

const HYPHENS = "-\u00ad\u2010"
const LETTER = /^\p{L}$/u

/**
 * Drops a hyphen that splits a word at a line end ("nano-\njit" reads "nanojit"), as pdftotext and
 * pdf.js's own find do, so the word is found; remembers where each kept char came from.
 */
const joinHyphenated = (text: string) => {
  let joined = ""
  const origin: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    if (
      HYPHENS.includes(text[i]!) && text[i + 1] === "\n" && LETTER.test(text[i - 1] ?? "") &&
      LETTER.test(text[i + 2] ?? "")
    ) {
      i++
      continue
    }
    joined += text[i]
    origin.push(i)
  }
  return { joined, origin }
}

/**
 * Folds compatibility forms always (Arabic presentation forms, ligatures such as "ﬁ") and accents
 * unless asked not to, remembering where each folded character came from; case is left to the pattern.
 */
const fold = (text: string, accentSensitive: boolean) => {
  let folded = ""
  const origin: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    const piece = accentSensitive ? text[i]!.normalize("NFKC") : text[i]!.normalize("NFKD").replace(/\p{M}/gu, "")
    folded += piece
    for (let k = 0; k < piece.length; k++) origin.push(i)
  }
  return { folded, origin }
}

/**
 * Compiles the query with RE2 (re2js): matching takes time linear in the text whatever the pattern,
 * so a user's regular expression cannot stall a worker. Backreferences and lookaround are not
 * supported, a fair price for that.
 */
export const compilePattern = (options: SearchOptions): RE2JS => {
  const query = fold(options.searchText, options.accentSensitive).folded
  const source = options.regex ? query : query.trim().split(/\s+/).map((w) => RE2JS.quote(w)).join("\\s+")
  try {
    return RE2JS.compile(source, options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE)
  } catch (error) {
    throw new InvalidSearchPattern(`searchText is not a valid regular expression: ${(error as Error).message}`)
  }
}

const rangeRect = (run: TextPosition, first: number, last: number): Rect => {
  if (run.rotation !== 0 || run.rightToLeftText || run.individualWidths.length !== run.text.length) return run.position
  const before = run.individualWidths.slice(0, first).reduce((a, b) => a + b, 0)
  const width = run.individualWidths.slice(first, last + 1).reduce((a, b) => a + b, 0)
  return new Rect({ x: round2(run.position.x + before), y: run.position.y, w: round2(width), h: run.position.h })
}

/**
 * Finds the pattern in a page. `hits` lists each run holding part of a match with the matched
 * character ranges inside it; `matches` gives each matched piece as text with its own box.
 */
export const searchRuns = (
  page: number,
  runs: ReadonlyArray<TextPosition>,
  pattern: RE2JS,
  accentSensitive: boolean
) => {
  const { text, starts } = joinRuns(runs)
  const { joined, origin: joinedOrigin } = joinHyphenated(text)
  const { folded, origin } = fold(joined, accentSensitive)
  const rangesByRun = new Map<number, Array<TextRange>>()
  const matches: Array<PositionText> = []
  const matcher = pattern.matcher(folded)
  let count = 0
  while (count < MAX_MATCHES_PER_PAGE && matcher.find()) {
    if (matcher.end() === matcher.start()) continue
    count++
    const start = joinedOrigin[origin[matcher.start()]!]!
    const end = joinedOrigin[origin[matcher.end() - 1]!]!
    runs.forEach((run, i) => {
      const runStart = starts[i]!
      const runEnd = runStart + run.text.length - 1
      if (runEnd < start || runStart > end) return
      const first = Math.max(start, runStart) - runStart
      const last = Math.min(end, runEnd) - runStart
      const ranges = rangesByRun.get(i) ?? []
      ranges.push(new TextRange({ firstCharacter: first, lastCharacter: last }))
      rangesByRun.set(i, ranges)
      matches.push(
        new PositionText({
          pageNumber: page,
          position: rangeRect(run, first, last),
          text: run.text.slice(first, last + 1)
        })
      )
    })
  }
  const hits = [...rangesByRun.entries()].sort(([a], [b]) => a - b).map(([i, textRangeList]) =>
    new PageSearchHit({
      positionText: new PositionText({ pageNumber: page, position: runs[i]!.position, text: runs[i]!.text }),
      textRangeList
    })
  )
  return { hits, matches }
}
