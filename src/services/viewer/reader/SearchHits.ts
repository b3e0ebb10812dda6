/**
 * The broker's search answer as hits a browser can count and step through. Per page, the broker
 * gives one piece (text and box) per text run a match touches, without saying which pieces make one
 * match: a match across runs (over two lines, or over two runs of one line) is several pieces in a
 * row. They are grouped back into matches by the broker's own search rules
 * (src/services/broker/text/TextSearch.ts): runs joined with nothing, a space or a line break by where
 * they stand, a hyphen ending a line between letters dropped, compatibility forms and (unless
 * accentSensitive) accents folded. A hit is the longest row of pieces that the query matches whole;
 * its pieces on one line make one box, so a hit over two lines has two.
 */
import { RE2JS } from "re2js"
import { type PositionText, Rect, type SearchOptions } from "../../../schemas/broker/Content.ts"
import { ViewerSearchHit } from "../../../schemas/viewer/Reader.ts"

/** The most pieces one match is looked for in; a match over more runs counts as several hits. */
const MAX_PIECES_PER_HIT = 16

const HYPHENS = "-\u00ad\u2010"
const LETTER = /^\p{L}$/u

const round2 = (n: number) => Math.round(n * 100) / 100

/** Character by character, as the broker folds both the page's text and the query. */
const fold = (text: string, accentSensitive: boolean) =>
  Array.from(
    { length: text.length },
    (_, i) => accentSensitive ? text[i]!.normalize("NFKC") : text[i]!.normalize("NFKD").replace(/\p{M}/gu, "")
  ).join("")

/** The broker's pattern for these options; undefined if it does not compile here. */
const compile = (options: SearchOptions) => {
  const query = fold(options.searchText, options.accentSensitive)
  const source = options.regex ? query : query.trim().split(/\s+/).map((word) => RE2JS.quote(word)).join("\\s+")
  try {
    return RE2JS.compile(source, options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE)
  } catch {
    return undefined
  }
}

const middle = (rect: Rect) => rect.y + rect.h / 2
const sameLine = (a: Rect, b: Rect) => Math.abs(middle(a) - middle(b)) < b.h / 2

/**
 * The pieces' text as the broker joins its runs: nothing between close runs of a line, a space
 * between distant ones, a line break between lines (the run's font size taken as its box height);
 * then a hyphen ending a line between letters dropped with the break.
 */
const joinPieces = (pieces: ReadonlyArray<PositionText>) => {
  let text = ""
  pieces.forEach((piece, i) => {
    if (i > 0) {
      const previous = pieces[i - 1]!.position
      const gap = piece.position.x - (previous.x + previous.w)
      text += !sameLine(previous, piece.position) ? "\n" : gap < 0.15 * piece.position.h ? "" : " "
    }
    text += piece.text
  })
  let joined = ""
  for (let i = 0; i < text.length; i++) {
    const hyphenated = HYPHENS.includes(text[i]!) && text[i + 1] === "\n" && LETTER.test(text[i - 1] ?? "") &&
      LETTER.test(text[i + 2] ?? "")
    if (hyphenated) i++
    else joined += text[i]
  }
  return joined
}

/** One box per line: the union of the pieces' boxes on it. */
const lineRects = (pieces: ReadonlyArray<PositionText>) => {
  const rects: Array<Rect> = []
  for (const { position } of pieces) {
    const last = rects.at(-1)
    if (last !== undefined && sameLine(last, position)) {
      const x = Math.min(last.x, position.x)
      const y = Math.min(last.y, position.y)
      rects[rects.length - 1] = new Rect({
        x: round2(x),
        y: round2(y),
        w: round2(Math.max(last.x + last.w, position.x + position.w) - x),
        h: round2(Math.max(last.y + last.h, position.y + position.h) - y)
      })
    } else rects.push(position)
  }
  return rects
}

const nonBlankLength = (text: string) => text.replace(/\s/g, "").length

/** The hits of one page, from its pieces in the broker's order. */
const pageHits = (
  pageNumber: number,
  pieces: ReadonlyArray<PositionText>,
  options: SearchOptions,
  pattern: RE2JS | undefined
) => {
  // A plain query matches exactly its own characters: no longer row can match once they are exceeded.
  const queryLength = options.regex ? Infinity : nonBlankLength(fold(options.searchText, options.accentSensitive))
  const hits: Array<ViewerSearchHit> = []
  let start = 0
  while (start < pieces.length) {
    let size = 1
    for (let count = 1; pattern && count <= MAX_PIECES_PER_HIT && start + count <= pieces.length; count++) {
      const folded = fold(joinPieces(pieces.slice(start, start + count)), options.accentSensitive)
      if (nonBlankLength(folded) > queryLength) break
      if (pattern.matcher(folded).matches()) size = count
    }
    const group = pieces.slice(start, start + size)
    hits.push(
      new ViewerSearchHit({ pageNumber, text: joinPieces(group).replaceAll("\n", " "), rects: lineRects(group) })
    )
    start += size
  }
  return hits
}

/** Every hit of the broker's `pagesResults` (page number → pieces), in page order. */
export const searchHits = (
  options: SearchOptions,
  pagesResults: Readonly<Record<string, ReadonlyArray<{ readonly positionText: PositionText }>>>
): Array<ViewerSearchHit> => {
  const pattern = compile(options)
  return Object.entries(pagesResults)
    .map(([page, pieces]) => ({ page: Number(page), pieces: pieces.map((piece) => piece.positionText) }))
    .sort((a, b) => a.page - b.page)
    .flatMap(({ page, pieces }) => pageHits(page, pieces, options, pattern))
}
