/**
 * Page text: from pdf.js text items to positioned runs in the displayed page's space, and search
 * over those runs. Pure functions; the worker feeds them.
 */
import { RE2JS } from "re2js"
import {
  PageSearchHit,
  PositionText,
  Rect,
  type SearchOptions,
  TextPosition,
  TextRange
} from "../../../schemas/broker/Content.ts"
import { concat } from "../engine/Matrix.ts"

/** The part of a pdf.js TextItem this module reads. */
export interface RawTextItem {
  readonly str: string
  readonly dir: string
  readonly width: number
  readonly height: number
  readonly transform: ReadonlyArray<number>
  readonly fontName: string
  readonly hasEOL: boolean
}

export interface RawTextStyle {
  readonly fontFamily: string
  readonly ascent: number
  readonly descent: number
  readonly vertical: boolean
}

const round2 = (n: number) => Math.round(n * 100) / 100

export interface PositionInput {
  readonly pageNumber: number
  readonly items: ReadonlyArray<RawTextItem>
  readonly styles: Readonly<Record<string, RawTextStyle>>
  /** Maps PDF user space to the displayed page (points, origin top left, y down). */
  readonly viewportTransform: ReadonlyArray<number>
  /** Font names by pdf.js font ID, where the worker knows the real one. */
  readonly fontNames: (fontId: string) => string | undefined
  /** Relative advance widths of the characters of a run, in any unit; scaled to the run's width. */
  readonly measure: (text: string, fontFamily: string) => ReadonlyArray<number>
}

/**
 * One TextPosition per non-blank pdf.js item. Boxes are axis-aligned in the displayed page space;
 * paragraphs group consecutive lines whose spacing stays within 1.6 line heights.
 */
export const toTextPositions = (input: PositionInput): Array<TextPosition> => {
  const result: Array<TextPosition> = []
  let paragraphId = 0
  let previous:
    | { readonly bottom: number; readonly left: number; readonly fontSize: number; readonly eol: boolean }
    | undefined
  for (const item of input.items) {
    if (item.str.trim() === "") {
      if (previous && item.hasEOL) previous = { ...previous, eol: true }
      continue
    }
    const style = input.styles[item.fontName] ??
      { fontFamily: "sans-serif", ascent: 0.8, descent: -0.2, vertical: false }
    const tx = concat(item.transform, input.viewportTransform)
    const fontSize = Math.hypot(tx[2], tx[3]) || Math.hypot(tx[0], tx[1])
    const up: readonly [number, number] = [tx[2] / fontSize, tx[3] / fontSize]
    const along: readonly [number, number] = style.vertical ? [-up[0], -up[1]] : [-up[1], up[0]]
    const ascent = style.ascent > 0 ? style.ascent : 0.8
    const descent = style.descent < 0 ? style.descent : -0.2
    const length = style.vertical ? item.height : item.width
    const across: readonly [number, number] = style.vertical ? [-along[1], along[0]] : up
    const [lo, hi] = style.vertical ? [-0.5 * fontSize, 0.5 * fontSize] : [descent * fontSize, ascent * fontSize]
    // The box of the four corners (0 or length along the run, lo or hi across it).
    const x0 = tx[4] + across[0] * lo, x1 = tx[4] + across[0] * hi, dx = along[0] * length
    const y0 = tx[5] + across[1] * lo, y1 = tx[5] + across[1] * hi, dy = along[1] * length
    const minX = Math.min(x0, x1) + Math.min(0, dx), maxX = Math.max(x0, x1) + Math.max(0, dx)
    const minY = Math.min(y0, y1) + Math.min(0, dy), maxY = Math.max(y0, y1) + Math.max(0, dy)
    // Built here, so not validated again (a hot loop: hundreds of runs a page).
    const position = new Rect(
      { x: round2(minX), y: round2(minY), w: round2(maxX - minX), h: round2(maxY - minY) },
      true
    )
    const rotation = ((Math.round((Math.atan2(along[1], along[0]) * 180) / Math.PI / 90) * 90) % 360 + 360) % 360
    const relative = input.measure(item.str, style.fontFamily)
    let total = 0
    for (const w of relative) total += w
    const individualWidths = relative.map((w) => round2(total > 0 ? (w / total) * length : length / relative.length))

    const bottom = position.y + position.h
    const newParagraph = previous === undefined ||
      (previous.eol &&
        (position.y - previous.bottom > 0.6 * fontSize || Math.abs(position.x - previous.left) > 3 * fontSize)) ||
      Math.abs(fontSize - previous.fontSize) > 0.25 * fontSize
    if (newParagraph && previous !== undefined) paragraphId++
    previous = { bottom, left: position.x, fontSize, eol: item.hasEOL }

    result.push(
      new TextPosition({
        pageNumber: input.pageNumber,
        position,
        text: item.str,
        individualWidths,
        fontSize: round2(fontSize),
        font: input.fontNames(item.fontName) ?? style.fontFamily,
        clickableDestination: null,
        paragraphId,
        rightToLeftText: item.dir === "rtl",
        rotation
      }, true)
    )
  }
  return result
}

// ---- search -------------------------------------------------------------------------------

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
